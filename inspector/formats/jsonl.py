"""The inspector's own JSONL session format: one JSON object per line, appendable while an agent runs.

An optional header line ``{"type": "session", "version": 1, "tools": [...], "meta": {...}}``, then
one message per line: ``{"role", "content", "tool_calls", "tool_call_id", "is_error", "name",
"summary", "usage", "ts"}`` (see the README and ``context-inspector schema``; the pydantic model
of a line is :mod:`inspector.schema`). Unknown fields are kept in ``extra``, unknown content
blocks as RawBlocks.

Reading is a :class:`JsonlStream` fed one line at a time (the live follower feeds it as the file
grows): a bad line goes to ``session.skipped`` with its line number and never raises. Only a
file in which no line at all is usable is a :class:`SessionFormatError`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from ..model import (
    ImageBlock,
    Message,
    RawBlock,
    Session,
    Skipped,
    SourceRef,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolDefinition,
    ToolResultBlock,
    Usage,
    new_message,
    new_source,
    new_text,
    new_tool_call,
    new_tool_result,
)
from ..safeio import read_line
from . import hints as H
from .base import Format, Probe, SessionFormatError, register
from .common_forms import common_message
from .probe import HEAD_BYTES
from .imagesize import image_size
from .jsondoc import PathParts, ShapeError, describe, json_path, paused_gc, tool_fields
from .rawtext import raw_text
from .reading import content_blocks
from .records import iter_lines

NAME = "jsonl"
VERSION = 1
ROLES = ("system", "user", "assistant", "tool")
_HANDLED = frozenset({"role", "content", "tool_calls", "tool_call_id", "is_error", "name", "summary", "usage"})
_USAGE_KEYS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
EXPECTED = (
    'one JSON object per line: a message {"role": "system"|"user"|"assistant"|"tool", "content": ...} '
    'or a {"type": "session"} header'
)


# -- reading -------------------------------------------------------------------------------------


class JsonlStream:
    """Incremental reader (a :class:`~inspector.formats.base.RecordStream`)."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.session = Session(path=str(path) if path is not None else None, format=NAME)
        self._taken = 0
        #: Non-blank lines fed, and how many of them were a message or a header.
        self.lines = 0
        self.parsed = 0

    def feed(self, line: bytes, line_no: int) -> None:
        if not line or line.isspace():
            return
        self.lines += 1
        try:
            d = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            self._bad(line_no, f"not valid JSON ({exc.msg} at column {exc.colno}).")
            return
        try:
            if isinstance(d, dict) and d.get("type") == "session" and "role" not in d:
                self._header(d)
            else:
                index = len(self.session.messages)
                made = common_message(d, index, new_source(line_no, None, None), _plain_tool_call)
                self.session.messages.append(made or parse_message(d, index, line_no))
        except ShapeError as err:
            where = "" if not err.path else json_path(err.path) + ": "
            self._bad(line_no, f"{where}{err.problem}.")
            return
        self.parsed += 1

    def take(self) -> tuple[int, list[Message]]:
        first = self._taken
        messages = self.session.messages[first:]
        self._taken = len(self.session.messages)
        return first, messages

    def _bad(self, line_no: int, reason: str) -> None:
        self.session.skipped.append(Skipped(where=f"line {line_no}", reason=reason, kind="error"))

    def _header(self, d: dict) -> None:
        tools = d.get("tools", [])
        if not isinstance(tools, list):
            raise ShapeError(("tools",), f"expected a list of tool definitions, found {describe(tools)}")
        self.session.tools = [_tool(t, ("tools", k)) for k, t in enumerate(tools)]
        extra = self.session.extra
        extra.update((k, v) for k, v in d.items() if k not in ("type", "tools"))
        extra[H.HEADER] = True
        if "tools" not in d:
            extra[H.OMIT] = ["tools"]


def _tool(t: Any, path: PathParts) -> ToolDefinition:
    if not isinstance(t, dict) or not isinstance(t.get("name"), str):
        raise ShapeError(path, f'expected a tool definition {{"name", "description", "parameters"}}, found {describe(t)}')
    description, parameters, extra = tool_fields(t, path, "parameters")
    return ToolDefinition.model_construct(name=t["name"], description=description, parameters=parameters, extra=extra)


def _plain_tool_call(c: Any) -> ToolCallBlock | None:
    """A tool call of plain ``id``, ``name`` and ``arguments`` strings as :func:`_tool_call`
    builds it; None for any other form."""
    if type(c) is not dict or len(c) != 3:
        return None
    call_id, name, args = c.get("id"), c.get("name"), c.get("arguments")
    if type(call_id) is not str or type(name) is not str or type(args) is not str:
        return None
    return new_tool_call(call_id, name, args, {})


def parse_message(d: Any, index: int, line_no: int | None = None) -> Message:
    """One message line, parsed; ShapeError (path relative to the line) if it is not one."""
    if not isinstance(d, dict):
        raise ShapeError((), f'expected a JSON object (a message with "role"), found {describe(d)}')
    role = d.get("role")
    if role not in ROLES:
        if "role" not in d:
            raise ShapeError((), 'expected a message with "role", or a {"type": "session"} header')
        found = f'"{role}"' if isinstance(role, str) else describe(role)
        raise ShapeError(("role",), f'expected "system", "user", "assistant" or "tool", found {found}')
    extra = {} if d.keys() <= _HANDLED else {k: v for k, v in d.items() if k not in _HANDLED}
    omit: list[str] = []
    content = d.get("content")
    if "content" not in d:
        omit.append("content")
    name = d.get("name")
    if name is not None and not isinstance(name, str):
        extra["name"], name = name, None

    if role == "tool" and "tool_call_id" in d:
        blocks, form = [_top_result(d, content, name, extra)], _form(content)
    else:
        blocks, form = _blocks(content, ("content",))
        for key in ("tool_call_id", "is_error"):
            if key in d:
                extra[key] = d[key]
        if role == "tool" and not any(isinstance(b, ToolResultBlock) for b in blocks):
            raise ShapeError(("tool_call_id",), 'a "tool" message needs the id of the call it answers')

    if "tool_calls" in d:
        calls = d["tool_calls"]
        if role != "assistant" or calls is None or calls == []:
            extra["tool_calls"] = calls
        elif not isinstance(calls, list):
            raise ShapeError(("tool_calls",), f"expected a list of tool calls, found {describe(calls)}")
        else:
            blocks.extend(_tool_call(c, ("tool_calls", k), inline=False) for k, c in enumerate(calls))

    starts_context = False
    if "summary" in d:
        if d["summary"] is True:
            starts_context = True
        else:
            extra["summary"] = d["summary"]
    usage = None
    if "usage" in d:
        usage, raw_usage = _usage(d["usage"])
        if raw_usage:
            extra["usage"] = d["usage"]
    if omit:
        extra[H.OMIT] = omit
    source = new_source(line_no, None, None)
    return new_message(index, role, blocks, source, form, extra, name=name, usage=usage, starts_context=starts_context)


def _form(content: Any) -> str:
    if content is None:
        return "null"
    return "string" if isinstance(content, str) else "blocks"


def _top_result(d: dict, content: Any, name: str | None, extra: dict) -> ToolResultBlock:
    call_id = d["tool_call_id"]
    if not isinstance(call_id, str):
        raise ShapeError(("tool_call_id",), f"expected the id of the call it answers as a string, found {describe(call_id)}")
    result = _result_content(content, ("content",))
    is_error = d.get("is_error", False)
    if not isinstance(is_error, bool):
        raise ShapeError(("is_error",), f"expected true or false, found {describe(is_error)}")
    if "is_error" in d and not is_error:
        extra["is_error"] = False
    return new_tool_result(call_id, result, {}, is_error=is_error, name=name)


def _result_content(content: Any, path: PathParts) -> str | list[Any]:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[Any] = []
        for k, p in enumerate(content):
            block = _block(p, path + (k,))
            if isinstance(block, (TextBlock, ImageBlock)):
                parts.append(block)
            else:  # a block a result cannot hold: its text, kept raw for write-back
                parts.append(TextBlock(text=raw_text(p), extra={H.RAW: p}))
        return parts
    raise ShapeError(path, f"expected a string, a list of blocks or null, found {describe(content)}")


def _blocks(content: Any, path: PathParts) -> tuple[list[Any], str]:
    if type(content) is str:  # the common case, without the general helper's calls
        return [new_text(content, {})], "string"

    def other(value: Any) -> list[Any]:
        raise ShapeError(path, f"expected a string, a list of blocks or null, found {describe(value)}")

    return content_blocks(content, lambda b, k: _block(b, path + (k,)), "blocks", keep_empty=True, other=other)


def _str_field(b: dict, key: str, path: PathParts, what: str) -> str:
    value = b.get(key)
    if not isinstance(value, str):
        raise ShapeError(path + (key,), f"expected {what} as a string, found {describe(value) if key in b else 'none'}")
    return value


def _rest(b: dict, *handled: str) -> dict[str, Any]:
    return {k: v for k, v in b.items() if k != "type" and k not in handled}


def _block(b: Any, path: PathParts) -> Any:
    if not isinstance(b, dict):
        raise ShapeError(path, f'expected a block object with "type", found {describe(b)}')
    kind = b.get("type")
    if kind == "text":
        return new_text(_str_field(b, "text", path, "the text"), _rest(b, "text"))
    if kind == "tool_call":
        return _tool_call(b, path, inline=True)
    if kind == "tool_result":
        call_id = _str_field(b, "tool_call_id", path, "the id of the call it answers")
        is_error = b.get("is_error", False)
        if not isinstance(is_error, bool):
            raise ShapeError(path + ("is_error",), f"expected true or false, found {describe(is_error)}")
        name = b.get("name")
        extra = _rest(b, "tool_call_id", "content", "is_error", "name")
        extra[H.INLINE] = True
        if "is_error" in b and not is_error:
            extra["is_error"] = False
        if "content" not in b:
            extra[H.OMIT] = ["content"]
        elif b["content"] is None:
            extra["content"] = None
        if name is not None and not isinstance(name, str):
            extra["name"], name = name, None
        return ToolResultBlock(
            tool_call_id=call_id, content=_result_content(b.get("content"), path + ("content",)),
            is_error=is_error, name=name, extra=extra,
        )
    if kind == "thinking":
        signature, redacted = b.get("signature"), b.get("redacted", False)
        if signature is not None and not isinstance(signature, str):
            raise ShapeError(path + ("signature",), f"expected a string, found {describe(signature)}")
        extra = _rest(b, "thinking", "signature", "redacted")
        if "redacted" in b and redacted is not True:
            extra["redacted"], redacted = b["redacted"], False
        return ThinkingBlock(
            thinking=_str_field(b, "thinking", path, "the thinking text"), signature=signature, redacted=redacted, extra=extra
        )
    if kind == "image":
        return _image(b, path)
    return RawBlock(raw=b, text=raw_text(b), extra={})


def _image(b: dict, path: PathParts) -> ImageBlock:
    for key in ("url", "data", "file_id"):
        if isinstance(b.get(key), str):
            break
    else:
        raise ShapeError(path, 'expected an image with "url" or "data" (base64)')
    data: str = b[key]
    kind = {"url": "url", "data": "base64", "file_id": "file"}[key]
    if kind == "url" and data.startswith("data:"):
        kind = "base64"
    extra = _rest(b, key, "media_type", "width", "height", "detail")
    values: dict[str, Any] = {}
    for field in ("media_type", "detail"):
        value = b.get(field)
        if value is not None and not isinstance(value, str):
            raise ShapeError(path + (field,), f"expected a string, found {describe(value)}")
        values[field] = value
    for field in ("width", "height"):
        value = b.get(field)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise ShapeError(path + (field,), f"expected a whole number of pixels, found {describe(value)}")
        values[field] = value
    if values["width"] is None and values["height"] is None and kind == "base64":
        size = image_size(data.partition(",")[2] if data.startswith("data:") else data)
        if size:
            values["width"], values["height"] = size
            extra[H.OMIT] = [k for k in ("width", "height") if k not in b]
    if kind == "base64" and data.startswith("data:") and key == "data":
        extra[H.NESTED] = {"key": "data"}
    return ImageBlock(source_kind=kind, data=data, extra=extra, **values)


def _tool_call(c: Any, path: PathParts, inline: bool) -> ToolCallBlock:
    if not isinstance(c, dict):
        raise ShapeError(path, f'expected an object with "id", "name" and "arguments", found {describe(c)}')
    call_id = _str_field(c, "id", path, "the call id")
    if not inline and "name" not in c and isinstance(c.get("function"), dict):
        return _nested_tool_call(c, call_id, path)
    name = _str_field(c, "name", path, "the tool name")
    extra = _rest(c, "id", "name", "arguments") if inline else {k: v for k, v in c.items() if k not in ("id", "name", "arguments")}
    if inline:
        extra[H.INLINE] = True
    text = _arguments(c, path, extra, extra)
    return new_tool_call(call_id, name, text, extra)


def _nested_tool_call(c: dict, call_id: str, path: PathParts) -> ToolCallBlock:
    """A call in OpenAI's shape (``{"id", "type", "function": {"name", "arguments"}}``), which
    logs that write one OpenAI message per line use."""
    fn, fpath = c["function"], path + ("function",)
    name = _str_field(fn, "name", fpath, "the tool name")
    nested = {k: v for k, v in fn.items() if k not in ("name", "arguments")}
    extra = {k: v for k, v in c.items() if k not in ("id", "function")}
    extra[H.FUNCTION] = nested
    text = _arguments(fn, fpath, extra, nested)
    return ToolCallBlock(id=call_id, name=name, arguments=text, extra=extra)


def _arguments(c: dict, path: PathParts, extra: dict, container_extra: dict) -> str:
    """``c["arguments"]`` as JSON text; notes an object (in ``extra``) or a missing key (in the
    extra of the object that lacked it) for write-back."""
    args = c.get("arguments")
    if isinstance(args, str):
        return args
    if "arguments" not in c:
        container_extra[H.OMIT] = ["arguments"]
        return "{}"
    if isinstance(args, dict):
        extra[H.ARGS_OBJECT] = True
        return orjson.dumps(args).decode()
    raise ShapeError(path + ("arguments",), f"expected the arguments as JSON text, found {describe(args)}")


def _usage(u: Any) -> tuple[Usage | None, bool]:
    """``(usage, keep_raw)``: the recorded usage, and whether the line's usage has more than it holds."""
    if not isinstance(u, dict):
        return None, True
    values: dict[str, int | None] = {}
    keep_raw = False
    for key in _USAGE_KEYS:
        value = u.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            value, keep_raw = None, True
        values[key] = value
    if any(k not in _USAGE_KEYS for k in u) or any(k in u and u[k] is None for k in _USAGE_KEYS):
        keep_raw = True
    return Usage(**values), keep_raw


def stream(path: Path) -> JsonlStream:
    return JsonlStream(path)


def read(path: Path) -> Session:
    s = JsonlStream(path)
    with paused_gc():
        for line_no, line in iter_lines(path):
            s.feed(line, line_no)
    if s.parsed == 0:
        if s.lines == 0:
            raise SessionFormatError(path, "line 1", "the file is empty.", "a JSON or JSONL agent session")
        first = s.session.skipped[0]
        raise SessionFormatError(
            path,
            first.where,
            f"no line is an inspector JSONL record ({s.lines} bad line{'s' if s.lines != 1 else ''}; "
            f"the first: {first.reason[:-1] if first.reason.endswith('.') else first.reason}).",
            EXPECTED,
        )
    return s.session


# -- writing -------------------------------------------------------------------------------------


def dump_lines(session: Session, messages: list[Message] | None = None) -> str:
    """The session (or ``messages``) as inspector JSONL text, a header line first when there are
    tools or request fields. Source fields kept in ``extra`` are written only for a session read
    from JSONL; another format's request fields go to the header's ``meta``."""
    same = session.format == NAME
    msgs = session.messages if messages is None else messages
    lines = []
    header = _header(session, same)
    if header is not None:
        lines.append(orjson.dumps(header).decode())
    lines.extend(orjson.dumps(_dump_message(m, same)).decode() for m in msgs)
    return "".join(line + "\n" for line in lines)


def write(session: Session) -> str:
    return dump_lines(session)


def _header(session: Session, same: bool) -> dict | None:
    if same and not session.extra.get(H.HEADER):
        return None
    meta = H.plain_extra(session.extra)
    if not same and not session.tools and not meta:
        return None
    header: dict[str, Any] = {"type": "session", "version": VERSION}
    header["tools"] = [_dump_tool(t, same) for t in session.tools]
    if same:
        return H.emit_extra(header, session.extra)
    if meta:
        header["meta"] = {"source_format": session.format, **meta}
    return header


def _dump_tool(t: ToolDefinition, same: bool) -> dict:
    d = {"name": t.name, "description": t.description, "parameters": t.parameters}
    return H.emit_extra(d, t.extra, same)


def _dump_message(m: Message, same: bool) -> dict:
    d: dict[str, Any] = {"role": m.role}
    name = m.name
    blocks = m.content
    result = blocks[0] if len(blocks) == 1 and isinstance(blocks[0], ToolResultBlock) else None
    if m.role == "tool" and result is not None and not (same and result.extra.get(H.INLINE)):
        d["tool_call_id"] = result.tool_call_id
        if m.content_form == "null" and result.content == "":
            d["content"] = None
        else:
            d["content"] = result.content if isinstance(result.content, str) else [_dump_block(p, same) for p in result.content]
        if result.is_error:
            d["is_error"] = True
        name = name or result.name
    else:
        calls = [b for b in blocks if isinstance(b, ToolCallBlock) and not (same and b.extra.get(H.INLINE))]
        rest = [b for b in blocks if not (isinstance(b, ToolCallBlock) and not (same and b.extra.get(H.INLINE)))]
        single_text = len(rest) == 1 and isinstance(rest[0], TextBlock) and not (same and rest[0].extra)
        if not rest:
            d["content"] = None if (m.content_form == "null" or calls) else ("" if m.content_form == "string" else [])
        elif single_text and (m.content_form == "string" or not same):
            d["content"] = rest[0].text
        else:
            d["content"] = [_dump_block(b, same) for b in rest]
        if calls:
            d["tool_calls"] = [_dump_call(c, same, inline=False) for c in calls]
    if name:
        d["name"] = name
    if m.starts_context:
        d["summary"] = True
    if m.usage is not None and not (same and "usage" in m.extra):
        d["usage"] = {k: v for k in _USAGE_KEYS if (v := getattr(m.usage, k)) is not None}
    return H.emit_extra(d, m.extra, same)


def _dump_call(c: ToolCallBlock, same: bool, inline: bool) -> dict:
    args: Any = c.arguments
    if same and c.extra.get(H.ARGS_OBJECT):
        try:
            args = orjson.loads(c.arguments)
        except orjson.JSONDecodeError:
            pass
    d: dict[str, Any] = {"type": "tool_call"} if inline else {}
    if same and H.FUNCTION in c.extra and not inline:
        d["id"] = c.id
        d["function"] = H.emit_extra({"name": c.name, "arguments": args}, c.extra[H.FUNCTION])
    else:
        d.update(id=c.id, name=c.name, arguments=args)
    return H.emit_extra(d, c.extra, same)


def _dump_block(b: Any, same: bool) -> dict:
    if isinstance(b, TextBlock):
        if H.RAW in b.extra:
            return b.extra[H.RAW]
        return H.emit_extra({"type": "text", "text": b.text}, b.extra, same)
    if isinstance(b, ToolCallBlock):
        return _dump_call(b, same, inline=True)
    if isinstance(b, ToolResultBlock):
        d: dict[str, Any] = {"type": "tool_result", "tool_call_id": b.tool_call_id}
        d["content"] = H.result_content(b, same, _dump_block)
        if b.is_error:
            d["is_error"] = True
        if b.name:
            d["name"] = b.name
        return H.emit_extra(d, b.extra, same)
    if isinstance(b, ThinkingBlock):
        d = {"type": "thinking", "thinking": b.thinking}
        if b.signature is not None:
            d["signature"] = b.signature
        if b.redacted:
            d["redacted"] = True
        return H.emit_extra(d, b.extra, same)
    if isinstance(b, ImageBlock):
        d = {"type": "image"}
        if b.media_type is not None:
            d["media_type"] = b.media_type
        if b.source_kind == "file":
            d["file_id"] = b.data
        elif b.source_kind == "url" or (b.data.startswith("data:") and not (same and b.extra.get(H.NESTED))):
            d["url"] = b.data
        else:
            d["data"] = b.data
        for key in ("width", "height", "detail"):
            if (value := getattr(b, key)) is not None:
                d[key] = value
        return H.emit_extra(d, b.extra, same)
    if isinstance(b, RawBlock):
        return b.raw
    raise TypeError(f"cannot write a {type(b).__name__} as a JSONL block")


# -- detection -----------------------------------------------------------------------------------

FIRST_LINE_LIMIT = 64 * 1024 * 1024
LINES_LOOKED_AT = 5


def _score(d: Any) -> int:
    if not isinstance(d, dict):
        return 0
    if ("message" in d or "payload" in d) and "type" in d:  # Claude Code, Codex and the like
        return 0
    if d.get("type") == "session" and "role" not in d:
        return 100 if "version" in d else 70
    return 80 if d.get("role") in ROLES else 0


def _first_lines(probe: Probe) -> list[bytes]:
    head = probe.head
    lines = head.split(b"\n")
    if len(head) >= HEAD_BYTES:
        lines.pop()  # may be cut off
    if not any(line.strip() for line in lines) and len(head) >= HEAD_BYTES and head.lstrip()[:1] == b"{":
        lines = [read_line(probe.path, FIRST_LINE_LIMIT)]  # a first line longer than the head
    return lines


def detect(probe: Probe) -> int:
    if probe.is_dir:
        return 0
    if b"\n" not in probe.head.rstrip() and isinstance(probe.document, dict):
        return _score(probe.document)  # a one-line file: its line is the document (parsed once for every detector)
    looked = 0
    for line in _first_lines(probe):
        if not line.strip():
            continue
        try:
            return _score(orjson.loads(line))
        except orjson.JSONDecodeError:
            looked += 1
            if looked >= LINES_LOOKED_AT:
                break
    return 0


register(
    Format(
        name=NAME,
        description="the inspector's JSONL: an optional session header, then one message per line",
        detect=detect,
        read=read,
        write=write,
        appendable=True,
        suffix=".jsonl",
        stream=stream,
    )
)
