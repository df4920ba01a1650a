"""Gemini CLI's append-only chat log (``session-*.jsonl``, Gemini CLI 0.39+) resolved into the
message list the CLI itself would load, with the points where its context was replaced.

The writer (``chatRecordingService.ts``) appends one JSON object per line:

- the first line is the metadata ``{"sessionId", "projectHash", "startTime", "lastUpdated",
  "kind"}`` (``kind`` ``main`` or ``subagent``);
- a message record (it has an ``id``) is appended again whole each time it changes (its tokens,
  then its tool calls and their results arrive later): the last copy wins, at the place of the
  first;
- ``{"$rewindTo": id}`` drops that message and every later one (``/rewind``);
- ``{"$set": {...}}`` updates the metadata; with ``messages`` it is a checkpoint that replaces the
  whole list (the history the CLI holds in memory, written after a start, a masking of tool
  output, a rollback of a cancelled turn, or a compression).

A checkpoint that keeps the current messages in order (adding some, or changing their content)
updates them in place; one that keeps a leading part of them is a rollback. Any other checkpoint
is a new context, a compression: the messages before it stay (the calls before it saw them), the
checkpoint's messages follow and the first of them ``starts_context``. Messages the CLI wrote
just before such a checkpoint for it (its summary turn), which no recorded call saw, are only
shown after it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..model import Skipped, SourceRef
from .records import ignored, iter_lines, parse_line


@dataclass
class Entry:
    """One message record as it stands, where its last copy is, whether a context starts at it,
    and whether a compression re-sent it (a copy: no model call of its own wrote it there)."""

    record: dict[str, Any]
    source: SourceRef
    starts_context: bool = False
    resent: bool = False


@dataclass
class ChatLog:
    """The resolved log: metadata (the first line merged with every ``$set``), the messages in
    order, and what was dropped or not understood."""

    metadata: dict[str, Any] = field(default_factory=dict)
    entries: list[Entry] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    #: Lines that were a message, a metadata line or an edit of the log.
    recognised: int = 0


def is_metadata_line(record: Any) -> bool:
    """The first line of a log: session id and project hash, and no message list (a legacy file's
    single object has one)."""
    return (
        isinstance(record, dict)
        and isinstance(record.get("sessionId"), str)
        and isinstance(record.get("projectHash"), str)
        and not isinstance(record.get("messages"), list)
        and "type" not in record
    )


class _Replay:
    def __init__(self) -> None:
        self.log = ChatLog()

    @property
    def entries(self) -> list[Entry]:
        return self.log.entries

    def _position(self, msg_id: Any) -> int | None:
        for k, entry in enumerate(self.entries):
            if entry.record.get("id") == msg_id:
                return k
        return None

    def _drop(self, start: int, why: str) -> None:
        for entry in self.entries[start:]:
            self.log.skipped.append(ignored(entry.source, why))
        del self.entries[start:]

    def message(self, record: dict[str, Any], source: SourceRef) -> None:
        k = self._position(record["id"])
        if k is None:
            self.entries.append(Entry(record, source))
        else:
            self.entries[k].record, self.entries[k].source = record, source

    def rewind(self, target: Any, line_no: int) -> None:
        k = self._position(target)
        self._drop(0 if k is None else k, f"rewound (Gemini CLI $rewindTo at line {line_no})")

    def checkpoint(self, messages: list[Any], line_no: int) -> None:
        new = [(m, SourceRef(line=line_no, json_path=f"$.$set.messages[{j}]")) for j, m in enumerate(messages) if isinstance(m, dict) and isinstance(m.get("id"), str)]
        new_ids = [m["id"] for m, _ in new]
        old_ids = [e.record.get("id") for e in self.entries]
        if new_ids[: len(old_ids)] == old_ids:  # the same messages, maybe changed, maybe more
            for k, (m, ref) in enumerate(new):
                if k < len(self.entries):
                    self.entries[k].record, self.entries[k].source = m, ref
                else:
                    self.entries.append(Entry(m, ref))
            return
        if old_ids[: len(new_ids)] == new_ids:  # a rollback keeps a leading part
            for k, (m, ref) in enumerate(new):
                self.entries[k].record, self.entries[k].source = m, ref
            self._drop(len(new), f"rolled back (Gemini CLI checkpoint at line {line_no})")
            return
        kept = set(new_ids)
        while self.entries and self.entries[-1].record.get("id") in kept and not self.entries[-1].record.get("tokens"):
            self.entries.pop()  # written for the new context, seen by no call before it
        first = len(self.entries)
        self.entries.extend(Entry(m, ref, resent=True) for m, ref in new)
        if len(self.entries) > first:
            self.entries[first].starts_context = True

    def feed(self, record: dict[str, Any], line_no: int) -> None:
        source = SourceRef(line=line_no)
        if isinstance(record.get("$rewindTo"), str):
            self.rewind(record["$rewindTo"], line_no)
        elif isinstance(record.get("$set"), dict):
            update = record["$set"]
            if isinstance(update.get("messages"), list):
                self.checkpoint(update["messages"], line_no)
            self.log.metadata.update((k, v) for k, v in update.items() if k != "messages")
        elif isinstance(record.get("id"), str):
            self.message(record, source)
        elif is_metadata_line(record):
            self.log.metadata.update(record)
        elif isinstance(record.get("$patch"), dict):  # written by newer CLIs (0.6x, seen by third-party readers)
            self.log.skipped.append(Skipped(where=str(source), reason="$patch record of a newer Gemini CLI (an edit of messages by id: not applied, its writer is not known here)"))
            return
        else:
            self.log.skipped.append(ignored(source, "not a Gemini CLI log record"))
            return
        self.log.recognised += 1


def read_log(path: Path) -> ChatLog:
    """Replay every line of the log at ``path`` (bad lines go to ``skipped`` with their number)."""
    replay = _Replay()
    for line_no, line in iter_lines(path):
        record = parse_line(line, line_no, replay.log.skipped)
        if record is not None:
            replay.feed(record, line_no)
    return replay.log


__all__ = ["ChatLog", "Entry", "is_metadata_line", "read_log"]
