"""Anthropic Messages: the wire rules, in one place.

What a request may hold, and how the inspector lays a history out for it:

- system messages, wherever they are (the system prompt, an inserted summary, one in the middle
  of the history), move to the top-level ``system`` field, so they never break the "no system
  role" rule (:func:`check` with ``extract_system=False`` checks a list sent as is);
- ``tool`` messages become ``tool_result`` blocks, and a run of consecutive ``tool`` messages is
  merged into one ``user`` message. Nothing else is merged, so ``messages.N`` indices count the
  request's messages after these two steps;
- in a user message the ``tool_result`` blocks come first, then its other content
  (:func:`results_first_order`; the export does this, a round trip keeps the source's order);
- tool call arguments become ``input`` objects (text that is not a JSON object is wrapped as
  ``{"_unparsed_arguments": text}``, :func:`tool_input`); empty text blocks are dropped.

:func:`check` finds the rules a history breaks, with the error text the API returns.
:func:`dump_request` writes a session (or a pruned history) as a request body; with the session
read from an Anthropic file it restores the source's own fields (see
:mod:`inspector.formats.hints`), which is how a round trip (:func:`write_document`) reproduces the
file. :func:`export_body` is the export.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import orjson

from ..formats import hints as H
from ..formats.imagesize import split_data_url
from ..model import (
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

#: The format name of a session read from an Anthropic Messages file.
FORMAT = "anthropic"

ANTHROPIC_EMPTY = "messages: at least one message is required"
ANTHROPIC_SYSTEM = (
    'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, '
    'not "system" as an input message role.'
)
ANTHROPIC_ORPHAN = (
    "messages.{}.content.{}: unexpected `tool_use_id` found in `tool_result` blocks: {}. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)
ANTHROPIC_MISSING = (
    "messages.{}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. "
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)
ANTHROPIC_NO_CONTENT = "messages.{}: all messages must have non-empty content except for the optional final assistant message"
#: A ``tool_use`` id must match ``^[a-zA-Z0-9_-]+$`` (so an empty one is rejected) and be unique in
#: the request. Quoted from real responses (anomalyco/opencode #1279, anthropics/claude-code #20901).
ANTHROPIC_BAD_ID = "messages.{}.content.{}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
ANTHROPIC_DUPLICATE_ID = "messages.{}.content.{}: `tool_use` ids must be unique"
_ID_PATTERN = re.compile(r"[a-zA-Z0-9_-]+")
# Anthropic's tool-use documentation: in a user message, the ``tool_result`` blocks come first
# and any text after them. Worded here after the docs; the API's exact text is not recorded
# (strategies.md section 9.3, rule 5). Checked only for a list sent as is: the exporter reorders.
ANTHROPIC_RESULTS_FIRST = (
    "messages.{}.content.{}: `tool_result` blocks must come first in the content of a `user` "
    "message, before any text or other block."
)


def check(slots: Iterable, f: Facts, extract_system: bool = True) -> list[Violation]:
    """The rules the request laid out from ``slots`` breaks: every ``tool_result`` must answer a
    ``tool_use`` of the previous message; every ``tool_use`` needs its ``tool_result`` in the
    next message; ``tool_use`` ids match ``^[a-zA-Z0-9_-]+$`` and are unique in the request; no
    empty message except a final assistant one; at least one message. With
    ``extract_system=False`` (a list sent as is) also: no ``system`` role in ``messages``, and
    ``tool_result`` blocks first in their user message."""
    out: list[Violation] = []
    roles, call_ids, result_ids, empty, sources = f.roles, f.call_ids, f.result_ids, f.empty, f.sources
    # Streaming over the request: ``cur_*`` is message n being built; when the next one starts,
    # it is checked against ``prev_*`` (message n - 1: its tool uses answered by message n's
    # results, and its emptiness, now known not to be the last message), then shifted. Result
    # positions and sources are looked up only to word an error.
    n = -1
    cur_role: str | None = None
    cur_uses: tuple[str, ...] = ()
    cur_ids: tuple[str, ...] | list[str] = ()  # result ids in message n
    cur_run: list[int | None] | None = None  # a run of tool messages: the source of each result
    cur_slot = None  # the slot of a user message holding results (for their content positions)
    cur_empty = False
    cur_source: int | None = None
    prev_role: str | None = None
    prev_uses: tuple[str, ...] = ()
    prev_empty = False
    prev_source: int | None = None

    as_is = not extract_system
    seen_ids: set[str] = set()

    def orphans(n: int, ids, allowed, run, slot, source) -> None:
        # Exported, a message's results come first: result k is content.k. Sent as is, the
        # results stand where they are in the message.
        positions = f.positions(slot) if run is None and as_is else None
        allowed = set(allowed)
        for k, rid in enumerate(ids):
            if rid not in allowed:
                if run is None:
                    pos, src = (positions[k] if positions is not None and k < len(positions) else k), source
                else:
                    pos, src = k, run[k]
                out.append(Violation("anthropic", n, src, "orphan_result", ANTHROPIC_ORPHAN.format(n, pos, rid)))

    def unanswered(n: int, uses, answered, source) -> None:
        answered = set(answered)
        missing = [u for u in uses if u not in answered]
        if missing:
            out.append(Violation("anthropic", n, source, "missing_result", ANTHROPIC_MISSING.format(n, ", ".join(missing))))

    for s in slots:
        if type(s) is int:
            role = roles[s]
            if role == "system" and extract_system:
                continue
            source = s if sources is None else sources[s]
            ids = result_ids[s]
            if role == "tool":
                if cur_run is not None:
                    cur_ids.extend(ids)  # type: ignore[union-attr]
                    cur_run.extend([source] * len(ids))
                    continue
                role, uses, new_ids, run, slot, is_empty = "user", (), list(ids), [source] * len(ids), None, False
            else:
                uses = call_ids[s] if role == "assistant" else ()
                new_ids, run, slot, is_empty = ids, None, s, (not ids and s in empty)
        else:  # an inserted message: text only
            role = s.role
            if role == "system" and extract_system:
                continue
            source, uses, new_ids, run, slot, is_empty = None, (), (), None, None, not s.text
        if n >= 0:  # finish message n against message n - 1
            if cur_ids:
                allowed = prev_uses if prev_role == "assistant" else ()
                if not (len(cur_ids) == 1 and cur_ids[0] in allowed) and not set(cur_ids).issubset(allowed):
                    orphans(n, cur_ids, allowed, cur_run, cur_slot, cur_source)
            if prev_uses:
                answered = cur_ids if cur_role == "user" else ()
                if not (len(prev_uses) == 1 and prev_uses[0] in answered) and not set(prev_uses).issubset(answered):
                    unanswered(n - 1, prev_uses, answered, prev_source)
            if prev_empty:
                out.append(Violation("anthropic", n - 1, prev_source, "empty_content", ANTHROPIC_NO_CONTENT.format(n - 1)))
            prev_role, prev_uses, prev_empty, prev_source = cur_role, cur_uses, cur_empty, cur_source
        n += 1
        if uses:
            for k, uid in enumerate(uses):
                if not _ID_PATTERN.fullmatch(uid):
                    out.append(Violation("anthropic", n, source, "invalid_tool_id", ANTHROPIC_BAD_ID.format(n, f.call_position(slot, k))))
                elif uid in seen_ids:
                    out.append(Violation("anthropic", n, source, "duplicate_tool_id", ANTHROPIC_DUPLICATE_ID.format(n, f.call_position(slot, k))))
                seen_ids.add(uid)
        if role == "system":
            out.append(Violation("anthropic", n, source, "system_role", ANTHROPIC_SYSTEM))
        elif as_is and new_ids and run is None:
            misplaced = next((p for k, p in enumerate(f.positions(slot)) if p != k), None)
            if misplaced is not None:
                out.append(Violation("anthropic", n, source, "results_not_first", ANTHROPIC_RESULTS_FIRST.format(n, misplaced)))
        cur_role, cur_uses, cur_ids, cur_run, cur_slot, cur_empty, cur_source = role, uses, new_ids, run, slot, is_empty, source
    if n < 0:
        out.append(Violation("anthropic", None, None, "empty_history", ANTHROPIC_EMPTY))
        return out
    # The last message: checked against the one before it; its own uses have no next message.
    if cur_ids:
        allowed = prev_uses if prev_role == "assistant" else ()
        if not set(cur_ids).issubset(allowed):
            orphans(n, cur_ids, allowed, cur_run, cur_slot, cur_source)
    if prev_uses:
        unanswered(n - 1, prev_uses, cur_ids if cur_role == "user" else (), prev_source)
    if prev_empty:
        out.append(Violation("anthropic", n - 1, prev_source, "empty_content", ANTHROPIC_NO_CONTENT.format(n - 1)))
    if cur_uses:
        unanswered(n, cur_uses, (), cur_source)
    if cur_empty and cur_role != "assistant":
        out.append(Violation("anthropic", n, cur_source, "empty_content", ANTHROPIC_NO_CONTENT.format(n)))
    out.sort(key=lambda v: -1 if v.index is None else v.index)
    return out


# -- writing -------------------------------------------------------------------------------------


def export_body(session: Session, messages: list[Message]) -> dict[str, Any]:
    """The request body that sends ``messages`` (a history of ``session``) to Anthropic."""
    return dump_request(session, messages, results_first=True)


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
    same = session.format == FORMAT
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


def write_document(session: Session) -> str:
    """``session`` as an Anthropic file: a request body, or the bare message list it was read from."""
    request = dump_request(session)
    data: Any = request["messages"] if session.format == FORMAT and session.extra.get(H.BARE) else request
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
        d["content"] = H.result_content(b, same, _dump_block)
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
