"""Helpers for the TUI tests: build the app on a sample or a hand-built session, wait until the
plan for the last change is on screen, and read what the user sees (rendered rows, totals,
panel) as plain text."""

from __future__ import annotations

import os
from pathlib import Path

import inspector
from inspector.model import Message, Session, TextBlock, ToolCallBlock, ToolResultBlock
from inspector.tui.app import InspectorApp
from inspector.tui.widgets.totals import TotalsBar

SAMPLES = Path(__file__).resolve().parents[2] / "sample_sessions"

os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")


def sample(name: str) -> Session:
    return inspector.load(SAMPLES / name)


def make_app(session: Session | str, **kw) -> InspectorApp:
    if isinstance(session, str):
        kw.setdefault("path", str(SAMPLES / session))
        session = sample(session)
    kw.setdefault("follow", False)
    kw.setdefault("theme", "inspector-dark")
    return InspectorApp(session, **kw)


async def settle(pilot, app: InspectorApp, replay: bool = False) -> None:
    """Wait until the plan of the latest change is shown (and the replay chart is complete)."""
    for _ in range(400):
        await pilot.pause(0.01)
        done = app.result is not None and app.result.generation == app._gen
        if replay:
            done = done and app.chart.pending == 0 and app.replay.key is not None
        if done:
            break
    await pilot.pause()


def row_text(app: InspectorApp, row: int) -> str:
    lst = app.list
    return lst.render_row(row, lst.size.width, False).text


def rows_text(app: InspectorApp) -> list[str]:
    return [row_text(app, r) for r in range(app.list.row_count())]


def row_of(app: InspectorApp, message_index: int) -> str:
    return row_text(app, app.result.row_of[message_index])


def totals_text(app: InspectorApp) -> str:
    return app.query_one(TotalsBar).render().plain


def panel_text(app: InspectorApp) -> str:
    panel = app.panel
    return "\n".join(panel.render_row(k, panel.size.width, False).text for k in range(panel.row_count()))


async def panel_to_param(pilot, app: InspectorApp, name: str) -> None:
    """Move the settings panel's cursor down to the row of parameter ``name``."""
    for _ in range(60):
        row = app.panel.current
        if row.kind == "param" and row.name == name:
            return
        await pilot.press("down")
    raise AssertionError(f"no {name!r} row in the settings panel")


def msg(index: int, role: str, *blocks, **kw) -> Message:
    content = [TextBlock(text=b) if isinstance(b, str) else b for b in blocks]
    return Message(index=index, role=role, content=content, **kw)


def tiny_session() -> Session:
    """system, user, assistant calling read_file, its result, answer; then a second turn."""
    return Session(
        format="openai",
        messages=[
            msg(0, "system", "You are a careful assistant."),
            msg(1, "user", "What is in notes.txt?"),
            msg(2, "assistant", ToolCallBlock(id="c1", name="read_file", arguments='{"path": "notes.txt"}')),
            msg(3, "tool", ToolResultBlock(tool_call_id="c1", content="buy milk\nfix the bike " * 40)),
            msg(4, "assistant", "It is a shopping and chores list."),
            msg(5, "user", "Thanks. Anything about the bike?"),
            msg(6, "assistant", "Yes: fix the bike."),
        ],
    )


def status_text(app: InspectorApp) -> str:
    from inspector.tui.widgets.status import StatusLine

    return app.query_one(StatusLine).render().plain


async def wait_for(pilot, predicate, seconds: float = 5.0) -> bool:
    """Pause the app until ``predicate()`` holds (False if it still does not after ``seconds``)."""
    import time

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        await pilot.pause(0.05)
    return predicate()
