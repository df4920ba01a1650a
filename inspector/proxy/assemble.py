"""What a provider answered, assembled from the bytes the proxy forwarded: usage, stop reason
and content, from a plain JSON response or a server-sent event stream.

Pure functions of bytes; run by the capture writer, never on the forwarding path. Three APIs:

- ``messages`` (Anthropic Messages): ``message_start`` carries the message and the input usage,
  ``content_block_start``/``_delta`` build each block (``text_delta``, ``thinking_delta``,
  ``signature_delta``, ``input_json_delta`` whose pieces make the tool input, ``citations_delta``),
  ``message_delta`` the stop reason and the final output usage.
- ``chat`` (OpenAI Chat Completions): ``choices[0].delta`` pieces (content, refusal, tool call
  pieces by ``index``), ``finish_reason``, and ``usage`` on the last chunk when the client asked
  for it; ``data: [DONE]`` ends the stream.
- ``responses`` (OpenAI Responses): the ``response`` object of ``response.completed`` (or
  ``.incomplete`` / ``.failed``) holds the output items and usage.

``count_tokens`` answers ``{"input_tokens": N}``: that is its usage.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import orjson

Assembled = dict[str, Any]


def sse_events(data: bytes) -> Iterator[tuple[str | None, bytes]]:
    """``(event name, data)`` of every event in a server-sent event stream (data lines joined)."""
    text = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    for raw in text.split(b"\n\n"):
        name: str | None = None
        lines: list[bytes] = []
        for line in raw.split(b"\n"):
            if line.startswith(b"event:"):
                name = line[6:].strip().decode("utf-8", "replace")
            elif line.startswith(b"data:"):
                lines.append(line[5:].removeprefix(b" "))
        if lines:
            yield name, b"\n".join(lines)


def _json(data: bytes) -> Any:
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return None


def assemble(api: str, body: bytes, streamed: bool) -> Assembled:
    """``{"usage", "stop_reason", "content", "id", "model"}`` (keys present when known) of one
    response; ``{"note": ...}`` when it cannot be read."""
    if not streamed:
        doc = _json(body)
        if not isinstance(doc, dict):
            return {"note": "the response body is not a JSON object"}
        return _plain(api, doc)
    events = [(name, _json(data)) for name, data in sse_events(body) if data != b"[DONE]"]
    events = [(name, doc) for name, doc in events if isinstance(doc, dict)]
    if api == "messages":
        return _anthropic_stream(events)
    if api == "chat":
        return _chat_stream(events)
    if api == "responses":
        return _responses_stream(events)
    return {}


def _plain(api: str, doc: dict[str, Any]) -> Assembled:
    if api == "count_tokens":
        return {"usage": {"input_tokens": doc.get("input_tokens")}}
    if api == "messages":
        return _pick(doc, content=doc.get("content"), stop_reason=doc.get("stop_reason"))
    if api == "chat":
        choice = (doc.get("choices") or [{}])[0]
        choice = choice if isinstance(choice, dict) else {}
        return _pick(doc, content=choice.get("message"), stop_reason=choice.get("finish_reason"))
    if api == "responses":
        return _pick(doc, content=doc.get("output"), stop_reason=doc.get("status"))
    return {}


def _pick(doc: dict[str, Any], **fields: Any) -> Assembled:
    out = {k: doc[k] for k in ("id", "model", "usage") if doc.get(k) is not None}
    out.update({k: v for k, v in fields.items() if v is not None})
    return out


def _anthropic_stream(events: list[tuple[str | None, dict[str, Any]]]) -> Assembled:
    out: Assembled = {}
    usage: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    json_parts: dict[int, list[str]] = {}
    for _, ev in events:
        kind = ev.get("type")
        if kind == "message_start" and isinstance(ev.get("message"), dict):
            message = ev["message"]
            out.update({k: message[k] for k in ("id", "model") if message.get(k) is not None})
            usage.update(message.get("usage") or {})
        elif kind == "content_block_start" and isinstance(ev.get("content_block"), dict):
            blocks[ev.get("index", len(blocks))] = dict(ev["content_block"])
        elif kind == "content_block_delta" and isinstance(ev.get("delta"), dict):
            block = blocks.setdefault(ev.get("index", 0), {"type": "text", "text": ""})
            _anthropic_delta(block, ev["delta"], json_parts.setdefault(ev.get("index", 0), []))
        elif kind == "message_delta":
            delta = ev.get("delta") if isinstance(ev.get("delta"), dict) else {}
            if delta.get("stop_reason") is not None:
                out["stop_reason"] = delta["stop_reason"]
            usage.update({k: v for k, v in (ev.get("usage") or {}).items() if v is not None})
        elif kind == "error":
            out["error"] = ev.get("error")
    for index, parts in json_parts.items():
        if parts and index in blocks:
            text = "".join(parts)
            try:
                blocks[index]["input"] = json.loads(text)
            except ValueError:
                blocks[index]["input"] = text  # cut off mid-stream: kept as the text received
    out["content"] = [blocks[i] for i in sorted(blocks)]
    if usage:
        out["usage"] = usage
    return out


def _anthropic_delta(block: dict[str, Any], delta: dict[str, Any], json_parts: list[str]) -> None:
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = block.get("text", "") + str(delta.get("text", ""))
    elif kind == "thinking_delta":
        block["thinking"] = block.get("thinking", "") + str(delta.get("thinking", ""))
    elif kind == "signature_delta":
        block["signature"] = block.get("signature", "") + str(delta.get("signature", ""))
    elif kind == "input_json_delta":
        json_parts.append(str(delta.get("partial_json", "")))
    elif kind == "citations_delta" and delta.get("citation") is not None:
        block.setdefault("citations", []).append(delta["citation"])


def _chat_stream(events: list[tuple[str | None, dict[str, Any]]]) -> Assembled:
    out: Assembled = {}
    message: dict[str, Any] = {"role": "assistant", "content": None}
    calls: dict[int, dict[str, Any]] = {}
    for _, ev in events:
        out.update({k: ev[k] for k in ("id", "model", "usage") if ev.get(k) is not None})
        for choice in ev.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            if choice.get("finish_reason") is not None:
                out["stop_reason"] = choice["finish_reason"]
            delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else {}
            for key in ("content", "refusal", "reasoning_content"):
                if isinstance(delta.get(key), str):
                    message[key] = (message.get(key) or "") + delta[key]
            for piece in delta.get("tool_calls") or []:
                if isinstance(piece, dict):
                    _chat_call(calls.setdefault(piece.get("index", len(calls)), {}), piece)
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    out["content"] = message
    return out


def _chat_call(call: dict[str, Any], piece: dict[str, Any]) -> None:
    if piece.get("id"):
        call["id"] = piece["id"]
    call.setdefault("type", piece.get("type") or "function")
    function = call.setdefault("function", {"name": "", "arguments": ""})
    fn = piece.get("function") if isinstance(piece.get("function"), dict) else {}
    function["name"] += str(fn.get("name") or "")
    function["arguments"] += str(fn.get("arguments") or "")


def _responses_stream(events: list[tuple[str | None, dict[str, Any]]]) -> Assembled:
    final: dict[str, Any] | None = None
    items: dict[int, Any] = {}
    for _, ev in events:
        kind = ev.get("type")
        if kind in ("response.completed", "response.incomplete", "response.failed") and isinstance(ev.get("response"), dict):
            final = ev["response"]
        elif kind == "response.output_item.done" and isinstance(ev.get("item"), dict):
            items[ev.get("output_index", len(items))] = ev["item"]
    if final is None:  # the stream stopped early: what was finished so far
        return {"content": [items[i] for i in sorted(items)], "note": "the stream ended before response.completed"}
    out = _pick(final, content=final.get("output"), stop_reason=final.get("status"))
    if not final.get("output") and items:
        out["content"] = [items[i] for i in sorted(items)]
    return out
