"""Anthropic Messages requests: reader, writer and detector.

Reads an object with a top-level ``system`` (string or text blocks; it becomes the role="system"
message 0), ``messages`` (content a string or blocks) and ``tools``; other top-level keys go to
``Session.extra``. Tool results stay blocks inside their user message. ``tool_use.input`` becomes
the ToolCallBlock's JSON text (compact), which loads back to the same object. Unknown blocks
(``document``, ``server_tool_use``, ``compaction``...) are RawBlocks kept verbatim.

The writer (:func:`dump_request`) also turns any session into a valid-shaped Anthropic request:
system messages wherever they are go to ``system``, ``tool`` messages become ``tool_result``
blocks, consecutive ones merged into one user message. With ``results_first=True`` (the export
path) a user message holding ``tool_result`` blocks lists them first, then its other content, as
Anthropic's tool-use rules require; a round trip (:func:`write`) keeps the source's block order.
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
    SourceRef,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolDefinition,
    ToolResultBlock,
)
from . import hints as H
from .base import Format, Probe, register
from .imagesize import split_data_url
from .jsondoc import (
    PathParts,
    ShapeError,
    describe,
    json_path,
    message_items,
    paused_gc,
    read_document,
    remember,
    tool_fields,
    tool_items,
)
from .openai_chat import is_message_list, signals
from .rawtext import raw_text
from .reading import ANTHROPIC, image_block, usage_from

NAME = "anthropic"

_TOP_HANDLED = frozenset({"system", "messages", "tools"})
_EXPECTED = 'an object with "messages" (and optionally "system", "tools")'


# -- reading -------------------------------------------------------------------------------------


def read(path: Path) -> Session:
    return read_document(path, session_from_document, NAME)


def session_from_document(doc: Any, path: str | None = None) -> Session:
    """A Session from a parsed Messages request; ShapeError on a structural problem."""
    messages: list[Message] = []
    tools: list[ToolDefinition] = []
    items, prefix, extra = message_items(doc, _TOP_HANDLED, _EXPECTED)
    if isinstance(doc, dict):
        if "system" in doc:
            system = _system(doc["system"])
            if system is None:
                extra["system"] = doc["system"]
            else:
                messages.append(system)
        tools = _read_tools(doc, extra)
    with paused_gc():
        for i, item in enumerate(items):
            messages.append(_message(item, len(messages), prefix + (i,)))
    model = extra.get("model") if isinstance(extra.get("model"), str) else None  # the request's model
    return Session.model_construct(
        path=path, format=NAME, messages=messages, tools=tools, extra=extra, sidechains={}, skipped=[], model=model
    )


def _system(system: Any) -> Message | None:
    path: PathParts = ("system",)
    if system is None:
        return None
    if isinstance(system, str):
        blocks: list[Any] = [TextBlock.model_construct(text=system, extra={})]
        form = "string"
    elif isinstance(system, list):
        blocks = []
        for k, b in enumerate(system):
            if not isinstance(b, dict) or b.get("type") != "text" or not isinstance(b.get("text"), str):
                raise ShapeError(path + (k,), f'expected a text block {{"type": "text", "text": ...}}, found {describe(b)}')
            blocks.append(_text(b))
        form = "blocks"
    else:
        raise ShapeError(path, f"expected a string or a list of text blocks, found {describe(system)}")
    return Message.model_construct(
        index=0,
        role="system",
        content=blocks,
        name=None,
        usage=None,
        source=SourceRef.model_construct(line=None, json_path="$.system", file=None),
        content_form=form,
        starts_context=False,
        extra={},
    )


def _message(d: Any, index: int, path: PathParts) -> Message:
    if not isinstance(d, dict):
        raise ShapeError(path, f'expected a message object with "role" and "content", found {describe(d)}')
    role = d.get("role")
    if role not in ("user", "assistant"):
        found = f'"{role}"' if isinstance(role, str) else ("no role" if "role" not in d else describe(role))
        note = ' (the system prompt goes in the top-level "system")' if role == "system" else ""
        raise ShapeError(path + ("role",), f'expected "user" or "assistant", found {found}{note}')
    extra = {k: v for k, v in d.items() if k not in ("role", "content")}
    content = d.get("content")
    starts_context = False
    if content is None:
        blocks: list[Any] = []
        form = "null"
        if "content" not in d:
            extra[H.OMIT] = ["content"]
    elif isinstance(content, str):
        blocks, form = [TextBlock.model_construct(text=content, extra={})], "string"
    elif isinstance(content, list):
        blocks, form = [], "blocks"
        for k, b in enumerate(content):
            block = _block(b, path + ("content", k))
            if isinstance(block, RawBlock) and block.raw.get("type") == "compaction" and block.text:
                starts_context = True
            blocks.append(block)
    else:
        raise ShapeError(path + ("content",), f"expected a string or a list of content blocks, found {describe(content)}")
    return Message.model_construct(
        index=index,
        role=role,
        content=blocks,
        name=None,
        usage=usage_from(d.get("usage"), ANTHROPIC),
        source=SourceRef.model_construct(line=None, json_path=json_path(path), file=None),
        content_form=form,
        starts_context=starts_context,
        extra=extra,
    )


def _rest(b: dict, *handled: str) -> dict[str, Any]:
    return {k: v for k, v in b.items() if k != "type" and k not in handled}


def _text(b: dict) -> TextBlock:
    return TextBlock.model_construct(text=b["text"], extra=_rest(b, "text"))


def _block(b: Any, path: PathParts) -> Any:
    if not isinstance(b, dict):
        raise ShapeError(path, f'expected a content block object with "type", found {describe(b)}')
    kind = b.get("type")
    if kind == "text":
        if not isinstance(b.get("text"), str):
            raise ShapeError(path + ("text",), f"expected a string, found {describe(b.get('text'))}")
        return _text(b)
    if kind == "tool_use":
        return _tool_use(b, path)
    if kind == "tool_result":
        return _tool_result(b, path)
    if kind == "thinking" and isinstance(b.get("thinking"), str):
        signature = b.get("signature")
        extra = _rest(b, "thinking", "signature")
        if signature is not None and not isinstance(signature, str):
            extra["signature"], signature = signature, None
        return ThinkingBlock.model_construct(thinking=b["thinking"], signature=signature, redacted=False, extra=extra)
    if kind == "redacted_thinking" and isinstance(b.get("data"), str):
        return ThinkingBlock.model_construct(thinking=b["data"], signature=None, redacted=True, extra=_rest(b, "data"))
    if kind == "image":
        image = _image(b)
        if image is not None:
            return image
    return RawBlock.model_construct(raw=b, text=raw_text(b), extra={})


def _tool_use(b: dict, path: PathParts) -> ToolCallBlock:
    call_id, name = b.get("id"), b.get("name")
    if not isinstance(call_id, str) or not isinstance(name, str):
        key = "id" if not isinstance(call_id, str) else "name"
        raise ShapeError(path + (key,), f'expected a tool_use block with string "id" and "name", found {describe(b.get(key)) if key in b else "none"}')
    extra = _rest(b, "id", "name", "input")
    if "input" in b:
        arguments = orjson.dumps(b["input"]).decode()
    else:
        arguments = "{}"
        extra[H.OMIT] = ["input"]
    return ToolCallBlock.model_construct(id=call_id, name=name, arguments=arguments, extra=extra)


def _tool_result(b: dict, path: PathParts) -> ToolResultBlock:
    call_id = b.get("tool_use_id")
    if not isinstance(call_id, str):
        found = describe(call_id) if "tool_use_id" in b else "none"
        raise ShapeError(path + ("tool_use_id",), f"expected the id of the tool_use it answers, found {found}")
    extra = _rest(b, "tool_use_id", "content", "is_error")
    content = b.get("content")
    result: str | list[Any]
    if isinstance(content, str):
        result = content
    elif isinstance(content, list):
        result = [_result_part(p, path + ("content", k)) for k, p in enumerate(content)]
    elif content is None:
        result = ""
        if "content" in b:
            extra["content"] = None
        else:
            extra[H.OMIT] = ["content"]
    else:
        raise ShapeError(path + ("content",), f"expected a string or a list of blocks, found {describe(content)}")
    is_error = b.get("is_error", False)
    if not isinstance(is_error, bool):
        raise ShapeError(path + ("is_error",), f"expected true or false, found {describe(is_error)}")
    if "is_error" in b and not is_error:
        extra["is_error"] = False  # written back as it was
    return ToolResultBlock.model_construct(tool_call_id=call_id, content=result, is_error=is_error, name=None, extra=extra)


def _result_part(p: Any, path: PathParts) -> TextBlock | ImageBlock:
    if not isinstance(p, dict):
        raise ShapeError(path, f'expected a content block object with "type", found {describe(p)}')
    if p.get("type") == "text" and isinstance(p.get("text"), str):
        return _text(p)
    if p.get("type") == "image":
        image = _image(p)
        if image is not None:
            return image
    return TextBlock.model_construct(text=raw_text(p), extra={H.RAW: p})


def _image(b: dict) -> ImageBlock | None:
    source = b.get("source")
    if not isinstance(source, dict):
        return None
    kind = source.get("type")
    key = {"base64": "data", "url": "url", "file": "file_id"}.get(kind)  # type: ignore[arg-type]
    if key is None or not isinstance(source.get(key), str):
        return None
    media_type = source.get("media_type")
    if media_type is not None and not isinstance(media_type, str):
        return None
    extra = _rest(b, "source")
    nested = {k: v for k, v in source.items() if k not in ("type", "media_type", key)}
    if nested:
        extra[H.NESTED] = nested
    return image_block(source[key], media_type=media_type, source_kind=kind, extra=extra)


def _read_tools(doc: dict, extra: dict) -> list[ToolDefinition]:
    tools = []
    for k, t in enumerate(tool_items(doc, "tools", extra)):
        path: PathParts = ("tools", k)
        if not isinstance(t, dict) or not isinstance(t.get("name"), str):
            raise ShapeError(path, f'expected a tool definition object with "name", found {describe(t)}')
        description, schema, tool_extra = tool_fields(t, path, "input_schema")
        tools.append(ToolDefinition.model_construct(name=t["name"], description=description, parameters=schema, extra=tool_extra))
    return tools


# -- writing -------------------------------------------------------------------------------------


def dump_request(session: Session, messages: list[Message] | None = None, *, results_first: bool = False) -> dict:
    """The session (or ``messages``) as an Anthropic Messages request body.

    System messages, wherever they are, go to the top-level ``system`` (a string when there is one
    plain string, else text blocks); tool messages become ``tool_result`` blocks, consecutive ones
    merged into one user message; tool call arguments become ``input`` objects (arguments that are
    not a JSON object are wrapped as ``{"_unparsed_arguments": text}``). Source fields kept in
    ``extra`` are written only when the session was read from an Anthropic file.
    ``results_first``: move a user message's ``tool_result`` blocks before its other blocks (text
    a person typed, reminders, images), keeping each group's order (:func:`results_first_order`).
    """
    same = session.format == NAME
    msgs = session.messages if messages is None else messages
    out: dict[str, Any] = {}
    system = [m for m in msgs if m.role == "system"]
    if system:
        out["system"] = _dump_system(system, same)
    dumped: list[dict] = []
    merging = False  # the last dumped message is a user message made of tool messages
    for m in msgs:
        if m.role == "system":
            continue
        if m.role == "tool":
            blocks = [_dump_block(b, same) for b in m.content if not isinstance(b, ToolCallBlock)]
            if merging:
                dumped[-1]["content"].extend(blocks)
            else:
                dumped.append({"role": "user", "content": blocks})
                merging = True
            continue
        merging = False
        if results_first and m.role == "user":
            m = results_first_order(m)
        d: dict[str, Any] = {"role": m.role, "content": _dump_content(m, same)}
        H.emit_extra(d, m.extra, same)
        dumped.append(d)
    out["messages"] = dumped
    if session.tools:
        out["tools"] = [_dump_tool(t, same) for t in session.tools]
    if same:
        H.emit_extra(out, session.extra)
    return out


def write(session: Session) -> str:
    request = dump_request(session)
    data: Any = request["messages"] if session.format == NAME and session.extra.get(H.BARE) else request
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


def results_first_order(m: Message) -> Message:
    """``m`` with its ``tool_result`` blocks moved before its other blocks (each group in order);
    ``m`` itself when they already come first."""
    blocks = m.content
    seen_other = False
    for b in blocks:
        if isinstance(b, ToolResultBlock):
            if seen_other:
                break
        else:
            seen_other = True
    else:
        return m
    results = [b for b in blocks if isinstance(b, ToolResultBlock)]
    others = [b for b in blocks if not isinstance(b, ToolResultBlock)]
    return m.model_copy(update={"content": results + others})


def _dump_system(system: list[Message], same: bool) -> str | list[dict]:
    only = system[0]
    if len(system) == 1 and only.content_form == "string" and all(isinstance(b, TextBlock) for b in only.content):
        return "\n".join(b.text for b in only.content)
    blocks: list[dict] = []
    for m in system:
        for b in m.content:
            if isinstance(b, TextBlock):
                blocks.append(H.emit_extra({"type": "text", "text": b.text}, b.extra, same))
            elif isinstance(b, RawBlock) and b.text:
                blocks.append({"type": "text", "text": b.text})
    return blocks


def _dump_content(m: Message, same: bool) -> Any:
    blocks = m.content
    if m.content_form == "null" and not blocks:
        return None if same else ""
    if m.content_form == "string" and len(blocks) == 1 and isinstance(blocks[0], TextBlock):
        return blocks[0].text
    if m.content_form in ("string", "parts") and blocks and all(isinstance(b, TextBlock) for b in blocks) and not same:
        return "\n".join(b.text for b in blocks)
    if not same and len(blocks) > 1:  # the API rejects empty text blocks
        blocks = [b for b in blocks if not (isinstance(b, TextBlock) and not b.text)]
    if not blocks:
        return ""
    return [_dump_block(b, same) for b in blocks]


def _dump_block(b: Any, same: bool) -> dict:
    if isinstance(b, TextBlock):
        if H.RAW in b.extra and same:
            return b.extra[H.RAW]
        return H.emit_extra({"type": "text", "text": b.text}, b.extra, same)
    if isinstance(b, ToolCallBlock):
        d = {"type": "tool_use", "id": b.id, "name": b.name, "input": tool_input(b.arguments, same)}
        return H.emit_extra(d, b.extra, same)
    if isinstance(b, ToolResultBlock):
        d = {"type": "tool_result", "tool_use_id": b.tool_call_id}
        if isinstance(b.content, str):
            d["content"] = None if (same and b.content == "" and H.had_null_content(b.extra)) else b.content
        else:
            d["content"] = [_dump_block(p, same) for p in b.content]
        if b.is_error:
            d["is_error"] = True
        return H.emit_extra(d, b.extra, same)
    if isinstance(b, ThinkingBlock):
        if b.redacted:
            return H.emit_extra({"type": "redacted_thinking", "data": b.thinking}, b.extra, same)
        d = {"type": "thinking", "thinking": b.thinking}
        if b.signature is not None:
            d["signature"] = b.signature
        return H.emit_extra(d, b.extra, same)
    if isinstance(b, ImageBlock):
        return H.emit_extra({"type": "image", "source": _image_source(b, same)}, b.extra, same)
    if isinstance(b, RawBlock):
        return b.raw if same else {"type": "text", "text": b.text}
    raise TypeError(f"cannot write a {type(b).__name__} as an Anthropic block")


def _image_source(b: ImageBlock, same: bool) -> dict:
    if b.source_kind == "base64":
        data_url = split_data_url(b.data)
        if data_url is not None:
            source = {"type": "base64", "media_type": data_url[0] or b.media_type, "data": data_url[1]}
        else:
            source = {"type": "base64", "media_type": b.media_type, "data": b.data}
    elif b.source_kind == "file":
        source = {"type": "file", "file_id": b.data}
    else:
        source = {"type": "url", "url": b.data}
    return H.emit_extra(source, b.extra.get(H.NESTED) or {}, same)


def tool_input(arguments: str, as_written: bool = False) -> Any:
    """A tool call's JSON text as the ``input`` object Anthropic takes. Text that is not a JSON
    object is wrapped as ``{"_unparsed_arguments": text}`` unless ``as_written`` (a round trip)."""
    try:
        value = orjson.loads(arguments)
    except orjson.JSONDecodeError:
        return {"_unparsed_arguments": arguments}
    return value if isinstance(value, dict) or as_written else {"_unparsed_arguments": arguments}


def _dump_tool(t: ToolDefinition, same: bool) -> dict:
    d: dict[str, Any] = {"name": t.name}
    if t.description or same:
        d["description"] = t.description
    d["input_schema"] = t.parameters if (t.parameters or same) else {"type": "object", "properties": {}}
    return H.emit_extra(d, t.extra, same)


# -- detection -----------------------------------------------------------------------------------


def detect(probe: Probe) -> int:
    doc = probe.document
    if doc is None:
        return 0
    if isinstance(doc, dict) and "messages" not in doc:
        return 0
    items = doc if isinstance(doc, list) else doc["messages"]
    if not is_message_list(items):
        return 0
    openai, anthropic = signals(doc)
    if anthropic and not openai:
        remember(probe, doc)
        return 95
    if openai:
        return 2 if not anthropic else 40
    return 50 if isinstance(doc, dict) else 10


register(
    Format(
        name=NAME,
        description="Anthropic Messages request (an object with \"messages\" and a top-level \"system\")",
        detect=detect,
        read=read,
        write=write,
        suffix=".json",
        provider="anthropic",
    )
)
