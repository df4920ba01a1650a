"""What a format declares about where an agent keeps its sessions, and the cheap helpers that list
them: a :class:`Discovery` on a :class:`~inspector.formats.base.Format`.

A discovery names the agent (``claude``), the places (a home directory from an environment
variable or the usual defaults, then a path pattern below it) and a ``details`` function that
reads a listed session's project, id, title and an estimated message count from its first
records. :mod:`inspector.discover` and ``context-inspector sessions`` walk every registered
discovery; they know no agent themselves. Listing uses ``scandir`` only; details are read for the
newest few.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..safeio import open_input


#: Bytes read from the start of a session file to find its first records.
HEAD = 256 * 1024
CHUNK = 1 << 20


@dataclass(frozen=True)
class SessionDetails:
    project: str  # the working directory the agent ran in (or the session's folder name)
    session_id: str | None
    title: str | None
    messages: int  # an estimate counted without parsing the file


#: ``(path, modification time, size in bytes)`` of one listed session.
Candidate = tuple[Path, float, int]


@dataclass(frozen=True)
class Discovery:
    """Where an agent keeps sessions of one format, and how to describe one cheaply."""

    #: The name ``--agent`` and ``--latest`` take (``claude``).
    agent: str
    #: How people call the agent (``Claude Code``).
    label: str
    #: The command-line option naming a home directory (``claude-dir`` -> ``--claude-dir DIR``).
    option: str
    #: ``(project, session_id, title, messages)`` of one listed session.
    details: Callable[[Path], SessionDetails]
    #: Path levels below a home, as fnmatch patterns; the last matches the session files.
    pattern: tuple[str, ...] = ()
    #: Environment variable naming the home directory (a comma-separated list is accepted).
    env: str | None = None
    #: Homes used when neither the option nor the variable is given (``~`` expanded).
    homes: tuple[str, ...] = ()
    #: Session file names matching this are not sessions of their own (sub-agent files).
    exclude: str | None = None
    #: Other names accepted for ``agent``.
    aliases: tuple[str, ...] = ()
    #: A custom listing of one home (sessions that are directories); replaces ``pattern``.
    scan: Callable[[Path], Iterator[Candidate]] | None = None
    #: The option may be repeated (and there is no default home).
    repeatable: bool = False

    def roots(self, given: str | Path | list | tuple | None = None) -> list[Path]:
        """The homes to look in: the option's value(s), else the variable, else the defaults."""
        if given is not None and not isinstance(given, (list, tuple)):
            return [Path(given).expanduser()]
        if given:
            return [Path(g).expanduser() for g in given]
        env = os.environ.get(self.env) if self.env else None
        if env:
            return [Path(p.strip()).expanduser() for p in env.split(",") if p.strip()]
        return [Path(h).expanduser() for h in self.homes]

    def places(self, given: Any = None) -> list[Path]:
        """Where sessions are looked for: each home joined with the fixed part of ``pattern``."""
        fixed = []
        for part in self.pattern:
            if any(ch in part for ch in "*?["):
                break
            fixed.append(part)
        return [root.joinpath(*fixed) for root in self.roots(given)]

    def candidates(self, given: Any = None) -> Iterator[Candidate]:
        for root in self.roots(given):
            if self.scan is not None:
                yield from self.scan(root)
            else:
                yield from walk(root, self.pattern, self.exclude)


def scandir(path: Path) -> Iterator[os.DirEntry]:
    """The entries of ``path``; nothing when it is missing, not a directory or unreadable."""
    try:
        with os.scandir(path) as it:
            yield from it
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return


def walk(root: Path, pattern: tuple[str, ...], exclude: str | None = None) -> Iterator[Candidate]:
    """Files below ``root`` whose path levels match ``pattern`` (directories for all but the last)."""
    if not pattern:
        return
    head, rest = pattern[0], pattern[1:]
    for entry in scandir(root):
        if not fnmatch.fnmatchcase(entry.name, head):
            continue
        if rest:
            if entry.is_dir():
                yield from walk(Path(entry.path), rest, exclude)
        elif entry.is_file() and not (exclude and fnmatch.fnmatchcase(entry.name, exclude)):
            st = entry.stat()
            yield Path(entry.path), st.st_mtime, st.st_size


def first_records(path: Path, limit: int = 40) -> list[dict[str, Any]]:
    """JSON objects on the first complete lines of ``path`` (up to ``limit``, within :data:`HEAD`
    bytes; a first line longer than that is read whole, up to the records helper's cap)."""
    from .probe import Probe
    from .records import head_records

    return head_records(Probe(path, head_bytes=HEAD), limit)


def count_needles(path: Path, needles: tuple[bytes, ...]) -> int:
    """How many times the byte strings occur in the file (a message count without parsing)."""
    total = 0
    with open_input(path) as fh:
        while chunk := fh.read(CHUNK):
            total += sum(chunk.count(n) for n in needles)
    return total


__all__ = ["Candidate", "Discovery", "SessionDetails", "count_needles", "first_records", "scandir", "walk"]
