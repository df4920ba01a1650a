"""Where an OpenHands V1 conversation lives on disk and how its events are loaded, in the order
the agent sees them. The reader (:mod:`.openhands_v1`) turns the loaded events into a session.

The software-agent-sdk persists a conversation as a directory (``~/.openhands/conversations/<id>/``
for the CLI, ``OPENHANDS_CONVERSATIONS_DIR`` overrides it; the agent-server uses
``workspace/conversations/<id>/``)::

    <id>/base_state.json                 ConversationState: agent (llm.model...), stats, leaf_event_id
    <id>/events/event-00000-<event id>.json   one Event per file (``model_dump_json(exclude_none=True)``)

A cloud download (``trajectory.zip`` unpacked) is flat: ``meta.json`` beside
``event_000000_<event id>.json`` files. Accepted inputs: the conversation directory, its
``events`` directory, its ``base_state.json``, a flat download directory, or one JSON file holding
the events (a JSON array, or the agent-server's ``{"items": [...]}`` page).

Like the SDK's ``EventLog``, files are taken by their index and reading stops at the first gap.
Events form a tree (``parent_id``; SDK 1.4x): the conversation is the active branch, walked from
``base_state.leaf_event_id`` (or, without one, from the last event) to the root, an event without
``parent_id`` having the one before it as parent (legacy linear logs). Events on other branches
are left out with a notice. A file that does not parse is skipped with its name.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ..model import Skipped
from ..safeio import InputError, read_text
from .discovery import Candidate, SessionDetails, scandir
from .probe import SessionFormatError

#: ``event-00042-<id>.json`` (SDK, 5+ digits) or ``event_000042_<id>.json`` (cloud download).
EVENT_FILE = re.compile(r"event[-_](\d{5,})[-_]([0-9A-Za-z\-]+)\.json")
BASE_STATE = "base_state.json"
EVENTS_DIR = "events"
#: The SDK's reserved ``parent_id`` of a root event that is not the first in the log.
ROOT_PARENT_ID = "__root__"
#: Events that are not nodes of the conversation tree (the SDK skips them when it picks the leaf).
TREE_ARTIFACTS = ("ConversationStateUpdateEvent", "ConversationErrorEvent")
#: Every event kind the SDK writes (a JSON file of events is detected by these).
KNOWN_KINDS = frozenset({
    "SystemPromptEvent", "MessageEvent", "ActionEvent", "ObservationEvent", "UserRejectObservation",
    "AgentErrorEvent", "Condensation", "CondensationRequest", "CondensationSummaryEvent",
    "ConversationStateUpdateEvent", "ConversationErrorEvent", "PauseEvent", "TokenEvent",
    "LLMCompletionLogEvent", "HookExecutionEvent", "StreamingDeltaEvent", "ACPToolCallEvent",
    "ResumeTranscriptEvent", "UserActionEvent",
})


@dataclass
class Loaded:
    """A conversation's events (each with where it came from) and what ``base_state.json`` says."""

    events: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    base_state: dict[str, Any] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)
    conversation_dir: Path | None = None


def event_files(directory: Path) -> list[tuple[int, Path]]:
    """``(index, path)`` of the event files in ``directory``, by index."""
    found = []
    for entry in scandir(directory):
        m = EVENT_FILE.fullmatch(entry.name)
        if m:  # whatever it is: one that is not a regular file is skipped with its name when read
            found.append((int(m.group(1)), Path(entry.path)))
    return sorted(found)


def events_dir_of(path: Path) -> Path | None:
    """The directory holding ``path``'s event files, when ``path`` is a V1 conversation directory,
    its ``events`` directory or a flat download; None otherwise."""
    if not path.is_dir():
        return None
    inner = path / EVENTS_DIR
    if inner.is_dir() and event_files(inner):
        return inner
    return path if event_files(path) else None


def is_event(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("kind"), str) and value["kind"] in KNOWN_KINDS and isinstance(value.get("id"), str)


def events_in_document(doc: Any) -> list[Any] | None:
    """The events of a JSON file of V1 events (an array, or ``{"items": [...]}``), else None."""
    if isinstance(doc, dict) and isinstance(doc.get("items"), list):
        doc = doc["items"]
    if isinstance(doc, list) and doc and all(is_event(e) for e in doc[:50]):
        return doc
    return None


def _load_object(path: Path, where: str, skipped: list[Skipped]) -> dict[str, Any] | None:
    try:
        value = orjson.loads(read_text(path))
    except orjson.JSONDecodeError as exc:
        skipped.append(Skipped(where=where, reason=f"not valid JSON ({exc})"))
        return None
    except InputError as exc:  # not UTF-8, not a regular file...: this file only
        skipped.append(Skipped(where=where, reason=str(exc.strerror)))
        return None
    if not isinstance(value, dict):
        skipped.append(Skipped(where=where, reason=f"expected a JSON object, got {type(value).__name__}"))
        return None
    return value


def _base_state(conversation_dir: Path, skipped: list[Skipped]) -> dict[str, Any]:
    for name in (BASE_STATE, "meta.json"):
        p = conversation_dir / name
        if os.path.lexists(p):  # a FIFO, device or link loop is named (by _load_object), not ignored
            return _load_object(p, name, skipped) or {}
    return {}


def load(path: Path) -> Loaded:
    """Every event of the conversation at ``path`` (see the module docstring), unordered by branch."""
    out = Loaded()
    if path.is_file() and path.name in (BASE_STATE, "meta.json"):
        path = path.parent
    directory = events_dir_of(path)
    if directory is not None:
        out.conversation_dir = directory.parent if directory.name == EVENTS_DIR and directory != path else directory
        out.base_state = _base_state(out.conversation_dir, out.skipped)
        expected = 0
        for idx, file in event_files(directory):
            rel = file.name if directory == out.conversation_dir else f"{directory.name}/{file.name}"
            if idx != expected:
                out.skipped.append(Skipped(where=rel, reason=f"event index gap: expected {expected:05d}; this and later files are not read (as the SDK does)"))
                break
            expected = idx + 1
            event = _load_object(file, rel, out.skipped)
            if event is not None:
                out.events.append((event, rel))
        return out
    if path.is_dir():
        raise SessionFormatError(path, None, "no OpenHands event files found.", "a conversation directory with events/event-NNNNN-<id>.json files")
    from .records import load_json

    doc = load_json(path)
    events = events_in_document(doc)
    if events is None:
        raise SessionFormatError(path, "$", "this is not a list of OpenHands events.", "a JSON array of events with id and kind (SDK 1.x)")
    key = "$.items" if isinstance(doc, dict) else "$"
    out.events = [(e, f"{key}[{k}]") for k, e in enumerate(events) if isinstance(e, dict)]
    return out


def active_branch(loaded: Loaded) -> None:
    """Keep only the events of the active branch, root first (see the module docstring)."""
    events = loaded.events
    if not any("parent_id" in e for e, _ in events):
        return  # a linear log
    index = {e["id"]: k for k, (e, _) in enumerate(events) if isinstance(e.get("id"), str)}
    leaf = loaded.base_state.get("leaf_event_id")
    if not isinstance(leaf, str) or leaf not in index:
        leaf = next((e.get("id") for e, _ in reversed(events) if e.get("kind") not in TREE_ARTIFACTS and isinstance(e.get("id"), str)), None)
    chain: list[int] = []
    seen: set[int] = set()
    k = index.get(leaf)
    while k is not None:
        if k in seen:
            loaded.skipped.append(Skipped(where=events[k][1], reason="a cycle in the event tree: events read in file order"))
            return
        seen.add(k)
        chain.append(k)
        parent = events[k][0].get("parent_id")
        if parent is not None and not isinstance(parent, str):
            loaded.skipped.append(Skipped(where=events[k][1], reason="parent_id is not an event id: events read in file order"))
            return
        if parent == ROOT_PARENT_ID:
            break
        if parent is None:
            k = k - 1 if k > 0 else None
            continue
        if parent not in index:
            loaded.skipped.append(Skipped(where=events[k][1], reason=f"parent event {str(parent)[:40]!r} is not in the log: events read in file order"))
            return
        k = index[parent]
    kept = set(chain)
    loaded.skipped.extend(Skipped(where=w, reason=str(e.get("kind")), kind="ignored") for k, (e, w) in enumerate(events) if k not in kept and e.get("kind") in TREE_ARTIFACTS)
    off = [events[k][1] for k in range(len(events)) if k not in kept and events[k][0].get("kind") not in TREE_ARTIFACTS]
    if off:
        loaded.skipped.append(Skipped(where=off[0], reason=f"{len(off)} events on other branches of the conversation tree are not on the active branch", kind="ignored"))
    loaded.events = [events[k] for k in sorted(kept)]


# --- discovery ----------------------------------------------------------------------------------


def _conversations(home: Path) -> Iterator[Path]:
    """``home`` itself when it is a conversation, else the conversations directly inside it."""
    if (home / EVENTS_DIR).is_dir():
        yield home
        return
    for entry in scandir(home):
        if entry.is_dir() and (Path(entry.path) / EVENTS_DIR).is_dir():
            yield Path(entry.path)


def scan(home: Path) -> Iterator[Candidate]:
    """Conversation directories; time and size are those of their event files."""
    for conversation in _conversations(home):
        newest, size, count = 0.0, 0, 0
        for entry in scandir(conversation / EVENTS_DIR):
            if EVENT_FILE.fullmatch(entry.name):
                st = entry.stat()
                size += st.st_size
                newest = max(newest, st.st_mtime)
                count += 1
        if count:
            yield conversation, newest, size


def details(path: Path) -> SessionDetails:
    """The conversation id (its directory name) and its event count (an estimate of messages)."""
    return SessionDetails(path.name, path.name, None, len(event_files(path / EVENTS_DIR)))
