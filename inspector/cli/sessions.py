"""``context-inspector sessions`` (recent agent sessions on this machine) and the TUI's
``--latest [claude|codex|strands]`` option, on top of :mod:`inspector.discover`.

    context-inspector sessions [--agent claude|codex|strands] [--limit N] [--json]
                               [--claude-dir DIR] [--codex-home DIR] [--strands-dir DIR ...]
    context-inspector --latest [AGENT]      # open the newest session in the TUI

Kept out of ``main.py`` so the CLI module only wires these in. Light imports only at the top.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import Any

SUMMARY = "recent Claude Code, Codex and Strands sessions on this machine, newest first"
DESCRIPTION = (
    "Recent agent sessions found in the usual places, newest first: Claude Code (projects/ under "
    "$CLAUDE_CONFIG_DIR or ~/.claude), Codex (sessions/ under $CODEX_HOME or ~/.codex) and Strands storage "
    "directories given with --strands-dir. Message counts are estimates made without parsing the files."
)
AGENT_CHOICES = ("claude", "codex", "strands")


def _add_location_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--claude-dir", metavar="DIR", help="Claude Code config directory (default: $CLAUDE_CONFIG_DIR or ~/.claude)")
    parser.add_argument("--codex-home", metavar="DIR", help="Codex home (default: $CODEX_HOME or ~/.codex)")
    parser.add_argument(
        "--strands-dir", metavar="DIR", action="append", default=[], help="a Strands storage or session directory (repeatable)"
    )


def configure(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Options of the ``sessions`` subcommand."""
    parser.add_argument("--agent", choices=AGENT_CHOICES, help="only this agent's sessions")
    parser.add_argument("--limit", type=int, default=50, metavar="N", help="how many sessions to list (default: 50)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    _add_location_options(parser)
    return parser


def add_latest_option(parser: argparse.ArgumentParser) -> None:
    """``--latest [AGENT]`` for the TUI entry (its location options come along)."""
    parser.add_argument(
        "--latest",
        nargs="?",
        const="any",
        choices=("any",) + AGENT_CHOICES,
        metavar="AGENT",
        help="open the most recent session (of AGENT: claude, codex or strands) instead of SESSION",
    )
    _add_location_options(parser)


def _found(args: argparse.Namespace, agent: str | None, limit: int):
    from ..discover import find_sessions

    return find_sessions(args.claude_dir, args.codex_home, args.strands_dir, limit=limit, agent=agent)


def latest_session(args: argparse.Namespace) -> tuple[str, str]:
    """``(path, format)`` of the newest session for ``--latest``; UsageError when there is none."""
    from ..discover import claude_dirs, codex_dir
    from .options import UsageError

    agent = None if args.latest in (None, "any") else args.latest
    if getattr(args, "session", None):
        raise UsageError(f"give either SESSION ({args.session}) or --latest, not both.")
    found = _found(args, agent, 1)
    if not found:
        places = []
        if agent in (None, "claude"):
            places += [str(d / "projects") for d in claude_dirs(args.claude_dir)]
        if agent in (None, "codex"):
            places.append(str(codex_dir(args.codex_home) / "sessions"))
        if agent in (None, "strands"):
            places += list(args.strands_dir) or ["no --strands-dir"]
        what = {"claude": "Claude Code", "codex": "Codex", "strands": "Strands"}.get(agent or "", "agent")
        raise UsageError(f"--latest: no {what} sessions found in {', '.join(places)}.")
    return str(found[0].path), found[0].format


def _age(when: datetime, now: datetime) -> str:
    seconds = max(0, int((now - when).total_seconds()))
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return "just now"


def _size(n: int) -> str:
    for unit, scale in (("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def render(found: list, console: Any, now: datetime | None = None) -> None:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    now = now or datetime.now().astimezone()
    if not found:
        console.print(Text("No sessions found."))
        return
    table = Table(box=box.SIMPLE_HEAD, title=Text(f"{len(found)} recent session{'s' if len(found) != 1 else ''}"), title_justify="left")
    table.add_column("Last activity", no_wrap=True)
    table.add_column("Agent", no_wrap=True)
    table.add_column("Project", overflow="fold")
    table.add_column("Messages", justify="right", no_wrap=True)
    table.add_column("Size", justify="right", no_wrap=True)
    table.add_column("Session", overflow="fold")
    for f in found:
        local = f.last_activity.astimezone(now.tzinfo)
        table.add_row(
            Text(f"{local:%Y-%m-%d %H:%M} ({_age(f.last_activity, now)})"),
            Text(f.agent),
            Text(f.project),
            Text(f"~{f.messages:,}"),
            Text(_size(f.size)),
            Text(f"{f.title}\n{f.path}" if f.title else str(f.path)),
        )
    console.print(table)


def cmd_sessions(args: argparse.Namespace) -> int:
    from .options import UsageError

    if args.limit < 1:
        raise UsageError(f"--limit {args.limit}: give a positive number of sessions.")
    found = _found(args, args.agent, args.limit)
    if args.json:
        from .jsonout import print_report

        print_report({"sessions": [f.to_json() for f in found]})
    else:
        from .render import console

        render(found, console())
    return 0


__all__ = ["DESCRIPTION", "SUMMARY", "add_latest_option", "cmd_sessions", "configure", "latest_session", "render"]
