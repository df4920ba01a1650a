"""OpenAI Chat Completions ``messages``: reader and detector.

Reads a JSON list of messages, or an object with ``messages`` (plus ``tools`` or the legacy
``functions``; other top-level keys go to ``Session.extra``). Assistant ``tool_calls`` become
ToolCallBlocks, a ``tool`` message one ToolResultBlock; the legacy ``function_call`` gets a
synthetic id ``legacy_fc_<message index>`` which the next ``function`` message answers. The
writer (:mod:`inspector.providers.openai`, the provider's wire rules) restores every form the
reader accepted (see :mod:`inspector.formats.hints`).

The hot path walks plain dicts from orjson and builds the model's records directly after
checking the types itself: no per-message validation.
"""

from __future__ import annotations

from pathlib import Path
from sys import intern
from typing import Any

import orjson

from ..model import (
    ImageBlock,
    Message,
    RawBlock,
    Session,
    TextBlock,
    ToolCallBlock,
    ToolDefinition,
    Usage,
    new_message,
    new_source,
    new_text,
    new_tool_call,
    new_tool_result,
)
from . import hints as H
from .base import Format, Probe, register
from .common_forms import common_message
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
from .rawtext import raw_text
from .reading import ANTHROPIC, OPENAI, UsageKeys, content_blocks, image_block, usage_from

NAME = "openai"

ROLES = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
}
_ROLE_LIST = '"system", "developer", "user", "assistant", "tool" or "function"'
_HANDLED = frozenset({"role", "content", "name", "tool_calls", "tool_call_id", "function_call"})
_HANDLED_FOR = {"tool_calls": "assistant", "function_call": "assistant", "tool_call_id": "tool"}
#: Per role, the handled keys that do not apply to it: kept in extra as written, not interpreted.
_KEPT_FOR_ROLE = {
    role: tuple(k for k, r in _HANDLED_FOR.items() if r != role) for role in ("system", "user", "assistant", "tool")
}
_TOP_HANDLED = frozenset({"messages", "tools", "functions"})


# -- reading -------------------------------------------------------------------------------------


def read(path: Path) -> Session:
    return read_document(path, lambda doc, name: session_from_document(doc, name, consume=True), NAME)


def session_from_document(doc: Any, path: str | None = None, *, consume: bool = False) -> Session:
    """A Session from a parsed Chat Completions document; ShapeError on a structural problem.
    ``consume``: the document is the caller's to give up; each message's dict is dropped from it
    once read, so the parsed values and the model are not all alive together."""
    items, prefix, extra = message_items(doc, _TOP_HANDLED, 'a list of chat messages or an object with "messages"')
    tools = _read_tools(doc, extra) if isinstance(doc, dict) else []
    reader = _MessageReader(prefix)
    general, prefix_path = reader.message, reader.prefix_path
    with paused_gc():
        messages = []
        append = messages.append
        for i, item in enumerate(items):
            source = new_source(None, f"{prefix_path}[{i}]", None)
            append(common_message(item, i, source, _common_tool_call) or general(item, i))
            if consume:
                items[i] = None
    model = extra.get("model") if isinstance(extra.get("model"), str) else None  # the request's model
    return Session.model_construct(
        path=path, format=NAME, messages=messages, tools=tools, extra=extra, sidechains={}, skipped=[], model=model
    )


class _MessageReader:
    def __init__(self, prefix: PathParts) -> None:
        self.prefix = prefix
        self.prefix_path = json_path(prefix)  # "$" or "$.messages": each message's path is this + "[i]"
        self.pending_legacy: str | None = None  # the last function_call not yet answered

    def message(self, d: Any, i: int) -> Message:
        path = self.prefix + (i,)  # for errors and the general forms; the common ones need none
        if not isinstance(d, dict):
            raise ShapeError(path, f'expected a message object with "role", found {describe(d)}')
        source_role = d.get("role")
        role = ROLES.get(source_role) if isinstance(source_role, str) else None
        if role is None:
            if "role" not in d:
                found = "no role"
            else:
                found = f'"{source_role}"' if isinstance(source_role, str) else describe(source_role)
            raise ShapeError(path + ("role",), f"expected one of {_ROLE_LIST}, found {found}")
        extra = {} if d.keys() <= _HANDLED else {k: v for k, v in d.items() if k not in _HANDLED}
        for key in _KEPT_FOR_ROLE[role]:
            if key in d:
                extra[key] = d[key]
        if source_role != role:
            extra[H.ROLE] = source_role
        name = d.get("name")
        if name is not None and not isinstance(name, str):
            extra["name"] = name
            name = None

        content_present = "content" in d
        content = d.get("content")
        if not content_present:
            extra[H.OMIT] = ["content"]

        blocks: list[Any]
        if role == "tool":
            blocks, form = self._tool_result(d, i, path, content, name, extra)
        else:
            if type(content) is str:  # the common case, without the general helper's calls
                blocks, form = [new_text(content, {})], "string"
            else:
                blocks, form = _content_blocks(content, path + ("content",))
            if role == "assistant":
                self._tool_calls(d, i, path, blocks, extra)

        usage = d.get("usage")
        if usage is not None:
            usage = _usage(usage)
        source = new_source(None, f"{self.prefix_path}[{i}]", None)
        return new_message(i, role, blocks, source, form, extra, name=name, usage=usage)

    def _tool_calls(self, d: dict, i: int, path: PathParts, blocks: list[Any], extra: dict) -> None:
        if "tool_calls" in d:
            calls = d["tool_calls"]
            if calls is None or calls == []:
                extra["tool_calls"] = calls  # kept as written; the writer omits an empty list
            elif not isinstance(calls, list):
                raise ShapeError(path + ("tool_calls",), f"expected a list of tool calls, found {describe(calls)}")
            else:
                for k, call in enumerate(calls):
                    blocks.append(_common_tool_call(call) or _tool_call(call, path + ("tool_calls", k)))
        if "function_call" in d:
            fc = d["function_call"]
            fpath = path + ("function_call",)
            if fc is None:
                extra["function_call"] = None
                return
            if not isinstance(fc, dict) or not isinstance(fc.get("name"), str):
                raise ShapeError(fpath, f'expected an object with "name" and "arguments", found {describe(fc)}')
            call_id = f"legacy_fc_{i}"
            args, block_extra = _arguments(fc, fpath)
            block_extra[H.LEGACY] = True
            blocks.append(ToolCallBlock(id=call_id, name=fc["name"], arguments=args, extra=block_extra))
            self.pending_legacy = call_id

    def _tool_result(
        self, d: dict, i: int, path: PathParts, content: Any, name: str | None, extra: dict
    ) -> tuple[list[Any], str]:
        block_extra: dict[str, Any] = {}
        if d.get("role") == "function":
            call_id = self.pending_legacy or f"legacy_fc_orphan_{i}"
            self.pending_legacy = None
            block_extra[H.LEGACY] = True
        else:
            call_id = d.get("tool_call_id")
            if not isinstance(call_id, str):
                found = describe(call_id) if "tool_call_id" in d else "none"
                raise ShapeError(path + ("tool_call_id",), f'expected the id of the call a "tool" message answers, found {found}')
        result: str | list[Any]
        if content is None:
            result, form = "", "null"
        elif isinstance(content, str):
            result, form = content, "string"
        elif isinstance(content, list):
            result = [_result_part(p, path + ("content", k)) for k, p in enumerate(content)]
            form = "parts"
        else:
            raise ShapeError(path + ("content",), f"expected a string, a list of parts or null, found {describe(content)}")
        return [new_tool_result(call_id, result, block_extra, name=name)], form


def _content_blocks(content: Any, path: PathParts) -> tuple[list[Any], str]:
    def other(value: Any) -> list[Any]:
        raise ShapeError(path, f"expected a string, a list of parts or null, found {describe(value)}")

    return content_blocks(content, lambda p, k: _part(p, path + (k,)), "parts", keep_empty=True, other=other)


def _part(p: Any, path: PathParts) -> Any:
    if not isinstance(p, dict):
        raise ShapeError(path, f'expected a content part object with "type", found {describe(p)}')
    kind = p.get("type")
    if kind == "text" and isinstance(p.get("text"), str):
        return TextBlock(text=p["text"], extra={k: v for k, v in p.items() if k not in ("type", "text")})
    if kind == "image_url":
        image = _image(p)
        if image is not None:
            return image
    return RawBlock(raw=p, text=raw_text(p), extra={})


def _result_part(p: Any, path: PathParts) -> TextBlock | ImageBlock:
    """A part of a tool message's content; types a result cannot hold become text, kept raw."""
    block = _part(p, path)
    if isinstance(block, RawBlock):
        return TextBlock(text=block.text, extra={H.RAW: p})
    return block


def _image(p: dict) -> ImageBlock | None:
    iu = p.get("image_url")
    if not isinstance(iu, dict) or not isinstance(iu.get("url"), str):
        return None
    url = iu["url"]
    detail = iu.get("detail")
    if detail is not None and not isinstance(detail, str):
        return None
    extra = {k: v for k, v in p.items() if k not in ("type", "image_url")}
    nested = {k: v for k, v in iu.items() if k not in ("url", "detail")}
    if nested:
        extra[H.NESTED] = nested
    return image_block(url, detail=detail, extra=extra)


def _arguments(obj: dict, path: PathParts) -> tuple[str, dict[str, Any]]:
    """``obj["arguments"]`` as JSON text, and the block extra that restores ``obj`` as written: its
    other fields (and a missing ``arguments``) under NESTED, ARGS_OBJECT for an object."""
    nested = {k: v for k, v in obj.items() if k not in ("name", "arguments")}
    extra: dict[str, Any] = {}
    args = obj.get("arguments")
    if isinstance(args, str):
        text = args
    elif "arguments" not in obj:
        text = "{}"
        nested[H.OMIT] = ["arguments"]
    elif isinstance(args, dict):
        text = orjson.dumps(args).decode()
        extra[H.ARGS_OBJECT] = True
    else:
        raise ShapeError(path + ("arguments",), f"expected the arguments as a JSON string, found {describe(args)}")
    if nested:
        extra[H.NESTED] = nested
    return text, extra



def _common_tool_call(call: Any) -> ToolCallBlock | None:
    """A tool call in the form nearly every file writes (``id``, ``type: function``, ``function``
    with string ``name`` and ``arguments``, nothing else) as :func:`_tool_call` builds it, checked
    in a few comparisons; None for any other form."""
    # (the keys by their number and the values' types, as common_message checks a message's)
    if type(call) is dict and len(call) == 3 and call.get("type") == "function":
        fn = call.get("function")
        if type(fn) is dict and len(fn) == 2:
            call_id, name, args = call.get("id"), fn.get("name"), fn.get("arguments")
            if type(call_id) is str and type(name) is str and type(args) is str:
                return new_tool_call(call_id, intern(name), args, {"type": "function"})
    return None


def _tool_call(call: Any, path: PathParts) -> ToolCallBlock:
    if not isinstance(call, dict) or not isinstance(call.get("function"), dict):
        found = describe(call) if not isinstance(call, dict) else 'an object without "function"'
        raise ShapeError(path, f'expected an object with "function", found {found}')
    fn = call["function"]
    if not isinstance(fn.get("name"), str):
        found = describe(fn["name"]) if "name" in fn else "none"
        raise ShapeError(path + ("function", "name"), f"expected the tool name as a string, found {found}")
    call_id = call.get("id")
    if not isinstance(call_id, str):
        found = describe(call_id) if "id" in call else "none"
        raise ShapeError(path + ("id",), f"expected the call id as a string, found {found}")
    args, extra = _arguments(fn, path + ("function",))
    # the strings every call repeats ("function", the tool's name) held once, not once per call
    extra.update((k, intern(v) if type(v) is str and len(v) < 64 else v) for k, v in call.items() if k not in ("id", "function"))
    if "type" not in call:
        extra[H.OMIT] = ["type"]
    return new_tool_call(call_id, intern(fn["name"]), args, extra)


#: Usage written with Anthropic's cache fields next to OpenAI's names: the input excludes them.
_ANTHROPIC_STYLE = UsageKeys(
    input=("prompt_tokens", "input_tokens"),
    output=("completion_tokens", "output_tokens"),
    cache_read=ANTHROPIC.cache_read,
    cache_write=ANTHROPIC.cache_write,
)


def _usage(u: Any) -> Usage | None:
    """Recorded usage; OpenAI counts cached tokens inside the prompt, the model keeps them apart."""
    if not isinstance(u, dict):
        return None
    if "cache_read_input_tokens" in u or "cache_creation_input_tokens" in u:
        return usage_from(u, _ANTHROPIC_STYLE)
    usage = usage_from(u, OPENAI)
    if usage is None or (usage.input_tokens is None and usage.output_tokens is None):
        return None
    return usage


def _read_tools(doc: dict, extra: dict) -> list[ToolDefinition]:
    tools: list[ToolDefinition] = []
    for key, legacy in (("tools", False), ("functions", True)):
        for k, t in enumerate(tool_items(doc, key, extra)):
            tools.append(_tool_definition(t, (key, k), legacy))
    return tools


def _tool_definition(t: Any, path: PathParts, legacy: bool) -> ToolDefinition:
    if not isinstance(t, dict):
        raise ShapeError(path, f"expected a tool definition object, found {describe(t)}")
    if isinstance(t.get("function"), dict) and not legacy:
        fn, fpath = t["function"], path + ("function",)
    elif legacy or isinstance(t.get("name"), str):
        fn, fpath = t, path  # legacy "functions" entry, or the flat (Responses API) spelling
    else:
        raise ShapeError(path, 'expected an object with "function": {"name", "description", "parameters"}')
    name = fn.get("name")
    if not isinstance(name, str):
        raise ShapeError(fpath + ("name",), f"expected the tool name as a string, found {describe(name)}")
    description, parameters, rest = tool_fields(fn, fpath, "parameters")
    if fn is t:
        extra = {H.LEGACY if legacy else H.FLAT: True, **rest}
    else:
        extra = {k: v for k, v in t.items() if k != "function"}
        if "type" not in t:
            extra[H.OMIT] = ["type"]
        if rest:
            extra[H.NESTED] = rest
    return ToolDefinition.model_construct(name=name, description=description, parameters=parameters, extra=extra)


# -- detection -----------------------------------------------------------------------------------

_OPENAI_KEYS = ("tool_calls", "tool_call_id", "function_call")
_OPENAI_ROLES = frozenset({"system", "developer", "tool", "function"})
_OPENAI_PARTS = frozenset({"image_url", "input_audio", "file", "refusal"})
_ANTHROPIC_BLOCKS = frozenset(
    {"tool_use", "tool_result", "thinking", "redacted_thinking", "image", "document", "server_tool_use"}
)
SCAN_MESSAGES = 500


def signals(doc: Any) -> tuple[bool, bool]:
    """``(openai, anthropic)``: whether a parsed document shows features only one provider has."""
    if isinstance(doc, dict):
        items = doc.get("messages")
        anthropic = "system" in doc or str(doc.get("model", "")).startswith("claude")
        openai = "functions" in doc
        tools = doc.get("tools")
        if isinstance(tools, list) and tools and isinstance(tools[0], dict):
            openai = openai or "function" in tools[0]
            anthropic = anthropic or "input_schema" in tools[0]
    else:
        items, openai, anthropic = doc, False, False
    if not isinstance(items, list):
        return openai, anthropic
    for d in items[:SCAN_MESSAGES]:
        if not isinstance(d, dict):
            continue
        if d.get("role") in _OPENAI_ROLES or any(k in d for k in _OPENAI_KEYS):
            openai = True
        content = d.get("content")
        if isinstance(content, list):
            for p in content:
                if isinstance(p, dict):
                    kind = p.get("type")
                    if kind in _OPENAI_PARTS:
                        openai = True
                    elif kind in _ANTHROPIC_BLOCKS:
                        anthropic = True
        if openai and anthropic:
            break
    return openai, anthropic


def is_message_list(items: Any) -> bool:
    return isinstance(items, list) and all(isinstance(d, dict) and "role" in d for d in items[:SCAN_MESSAGES])


def looks_like_broken_json(probe: Probe) -> bool:
    """Starts like a JSON document, does not parse, and its first line is not a JSON value of its
    own (so it is not JSONL): a malformed document whose decoder error the reader should report."""
    head = probe.head.lstrip()
    return head[:1] in (b"{", b"[") and probe.document is None and probe.first_line is None


def detect(probe: Probe) -> int:
    doc = probe.document
    if doc is None:
        return 1 if looks_like_broken_json(probe) else 0
    if isinstance(doc, dict) and "messages" not in doc:
        return 0
    items = doc if isinstance(doc, list) else doc["messages"]
    if not is_message_list(items):
        return 1  # right container, wrong contents: the reader names the bad path
    openai, anthropic = signals(doc)
    if anthropic and not openai:
        return 5
    remember(probe, doc)  # this reader very likely wins: let it reuse the parsed document
    return 90 if openai else 60


register(
    Format(
        name=NAME,
        description="OpenAI Chat Completions messages (a JSON list, or an object with \"messages\")",
        detect=detect,
        read=read,
        suffix=".json",
    )
)
