"""LangChain message dumps: ``messages_to_dict`` (``[{"type": "human", "data": {...}}, ...]``, what
``FileChatMessageHistory`` writes) and ``dumpd`` (``{"lc": 1, "type": "constructor", "id": [...,
"AIMessage"], "kwargs": {...}}``, Python and JS prefixes); a list, or an object with ``messages``.

- ``human`` -> user, ``ai`` (and ``AIMessageChunk``) -> assistant, ``system`` -> system,
  ``tool`` -> tool (``status: "error"`` -> ``is_error``), legacy ``function`` -> tool answering
  the previous assistant's ``function_call``, ``chat`` -> its ``role``; ``remove`` is skipped.
- ``AIMessage.tool_calls`` (args already parsed) -> tool calls with the args as JSON text;
  ``invalid_tool_calls`` keep their raw args (``extra["invalid"]``). Anthropic-style ``tool_use``
  blocks repeated in ``content`` are not counted twice. Older dumps with only
  ``additional_kwargs.tool_calls`` (OpenAI raw) are read from there.
- ``usage_metadata`` -> Usage; its ``input_tokens`` include ``input_token_details.cache_read`` /
  ``cache_creation``, which are split out so ``Usage.context_tokens`` equals the recorded input.
  langchain-anthropic 1.x writes the cache writes as ``ephemeral_5m_input_tokens`` +
  ``ephemeral_1h_input_tokens`` and sets ``cache_creation`` to 0: their sum is the cache write.
- No native summary marker: a system or human message starting with a known summary prefix
  ("Here is a summary of the conversation to date") is a summary unit through the units module.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..model import (
    Block,
    ImageBlock,
    Message,
    RawBlock,
    ResultPart,
    Session,
    SourceRef,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from .base import Format, Probe, SessionFormatError, register
from .reading import LANGCHAIN, content_blocks, image_block, usage_from
from .records import FIELD_ERRORS, ignored, json_text, load_json, malformed

NAME = "langchain"
CLASS_TYPES = {
    "HumanMessage": "human",
    "AIMessage": "ai",
    "SystemMessage": "system",
    "ToolMessage": "tool",
    "FunctionMessage": "function",
    "ChatMessage": "chat",
    "RemoveMessage": "remove",
}
ROLE_OF = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "tool"}
KNOWN_TYPES = frozenset(ROLE_OF) | {"chat", "remove"}


def _type_and_data(item: Any) -> tuple[str | None, dict[str, Any] | None]:
    """``(type, fields)`` of a messages_to_dict entry or a dumpd constructor; (None, None) if neither."""
    if not isinstance(item, dict):
        return None, None
    if item.get("lc") == 1 and item.get("type") == "constructor" and isinstance(item.get("id"), list) and item["id"]:
        cls = str(item["id"][-1])
        kind = CLASS_TYPES.get(cls.removesuffix("Chunk"))
        return kind, item.get("kwargs") if isinstance(item.get("kwargs"), dict) else {}
    if isinstance(item.get("type"), str) and isinstance(item.get("data"), dict):
        t = item["type"]
        if t.endswith("Chunk"):
            t = CLASS_TYPES.get(t.removesuffix("Chunk"), t)
        return t, item["data"]
    return None, None


def _messages_of(doc: Any) -> tuple[list[Any], str] | None:
    if isinstance(doc, list):
        return doc, "$"
    if isinstance(doc, dict) and isinstance(doc.get("messages"), list):
        return doc["messages"], "$.messages"
    return None


def _image(part: dict[str, Any]) -> ImageBlock:
    url = part.get("image_url")
    if isinstance(url, dict):
        url = url.get("url")
    if url is None:
        url = part.get("url") or part.get("base64") or part.get("data") or ""
    base64 = "base64" in part or part.get("source_type") == "base64"
    return image_block(url, media_type=part.get("mime_type"), source_kind="base64" if base64 else "url")


def _content(content: Any, skip_call_ids: set[str]) -> tuple[list[Block], str]:
    def part_block(part: Any, k: int) -> Block | None:
        if isinstance(part, str):
            return TextBlock(text=part)
        if not isinstance(part, dict):
            return None
        t = part.get("type")
        if t == "text":
            return TextBlock(text=str(part.get("text", "")))
        if t in ("image_url", "image"):
            return _image(part)
        if t in ("thinking", "reasoning"):
            text = part.get("thinking", part.get("reasoning", ""))
            return ThinkingBlock(thinking=str(text or ""), signature=part.get("signature"))
        if t in ("tool_use", "tool_call"):
            if str(part.get("id")) in skip_call_ids:
                return None  # the same call as in tool_calls
            return ToolCallBlock(id=str(part.get("id", "")), name=str(part.get("name", "")), arguments=json_text(part.get("input", part.get("args", {}))))
        text = part.get("text")
        return RawBlock(raw=part, text=text if isinstance(text, str) else "")

    return content_blocks(content, part_block, "blocks")


def _result(content: Any) -> str | list[ResultPart]:
    if isinstance(content, str):
        return content
    parts: list[ResultPart] = []
    for part in content if isinstance(content, list) else [content]:
        if isinstance(part, str):
            parts.append(TextBlock(text=part))
        elif isinstance(part, dict) and part.get("type") in ("image_url", "image"):
            parts.append(_image(part))
        elif isinstance(part, dict) and isinstance(part.get("text"), str):
            parts.append(TextBlock(text=part["text"]))
        else:
            parts.append(TextBlock(text=json_text(part)))
    return parts


def _tool_calls(data: dict[str, Any]) -> list[ToolCallBlock]:
    calls: list[ToolCallBlock] = []
    for c in data.get("tool_calls") or []:
        if isinstance(c, dict):
            calls.append(ToolCallBlock(id=str(c.get("id") or ""), name=str(c.get("name", "")), arguments=json_text(c.get("args", {}))))
    for c in data.get("invalid_tool_calls") or []:
        if isinstance(c, dict):
            calls.append(ToolCallBlock(id=str(c.get("id") or ""), name=str(c.get("name") or ""), arguments=str(c.get("args") or ""), extra={"invalid": True, "error": c.get("error")}))
    if not calls:
        raw = (data.get("additional_kwargs") or {}).get("tool_calls") if isinstance(data.get("additional_kwargs"), dict) else None
        for c in raw or []:
            fn = c.get("function") if isinstance(c, dict) and isinstance(c.get("function"), dict) else None
            if fn is not None:
                calls.append(ToolCallBlock(id=str(c.get("id", "")), name=str(fn.get("name", "")), arguments=json_text(fn.get("arguments", "{}"))))
    return calls


def _usage_metadata(data: dict[str, Any]) -> Any:
    """``usage_metadata`` with ``cache_creation`` the sum of the per-lifetime writes where
    langchain-anthropic split them out (and left ``cache_creation`` 0)."""
    raw = data.get("usage_metadata")
    details = raw.get("input_token_details") if isinstance(raw, dict) else None
    if not isinstance(details, dict) or details.get("cache_creation"):
        return raw
    parts = [details.get(k) for k in ("ephemeral_5m_input_tokens", "ephemeral_1h_input_tokens")]
    written = sum(p for p in parts if type(p) is int and p > 0)
    return {**raw, "input_token_details": {**details, "cache_creation": written}} if written else raw


def _model(data: dict[str, Any]) -> str | None:
    meta = data.get("response_metadata") if isinstance(data.get("response_metadata"), dict) else {}
    model = meta.get("model_name") or meta.get("model")
    return model if isinstance(model, str) else None


def read(path: Path) -> Session:
    doc = load_json(path)
    found = _messages_of(doc)
    if found is None:
        raise SessionFormatError(path, "$", "this is not a list of LangChain messages.", 'a JSON list of {"type", "data"} messages (messages_to_dict) or dumpd constructors')
    items, prefix = found
    session = Session(path=str(path), format=NAME)
    last_function_call: str | None = None
    for k, item in enumerate(items):
        where = f"{prefix}[{k}]"
        try:
            kind, data = _type_and_data(item)
            if kind is None or data is None:
                raise SessionFormatError(path, where, "not a LangChain message.", '{"type": "human"|"ai"|"system"|"tool", "data": {...}}')
            if kind == "remove":
                session.skipped.append(ignored(where, "remove"))
                continue
            role = ROLE_OF.get(kind) or (data.get("role") if data.get("role") in ("user", "assistant", "system") else "user")
            if kind not in KNOWN_TYPES:
                session.skipped.append(ignored(where, f"{kind} (unknown message type)"))
                continue
            extra = {key: data[key] for key in ("id",) if data.get(key)}
            meta = data.get("response_metadata") if isinstance(data.get("response_metadata"), dict) else {}
            if meta.get("model_name") or meta.get("model"):
                extra["model"] = meta.get("model_name") or meta.get("model")
            source = SourceRef(json_path=where)
            name = data.get("name") if isinstance(data.get("name"), str) else None
            if role == "tool":
                call_id = data.get("tool_call_id") or (last_function_call if kind == "function" else None) or ""
                block = ToolResultBlock(tool_call_id=str(call_id), content=_result(data.get("content", "")), is_error=data.get("status") == "error", name=name)
                session.messages.append(Message(index=len(session.messages), role="tool", content=[block], source=source, extra=extra))
                continue
            calls = _tool_calls(data) if kind == "ai" else []
            fc = (data.get("additional_kwargs") or {}).get("function_call") if kind == "ai" and isinstance(data.get("additional_kwargs"), dict) else None
            if isinstance(fc, dict) and not calls:  # legacy functions API: linked by adjacency
                last_function_call = f"function_call_{k}"
                calls.append(ToolCallBlock(id=last_function_call, name=str(fc.get("name", "")), arguments=json_text(fc.get("arguments", "{}"))))
            blocks, form = _content(data.get("content"), {c.id for c in calls})
            session.messages.append(
                Message(
                    index=len(session.messages),
                    role=role,
                    content=blocks + calls,
                    name=name,
                    usage=usage_from(_usage_metadata(data), LANGCHAIN, _model(data)) if kind == "ai" else None,
                    source=source,
                    content_form=form,
                    extra=extra,
                )
            )
        except FIELD_ERRORS as exc:
            session.skipped.append(malformed(where, "message", exc))

    return session


def detect(probe: Probe) -> int:
    found = _messages_of(probe.document)
    if found is None or not found[0]:
        return 0
    sample = found[0][:50]
    kinds = [_type_and_data(item)[0] for item in sample]
    if all(k is not None for k in kinds) and any(k in KNOWN_TYPES for k in kinds):
        return 90
    return 0


FORMAT = register(
    Format(
        name=NAME,
        description="LangChain messages (messages_to_dict list or dumpd constructors)",
        detect=detect,
        read=read,
    )
)
