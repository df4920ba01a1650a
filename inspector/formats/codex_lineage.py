"""Where the history of a paginated Codex rollout begins when its file does not hold all of it.

Codex's paginated rollouts (``session_meta.history_mode: "paginated"``, 0.146+) do not copy
history: a fork, or a backtrack that rewrites a thread (``thread/revert``), starts a new file whose
``session_meta.history_base`` ``{thread_id, end_ordinal_exclusive, end_byte_offset}`` names what
it continues: the first ``end_byte_offset`` bytes of an earlier rollout of ``thread_id`` (the
parent after a fork, the same thread before a backtrack; that earlier file may itself continue
another). What the model was sent is that prefix, then this file.

:func:`lineage` finds those prefixes, oldest first: the latest rollout of the thread named
``rollout-<time>-<thread id>[_<segment>].jsonl`` and written before this one (names sort by
time), in the same Codex home's ``sessions/YYYY/MM/DD`` tree or ``archived_sessions`` (or the
same folder), at least that long.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..safeio import read_head
from .discovery import first_records

#: A chain longer than this is not followed further (each link is one fork or backtrack).
MAX_DEPTH = 16


@dataclass(frozen=True)
class Prefix:
    """The first ``end`` bytes of ``path`` (a rollout of thread ``thread``) come before the file."""

    path: Path
    end: int
    thread: str


@dataclass(frozen=True)
class Lineage:
    """The prefixes found, oldest first, and the base that could not be found (if any)."""

    prefixes: tuple[Prefix, ...]
    missing: dict[str, Any] | None = None


def own_session_meta(path: Path) -> dict[str, Any]:
    """The payload of the rollout's first ``session_meta`` (``{}`` when its first lines have none)."""
    for record in first_records(path, limit=3):
        if record.get("type") == "session_meta" and isinstance(record.get("payload"), dict):
            return record["payload"]
    return {}


def history_base(path: Path) -> dict[str, Any] | None:
    """The ``history_base`` of the rollout's first ``session_meta``, when it is a usable one."""
    base = own_session_meta(path).get("history_base")
    if isinstance(base, dict) and isinstance(base.get("thread_id"), str) and base["thread_id"]:
        end = base.get("end_byte_offset")
        if isinstance(end, int) and not isinstance(end, bool) and end > 0:
            return base
    return None


def _folders(path: Path) -> list[Path]:
    """Where the rollouts of the same Codex home are: its ``sessions/YYYY/MM/DD`` folders and its
    ``archived_sessions`` (a thread archived since may hold the prefix), else the file's own folder."""
    folder = path.parent
    if folder.name == "archived_sessions":
        home = folder.parent
    elif len(folder.parents) > 2 and folder.parents[2].name == "sessions":
        home = folder.parents[3]
    else:
        return [folder]
    return [*sorted((home / "sessions").glob("*/*/*")), home / "archived_sessions"]


def _earlier(path: Path, thread: str, end: int, seen: set[Path]) -> Path | None:
    folders = _folders(path)
    found: list[Path] = []
    for folder in folders:
        for pattern in (f"rollout-*-{thread}.jsonl", f"rollout-*-{thread}_*.jsonl"):
            found += [p for p in folder.glob(pattern) if p.name < path.name and p.resolve() not in seen]
    for candidate in sorted(found, key=lambda p: p.name, reverse=True):
        if candidate.stat().st_size >= end:
            return candidate
    return None


def lineage(path: Path) -> Lineage:
    """The earlier rollouts whose prefixes the rollout at ``path`` continues, oldest first."""
    chain: list[Prefix] = []
    seen = {path.resolve()}
    current = path
    for _ in range(MAX_DEPTH):
        base = history_base(current)
        if base is None:
            break
        earlier = _earlier(current, base["thread_id"], base["end_byte_offset"], seen)
        if earlier is None:
            return Lineage(tuple(reversed(chain)), missing=base)
        chain.append(Prefix(earlier, base["end_byte_offset"], base["thread_id"]))
        seen.add(earlier.resolve())
        current = earlier
    return Lineage(tuple(reversed(chain)))


def prefix_lines(prefix: Prefix) -> list[tuple[int, bytes]]:
    """``(line_no, line)`` of the prefix's complete lines (1-based, newline and ``\\r`` left out)."""
    data = read_head(prefix.path, prefix.end)
    lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    return [(n, raw[:-1] if raw.endswith(b"\r") else raw) for n, raw in enumerate(lines, 1)]


__all__ = ["Lineage", "Prefix", "history_base", "lineage", "own_session_meta", "prefix_lines"]
