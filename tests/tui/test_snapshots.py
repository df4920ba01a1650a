"""Snapshot tests of the main screen (pytest-textual-snapshot; Textual is pinned to 8.2.8, since
snapshots change between releases). Synchronous on purpose: snap_compare runs its own loop.
Regenerate with ``pytest tests/tui/test_snapshots.py --snapshot-update`` and look at them."""

from __future__ import annotations

import pytest
from tui_helpers import make_app, settle

SIZE = (160, 48)


@pytest.mark.parametrize("theme", ["inspector-dark", "inspector-light", "inspector-colorblind"])
def test_main_screen_in_each_theme(snap_compare, theme):
    app = make_app("coding_agent.jsonl", theme=theme)

    async def ready(pilot):
        await settle(pilot, app, replay=True)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_pipeline_at_an_earlier_call(snap_compare):
    """tool_pruning + truncate_results on the seeds' three questions, viewed at call 8."""
    app = make_app("three_questions.json")

    async def ready(pilot):
        await settle(pilot, app)
        await pilot.press("5", "4")
        await settle(pilot, app, replay=True)
        for _ in range(4):
            await pilot.press("left_square_bracket")
        await settle(pilot, app, replay=True)

    assert snap_compare(app, terminal_size=SIZE, run_before=ready)


def test_window_view_at_80x24(snap_compare):
    """The window view (w) with fifo at a 1,500-token budget on the coding sample, on a small terminal."""
    app = make_app("coding_agent.jsonl", pipeline=("fifo",), budget=1500)

    async def ready(pilot):
        await settle(pilot, app)
        await pilot.press("w")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=ready)


def test_compare_screen(snap_compare):
    """The compare screen (m): every strategy and preset on the coding sample at a 1,500-token
    budget, sorted by tokens saved."""
    app = make_app("coding_agent.jsonl", budget=1500)

    async def ready(pilot):
        await settle(pilot, app)
        await pilot.press("m")
        for _ in range(600):
            await pilot.pause(0.05)
            if getattr(app.screen, "rows", None):
                break
        await pilot.press("s")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(160, 48), run_before=ready)
