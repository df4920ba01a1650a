"""Gemini CLI chats: ``~/.gemini/tmp/<project hash>/chats/session-<time>-<id>.json`` or ``.jsonl``.

Before 0.39: one JSON object ``{"sessionId", "projectHash", "startTime", "lastUpdated",
"messages"}``, written again whole after every change (so it is followed by re-reading it).
From 0.39: an append-only log of the same records (``session-*.jsonl``, sub-agents'
``<parent id>/<id>.jsonl``), replayed by :mod:`.gemini_log` into the same message list; a
compression there is a context start (``Message.starts_context``). How it becomes a Session:

- ``type: "user"`` -> a user message (``content`` a string or a list of parts).
- ``type: "gemini"`` -> one assistant message = one model call: its ``thoughts`` (subject and
  description of each, the summaries the CLI shows) as thinking blocks, ``content`` as text, and
  each ``toolCalls`` entry as a tool call (``args`` as JSON text). The results recorded on the
  calls (``result[].functionResponse.response``) follow as one ``tool`` message per call, which is
  what the next call sends back; ``status: "error"`` marks an error result.
- ``tokens`` is that call's recorded usage: ``input`` includes ``cached``, so ``input_tokens`` is
  ``input - cached`` and ``cache_read_input_tokens`` is ``cached``; ``output_tokens`` is
  ``output + thoughts`` (the call generated both; Gemini does not send thoughts back). ``model``
  is ``Usage.model``; ``Session.model`` the most used one, ``Session.agent`` ``gemini-cli``.
  ``tool`` (the API's ``toolUsePromptTokenCount``, apart from ``promptTokenCount``) is what a
  built-in tool such as Google Search put before the model within the call, server side: the
  client did not send it and later calls do not re-send it, so it is not in the recorded
  context; when not 0 it is kept in ``extra["tool_use_prompt_tokens"]``.
- From 0.44 the results sent back are also written as a user message of ``functionResponse``
  parts: those already read from the calls' ``toolCalls`` are skipped with that reason, others
  are ``tool`` messages. A checkpoint writes a model message's ``content`` as parts: its
  ``functionCall`` parts repeat ``toolCalls`` and are left out.
- A sub-agent's chat (``kind: "subagent"``, ``chats/<parent session id>/<agent id>.jsonl``) is
  read into ``Session.sidechains`` keyed by its agent id.
- ``info``, ``error`` and ``warning`` messages are the CLI's own notices, never sent to the model:
  skipped with that reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..model import Block, Message, RawBlock, Session, Skipped, SourceRef, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock, Usage
from .base import Format, Probe, SessionFormatError, register
from .discovery import Candidate, Discovery, SessionDetails, walk
from .gemini_log import Entry, is_metadata_line, read_log
from .rawtext import raw_text
from .reading import MAX_RECORDED_COUNT, ModelTally, content_blocks, image_block
from .records import FIELD_ERRORS, ignored, int_or_none, json_text, load_json, malformed

NAME = "gemini_cli"
NOTICES = frozenset({"info", "error", "warning"})
#: The first user turn the CLI writes itself (date, folders), and the compression summary's tag.
SESSION_CONTEXT = "<session_context>"
SNAPSHOT = "<state_snapshot>"


def _part(part: Any, k: int) -> Block | None:
    if isinstance(part, str):
        return TextBlock(text=part)
    if not isinstance(part, dict):
        return None
    if isinstance(part.get("text"), str):
        return ThinkingBlock(thinking=part["text"]) if part.get("thought") else TextBlock(text=part["text"])
    inline = part.get("inlineData")
    if isinstance(inline, dict) and str(inline.get("mimeType", "")).startswith("image/"):
        return image_block(inline.get("data"), media_type=inline.get("mimeType"), source_kind="base64")
    return RawBlock(raw=part, text=raw_text(part))


def _thoughts(thoughts: Any) -> list[Block]:
    out: list[Block] = []
    for t in thoughts if isinstance(thoughts, list) else []:
        if isinstance(t, dict):
            text = "\n".join(x for x in (t.get("subject"), t.get("description")) if isinstance(x, str) and x)
            out.append(ThinkingBlock(thinking=text, extra={"timestamp": t["timestamp"]} if "timestamp" in t else {}))
    return out


def _count(value: Any) -> int | None:
    """A recorded count: an int from 0 to MAX_RECORDED_COUNT, as the other readers take one."""
    n = int_or_none(value)
    return n if n is not None and 0 <= n <= MAX_RECORDED_COUNT else None


def _usage(tokens: Any, model: str | None) -> Usage | None:
    if not isinstance(tokens, dict):
        return None
    total_in, cached = _count(tokens.get("input")), _count(tokens.get("cached"))
    output, thoughts = _count(tokens.get("output")), _count(tokens.get("thoughts"))
    uncached = None if total_in is None else total_in - (cached or 0)
    return Usage(
        input_tokens=None if uncached is None or uncached < 0 else uncached,  # < 0: more cached than input
        cache_read_input_tokens=cached,
        output_tokens=None if output is None and thoughts is None else (output or 0) + (thoughts or 0),
        model=model,
    )


def _result(call: dict[str, Any]) -> ToolResultBlock:
    texts = []
    for r in call.get("result") if isinstance(call.get("result"), list) else []:
        fr = r.get("functionResponse") if isinstance(r, dict) else None
        response = fr.get("response") if isinstance(fr, dict) else r
        if isinstance(response, dict) and len(response) == 1 and isinstance(response.get("output"), str):
            texts.append(response["output"])
        elif isinstance(response, dict) and isinstance(response.get("error"), str):
            texts.append(response["error"])
        else:
            texts.append(json_text(response))
    return ToolResultBlock(tool_call_id=str(call.get("id", "")), content="\n".join(texts), is_error=call.get("status") == "error", name=str(call.get("name", "")) or None)


def _is_chat(doc: Any) -> bool:
    return isinstance(doc, dict) and isinstance(doc.get("messages"), list) and ("projectHash" in doc or "sessionId" in doc)


def _is_log(path: Path) -> bool:
    """The file is the append-only log of Gemini CLI 0.39+, not the one-object chat before it."""
    return is_metadata_line(Probe(path).first_line)


def _chat(path: Path) -> tuple[dict[str, Any], list[Entry], list[Skipped]]:
    """Metadata, message records and skipped lines of either file shape."""
    if _is_log(path):
        log = read_log(path)
        return log.metadata, log.entries, log.skipped
    doc = load_json(path)
    if not _is_chat(doc):
        raise SessionFormatError(path, "$", "this is not a Gemini CLI chat.", 'an object with "sessionId", "projectHash" and "messages"')
    return doc, [Entry(raw, SourceRef(json_path=f"$.messages[{k}]")) for k, raw in enumerate(doc["messages"])], []


def _function_responses(content: Any) -> list[dict[str, Any]] | None:
    """The ``functionResponse`` parts of a user message that holds nothing else (Gemini CLI 0.44+
    records the tool results it sends as such a message, beside the calls' ``toolCalls``)."""
    if not isinstance(content, list) or not content:
        return None
    parts = [p.get("functionResponse") if isinstance(p, dict) else None for p in content]
    return parts if all(isinstance(p, dict) for p in parts) else None  # type: ignore[return-value]


def read(path: Path) -> Session:
    session = _read(path)
    if session.extra.get("kind") != "subagent" and isinstance(session.extra.get("sessionId"), str):
        _add_sub_agents(session, path.parent / session.extra["sessionId"])
    return session


def _add_sub_agents(session: Session, folder: Path) -> None:
    """Sub-agents' chats (``chats/<parent session id>/<agent id>.jsonl``) as sidechains keyed by
    agent id (the ``agentId`` the parent's tool call records)."""
    for found in sorted(folder.glob("*.jsonl")) if folder.is_dir() else ():
        try:
            side = _read(found)
        except SessionFormatError:
            session.skipped.append(ignored(str(found), f"sub-agent chat {found.stem} (not readable)"))
            continue
        session.sidechains[found.stem] = [
            m.model_copy(update={"source": SourceRef(line=m.source.line, json_path=m.source.json_path, file=found.name)}) for m in side.messages
        ]


def _read(path: Path) -> Session:
    metadata, entries, skipped = _chat(path)
    session = Session(path=str(path), format=NAME, agent="gemini-cli")
    session.extra = {k: metadata[k] for k in ("sessionId", "projectHash", "startTime", "lastUpdated", "kind") if k in metadata}
    session.skipped.extend(skipped)
    models = ModelTally(session)
    messages = session.messages
    answered: set[str] = set()

    def add(role: str, content: list[Block], source: SourceRef, **fields: Any) -> Message:
        fields.setdefault("content_form", "parts")
        msg = Message(index=len(messages), role=role, content=content, source=source, **fields)
        messages.append(msg)
        return msg

    def convert(raw: Any, source: SourceRef, where: str) -> None:
        kind = raw.get("type") if isinstance(raw, dict) else None
        if kind in NOTICES:
            session.skipped.append(ignored(where, f"{kind} (a Gemini CLI notice, not sent to the model)"))
            return
        if kind not in ("user", "gemini"):
            raise SessionFormatError(path, where, "not a chat message.", 'an object with "type" user or gemini')
        extra = {key: raw[key] for key in ("id", "timestamp") if key in raw}
        if kind == "user":
            responses = _function_responses(raw.get("content"))
            if responses is None:
                blocks, form = content_blocks(raw.get("content"), _part)
                add("user", blocks, source, content_form=form, extra=extra)
                return
            fresh = [r for r in responses if str(r.get("id", "")) not in answered]
            if not fresh:
                session.skipped.append(ignored(where, "tool results also recorded on their calls (Gemini CLI 0.44+ writes them twice)"))
            for r in fresh:
                answered.add(str(r.get("id", "")))
                add("tool", [_result({"id": r.get("id", ""), "name": r.get("name", ""), "result": [{"functionResponse": r}]})], source, extra=extra)
            return
        model = raw.get("model") if isinstance(raw.get("model"), str) else None
        calls = [c for c in raw.get("toolCalls") or [] if isinstance(c, dict)]
        call_ids = {str(c.get("id", "")) for c in calls}
        blocks, _ = content_blocks(raw.get("content"), lambda part, k: _model_part(part, k, call_ids))
        content = _thoughts(raw.get("thoughts")) + blocks
        content += [
            ToolCallBlock(id=str(c.get("id", "")), name=str(c.get("name", "")), arguments=json_text(c.get("args", {})), extra={"agentId": c["agentId"]} if isinstance(c.get("agentId"), str) else {})
            for c in calls
        ]
        tool_prompt = _count(raw["tokens"].get("tool")) if isinstance(raw.get("tokens"), dict) else None
        if tool_prompt:  # read by the model within the call, never sent by the client (module doc)
            extra["tool_use_prompt_tokens"] = tool_prompt
        add("assistant", content, source, usage=_usage(raw.get("tokens"), model), extra=extra)
        models.add(model)
        for j, call in enumerate(calls):
            answered.add(str(call.get("id", "")))
            add("tool", [_result(call)], SourceRef(line=source.line, json_path=f"{source.json_path or '$'}.toolCalls[{j}].result"))

    for entry in entries:
        first = len(messages)
        if entry.starts_context:
            answered.clear()  # the new context sends its results again
        try:
            convert(entry.record, entry.source, str(entry.source))
        except FIELD_ERRORS as exc:
            session.skipped.append(malformed(str(entry.source), "message", exc))
        if entry.starts_context and len(messages) > first:
            messages[first].starts_context = True
            messages[first].extra["record"] = "checkpoint"
            messages[first].is_summary = SNAPSHOT in messages[first].text
        for msg in messages[first:]:
            if entry.resent and msg.role == "assistant":
                msg.resent = True
            if msg.role == "user" and msg.text.startswith(SESSION_CONTEXT):
                msg.injected = "session_context"
            elif msg.role == "user" and SNAPSHOT in msg.text:
                msg.injected, msg.is_summary = "compaction", True
    return session


def _model_part(part: Any, k: int, call_ids: set[str]) -> Block | None:
    """A part of a model message's content as a checkpoint writes it: its ``functionCall`` parts
    repeat the message's ``toolCalls`` (left out), other parts read as any part."""
    call = part.get("functionCall") if isinstance(part, dict) else None
    if isinstance(call, dict):
        if str(call.get("id", "")) in call_ids:
            return None
        return ToolCallBlock(id=str(call.get("id", "")), name=str(call.get("name", "")), arguments=json_text(call.get("args", {})))
    return _part(part, k)


def detect(probe: Probe) -> int:
    if probe.is_dir or not probe.head.lstrip().startswith(b"{") or b'"projectHash"' not in probe.head:
        return 0
    if is_metadata_line(probe.first_line):
        return 95
    doc = probe.document
    if not _is_chat(doc):
        return 0
    sample = [m for m in doc["messages"][:20] if isinstance(m, dict)]
    return 95 if any(m.get("type") == "gemini" for m in sample) or not sample else 80


def details(path: Path) -> SessionDetails:
    """The project folder is a hash (``tmp/<hash>/chats/``); the count is user and gemini messages."""
    if _is_log(path):
        log = read_log(path)
        doc: Any = log.metadata
        messages: Any = [e.record for e in log.entries]
    else:
        doc = load_json(path)
        messages = doc.get("messages") if isinstance(doc, dict) else None
    count = sum(1 for m in messages if isinstance(m, dict) and m.get("type") in ("user", "gemini")) if isinstance(messages, list) else 0
    sid = doc.get("sessionId") if isinstance(doc, dict) and isinstance(doc.get("sessionId"), str) else None
    return SessionDetails(path.parent.parent.name, sid, None, count)


#: ``tmp/<project hash>/chats/session-*.json`` (and ``.jsonl``) under ~/.gemini.
PATTERN = ("tmp", "*", "chats", "session-*.json*")
EXCLUDE = "*.jsonl?*"  # the writer's temporary and preserved copies (``.jsonl.tmp-<pid>``)


def _chats(root: Path) -> Iterator[Candidate]:
    """The chats below ``root``; one the CLI migrated to ``.jsonl`` when it was resumed (it keeps
    the old ``.json`` beside it) is listed once, as its ``.jsonl``."""
    found = list(walk(root, PATTERN, EXCLUDE))
    logs = {path for path, _, _ in found if path.suffix == ".jsonl"}
    yield from (c for c in found if not (c[0].suffix == ".json" and c[0].with_suffix(".jsonl") in logs))


DISCOVERY = Discovery(
    agent="gemini",
    label="Gemini CLI",
    option="gemini-dir",
    details=details,
    pattern=PATTERN,
    exclude=EXCLUDE,
    scan=_chats,
    homes=("~/.gemini",),
    aliases=("gemini-cli", "gemini_cli"),
)

FORMAT = register(
    Format(
        name=NAME,
        description="Gemini CLI chat (~/.gemini/tmp/<project>/chats/session-*.json or .jsonl)",
        detect=detect,
        read=read,
        provider="gemini",
        follow="rewrite",
        discovery=DISCOVERY,
    )
)
