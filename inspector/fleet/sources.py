"""Which session files a fleet run reads: the paths given (files, directories, globs) or, with
none, the places the agents keep them (:func:`inspector.discover.find_sessions`).

A directory is searched recursively for session-like files (``.jsonl``, ``.json``, ``.traj``),
SQLite databases (``.db``, ``.sqlite``, ``.sqlite3`` that start with SQLite's header: the OpenAI
Agents SDK keeps its sessions in one) and Strands session directories (``session_*``); Claude Code sub-agent files (``agent-*.jsonl``, in
``subagents/``) are part of their session, as in :mod:`inspector.discover`, and are not listed.
Files that turn out not to be sessions are reported as errors by the worker, not guessed at here.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

SUFFIXES = (".jsonl", ".json", ".traj")
DATABASE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
SQLITE_HEADER = b"SQLite format 3\0"
GLOB_CHARS = "*?["


@dataclass(frozen=True)
class Source:
    path: str  # absolute
    size: int
    mtime_ns: int
    format: str | None = None


def _stat(path: Path, format: str | None = None) -> Source:
    if path.is_dir():  # a Strands session: its files decide size and age
        files = [p for p in path.rglob("*") if p.is_file()]
        size = sum(p.stat().st_size for p in files)
        mtime = max((p.stat().st_mtime_ns for p in files), default=path.stat().st_mtime_ns)
        return Source(str(path.resolve()), size, mtime, format)
    st = path.stat()
    return Source(str(path.resolve()), st.st_size, st.st_mtime_ns, format)


def _walk(directory: Path) -> Iterator[Path]:
    for root, dirs, files in os.walk(directory):
        sessions = [d for d in dirs if d.startswith("session_")]
        for d in sorted(sessions):
            yield Path(root) / d
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "session_")) and d != "subagents")
        for name in sorted(files):
            if name.endswith(SUFFIXES) and not (name.startswith("agent-") and name.endswith(".jsonl")):
                yield Path(root) / name
            elif name.endswith(DATABASE_SUFFIXES) and _is_sqlite(Path(root) / name):
                yield Path(root) / name


def _is_sqlite(path: Path) -> bool:
    from ..safeio import read_head

    try:
        return read_head(path, len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def expand(paths: Iterable[str]) -> list[Source]:
    """The sessions under ``paths``, each once, in a stable order; a path that matches nothing is
    a FileNotFoundError naming it."""
    seen: dict[str, Source] = {}
    for given in paths:
        matches = sorted(glob.glob(os.path.expanduser(given), recursive=True)) if any(c in given for c in GLOB_CHARS) else [given]
        if not matches or not all(os.path.exists(m) for m in matches):
            raise FileNotFoundError(2, "no such file, directory or glob match", given)
        for match in matches:
            p = Path(match)
            candidates = [p] if p.is_file() or p.name.startswith("session_") else _walk(p)
            for c in candidates:
                source = _stat(c)
                seen.setdefault(source.path, source)
    return sorted(seen.values(), key=lambda s: s.path)


def discovered(agent: str | None = None, limit: int = 1_000_000) -> list[Source]:
    """Every session the agents keep in their usual places (Claude Code, Codex), or ``agent``'s."""
    from ..discover import find_sessions

    found = find_sessions(limit=limit, agent=agent)
    return sorted((_stat(f.path, f.format) for f in found), key=lambda s: s.path)
