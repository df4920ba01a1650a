"""Find agent sessions where the agents keep them, newest first.

Every registered format with a :class:`~inspector.formats.discovery.Discovery` is looked at: its
homes (the caller's directory, else its environment variable, else the usual defaults), the path
pattern below them, and its ``details`` for the listed sessions. This module knows no agent: a
format that declares a discovery is found here, and by ``context-inspector sessions`` and
``--latest``, with no other change.

Listing is cheap: candidates are found with ``scandir`` and sorted by modification time, and only
the newest ``limit`` are opened. ``project`` comes from the first records and ``messages`` is an
estimate counted without parsing (each format's ``details`` says how).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .formats import discoverable
from .formats.base import Format
from .formats.discovery import Discovery


@dataclass(frozen=True)
class FoundSession:
    agent: str  # the discovery's agent name: "claude", "codex", "strands"...
    project: str  # the working directory the agent ran in (or the session's folder name)
    path: Path
    size: int  # bytes (a Strands session: its main agent's message files)
    messages: int  # an estimate, see the format's discovery details
    last_activity: datetime  # modification time, UTC
    session_id: str | None = None
    title: str | None = None

    @property
    def format(self) -> str:
        return format_of(self.agent).name

    def to_json(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "format": self.format,
            "project": self.project,
            "path": str(self.path),
            "size": self.size,
            "messages": self.messages,
            "last_activity": self.last_activity.isoformat(),
            "session_id": self.session_id,
            "title": self.title,
        }


def agents() -> tuple[str, ...]:
    """The agent names of every discoverable format, in registry order."""
    return tuple(f.discovery.agent for f in discoverable() if f.discovery is not None)


def format_of(agent: str) -> Format:
    """The format whose discovery is ``agent`` (KeyError when none is)."""
    for fmt in discoverable():
        if fmt.discovery is not None and fmt.discovery.agent == agent:
            return fmt
    raise KeyError(agent)


def discovery_of(agent: str) -> Discovery:
    found = format_of(agent).discovery
    assert found is not None
    return found


def normalise_agent(agent: str | None) -> str | None:
    """The agent name for ``agent`` or one of its aliases (a format name works too)."""
    if agent is None:
        return None
    wanted = agent.lower()
    for fmt in discoverable():
        d = fmt.discovery
        if d is not None and wanted in (d.agent, fmt.name, *d.aliases):
            return d.agent
    raise ValueError(f"unknown agent {agent!r}; choose one of: {', '.join(agents())}")


def claude_dirs(claude_dir: str | Path | None = None) -> list[Path]:
    """Claude Code config directories: the argument, else $CLAUDE_CONFIG_DIR, else the defaults."""
    return discovery_of("claude").roots(claude_dir)


def codex_dir(codex_home: str | Path | None = None) -> Path:
    return discovery_of("codex").roots(codex_home)[0]


def find_sessions(
    claude_dir: str | Path | None = None,
    codex_home: str | Path | None = None,
    strands_dirs: Iterable[str | Path] = (),
    limit: int = 50,
    agent: str | None = None,
    *,
    dirs: Mapping[str, Any] | None = None,
) -> list[FoundSession]:
    """Recent sessions of every agent (or only ``agent``), newest first.

    ``dirs`` maps an agent name to its home (or, for a repeatable option, a list of them); the
    first three arguments are the same for Claude Code, Codex and Strands.
    """
    wanted = normalise_agent(agent)
    given: dict[str, Any] = {"claude": claude_dir, "codex": codex_home, "strands": list(strands_dirs)}
    given.update(dirs or {})
    candidates: list[tuple[Discovery, Path, float, int]] = []
    for fmt in discoverable():
        d = fmt.discovery
        if d is None or wanted not in (None, d.agent):
            continue
        home = given.get(d.agent)
        if d.repeatable and not home:
            continue  # no default place
        candidates.extend((d, path, mtime, size) for path, mtime, size in d.candidates(home))
    candidates.sort(key=lambda c: (c[2], str(c[1])), reverse=True)
    found: list[FoundSession] = []
    for d, path, mtime, size in candidates[: max(0, limit)]:
        try:
            info = d.details(path)
        except OSError:
            continue  # deleted or unreadable since it was listed
        when = datetime.fromtimestamp(mtime, tz=timezone.utc)
        found.append(FoundSession(d.agent, info.project, path, size, info.messages, when, info.session_id, info.title))
    return found


def latest(
    agent: str | None = None,
    *,
    claude_dir: str | Path | None = None,
    codex_home: str | Path | None = None,
    strands_dirs: Iterable[str | Path] = (),
    dirs: Mapping[str, Any] | None = None,
) -> FoundSession | None:
    """The most recently active session (of ``agent`` when given), or None."""
    found = find_sessions(claude_dir, codex_home, strands_dirs, limit=1, agent=agent, dirs=dirs)
    return found[0] if found else None


def __getattr__(name: str) -> Any:
    if name == "AGENTS":  # kept for callers of the old constant: the registered agents now
        return agents()
    raise AttributeError(name)


__all__ = ["FoundSession", "agents", "claude_dirs", "codex_dir", "discovery_of", "find_sessions", "format_of", "latest", "normalise_agent"]
