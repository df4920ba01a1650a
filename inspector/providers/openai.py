"""OpenAI Chat Completions: the wire rules, in one place.

What a request may hold, and how the inspector lays a history out for it:

- a message holding tool results becomes one ``tool`` message per result, followed by a
  ``user`` message for any other content it has that is sent (:func:`sent_beside_results`;
  Claude Code puts reminders next to results). Thinking is never sent (Chat Completions has no
  slot for it);
- images a tool returned (screenshots) move out of the ``tool`` messages into one ``user``
  message right after the batch's tool messages ("Image URLs are only allowed for messages with
  role 'user'"; :func:`images_after_tool_messages`);
- ``content: null`` is accepted only on an assistant message with tool calls; the writer sends
  null only for a message recorded with null content and nothing else to send
  (:func:`null_content`). An empty or thinking-only message is written as "", which the API takes;
- system messages stay where they are (OpenAI accepts them anywhere).

:func:`check` finds the rules a history breaks, with the error text the API returns (quoted from
real responses, misspellings included; strategies.md section 9.3). :func:`dump_request` writes a
session (or a pruned history) as a request body; with the session read from an OpenAI file it
restores the source's own fields and spellings (see :mod:`inspector.formats.hints`), which is how
a round trip (:func:`write_document`) reproduces the file. :func:`export_body` is the export.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from ..formats import hints as H
from ..model import (
    Block,
    ImageBlock,
    Message,
    RawBlock,
    Session,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolDefinition,
    ToolResultBlock,
)
from .common import Facts, Violation

#: The format name of a session read from an OpenAI Chat Completions file.
FORMAT = "openai"

OPENAI_EMPTY = (
    "Invalid 'messages': empty array. Expected an array with minimum length 1, "
    "but got an empty array instead."
)
OPENAI_ORPHAN = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
OPENAI_UNKNOWN_ID = "Invalid parameter: 'tool_call_id' of '{}' not found in 'tool_calls' of previous message."
OPENAI_MISSING = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. The following tool_call_ids did not have response messages: {}"
)
OPENAI_NULL = "Invalid value for 'content': expected a string, got null."
#: Two tool messages answering the same call (as a batch of calls recorded with one id, "" in
#: Agents SDK databases, is answered). Quoted from real responses (agno-agi/agno #5116,
#: fatwang2/search2ai #30).
OPENAI_DUPLICATE = "Invalid parameter: Duplicate value for 'tool_call_id' of '{}', in messages[{}] and messages[{}]."


# -- rules ---------------------------------------------------------------------------------------


def sent_beside_results(block: Block) -> bool:
    """Whether a block next to tool results is sent to OpenAI (as a user message after the tool
    messages): not a result, not thinking (Chat Completions has no slot for it), not blank text.
    The rule the writer (:func:`dump_messages`) sends by; the validator lays requests out with it."""
    if isinstance(block, (ToolResultBlock, ThinkingBlock)):
        return False
    return not isinstance(block, TextBlock) or bool(block.text.strip())


def result_images(m: Message) -> bool:
    """Whether a tool result of ``m`` holds an image. OpenAI takes images only in user messages,
    so the export moves them to a user message after the batch's tool messages."""
    return any(
        isinstance(b, ToolResultBlock) and not isinstance(b.content, str) and any(isinstance(p, ImageBlock) for p in b.content)
        for b in m.content
    )


def null_content(m: Message) -> bool:
    """Whether the OpenAI exporter writes ``m`` with ``content: null`` where Chat Completions
    rejects it ("expected a string, got null"; only an assistant message with tool calls may
    have null content). It writes null only for a message recorded with null content and
    nothing else to send (thinking is not sent): a tool message whose result is empty, or a
    message with no tool calls and no text, image or other block. An empty string ``""`` is a
    string and accepted (strategies.md section 9.3, rule 5), so "" and thinking-only messages
    are valid."""
    if m.content_form != "null":
        return False
    if m.role == "tool":
        return len(m.content) == 1 and isinstance(m.content[0], ToolResultBlock) and m.content[0].content == ""
    return not any(isinstance(b, (ToolResultBlock, ToolCallBlock)) or not isinstance(b, ThinkingBlock) for b in m.content)


def check(slots: Iterable, f: Facts) -> list[Violation]:
    """The rules the request laid out from ``slots`` breaks: a ``tool`` message must answer a
    call of the assistant message right before it (only tool messages of the same batch in
    between), and no call twice; every call must be answered before any other message; content may be null only
    on an assistant message with tool calls; the history may not be empty."""
    out: list[Violation] = []
    roles, call_ids, result_ids, other, null, sources = f.roles, f.call_ids, f.result_ids, f.other, f.null, f.sources
    pos = 0
    batch: frozenset[str] = frozenset()  # call ids of the assistant message the current tool run answers
    pending: dict[str, None] = {}  # its ids not answered yet, in order (a set: 20k parallel calls stay linear)
    answered: dict[str, int] = {}  # its ids answered so far: the tool message's position
    batch_pos, batch_source = 0, None
    in_batch = False
    images, images_pending = f.images, False  # a user message with a tool run's images follows the run
    for s in slots:
        if type(s) is int:
            role = roles[s]
            results = result_ids[s]
            source = s if sources is None else sources[s]
            if results or role == "tool":
                for rid in results:
                    if not in_batch:
                        out.append(Violation("openai", pos, source, "orphan_result", OPENAI_ORPHAN))
                    elif rid not in batch:
                        out.append(Violation("openai", pos, source, "orphan_result", OPENAI_UNKNOWN_ID.format(rid)))
                    elif rid in pending:
                        del pending[rid]
                        answered[rid] = pos
                    elif rid in answered:
                        out.append(Violation("openai", pos, source, "duplicate_tool_id", OPENAI_DUPLICATE.format(rid, answered[rid], pos)))
                    pos += 1
                if not results:  # a tool message answering nothing
                    out.append(Violation("openai", pos, source, "orphan_result", OPENAI_ORPHAN))
                    pos += 1
                elif s in null:  # a tool message written with null content
                    out.append(Violation("openai", pos - 1, source, "empty_content", OPENAI_NULL))
                if s in images:
                    images_pending = True
                if s not in other:
                    continue
                role, calls, is_empty = "user", (), False  # its other content follows the tool messages
            else:
                calls = call_ids[s]
                is_empty = s in null
        else:  # an inserted message: its text, a string even when empty
            role, calls, is_empty, source = s.role, (), False, None
        if images_pending:  # the user message holding the tool run's images
            pos += 1
            images_pending = False
        if in_batch:
            if pending:
                out.append(Violation("openai", batch_pos, batch_source, "missing_result", OPENAI_MISSING.format(", ".join(pending))))
            in_batch = False
        if calls and role == "assistant":
            in_batch = True
            batch, pending, answered = frozenset(calls), dict.fromkeys(calls), {}
            batch_pos, batch_source = pos, source
        elif is_empty:
            out.append(Violation("openai", pos, source, "empty_content", OPENAI_NULL))
        pos += 1
    if in_batch and pending:
        out.append(Violation("openai", batch_pos, batch_source, "missing_result", OPENAI_MISSING.format(", ".join(pending))))
    pos += images_pending
    if pos == 0:
        out.append(Violation("openai", None, None, "empty_history", OPENAI_EMPTY))
    return out


# -- writing -------------------------------------------------------------------------------------


def export_body(session: Session, messages: list[Message]) -> dict[str, Any]:
    """The request body that sends ``messages`` (a history of ``session``) to OpenAI."""
    body = dump_request(session, messages)
    body["messages"] = images_after_tool_messages(body["messages"])
    return body


def images_after_tool_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI messages with the ``image_url`` parts of ``tool`` messages moved into one ``user``
    message after each run of consecutive tool messages (all results of a batch come first, as
    the API requires). A tool message left with no part gets ``""`` as content."""
    out: list[dict[str, Any]] = []
    images: list[Any] = []
    for d in messages:
        if d.get("role") == "tool":
            content = d.get("content")
            if isinstance(content, list) and any(isinstance(p, dict) and p.get("type") == "image_url" for p in content):
                images.extend(p for p in content if isinstance(p, dict) and p.get("type") == "image_url")
                rest = [p for p in content if not (isinstance(p, dict) and p.get("type") == "image_url")]
                d = {**d, "content": rest or ""}
            out.append(d)
            continue
        if images:
            out.append({"role": "user", "content": images})
            images = []
        out.append(d)
    if images:
        out.append({"role": "user", "content": images})
    return out


def dump_messages(messages: list[Message], *, keep_extra: bool = True) -> list[dict]:
    """Messages in Chat Completions shape.

    ``keep_extra=True`` (the messages came from an OpenAI file) puts back the source's own fields
    and raw parts; ``False`` writes only what the API defines. Thinking blocks are left out (Chat
    Completions has no slot for them); a user message carrying tool results (Anthropic shape)
    becomes one ``tool`` message per result followed by a user message with whatever else it had.
    """
    out: list[dict] = []
    for m in messages:
        _dump_message(m, keep_extra, out)
    return out


def dump_request(session: Session, messages: list[Message] | None = None) -> dict:
    """``{"messages": [...], "tools": [...] if any, **session.extra}``. Extras (request fields,
    per-message source fields) are written only when the session was read from an OpenAI file."""
    same = session.format == FORMAT
    msgs = session.messages if messages is None else messages
    out: dict[str, Any] = {"messages": dump_messages(msgs, keep_extra=same)}
    tools = [_dump_tool(t, same) for t in session.tools if not (same and t.extra.get(H.LEGACY))]
    functions = [_dump_tool(t, same) for t in session.tools if same and t.extra.get(H.LEGACY)]
    if tools:
        out["tools"] = tools
    if functions:
        out["functions"] = functions
    if same:
        H.emit_extra(out, session.extra)
    return out


def write_document(session: Session) -> str:
    """``session`` as an OpenAI file: a request body, or the bare message list it was read from."""
    if session.format == FORMAT and session.extra.get(H.BARE):
        data: Any = dump_messages(session.messages)
    else:
        data = dump_request(session)
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


def _dump_message(m: Message, keep: bool, out: list[dict]) -> None:
    results = [b for b in m.content if isinstance(b, ToolResultBlock)]
    if m.role == "tool" or results:
        for r in results:
            d = _dump_result(r, m, keep)
            if m.role == "tool" and len(results) == 1:
                if m.name:
                    d.setdefault("name", m.name)
                H.emit_extra(d, m.extra, keep)
            out.append(d)
        rest = [b for b in m.content if not isinstance(b, (ToolResultBlock, ThinkingBlock, ToolCallBlock))]
        if any(map(sent_beside_results, rest)):
            out.append({"role": "user", "content": _content(rest, "parts", keep)})
        calls = [b for b in m.content if isinstance(b, ToolCallBlock)]
        if calls:  # calls in the message that answers (a hand-made file): they go out as the call they are
            out.append({"role": "assistant", "content": None, "tool_calls": [_dump_call(c, keep) for c in calls]})
        return

    role = m.extra.get(H.ROLE, m.role) if keep else m.role
    d: dict[str, Any] = {"role": role}
    calls = [b for b in m.content if isinstance(b, ToolCallBlock)]
    rest = [b for b in m.content if not isinstance(b, (ToolCallBlock, ThinkingBlock))]
    if m.content_form == "null" and not rest:
        d["content"] = None
    elif not rest:
        d["content"] = None if calls else ""
    else:
        d["content"] = _content(rest, m.content_form, keep)
    if m.name:
        d["name"] = m.name
    legacy = [c for c in calls if keep and c.extra.get(H.LEGACY)]
    modern = [c for c in calls if not (keep and c.extra.get(H.LEGACY))]
    if modern:
        d["tool_calls"] = [_dump_call(c, keep) for c in modern]
    if legacy:
        c = legacy[0]
        fc: dict[str, Any] = {"name": c.name, "arguments": _arguments_value(c)}
        d["function_call"] = H.emit_extra(fc, c.extra.get(H.NESTED) or {})
    H.emit_extra(d, m.extra, keep)
    out.append(d)


def _content(blocks: list[Any], form: str, keep: bool) -> str | list[dict]:
    texts_only = all(isinstance(b, TextBlock) and (not keep or not b.extra) for b in blocks)
    if texts_only and (form == "string" or (form != "parts" and len(blocks) == 1)):
        return "\n".join(b.text for b in blocks)
    return [_dump_part(b, keep) for b in blocks]


def _dump_part(b: Any, keep: bool) -> dict:
    if isinstance(b, TextBlock):
        if H.RAW in b.extra and keep:
            return b.extra[H.RAW]
        return H.emit_extra({"type": "text", "text": b.text}, b.extra, keep)
    if isinstance(b, ImageBlock):
        image_url: dict[str, Any] = {"url": image_url_of(b)}
        if b.detail is not None:
            image_url["detail"] = b.detail
        H.emit_extra(image_url, b.extra.get(H.NESTED) or {}, keep)
        return H.emit_extra({"type": "image_url", "image_url": image_url}, b.extra, keep)
    if isinstance(b, RawBlock):
        return b.raw if keep else {"type": "text", "text": b.text}
    raise TypeError(f"cannot write a {type(b).__name__} as an OpenAI content part")


def image_url_of(b: ImageBlock) -> str:
    """The URL OpenAI takes for an image: a data URL for base64 payloads."""
    if b.source_kind == "base64" and not b.data.startswith("data:"):
        return f"data:{b.media_type or 'image/png'};base64,{b.data}"
    return b.data


def _arguments_value(c: ToolCallBlock) -> Any:
    if c.extra.get(H.ARGS_OBJECT):
        try:
            return orjson.loads(c.arguments)
        except orjson.JSONDecodeError:
            return c.arguments
    return c.arguments


def _dump_call(c: ToolCallBlock, keep: bool) -> dict:
    fn: dict[str, Any] = {"name": c.name, "arguments": _arguments_value(c) if keep else c.arguments}
    d = {"id": c.id, "type": "function", "function": fn}
    if keep:
        H.emit_extra(fn, c.extra.get(H.NESTED) or {})
        H.emit_extra(d, c.extra)
    return d


def _dump_result(r: ToolResultBlock, m: Message, keep: bool) -> dict:
    content: Any
    if isinstance(r.content, str):
        content = None if (m.content_form == "null" and r.content == "" and m.role == "tool") else r.content
    else:
        content = [_dump_part(p, keep) for p in r.content]
    if keep and (r.extra.get(H.LEGACY) or m.extra.get(H.ROLE) == "function"):
        d = {"role": "function", "name": r.name or m.name or "", "content": content}
    else:
        d = {"role": "tool", "tool_call_id": r.tool_call_id, "content": content}
    return d


def _dump_tool(t: ToolDefinition, keep: bool) -> dict:
    fn: dict[str, Any] = {"name": t.name}
    if t.description or keep:
        fn["description"] = t.description
    fn["parameters"] = t.parameters
    if not keep:
        return {"type": "function", "function": fn}
    if t.extra.get(H.LEGACY) or t.extra.get(H.FLAT):
        return H.emit_extra(fn, t.extra)
    H.emit_extra(fn, t.extra.get(H.NESTED) or {})
    return H.emit_extra({"type": "function", "function": fn}, t.extra)
