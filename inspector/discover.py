"""Find agent sessions where the agents keep them, newest first.

- Claude Code: every ``projects/<slug>/<session>.jsonl`` under ``$CLAUDE_CONFIG_DIR`` (a
  comma-separated list is accepted, as ccusage does) or, when unset, ``~/.claude`` and
  ``~/.config/claude``. Sub-agent files (``agent-*.jsonl``) are part of their session, not listed.
- Codex CLI: ``sessions/YYYY/MM/DD/rollout-*.jsonl`` under ``$CODEX_HOME`` or ``~/.codex``.
- Strands: session directories (``session_<id>/``) in the storage directories given by the caller,
  or the given directories themselves when they are sessions.

Listing is cheap: candidates are found with ``scandir`` and sorted by modification time, and only
the newest ``limit`` are opened. ``project`` comes from the first records (Claude Code ``cwd``,
Codex ``session_meta.cwd``) and ``messages`` is an estimate counted without parsing: Claude Code
user/assistant records (one response written as several block lines counts once per line), Codex
``response_item`` records (calls and outputs included), Strands message files.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson

from .safeio import open_input

AGENTS = ("claude", "codex", "strands")
ALIASES = {"claude": "claude", "claude_code": "claude", "claude-code": "claude", "codex": "codex", "strands": "strands"}
FORMAT_OF = {"claude": "claude_code", "codex": "codex", "strands": "strands"}
HEAD = 256 * 1024
CHUNK = 1 << 20


@dataclass(frozen=True)
class FoundSession:
    agent: str  # "claude", "codex" or "strands"
    project: str  # the working directory the agent ran in (or the session's folder name)
    path: Path
    size: int  # bytes (a Strands session: its main agent's message files)
    messages: int  # an estimate, see the module docstring
    last_activity: datetime  # modification time, UTC
    session_id: str | None = None
    title: str | None = None

    @property
    def format(self) -> str:
        return FORMAT_OF[self.agent]

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


def normalise_agent(agent: str | None) -> str | None:
    if agent is None:
        return None
    try:
        return ALIASES[agent.lower()]
    except KeyError:
        raise ValueError(f"unknown agent {agent!r}; choose one of: {', '.join(AGENTS)}") from None


def claude_dirs(claude_dir: str | Path | None = None) -> list[Path]:
    """Claude Code config directories: the argument, else $CLAUDE_CONFIG_DIR, else the defaults."""
    if claude_dir is not None:
        return [Path(claude_dir).expanduser()]
    env = os.environ.get("CLAUDE_CONFIG_DIR")
    if env:
        return [Path(p.strip()).expanduser() for p in env.split(",") if p.strip()]
    home = Path.home()
    return [home / ".claude", home / ".config" / "claude"]


def codex_dir(codex_home: str | Path | None = None) -> Path:
    if codex_home is not None:
        return Path(codex_home).expanduser()
    env = os.environ.get("CODEX_HOME")
    return Path(env).expanduser() if env else Path.home() / ".codex"


# --- candidates: (agent, path, mtime, size), found with scandir only ---------------------------


def _scandir(path: Path) -> Iterator[os.DirEntry]:
    try:
        with os.scandir(path) as it:
            yield from it
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return


def _claude_candidates(dirs: Iterable[Path]) -> Iterator[tuple[str, Path, float, int]]:
    for base in dirs:
        for project in _scandir(base / "projects"):
            if not project.is_dir():
                continue
            for f in _scandir(Path(project.path)):
                if f.name.endswith(".jsonl") and not f.name.startswith("agent-") and f.is_file():
                    st = f.stat()
                    yield "claude", Path(f.path), st.st_mtime, st.st_size


def _codex_candidates(home: Path) -> Iterator[tuple[str, Path, float, int]]:
    for year in _scandir(home / "sessions"):
        for month in _scandir(Path(year.path)) if year.is_dir() else ():
            for day in _scandir(Path(month.path)) if month.is_dir() else ():
                for f in _scandir(Path(day.path)) if day.is_dir() else ():
                    if f.name.startswith("rollout-") and f.name.endswith(".jsonl") and f.is_file():
                        st = f.stat()
                        yield "codex", Path(f.path), st.st_mtime, st.st_size


def _strands_sessions(dirs: Iterable[str | Path]) -> Iterator[Path]:
    for d in dirs:
        d = Path(d).expanduser()
        if (d / "agents").is_dir():
            yield d
        else:
            for entry in _scandir(d):
                if entry.name.startswith("session_") and entry.is_dir() and (Path(entry.path) / "agents").is_dir():
                    yield Path(entry.path)


def _strands_candidates(dirs: Iterable[str | Path]) -> Iterator[tuple[str, Path, float, int]]:
    from .formats.strands import agent_dirs

    for session_dir in _strands_sessions(dirs):
        agents = agent_dirs(session_dir)
        if not agents:
            continue
        newest, size = 0.0, 0
        for p in (agents[0] / "agent.json", agents[0] / "messages"):
            try:
                newest = max(newest, p.stat().st_mtime)
            except FileNotFoundError:
                pass
        for f in _scandir(agents[0] / "messages"):
            if f.name.startswith("message_") and f.name.endswith(".json"):
                st = f.stat()
                size += st.st_size
                newest = max(newest, st.st_mtime)
        yield "strands", session_dir, newest, size


# --- details for the listed ones -------------------------------------------------------------


def _head_records(path: Path, limit: int = 40) -> list[dict[str, Any]]:
    with open_input(path) as fh:
        head = fh.read(HEAD)
    out = []
    for raw in head.split(b"\n")[:limit]:
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def _count(path: Path, needles: tuple[bytes, ...]) -> int:
    total = 0
    with open_input(path) as fh:
        while chunk := fh.read(CHUNK):
            total += sum(chunk.count(n) for n in needles)
    return total


def _claude_details(path: Path) -> tuple[str, str | None, str | None, int]:
    project, sid, title = None, None, None
    for r in _head_records(path):
        if project is None and isinstance(r.get("cwd"), str):
            project = r["cwd"]
        if sid is None and isinstance(r.get("sessionId"), str):
            sid = r["sessionId"]
        if title is None and r.get("type") in ("summary", "custom-title", "ai-title"):
            t = r.get("summary") or r.get("customTitle") or r.get("aiTitle") or r.get("title")
            title = t if isinstance(t, str) else None
    messages = _count(path, (b'"type":"user"', b'"type":"assistant"'))
    return project or path.parent.name, sid or path.stem, title, messages


def _codex_details(path: Path) -> tuple[str, str | None, str | None, int]:
    project, sid = None, None
    for r in _head_records(path, limit=5):
        payload = r.get("payload") if isinstance(r.get("payload"), dict) else {}
        if r.get("type") == "session_meta":
            project = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
            sid = payload.get("id") if isinstance(payload.get("id"), str) else None
            break
    messages = _count(path, (b'"type":"response_item"',))
    return project or "?", sid, None, messages


def _strands_details(path: Path) -> tuple[str, str | None, str | None, int]:
    from .formats.strands import agent_dirs, message_files

    agents = agent_dirs(path)
    sid = path.name[len("session_") :] if path.name.startswith("session_") else path.name
    return sid, sid, None, len(message_files(agents[0])) if agents else 0


DETAILS = {"claude": _claude_details, "codex": _codex_details, "strands": _strands_details}


def find_sessions(
    claude_dir: str | Path | None = None,
    codex_home: str | Path | None = None,
    strands_dirs: Iterable[str | Path] = (),
    limit: int = 50,
    agent: str | None = None,
) -> list[FoundSession]:
    """Recent sessions of every agent (or only ``agent``: claude, codex, strands), newest first."""
    wanted = normalise_agent(agent)
    candidates: list[tuple[str, Path, float, int]] = []
    if wanted in (None, "claude"):
        candidates.extend(_claude_candidates(claude_dirs(claude_dir)))
    if wanted in (None, "codex"):
        candidates.extend(_codex_candidates(codex_dir(codex_home)))
    if wanted in (None, "strands"):
        candidates.extend(_strands_candidates(strands_dirs))
    candidates.sort(key=lambda c: (c[2], str(c[1])), reverse=True)
    found: list[FoundSession] = []
    for kind, path, mtime, size in candidates[: max(0, limit)]:
        try:
            project, sid, title, messages = DETAILS[kind](path)
        except OSError:
            continue  # deleted or unreadable since it was listed
        when = datetime.fromtimestamp(mtime, tz=timezone.utc)
        found.append(FoundSession(kind, project, path, size, messages, when, sid, title))
    return found


def latest(
    agent: str | None = None,
    *,
    claude_dir: str | Path | None = None,
    codex_home: str | Path | None = None,
    strands_dirs: Iterable[str | Path] = (),
) -> FoundSession | None:
    """The most recently active session (of ``agent`` when given), or None."""
    found = find_sessions(claude_dir, codex_home, strands_dirs, limit=1, agent=agent)
    return found[0] if found else None


__all__ = ["AGENTS", "FoundSession", "claude_dirs", "codex_dir", "find_sessions", "latest", "normalise_agent"]
