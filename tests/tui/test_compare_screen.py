"""Compare in the viewer (``m``): every strategy and preset side by side, sorted by a key per
column, applied with enter, and the diff of two marked rows, read off the screen (issue 16)."""

from __future__ import annotations

import pytest

import inspector
from inspector.analysis.diff import plan_diff
from inspector.tui.screens.compare import CompareScreen, DiffScreen
from inspector.tui.state import available_presets
from tui_helpers import make_app, settle

SAMPLE = "coding_agent.jsonl"


async def _open(pilot, app) -> CompareScreen:
    await pilot.press("m")
    screen = app.screen
    assert isinstance(screen, CompareScreen)
    for _ in range(600):
        await pilot.pause(0.05)
        if screen.rows:
            break
    assert screen.rows
    return screen



@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_compare_lists_every_strategy_and_preset_with_the_core_figures(size):
    app = make_app(SAMPLE, budget=1500)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        screen = await _open(pilot, app)
        labels = [r.choice.label for r in screen.rows]
        assert labels[0] == "none"
        assert labels[1:1 + len(app.state.order)] == list(app.state.order)
        assert labels[1 + len(app.state.order):] == [p.name for p in available_presets()]
        fifo = next(r for r in screen.rows if r.choice.label == "fifo")
        analysis = inspector.analyze(app.session)
        expected = inspector.replay(analysis, ("fifo",), budget=1500)
        assert fifo.replay_total == expected.total and fifo.tokens_saved == expected.saving > 0
        expected_plan = inspector.plan(analysis, ("fifo",), budget=1500, at_call=app.replay.at_call)
        assert fifo.tokens_at_cursor == expected_plan.tokens_after
        table = screen.query_one("#compare-table")
        assert table.row_count == len(screen.rows)
        shown = [str(table.get_row_at(k)[0]).strip() for k in range(table.row_count)]
        assert shown[1] == "fifo"
        fifo_row = table.get_row_at(labels.index("fifo"))
        assert str(fifo_row[2]) == f"{expected.total:,}"
        assert "comparing" not in str(screen.query_one("#compare-progress").render())


async def test_sort_by_saving_then_enter_applies_the_row():
    app = make_app(SAMPLE, budget=1500)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        screen = await _open(pilot, app)
        await pilot.press("s")  # saved, largest first
        await pilot.pause()
        order = screen.order()
        saved = [screen.rows[k].tokens_saved for k in order]
        assert saved == sorted(saved, reverse=True) and saved[0] > 0
        await pilot.press("s")  # again: reversed
        await pilot.pause()
        assert [screen.rows[k].tokens_saved for k in screen.order()] == sorted(saved)
        await pilot.press("s")
        await pilot.pause()
        best = screen.rows[screen.order()[0]].choice
        await pilot.press("enter")
        await settle(pilot, app)
        assert not isinstance(app.screen, CompareScreen)
        assert app.state.pipeline == best.pipeline


async def test_diff_of_two_marked_rows_lists_the_messages_they_treat_differently():
    app = make_app(SAMPLE, budget=1500)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        screen = await _open(pilot, app)
        labels = [r.choice.label for r in screen.rows]
        table = screen.query_one("#compare-table")
        for name in ("fifo", "tool_pruning"):
            table.move_cursor(row=labels.index(name))
            await pilot.press("space")
            await pilot.pause()
        assert [screen.rows[k].choice.label for k in screen.marked] == ["fifo", "tool_pruning"]
        await pilot.press("d")
        await pilot.pause()
        diff = app.screen
        assert isinstance(diff, DiffScreen)
        a, b = (screen.rows[labels.index(n)] for n in ("fifo", "tool_pruning"))
        expected = plan_diff(a.at_cursor, b.at_cursor)
        assert expected
        assert f"{len(expected)} messages treated differently" in str(diff.query_one("#diff-title").render())
        rows = diff.query_one("#diff-table")
        assert rows.row_count == len(expected)
        first = [str(c) for c in rows.get_row_at(0)]
        assert first[0] == str(expected[0].index) and first[1] == expected[0].status_a.value
        assert first[3] == expected[0].status_b.value


async def test_the_names_stay_while_the_figures_scroll_sideways_at_80_columns():
    # at 80x24 the screen showed names, "at call" and half of each replay total ("535,88"): scrolled
    # right to read the rest, the rows lost their names
    from textual.widgets import DataTable

    app = make_app(SAMPLE, budget=1500)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        screen = await _open(pilot, app)
        table = screen.query_one(DataTable)
        assert table.max_scroll_x > 0
        table.scroll_to(x=table.max_scroll_x, animate=False)
        await pilot.pause()
        first = next(k for k, r in enumerate(screen.rows) if r.choice.label == "fifo")
        line = table.render_line(first + 1).text  # line 0 is the header
        assert line.lstrip().startswith("fifo") and "openai:" in line
