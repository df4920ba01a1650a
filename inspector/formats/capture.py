"""Proxy captures: what ``context-inspector proxy`` recorded, one JSON line per request
(layout in :mod:`inspector.proxy.capture_writer`).

Every request body is the exact input of one model call, so the session is built from the bodies
themselves: the system prompt, the tool definitions and every ``cache_control`` breakpoint are the
ones sent, and each call's recorded usage sits on the assistant message that call produced.

**Conversations.** Requests are grouped by shared message prefix: a request continues the
conversation whose latest request's messages (``cache_control`` aside, since agents move their
breakpoints every call) are a prefix of its own, with the same system prompt (Responses:
``instructions``); otherwise it starts a new one. The session's messages are those of the
**main** conversation (most calls; then most messages): its latest request body plus the answer
to it. Every other conversation (title generation, sub-agents, one-off calls) and every
``count_tokens`` request is in ``Session.sidechains``, named ``"<api> from line N"``.

**Per call.** The assistant message a call produced carries ``usage`` (the response's, with
``model``) and ``extra["capture"]``: ``{"line", "exchange", "api", "exact", "stop_reason",
"cache_breakpoints"}``. The messages shown are the latest request's, with its breakpoints;
``cache_breakpoints`` lists the message indices where that call's own request had one (agents
move them forward every call). Server-side context changes the response recorded go there too:
``compaction`` (Anthropic ``usage.iterations``: the tokens summarised and the summary's size;
the ``compaction`` block itself starts the context, read by the Messages reader) and
``applied_edits`` (``context_management.applied_edits``: what context editing cleared). ``exact`` is False for Responses requests that carry
``previous_response_id``: the server added state the request does not show. Such a request
continues the conversation that holds that response (its input, then its output, then the new
input) when the capture has it.

Failed requests (an upstream error, no answer, a body that was not JSON) are listed in
``Session.skipped`` as ignored, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..model import Message, Session, SourceRef, TextBlock, Usage
from . import anthropic, openai_chat
from .base import Format, Probe, register
from .jsondoc import ShapeError
from .openai_responses import ItemReader, tool_definitions
from .reading import ANTHROPIC, OPENAI, usage_from
from .records import head_records, ignored, parse_line, read_stream

NAME = "capture"
CONVERSATION_APIS = frozenset({"messages", "chat", "responses"})


def _without_cache_control(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_cache_control(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_without_cache_control(v) for v in value]
    return value


def _keys(value: Any) -> tuple[int, int, bool]:
    """``(raw, shape, breakpoint)`` of one message: fingerprints as sent and with cache_control
    removed, and whether it carries a cache_control breakpoint."""
    raw = orjson.dumps(value)
    if b'"cache_control"' not in raw:
        return hash(raw), hash(raw), False
    return hash(raw), hash(orjson.dumps(_without_cache_control(value))), True


@dataclass
class Call:
    """One recorded model call: its effective input items and what it answered."""

    line: int
    record: dict[str, Any]
    api: str
    head: Any  # the system prompt or instructions
    items: list[Any]  # the input messages (Responses: items, earlier turns included)
    raw: list[int] = field(default_factory=list)
    shape: list[int] = field(default_factory=list)
    exact: bool = True
    n_items: int = 0
    #: Positions in ``[head] + items`` that carry a cache_control breakpoint in this request.
    breakpoints: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        keys = [_keys(self.head)] + [_keys(item) for item in self.items]
        self.raw = [k[0] for k in keys]
        self.shape = [k[1] for k in keys]
        self.breakpoints = [p for p, k in enumerate(keys) if k[2]]
        self.n_items = len(self.items)

    def forget_body(self) -> None:
        """Drop the request body once a later call carries the same messages: a long session's
        capture holds every body, and only the latest of each conversation is read again."""
        self.items = []
        self.head = None
        self.record = {k: v for k, v in self.record.items() if k != "request"}

    @property
    def response(self) -> dict[str, Any]:
        r = self.record.get("response")
        return r if isinstance(r, dict) else {}

    def output(self) -> list[Any]:
        """The answer as items the next request would carry."""
        content = self.response.get("content")
        if self.api == "messages":
            return [{"role": "assistant", "content": content}] if isinstance(content, list) else []
        if self.api == "chat":
            return [content] if isinstance(content, dict) else []
        return list(content) if isinstance(content, list) else []


@dataclass
class Conversation:
    calls: list[Call]

    @property
    def last(self) -> Call:
        return self.calls[-1]

    def rank(self) -> tuple[int, int]:
        return len(self.calls), self.last.n_items


class CaptureStream:
    """Incremental capture reader (a :class:`~inspector.formats.base.RecordStream`); the session
    is rebuilt from the main conversation's latest request when it is asked for."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._session = Session(path=str(path) if path else None, format=NAME)
        self.recognised = 0
        self.conversations: list[Conversation] = []
        self.side_calls: list[Call] = []  # count_tokens
        self._by_response_id: dict[str, tuple[Conversation, Call]] = {}
        self._skipped: list[Any] = []
        self._main_problems: list[Any] = []  # request bodies of the main conversation that did not read
        self._capture: dict[str, Any] | None = None  # the capture_start record's facts
        self._built_for: tuple[int, int] | None = None  # (conversation id, calls) of the build
        self._changed = True
        self._old_raw: list[int] = []
        self._dirty = 0
        #: Side conversations already built, by first line: (calls, messages).
        self._side_cache: dict[int, tuple[int, list[Message]]] = {}

    # -- feeding -------------------------------------------------------------------------------

    def feed(self, line: bytes, line_no: int) -> None:
        record = parse_line(line, line_no, self._skipped)
        if record is None:
            self._changed = True
            return
        kind = record.get("type")
        source = SourceRef(line=line_no)
        if kind == "capture_start":
            self.recognised += 1
            self._capture = {k: record.get(k) for k in ("time", "version", "upstreams")}
            return
        if kind != "exchange":
            self._skipped.append(ignored(source, f"{kind} (unknown record type)"))
            return
        self.recognised += 1
        self._changed = True
        self._exchange(record, line_no, source)

    def _exchange(self, record: dict[str, Any], line_no: int, source: SourceRef) -> None:
        api, request, status = record.get("api"), record.get("request"), record.get("status")
        if not isinstance(request, dict):
            self._skipped.append(ignored(source, f"request {record.get('n')}: {record.get('request_note') or 'no JSON request body'}"))
            return
        if status != 200 or not isinstance(record.get("response"), dict):
            why = record.get("upstream_error") or (f"the upstream answered {status}" if status else "no answer")
            self._skipped.append(ignored(source, f"request {record.get('n')}: {why}"))
            return
        if api == "count_tokens" or api not in CONVERSATION_APIS:
            self.side_calls.append(Call(line_no, record, str(api), request.get("system"), _list(request.get("messages"))))
            return
        call, parent = self._call(record, line_no, request)
        conversation = parent or self._continued(call)
        if conversation is None:
            conversation = Conversation([])
            self.conversations.append(conversation)
        if conversation.calls and conversation.last.api != "responses":
            conversation.last.forget_body()
        conversation.calls.append(call)
        rid = call.response.get("id")
        if isinstance(rid, str):
            self._by_response_id[rid] = (conversation, call)

    def _call(self, record: dict[str, Any], line_no: int, request: dict[str, Any]) -> tuple[Call, Conversation | None]:
        api = record["api"]
        if api == "messages":
            return Call(line_no, record, api, request.get("system"), _list(request.get("messages"))), None
        if api == "chat":
            return Call(line_no, record, api, None, _list(request.get("messages"))), None
        items = request.get("input")
        items = [{"role": "user", "content": items}] if isinstance(items, str) else _list(items)
        previous = request.get("previous_response_id")
        if previous is None:
            return Call(line_no, record, api, request.get("instructions"), items), None
        found = self._by_response_id.get(previous) if isinstance(previous, str) else None
        if found is None:
            call = Call(line_no, record, api, request.get("instructions"), items, exact=False)
            return call, None
        conversation, before = found
        call = Call(line_no, record, api, request.get("instructions"), before.items + before.output() + items, exact=False)
        return call, conversation

    def _continued(self, call: Call) -> Conversation | None:
        best: Conversation | None = None
        for conversation in self.conversations:
            last = conversation.last
            n = len(last.shape)
            if last.api == call.api and n <= len(call.shape) and call.shape[:n] == last.shape:
                if best is None or n > len(best.last.shape):
                    best = conversation
        return best

    # -- the session ---------------------------------------------------------------------------

    @property
    def session(self) -> Session:
        if self._changed:
            self._build()
        return self._session

    def take(self) -> tuple[int, list[Message]]:
        messages = self.session.messages
        first = min(self._dirty, len(messages))
        self._dirty = len(messages)
        return first, messages[first:]

    def _build(self) -> None:
        self._changed = False
        s = self._session
        main = max(self.conversations, key=Conversation.rank) if self.conversations else None
        if main is not None and (id(main), len(main.calls)) != self._built_for:
            self._build_main(main)
        s.skipped = self._skipped + self._main_problems
        s.sidechains = self._side_sessions(main)

    def _build_main(self, main: Conversation) -> None:
        s = self._session
        self._main_problems = []
        built = _conversation_messages(main, self._main_problems)
        s.messages, s.tools = built.messages, built.tools
        s.extra = {**built.extra, "capture": self._capture}
        s.provider = main.last.record.get("provider")
        s.model = main.last.response.get("model") or built.extra.get("model")
        # Re-report from the first message whose body changed (a moved breakpoint, a new branch).
        raw = main.last.raw
        same = 0
        while same < min(len(raw), len(self._old_raw)) and raw[same] == self._old_raw[same]:
            same += 1
        kept = self._built_for is not None and id(main) == self._built_for[0] and main.last.api != "responses"
        self._dirty = min(self._dirty, max(0, same - 1) if kept else 0)
        self._old_raw = raw
        self._built_for = (id(main), len(main.calls))

    def _side_sessions(self, main: Conversation | None) -> dict[str, list[Message]]:
        sides: list[tuple[int, str, list[Message]]] = []
        for conversation in self.conversations + [Conversation([call]) for call in self.side_calls]:
            if conversation is main:
                continue
            first = conversation.calls[0]
            cached = self._side_cache.get(first.line)
            if cached is None or cached[0] != len(conversation.calls):
                cached = self._side_cache[first.line] = (len(conversation.calls), _conversation_messages(conversation, []).messages)
            sides.append((first.line, f"{first.api} from line {first.line}", cached[1]))
        return {name: messages for _, name, messages in sorted(sides, key=lambda t: t[0])}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _conversation_messages(conversation: Conversation, skipped: list[Any]) -> Session:
    """The conversation's latest request plus its answer, with every call's usage attached."""
    last = conversation.last
    request = last.record["request"]
    try:
        if last.api == "responses":
            session, starts = _responses_session(last, conversation)
        else:
            session, starts = _document_session(last, conversation)
    except ShapeError as exc:
        skipped.append(ignored(SourceRef(line=last.line), f"request {last.record.get('n')}: {exc.problem} at {exc.path}"))
        return Session(format=NAME)
    offset = int(last.api == "messages" and bool(session.messages) and session.messages[0].role == "system")
    for call, index in zip(conversation.calls, starts):
        if index is None or index >= len(session.messages) or session.messages[index].role != "assistant":
            continue
        message = session.messages[index]
        message.usage = _usage(call)
        message.extra = {**message.extra, "capture": {
            "line": call.line, "exchange": call.record.get("n"), "api": call.api, "exact": call.exact,
            "stop_reason": call.response.get("stop_reason"),
            "cache_breakpoints": [0 if p == 0 else offset + p - 1 for p in call.breakpoints],
            **_server_context_edits(call.response),
        }}
    for m in session.messages:
        m.source = SourceRef(line=last.line, json_path=m.source.json_path)
    session.extra.setdefault("model", request.get("model"))
    return session


def _document_session(last: Call, conversation: Conversation) -> tuple[Session, list[int | None]]:
    """Messages and Chat Completions: the body with the answer appended, read by the format's
    own request reader; call k's answer is the message right after its input."""
    request = last.record["request"]
    doc = {**request, "messages": last.items + last.output()}
    reader = anthropic if last.record.get("provider") == "anthropic" else openai_chat
    session = reader.session_from_document(doc)
    offset = len(session.messages) - len(doc["messages"])
    return session, [offset + call.n_items for call in conversation.calls]


def _responses_session(last: Call, conversation: Conversation) -> tuple[Session, list[int | None]]:
    """Responses: items grouped by :class:`ItemReader`, a response closed at each call's input end."""
    request = last.record["request"]
    session = Session(format=NAME)
    reader = ItemReader(session.messages, session.skipped)
    if isinstance(last.head, str) and last.head:
        reader.append(Message(index=0, role="system", content=[TextBlock(text=last.head)], source=SourceRef(json_path="$.request.instructions"), extra={"request_field": "instructions"}))
    ends = {call.n_items: k for k, call in enumerate(conversation.calls)}
    starts: list[int | None] = [None] * len(conversation.calls)
    for k, item in enumerate(last.items + last.output()):
        if k in ends:
            reader.close_response()
            starts[ends[k]] = len(session.messages)
        reader.add(item, SourceRef(json_path=f"$.request.input[{k}]" if k < len(last.items) else f"$.response.content[{k - len(last.items)}]"))
    session.tools = tool_definitions(request.get("tools"))
    session.extra = {k: v for k, v in request.items() if k not in ("input", "instructions", "tools")}
    return session, starts


def _server_context_edits(response: dict[str, Any]) -> dict[str, Any]:
    """What a response recorded about the server changing the context: the ``compaction`` step
    of ``usage.iterations`` (``input_tokens``: the context it summarised; ``output_tokens``: the
    summary's size) and Anthropic's ``context_management.applied_edits`` (tool uses and thinking
    the server cleared, with ``cleared_input_tokens``)."""
    out: dict[str, Any] = {}
    usage = response.get("usage")
    iterations = usage.get("iterations") if isinstance(usage, dict) else None
    for step in iterations if isinstance(iterations, list) else []:
        if isinstance(step, dict) and step.get("type") == "compaction":
            out["compaction"] = {k: step[k] for k in ("input_tokens", "output_tokens") if isinstance(step.get(k), int)}
    management = response.get("context_management")
    edits = management.get("applied_edits") if isinstance(management, dict) else None
    if isinstance(edits, list) and edits:
        out["applied_edits"] = edits
    return out


def _usage(call: Call) -> Usage | None:
    """The usage the response recorded, with the model that served it (reasoning tokens from
    OpenAI's output details come with the OPENAI key table)."""
    model = call.response.get("model")
    keys = ANTHROPIC if call.record.get("provider") == "anthropic" else OPENAI
    return usage_from(call.response.get("usage"), keys, model if isinstance(model, str) else None)


def read(path: Path) -> Session:
    stream = read_stream(CaptureStream(path), path, "no proxy capture records found.", 'JSONL lines {"type": "capture_start" | "exchange", ...} (a context-inspector proxy capture)')
    return stream.session


def detect(probe: Probe) -> int:
    for record in head_records(probe, limit=3):
        if record.get("type") == "capture_start" and isinstance(record.get("upstreams"), dict):
            return 100
        if record.get("type") == "exchange" and "provider" in record and "request" in record:
            return 90
    return 0


def stream(path: Path) -> CaptureStream:
    return CaptureStream(path)


FORMAT = register(
    Format(
        name=NAME,
        description="context-inspector proxy capture (one JSON line per API request)",
        detect=detect,
        read=read,
        appendable=True,
        suffix=".jsonl",
        stream=stream,
    )
)
