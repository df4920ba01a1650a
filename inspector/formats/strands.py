"""Strands Agents FileSessionManager directories.

Layout (``<storage_dir>/session_<id>/agents/agent_<id>/messages/message_<n>.json``): one JSON file
per message, ``{"message": {"role", "content": [blocks], "metadata"?}, "message_id", "redact_message",
...}``, and ``agent.json`` whose ``conversation_manager_state`` says what the model still sees:
``removed_message_count`` (N) and, for the summarizing manager, ``summary_message``. On restore
Strands sends ``[summary_message] + messages[N:]``; trimming never deletes a file.

Open a session directory (its ``default`` agent, or the first one, is the session; other agents go
to ``Session.sidechains`` keyed ``agent_<id>``) or an agent directory. A storage directory holding
several sessions is an error that names them.

**The model-visible window** (our decision): every stored message stays in the session, in file
order, so what was trimmed stays visible. When ``agent.json`` holds a ``summary_message``, it is
inserted as a message just before ``messages[N]`` with ``starts_context=True`` (source
``agent.json``, ``$.conversation_manager_state.summary_message``): that is exactly the model's view
``[summary] + messages[N:]``, and the units module starts the context of later calls there, so
``messages[:N]`` show as no longer sent. With a sliding window only (N > 0, no summary),
``messages[N]`` itself gets ``starts_context=True`` and ``extra["window_start"] = True``; the units
module then labels it a summary unit, the one way the session model has to say "context starts
here". When the trimming happened is not recorded, so every call after that point is taken to see
the window (calls before it see everything before them).

Blocks (Bedrock Converse one-key dicts; the TypeScript SDK's ``{"type": "textBlock", ...}`` form
too): ``text``, ``toolUse`` (arguments = input as JSON), ``toolResult`` (``status: "error"`` ->
``is_error``; ``json`` items as JSON text), ``reasoningContent`` -> thinking, ``image`` (bytes
stay base64), anything else (``cachePoint``, ``document``, ``guardContent``...) -> RawBlock.
``redact_message``, when set, is what the model sees and replaces the message (``extra["redacted"]``).
``message.metadata.usage`` (recent SDKs) -> Usage; Bedrock's ``inputTokens`` excludes cache reads
and writes, which are kept apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from ..model import (
    Block,
    ImageBlock,
    Message,
    RawBlock,
    ResultPart,
    Session,
    Skipped,
    SourceRef,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    Usage,
)
from ..safeio import read_text
from .base import Format, Probe, SessionFormatError, register
from .discovery import Candidate, Discovery, SessionDetails, scandir
from .reading import BEDROCK, image_block, usage_from
from .records import FIELD_ERRORS, int_or_none, json_text

NAME = "strands"
MESSAGE_FILE = re.compile(r"message_(\d+)\.json$")


# --- directories ------------------------------------------------------------------------------


def _is_agent_dir(p: Path) -> bool:
    return (p / "messages").is_dir() or (p / "agent.json").is_file()


def agent_dirs(session_dir: Path) -> list[Path]:
    """The agent directories of a session directory, ``agent_default`` first."""
    root = session_dir / "agents"
    if not root.is_dir():
        return []
    found = sorted(p for p in root.iterdir() if p.is_dir() and p.name.startswith("agent_"))
    return sorted(found, key=lambda p: p.name != "agent_default")


def session_dirs(storage_dir: Path) -> list[Path]:
    if not storage_dir.is_dir():
        return []
    return sorted(p for p in storage_dir.iterdir() if p.is_dir() and p.name.startswith("session_") and (p / "agents").is_dir())


def message_files(agent_dir: Path) -> list[tuple[int, Path]]:
    """``(n, path)`` of every ``message_<n>.json``, numerically sorted (never lexically)."""
    out = []
    mdir = agent_dir / "messages"
    if mdir.is_dir():
        for entry in mdir.iterdir():
            m = MESSAGE_FILE.fullmatch(entry.name)
            if m:
                out.append((int(m.group(1)), entry))
    out.sort()
    return out


# --- blocks -----------------------------------------------------------------------------------


def _bytes(value: Any) -> str:
    if isinstance(value, dict) and value.get("__bytes_encoded__"):
        return str(value.get("data", ""))
    return value if isinstance(value, str) else ""


def _image(spec: dict[str, Any]) -> ImageBlock:
    fmt = spec.get("format")
    source = spec.get("source") if isinstance(spec.get("source"), dict) else {}
    return image_block(_bytes(source.get("bytes")), media_type=f"image/{fmt}" if isinstance(fmt, str) else None, source_kind="base64")


def _normalise(block: dict[str, Any]) -> tuple[str | None, Any]:
    """``(kind, spec)`` for a Python one-key block or a TypeScript ``{"type": "xBlock"}`` block."""
    t = block.get("type")
    if isinstance(t, str) and t.endswith("Block"):
        return t[: -len("Block")], block
    keys = [k for k in block if k != "type"]
    if len(keys) == 1:
        return keys[0], block[keys[0]]
    return None, block


def _result_parts(content: Any) -> str | list[ResultPart]:
    if isinstance(content, str):
        return content
    parts: list[ResultPart] = []
    for item in content if isinstance(content, list) else []:
        if not isinstance(item, dict):
            continue
        kind, spec = _normalise(item)
        if kind == "text":
            parts.append(TextBlock(text=spec if isinstance(spec, str) else str(spec.get("text", ""))))
        elif kind == "json":
            value = spec["json"] if item.get("type") == "jsonBlock" and isinstance(spec, dict) else spec
            parts.append(TextBlock(text=json_text(value), extra={"part_type": "json"}))
        elif kind == "image" and isinstance(spec, dict):
            parts.append(_image(spec))
        else:  # document, video...: named, not decoded
            name = spec.get("name") if isinstance(spec, dict) else None
            parts.append(TextBlock(text="", extra={"part_type": kind, **({"name": name} if name else {})}))
    if len(parts) == 1 and isinstance(parts[0], TextBlock) and not parts[0].extra:
        return parts[0].text
    return parts


def convert_blocks(content: Any) -> list[Block]:
    blocks: list[Block] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind, spec = _normalise(block)
        if kind == "text":
            blocks.append(TextBlock(text=spec if isinstance(spec, str) else str(spec.get("text", ""))))
        elif kind == "toolUse" and isinstance(spec, dict):
            blocks.append(ToolCallBlock(id=str(spec.get("toolUseId", "")), name=str(spec.get("name", "")), arguments=json_text(spec.get("input", {}))))
        elif kind == "toolResult" and isinstance(spec, dict):
            blocks.append(
                ToolResultBlock(tool_call_id=str(spec.get("toolUseId", "")), content=_result_parts(spec.get("content")), is_error=spec.get("status") == "error")
            )
        elif kind in ("reasoningContent", "reasoning") and isinstance(spec, dict):
            rt = spec.get("reasoningText") if isinstance(spec.get("reasoningText"), dict) else spec
            if "redactedContent" in spec:
                blocks.append(ThinkingBlock(thinking=_bytes(spec["redactedContent"]), redacted=True))
            else:
                blocks.append(ThinkingBlock(thinking=str(rt.get("text", "")), signature=rt.get("signature")))
        elif kind == "image" and isinstance(spec, dict):
            blocks.append(_image(spec))
        else:
            text = spec.get("text") if isinstance(spec, dict) else None
            blocks.append(RawBlock(raw=block, text=text if isinstance(text, str) else ""))
    return blocks


def _usage(metadata: Any) -> Usage | None:
    return usage_from(metadata.get("usage") if isinstance(metadata, dict) else None, BEDROCK)


def to_message(raw: Any, source: SourceRef) -> Message:
    """A Strands message dict ``{"role", "content", "metadata"?}`` as a model Message."""
    role = raw.get("role") if isinstance(raw, dict) else None
    if role not in ("user", "assistant"):
        raise ValueError(f"expected a message with role 'user' or 'assistant', got {role!r}")
    return Message(index=0, role=role, content=convert_blocks(raw.get("content")), usage=_usage(raw.get("metadata")), source=source, content_form="blocks")


# --- reading ----------------------------------------------------------------------------------


def _load(path: Path) -> Any:
    return orjson.loads(read_text(path))


def read_message_file(path: Path, agent_dir: Path, skipped: list[Skipped]) -> Message | None:
    rel = str(path.relative_to(agent_dir))
    try:
        wrapper = _load(path)
    except (OSError, orjson.JSONDecodeError) as exc:
        skipped.append(Skipped(where=rel, reason=f"not valid JSON ({exc})"))
        return None
    if not isinstance(wrapper, dict):
        skipped.append(Skipped(where=rel, reason="expected a JSON object"))
        return None
    redacted = wrapper.get("redact_message") or wrapper.get("redactMessage")
    key = "redact_message" if wrapper.get("redact_message") else "redactMessage" if redacted else "message"
    try:
        msg = to_message(redacted or wrapper.get("message"), SourceRef(file=rel, json_path=f"$.{key}"))
    except FIELD_ERRORS as exc:  # no role, or a field of an unexpected type
        skipped.append(Skipped(where=f"{rel}, $.message", reason=str(exc)))
        return None
    mid = wrapper.get("message_id", wrapper.get("messageId"))
    if mid is not None:
        msg.extra["message_id"] = mid
    if redacted:
        msg.extra["redacted"] = True
    return msg


def manager_state(agent_dir: Path) -> dict[str, Any]:
    """``conversation_manager_state`` of ``agent.json`` ({} when absent or unreadable)."""
    try:
        agent = _load(agent_dir / "agent.json")
    except (OSError, orjson.JSONDecodeError):
        return {}
    state = agent.get("conversation_manager_state", agent.get("conversationManagerState")) if isinstance(agent, dict) else None
    return state if isinstance(state, dict) else {}


def apply_window(stored: list[Message], state: dict[str, Any], skipped: list[Skipped]) -> list[Message]:
    """Stored messages plus the model-visible window marker (see the module docstring)."""
    messages = list(stored)
    removed = int_or_none(state.get("removed_message_count", state.get("removedMessageCount"))) or 0
    removed = max(0, min(removed, len(messages)))
    summary = state.get("summary_message", state.get("summaryMessage"))
    if isinstance(summary, dict):
        source = SourceRef(file="agent.json", json_path="$.conversation_manager_state.summary_message")
        try:
            msg = to_message(summary, source)
        except FIELD_ERRORS as exc:
            skipped.append(Skipped(where=str(source), reason=str(exc)))
        else:
            msg.starts_context = True
            msg.extra["strands"] = "summary_message"
            messages.insert(removed, msg)
    elif removed and removed < len(messages):
        messages[removed] = messages[removed].model_copy(update={"starts_context": True, "extra": {**messages[removed].extra, "window_start": True}})
    for i, m in enumerate(messages):
        m.index = i
    return messages


def read_agent(agent_dir: Path, session: Session) -> list[Message]:
    stored = [m for _, p in message_files(agent_dir) if (m := read_message_file(p, agent_dir, session.skipped)) is not None]
    return apply_window(stored, manager_state(agent_dir), session.skipped)


def resolve(path: Path) -> tuple[Path | None, Path]:
    """``(session_dir or None, main agent dir)`` for a session or agent directory."""
    if _is_agent_dir(path) and not (path / "agents").is_dir():
        session_dir = path.parent.parent if path.parent.name == "agents" else None
        return session_dir, path
    agents = agent_dirs(path)
    if agents:
        return path, agents[0]
    sessions = session_dirs(path)
    if sessions:
        names = ", ".join(p.name for p in sessions[:10]) + (", ..." if len(sessions) > 10 else "")
        raise SessionFormatError(path, None, f"this is a Strands storage directory with {len(sessions)} sessions ({names}); open one of them.")
    raise SessionFormatError(path, None, "no Strands agent found.", "a directory session_<id>/ with agents/agent_<id>/messages/message_<n>.json")


def read(path: Path) -> Session:
    if not path.is_dir():
        raise SessionFormatError(path, None, "a Strands session is a directory, not a file.", "a session_<id>/ or agents/agent_<id>/ directory")
    session_dir, main = resolve(path)
    session = Session(path=str(path), format=NAME)
    session.messages.extend(read_agent(main, session))
    state = manager_state(main)
    session.extra = {
        "agent_id": main.name[len("agent_") :],
        **({"session_id": session_dir.name[len("session_") :]} if session_dir else {}),
        **({"conversation_manager": state["__name__"]} if "__name__" in state else {}),
        **({k: state[k] for k in ("removed_message_count", "model_call_count") if k in state}),
    }
    if session_dir is not None:
        for other in agent_dirs(session_dir):
            if other != main:
                session.sidechains[other.name] = [m for _, p in message_files(other) if (m := read_message_file(p, other, session.skipped)) is not None]
    return session


def detect(probe: Probe) -> int:
    if not probe.is_dir:
        return 0
    p = probe.path
    if (p / "agents").is_dir() and agent_dirs(p):
        return 90
    if _is_agent_dir(p) and ((p / "messages").is_dir() and any(MESSAGE_FILE.fullmatch(e.name) for e in (p / "messages").iterdir())):
        return 90
    if _is_agent_dir(p):
        return 60
    if session_dirs(p):
        return 30  # a storage dir: read() says which sessions it holds
    return 0


def _sessions_in(storage: Path) -> Iterator[Path]:
    """``storage`` itself when it is a session directory, else the sessions inside it."""
    if (storage / "agents").is_dir():
        yield storage
        return
    for entry in scandir(storage):
        if entry.name.startswith("session_") and entry.is_dir() and (Path(entry.path) / "agents").is_dir():
            yield Path(entry.path)


def scan(storage: Path) -> Iterator[Candidate]:
    """Session directories in a storage directory; time and size are the main agent's messages."""
    for session_dir in _sessions_in(storage):
        agents = agent_dirs(session_dir)
        if not agents:
            continue
        newest, size = 0.0, 0
        for p in (agents[0] / "agent.json", agents[0] / "messages"):
            try:
                newest = max(newest, p.stat().st_mtime)
            except FileNotFoundError:
                pass
        for f in scandir(agents[0] / "messages"):
            if f.name.startswith("message_") and f.name.endswith(".json"):
                st = f.stat()
                size += st.st_size
                newest = max(newest, st.st_mtime)
        yield session_dir, newest, size


def details(path: Path) -> SessionDetails:
    agents = agent_dirs(path)
    sid = path.name[len("session_") :] if path.name.startswith("session_") else path.name
    return SessionDetails(sid, sid, None, len(message_files(agents[0])) if agents else 0)


#: Strands keeps sessions wherever the application's FileSessionManager says: the directories
#: are given (``--strands-dir``, repeatable); there is no default place.
DISCOVERY = Discovery(agent="strands", label="Strands", option="strands-dir", details=details, scan=scan, repeatable=True)

FORMAT = register(
    Format(
        name=NAME,
        description="Strands Agents FileSessionManager directory (session_<id>/agents/agent_<id>/messages/)",
        detect=detect,
        read=read,
        follow="directory",
        discovery=DISCOVERY,
    )
)
