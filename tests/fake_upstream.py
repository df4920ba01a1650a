"""A fake Anthropic + OpenAI upstream on 127.0.0.1 for the proxy tests and benchmark (no network).

It keeps what it received (``received``: path, headers, body bytes) and answers like the real APIs:

- ``/v1/messages``: a Messages response, or with ``"stream": true`` its event stream (a text
  block and a tool_use block whose input arrives in two ``input_json_delta`` pieces);
- ``/v1/messages/count_tokens``: ``{"input_tokens": 42}``;
- ``/v1/chat/completions``: a completion, or its chunk stream ending in ``data: [DONE]``;
- ``/v1/responses``: a response, or its event stream ending in ``response.completed``.

A body that is not JSON gets a 400 ``invalid_request_error``; ``"fake": "error"`` in the body a
429 ``rate_limit_error``; ``"fake": "bad_key"`` a 401 quoting a masked key (as OpenAI does); ``"fake": "slow"`` streams an event every 50 ms for 20 s (to be cut off
by the client: ``cut_off`` is set when the proxy closes the connection). ``"fake": "chunks"`` with
``"n": N`` and ``"gap": seconds`` streams N small events stamped with ``time.perf_counter()`` as
they are sent (the benchmark).
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

from aiohttp import web

ANTHROPIC_MESSAGE = {
    "id": "msg_01",
    "type": "message",
    "role": "assistant",
    "model": "claude-test",
    "content": [{"type": "text", "text": "Hello there."}],
    "stop_reason": "end_turn",
    "usage": {"input_tokens": 120, "output_tokens": 7, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 50},
}

ANTHROPIC_EVENTS = [
    ("message_start", {"type": "message_start", "message": {"id": "msg_02", "type": "message", "role": "assistant", "model": "claude-test", "content": [], "stop_reason": None, "usage": {"input_tokens": 300, "output_tokens": 1, "cache_read_input_tokens": 2000, "cache_creation_input_tokens": 0}}}),
    ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me "}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "look."}}),
    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": "}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "\"a.py\"}"}}),
    ("content_block_stop", {"type": "content_block_stop", "index": 1}),
    ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 25}}),
    ("message_stop", {"type": "message_stop"}),
]

CHAT_COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "model": "gpt-test",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "Paris."}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 30, "completion_tokens": 2, "total_tokens": 32, "prompt_tokens_details": {"cached_tokens": 0}},
}

CHAT_CHUNKS = [
    {"id": "chatcmpl-2", "object": "chat.completion.chunk", "model": "gpt-test", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]},
    {"id": "chatcmpl-2", "object": "chat.completion.chunk", "model": "gpt-test", "choices": [{"index": 0, "delta": {"content": "Par"}, "finish_reason": None}]},
    {"id": "chatcmpl-2", "object": "chat.completion.chunk", "model": "gpt-test", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_capital", "arguments": "{\"country\":"}}]}, "finish_reason": None}]},
    {"id": "chatcmpl-2", "object": "chat.completion.chunk", "model": "gpt-test", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"France\"}"}}]}, "finish_reason": None}]},
    {"id": "chatcmpl-2", "object": "chat.completion.chunk", "model": "gpt-test", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    {"id": "chatcmpl-2", "object": "chat.completion.chunk", "model": "gpt-test", "choices": [], "usage": {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49, "prompt_tokens_details": {"cached_tokens": 16}}},
]

RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "model": "gpt-test",
    "status": "completed",
    "output": [{"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}],
    "usage": {"input_tokens": 500, "input_tokens_details": {"cached_tokens": 400}, "output_tokens": 3, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 503},
}

RESPONSE_EVENTS = [
    ("response.created", {"type": "response.created", "response": {**RESPONSE, "status": "in_progress", "output": [], "usage": None}}),
    ("response.output_text.delta", {"type": "response.output_text.delta", "output_index": 0, "content_index": 0, "delta": "Done."}),
    ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": RESPONSE["output"][0]}),
    ("response.completed", {"type": "response.completed", "response": RESPONSE}),
]


def sse(name: str | None, data: object) -> bytes:
    head = f"event: {name}\n" if name else ""
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {payload}\n\n".encode()


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class FakeUpstream:
    received: list[Received] = field(default_factory=list)
    cut_off: asyncio.Event = field(default_factory=asyncio.Event)
    runner: web.AppRunner | None = None
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> FakeUpstream:
        app = web.Application(client_max_size=1024**3)
        app.router.add_route("*", "/{tail:.*}", self.handle)
        self.runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]
        return self

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        self.received.append(Received(request.path_qs, dict(request.headers), body))
        try:
            doc = json.loads(body) if body else {}
        except ValueError:
            return web.json_response({"type": "error", "error": {"type": "invalid_request_error", "message": "The request body is not valid JSON."}}, status=400)
        doc = doc if isinstance(doc, dict) else {}
        if doc.get("fake") == "error":
            return web.json_response({"type": "error", "error": {"type": "rate_limit_error", "message": "Slow down."}}, status=429, headers={"retry-after": "7"})
        if doc.get("fake") == "bad_key":
            message = "Incorrect API key provided: sk-proj-********3210."
            return web.json_response({"error": {"message": message, "type": "invalid_request_error"}}, status=401)
        path = request.path
        if path.endswith("/messages/count_tokens"):
            return web.json_response({"input_tokens": 42})
        if doc.get("fake") == "slow":
            return await self._stream(request, ((None, {"type": "ping"}) for _ in range(400)), delay=0.05)
        if doc.get("fake") == "chunks":
            return await self._stream(request, self._timed(int(doc.get("n", 100))), delay=float(doc.get("gap", 0)))
        stream = bool(doc.get("stream"))
        if path.endswith("/messages"):
            return await self._stream(request, ANTHROPIC_EVENTS) if stream else web.json_response(ANTHROPIC_MESSAGE)
        if path.endswith("/chat/completions"):
            if stream:
                return await self._stream(request, [(None, c) for c in CHAT_CHUNKS] + [(None, "[DONE]")])
            return web.json_response(CHAT_COMPLETION)
        if path.endswith("/responses"):
            return await self._stream(request, RESPONSE_EVENTS) if stream else web.json_response(RESPONSE)
        return web.json_response({"object": "list", "data": [{"id": "model-a"}]}, headers={"x-fake-path": path})

    @staticmethod
    def _timed(n: int):
        """``n`` ping events, each stamped with ``time.perf_counter()`` as it is sent."""
        for i in range(n):
            yield None, {"type": "ping", "i": i, "t": time.perf_counter()}

    async def _stream(self, request: web.Request, events, delay: float = 0.0) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        try:
            for name, data in events:
                await response.write(sse(name, data))
                if delay:
                    await asyncio.sleep(delay)
            await response.write_eof()
        except (ConnectionError, asyncio.CancelledError):
            self.cut_off.set()
            raise
        return response


def expected_stream(events) -> bytes:
    return b"".join(sse(name, data) for name, data in events)


async def _serve_forever() -> None:
    fake = await FakeUpstream().start()
    print(f"fake upstream on {fake.url}", flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await fake.stop()


if __name__ == "__main__":  # a process of its own, for bench/bench_proxy.py
    asyncio.run(_serve_forever())
