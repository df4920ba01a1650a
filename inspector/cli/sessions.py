"""``context-inspector sessions`` (recent agent sessions on this machine) and the TUI's
``--latest [AGENT]`` option, on top of :mod:`inspector.discover`.

    context-inspector sessions [--agent AGENT] [--limit N] [--json] [--claude-dir DIR] ...
    context-inspector --latest [AGENT]      # open the newest session in the TUI

The agents, their location options (``--claude-dir``, ``--codex-home``, ``--strands-dir``...) and
the help texts come from the formats' discovery facts. Kept out of ``main.py`` so the CLI module
only wires these in.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from datetime import datetime
from typing import Any

def _discoveries() -> list:
    """The discovery facts of every registered format that has them (registry order)."""
    from ..formats import discoverable

    return [f.discovery for f in discoverable()]


def _where(d) -> str:
    if d.repeatable:
        return f"directories given with --{d.option}"
    default = " or ".join(x for x in (f"${d.env}" if d.env else None, d.homes[0] if d.homes else None) if x)
    return f"{'/'.join(d.pattern[:1]) or 'sessions'} under {default}"


SUMMARY = "recent agent sessions on this machine, newest first"


def description() -> str:
    places = "; ".join(f"{d.label} ({_where(d)})" for d in _discoveries())
    return (
        f"Recent agent sessions found in the usual places, newest first: {places}. "
        "Message counts are estimates made without parsing the files."
    )


def _add_location_options(parser: argparse.ArgumentParser) -> None:
    for d in _discoveries():
        dest = d.option.replace("-", "_")
        if d.repeatable:
            parser.add_argument(f"--{d.option}", dest=dest, metavar="DIR", action="append", default=[], help=f"a {d.label} storage or session directory (repeatable)")
        else:
            default = " or ".join(x for x in (f"${d.env}" if d.env else None, d.homes[0] if d.homes else None) if x)
            parser.add_argument(f"--{d.option}", dest=dest, metavar="DIR", help=f"{d.label} home directory (default: {default})")


def configure(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Options of the ``sessions`` subcommand."""
    parser.add_argument("--agent", choices=_agent_choices(), help="only this agent's sessions")
    parser.add_argument("--limit", type=int, default=50, metavar="N", help="how many sessions to list (default: 50)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    _add_location_options(parser)
    return parser


def _agent_choices() -> tuple[str, ...]:
    return tuple(d.agent for d in _discoveries())


def add_latest_option(parser: argparse.ArgumentParser) -> None:
    """``--latest [AGENT]`` for the TUI entry (its location options come along)."""
    choices = _agent_choices()
    parser.add_argument(
        "--latest",
        nargs="?",
        const="any",
        choices=("any",) + choices,
        metavar="AGENT",
        help=f"open the most recent session (of AGENT: {', '.join(choices)}) instead of SESSION",
    )
    _add_location_options(parser)


def _given(args: argparse.Namespace) -> dict[str, object]:
    return {d.agent: getattr(args, d.option.replace("-", "_"), None) for d in _discoveries()}


def _found(args: argparse.Namespace, agent: str | None, limit: int):
    from ..discover import find_sessions

    return find_sessions(limit=limit, agent=agent, dirs=_given(args))


def latest_session(args: argparse.Namespace) -> tuple[str, str]:
    """``(path, format)`` of the newest session for ``--latest``; UsageError when there is none."""
    from .options import UsageError

    agent = None if args.latest in (None, "any") else args.latest
    if getattr(args, "session", None):
        raise UsageError(f"give either SESSION ({args.session}) or --latest, not both.")
    found = _found(args, agent, 1)
    if not found:
        what = next((d.label for d in _discoveries() if d.agent == agent), "agent")
        raise UsageError(f"--latest: no {what} sessions found in {', '.join(_places(args, agent))}.")
    return str(found[0].path), found[0].format


def _places(args: argparse.Namespace, agent: str | None) -> list[str]:
    """Where sessions of ``agent`` (None: every agent) were looked for."""
    given = _given(args)
    places: list[str] = []
    for d in _discoveries():
        if agent in (None, d.agent):
            if d.repeatable:
                places += [str(p) for p in given[d.agent] or ()] or [f"no --{d.option}"]
            else:
                places += [str(p) for p in d.places(given[d.agent])]
    return places


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


def render(found: list, console: Any, now: datetime | None = None, places: Sequence[str] = ()) -> None:
    """The table of ``found`` sessions; with none, where they were looked for (``places``)."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    now = now or datetime.now().astimezone()
    if not found:
        console.print(Text("No sessions found" + (f" in {', '.join(places)}." if places else ".")))
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

        render(found, console(), places=_places(args, args.agent))
    return 0


def __getattr__(name: str) -> str:
    if name == "DESCRIPTION":
        return description()
    raise AttributeError(name)


__all__ = ["SUMMARY", "add_latest_option", "cmd_sessions", "configure", "description", "latest_session", "render"]
