"""Gemini CLI chats: ``~/.gemini/tmp/<project hash>/chats/session-<time>-<id>.json``.

One JSON object ``{"sessionId", "projectHash", "startTime", "lastUpdated", "messages"}``, written
again whole after every change (so it is followed by re-reading it). How it becomes a Session:

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
- ``info``, ``error`` and ``warning`` messages are the CLI's own notices, never sent to the model:
  skipped with that reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..model import Block, Message, RawBlock, Session, SourceRef, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock, Usage
from .base import Format, Probe, SessionFormatError, register
from .discovery import Discovery, SessionDetails
from .rawtext import raw_text
from .reading import ModelTally, content_blocks, image_block
from .records import FIELD_ERRORS, ignored, int_or_none, json_text, load_json, malformed

NAME = "gemini_cli"
NOTICES = frozenset({"info", "error", "warning"})


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


def _usage(tokens: Any, model: str | None) -> Usage | None:
    if not isinstance(tokens, dict):
        return None
    total_in, cached = int_or_none(tokens.get("input")), int_or_none(tokens.get("cached"))
    output, thoughts = int_or_none(tokens.get("output")), int_or_none(tokens.get("thoughts"))
    return Usage(
        input_tokens=None if total_in is None else total_in - (cached or 0),
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


def read(path: Path) -> Session:
    doc = load_json(path)
    if not _is_chat(doc):
        raise SessionFormatError(path, "$", "this is not a Gemini CLI chat.", 'an object with "sessionId", "projectHash" and "messages"')
    session = Session(path=str(path), format=NAME, agent="gemini-cli")
    session.extra = {k: doc[k] for k in ("sessionId", "projectHash", "startTime", "lastUpdated") if k in doc}
    models = ModelTally(session)
    messages = session.messages

    def add(role: str, content: list[Block], source: SourceRef, **fields: Any) -> Message:
        fields.setdefault("content_form", "parts")
        msg = Message(index=len(messages), role=role, content=content, source=source, **fields)
        messages.append(msg)
        return msg

    for k, raw in enumerate(doc["messages"]):
        where = f"$.messages[{k}]"
        source = SourceRef(json_path=where)
        try:
            kind = raw.get("type") if isinstance(raw, dict) else None
            if kind in NOTICES:
                session.skipped.append(ignored(where, f"{kind} (a Gemini CLI notice, not sent to the model)"))
                continue
            if kind not in ("user", "gemini"):
                raise SessionFormatError(path, where, "not a chat message.", 'an object with "type" user or gemini')
            blocks, form = content_blocks(raw.get("content"), _part)
            extra = {key: raw[key] for key in ("id", "timestamp") if key in raw}
            if kind == "user":
                add("user", blocks, source, content_form=form, extra=extra)
                continue
            model = raw.get("model") if isinstance(raw.get("model"), str) else None
            calls = [c for c in raw.get("toolCalls") or [] if isinstance(c, dict)]
            content = _thoughts(raw.get("thoughts")) + blocks
            content += [ToolCallBlock(id=str(c.get("id", "")), name=str(c.get("name", "")), arguments=json_text(c.get("args", {}))) for c in calls]
            add("assistant", content, source, usage=_usage(raw.get("tokens"), model), extra=extra)
            models.add(model)
            for j, call in enumerate(calls):
                add("tool", [_result(call)], SourceRef(json_path=f"{where}.toolCalls[{j}].result"))
        except FIELD_ERRORS as exc:
            session.skipped.append(malformed(where, "message", exc))
    return session


def detect(probe: Probe) -> int:
    if probe.is_dir or not probe.head.lstrip().startswith(b"{") or b'"projectHash"' not in probe.head:
        return 0
    doc = probe.document
    if not _is_chat(doc):
        return 0
    sample = [m for m in doc["messages"][:20] if isinstance(m, dict)]
    return 95 if any(m.get("type") == "gemini" for m in sample) or not sample else 80


def details(path: Path) -> SessionDetails:
    """The project folder is a hash (``tmp/<hash>/chats/``); the count is user and gemini messages."""
    doc = load_json(path)
    messages = doc.get("messages") if isinstance(doc, dict) else None
    count = sum(1 for m in messages if isinstance(m, dict) and m.get("type") in ("user", "gemini")) if isinstance(messages, list) else 0
    sid = doc.get("sessionId") if isinstance(doc, dict) and isinstance(doc.get("sessionId"), str) else None
    return SessionDetails(path.parent.parent.name, sid, None, count)


#: ``tmp/<project hash>/chats/session-*.json`` under ~/.gemini.
DISCOVERY = Discovery(
    agent="gemini",
    label="Gemini CLI",
    option="gemini-dir",
    details=details,
    pattern=("tmp", "*", "chats", "session-*.json"),
    homes=("~/.gemini",),
    aliases=("gemini-cli", "gemini_cli"),
)

FORMAT = register(
    Format(
        name=NAME,
        description="Gemini CLI chat (~/.gemini/tmp/<project>/chats/session-*.json)",
        detect=detect,
        read=read,
        provider="gemini",
        follow="rewrite",
        discovery=DISCOVERY,
    )
)
