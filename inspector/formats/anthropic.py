"""Anthropic Messages requests: reader and detector.

Reads an object with a top-level ``system`` (string or text blocks; it becomes the role="system"
message 0), ``messages`` (content a string or blocks) and ``tools``; other top-level keys go to
``Session.extra``. Tool results stay blocks inside their user message. ``tool_use.input`` becomes
the ToolCallBlock's JSON text (compact), which loads back to the same object. Unknown blocks
(``document``, ``server_tool_use``, ``compaction``...) are RawBlocks kept verbatim.

The writer is :mod:`inspector.providers.anthropic` (the provider's wire rules live there).
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
        blocks: list[Any] = [TextBlock(text=system, extra={})]
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
    return Message(
        index=0,
        role="system",
        content=blocks,
        name=None,
        usage=None,
        source=SourceRef(line=None, json_path="$.system", file=None),
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
        blocks, form = [TextBlock(text=content, extra={})], "string"
    elif isinstance(content, list):
        blocks, form = [], "blocks"
        for k, b in enumerate(content):
            block = _block(b, path + ("content", k))
            if isinstance(block, RawBlock) and block.raw.get("type") == "compaction" and block.text:
                starts_context = True
            blocks.append(block)
    else:
        raise ShapeError(path + ("content",), f"expected a string or a list of content blocks, found {describe(content)}")
    return Message(
        index=index,
        role=role,
        content=blocks,
        name=None,
        usage=usage_from(d.get("usage"), ANTHROPIC),
        source=SourceRef(line=None, json_path=json_path(path), file=None),
        content_form=form,
        starts_context=starts_context,
        extra=extra,
    )


def _rest(b: dict, *handled: str) -> dict[str, Any]:
    return {k: v for k, v in b.items() if k != "type" and k not in handled}


def _text(b: dict) -> TextBlock:
    return TextBlock(text=b["text"], extra=_rest(b, "text"))


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
        return ThinkingBlock(thinking=b["thinking"], signature=signature, redacted=False, extra=extra)
    if kind == "redacted_thinking" and isinstance(b.get("data"), str):
        return ThinkingBlock(thinking=b["data"], signature=None, redacted=True, extra=_rest(b, "data"))
    if kind == "image":
        image = _image(b)
        if image is not None:
            return image
    return RawBlock(raw=b, text=raw_text(b), extra={})


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
    return ToolCallBlock(id=call_id, name=name, arguments=arguments, extra=extra)


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
    return ToolResultBlock(tool_call_id=call_id, content=result, is_error=is_error, name=None, extra=extra)


def _result_part(p: Any, path: PathParts) -> TextBlock | ImageBlock:
    if not isinstance(p, dict):
        raise ShapeError(path, f'expected a content block object with "type", found {describe(p)}')
    if p.get("type") == "text" and isinstance(p.get("text"), str):
        return _text(p)
    if p.get("type") == "image":
        image = _image(p)
        if image is not None:
            return image
    return TextBlock(text=raw_text(p), extra={H.RAW: p})


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
        suffix=".json",
        provider="anthropic",
    )
)
