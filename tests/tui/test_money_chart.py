"""Money in the viewer, read off the screen: the totals bar's session cost with and without the
pipeline (cache-aware, price data date), the replay chart in dollars by a key, its y-axis ticks,
the recorded usage beside the estimate and the compaction marks."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

import inspector
from inspector.analysis.replay import replay
from inspector.analysis.money import call_dollars, session_money
from inspector.analysis.prices import prices_as_of
from tui_helpers import make_app, settle, totals_text

CLAUDE = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "money" / "agentcmd_full-session-four.jsonl"


async def priced(pilot, app) -> None:
    """Wait until the replay of the current pipeline is complete and priced."""
    await settle(pilot, app, replay=True)
    for _ in range(500):
        if app.chart.money is not None and app.replay.key is not None and app.replay.key[2] == app.state.pipeline \
                and app.replay.key[3] == app.state.settings and app.chart.pending == 0:
            break
        await pilot.pause(0.02)
    await pilot.pause()


async def clearing(pilot, app) -> None:
    """clear_tool_uses over 8,000 tokens keeping 2 (it breaks the cache at call 4), priced."""
    await settle(pilot, app)
    app.set_state(app.state.set("trigger", 8000).set("keep", 2))
    await priced(pilot, app)


def chart_lines(app) -> list[str]:
    chart = app.chart
    chart._paint = chart._values()  # what render_lines computes once per paint
    return [chart.render_line(y).text for y in range(chart.size.height)]


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_totals_bar_shows_the_session_cost_with_and_without_the_pipeline(size):
    app = make_app(inspector.load(CLAUDE), path=str(CLAUDE), pipeline=("clear_tool_uses",))
    async with app.run_test(size=size) as pilot:
        await clearing(pilot, app)
        money = session_money(app.view, app.table, app.state.pipeline, app.state.settings)
        base, cost = money.total("baseline_cost"), money.total("cost")
        text = " ".join(totals_text(app).split())
        pct = 100.0 * float(base - cost) / float(base)
        if size[0] >= 140:
            assert f"session cost ${float(base):,.4f} → with pipeline ${float(cost):,.4f} ({pct:.1f}% saved)" in text
            assert f"recorded usage ${float(money.total('recorded_cost')):,.4f} cache-aware" in text
        else:
            assert f"cost ${float(base):,.4f} → ${float(cost):,.4f} ({pct:.1f}% saved)" in text
            assert f"recorded ${float(money.total('recorded_cost')):,.4f}" in text
        assert f"prices {prices_as_of().split(' ')[0]}" in text
        # the strategy saves tokens and dollars, a smaller share of dollars (clear_tool_uses rewrites cached history)
        assert 0 < pct < 100.0 * (1 - sum(p.tokens for p in app.chart.points.values()) / sum(p.baseline for p in app.chart.points.values()))


async def test_a_session_that_names_no_model_is_not_priced_for_that_reason():
    """A SWE-agent demonstration names no model: the bar said 'the price data does not know the
    session's model'."""
    path = Path(__file__).parents[1] / "fixtures" / "real" / "swe_agent" / "sweagent_demo_function_calling_simple.traj"
    app = make_app(inspector.load(path), path=str(path))
    async with app.run_test(size=(160, 48)) as pilot:
        await priced(pilot, app)
        assert "cost not priced: the file names no model" in " ".join(totals_text(app).split())


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_the_chart_switches_to_dollars_by_a_key_with_ticks_and_recorded_usage(size):
    session = inspector.load(CLAUDE)
    app = make_app(session, path=str(CLAUDE))
    async with app.run_test(size=size) as pilot:
        await priced(pilot, app)
        lines = chart_lines(app)
        bars = app.chart.size.height - 2
        top = max(max(p.baseline, p.tokens, p.recorded or 0) for p in app.chart.points.values())
        # y axis: the top, a middle tick and 0
        assert lines[1].strip().startswith(f"{top / 1000:.1f}k ┤")
        middle = 1 + (bars - 1) // 2
        assert "┤" in lines[middle][:8] and lines[bars][:8].strip() == "0 ┤"
        assert "• recorded" in lines[0] and ("$ dollars" if size[0] == 160 else "$ usd") in lines[0]
        assert lines[0].rstrip().endswith(("$ dollars", "$ usd"))  # the key's hint whole, not cut
        # each call has several columns here: its last one is the recorded usage's bar, beside the estimate
        cols = app.chart.columns()
        last_of_call_1 = max(k for k, c in enumerate(cols) if c == (1, 1))
        recorded_style = app.chart.get_component_rich_style("chart--recorded")
        bottom = list(app.chart.render_line(bars))
        x, cells = 0, {}
        for seg in bottom:
            for ch in seg.text:
                cells[x] = (ch, seg.style)
                x += 1
        ch, style = cells[8 + last_of_call_1]
        assert ch in "▁▂▃▄▅▆▇█" and style == recorded_style
        assert cells[8 + last_of_call_1 - 1][1] != recorded_style  # the column before is the estimate
        await pilot.press("dollar_sign")
        await pilot.pause()
        assert app.chart.unit == "dollars"
        lines = chart_lines(app)
        money = app.chart.money
        wide = size[0] >= 120
        assert lines[0].startswith(" Replay: cost per model call (USD, cache-aware)" if wide else " $ per call")
        assert f"{'no strategy' if wide else 'none'} ${float(money.total('baseline_cost', False)):,.4f}" in lines[0]
        dollars = call_dollars(money)
        top = max(max(d.baseline, d.pipeline, d.recorded) for d in dollars.values())
        assert lines[1][:8].strip() == f"{app.chart.label(top)} ┤"
        await pilot.press("left_square_bracket")
        await settle(pilot, app)
        d = dollars[len(app.view.calls)]
        axis = app.chart.render_line(app.chart.size.height - 1).text
        assert f"{app.chart.label(d.baseline)} → {app.chart.label(d.pipeline)} · recorded {app.chart.label(d.recorded)}" in axis
        await pilot.press("dollar_sign")
        await pilot.pause()
        assert app.chart.unit == "tokens"
        assert chart_lines(app)[0].startswith(" Replay: input tokens per model call" if wide else " tokens per call")


async def test_compaction_points_are_marked_under_the_chart():
    session = inspector.load(CLAUDE)
    app = make_app(session, path=str(CLAUDE))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        # compact is reached through presets in the viewer (it is not a panel strategy)
        state = replace(app.state, order=(*app.state.order, "compact"), enabled=frozenset({"compact"}))
        app.set_state(state.set("compact_tokens", 40000))
        await priced(pilot, app)
        compacted = sorted(c for c, p in app.chart.points.items() if p.compacted_by)
        expected = replay(app.view, app.table, app.state.pipeline, app.state.settings)
        assert compacted == [c.call for c in expected.calls if c.compacted_by] and len(compacted) >= 2
        lines = chart_lines(app)
        assert "c compaction" in lines[0]
        axis = lines[-1]
        cols = app.chart.columns()
        marks = axis[8:].split("  1 … ")[0]  # the marks under the columns, then the call range
        marked = [k for k, ch in enumerate(marks) if ch == "c"]
        assert sorted({cols[k][0] for k in marked}) == compacted
        app.replay.go_to(11)
        await settle(pilot, app)
        assert "compacted by compact" in app.chart.render_line(app.chart.size.height - 1).text


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
async def test_a_key_opens_the_replay_as_a_table_per_call(size):
    from inspector.tui.screens.call_table import COLUMNS, CallTableScreen
    from textual.widgets import DataTable

    app = make_app(inspector.load(CLAUDE), path=str(CLAUDE), pipeline=("clear_tool_uses",))
    async with app.run_test(size=size) as pilot:
        await clearing(pilot, app)
        await pilot.press("number_sign")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CallTableScreen)
        table = screen.query_one(DataTable)
        assert [str(c.label) for c in table.columns.values()] == list(COLUMNS)
        assert table.row_count == len(app.view.calls) == 30
        dollars = call_dollars(app.chart.money)
        p, d = app.chart.points[4], dollars[4]
        # call 4 is where clearing first rewrites cached history: it breaks the cache
        assert table.get_row_at(3) == ["4", f"{p.baseline:,}", f"{p.tokens:,}", f"{p.recorded:,}", f"{d.read_tokens:,}",
                                       f"{d.write_tokens:,}", f"${d.baseline:,.4f}", f"${d.pipeline:,.4f}",
                                       f"${d.recorded:,.4f}", "", "breaks"]
        assert d.pipeline > d.baseline  # this call costs more under the pipeline: the cache writes
        assert f"30 of 30 calls" in str(screen.query_one("#calls-title").render())
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, CallTableScreen)


async def test_a_compaction_s_summary_calls_are_on_the_viewer_s_bill():
    app = make_app(inspector.load(CLAUDE), path=str(CLAUDE))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        state = replace(app.state, order=(*app.state.order, "compact"), enabled=frozenset({"compact"}))
        app.set_state(state.set("compact_tokens", 40000))
        await priced(pilot, app)
        money = app.chart.money
        summaries = [c for c in money.calls if c.kind == "summary"]
        assert [c.call for c in summaries] == sorted(c for c, p in app.chart.points.items() if p.compacted_by)
        # the call after a summary carries its cost in the chart's per-call dollars
        first = summaries[0]
        call = next(c for c in money.calls if c.kind == "call" and c.call == first.call)
        d = call_dollars(money)[first.call]
        assert d.pipeline == float(first.cost.total) + float(call.cost.total)
        text = " ".join(totals_text(app).split())
        assert f"with pipeline ${float(money.total('cost')):,.4f}" in text
