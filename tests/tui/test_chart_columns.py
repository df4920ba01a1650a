"""The replay chart keeps its columns' maxima between paints: points that arrive raise only
their own columns, a point replaced by a lower one lowers its column, and the result is always
what computing every column afresh gives."""

from __future__ import annotations

from textual.app import App

from inspector.tui.engine import CallPoint
from inspector.tui.themes import default_variables
from inspector.tui.widgets.replay_chart import ReplayChart


class ChartApp(App):
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return default_variables()

    def compose(self):
        yield ReplayChart(id="chart")


def _fresh(chart: ReplayChart):
    return chart._values()


async def test_kept_columns_equal_fresh_ones_as_points_arrive():
    app = ChartApp()
    async with app.run_test(size=(60, 12)) as pilot:
        chart = app.query_one(ReplayChart)
        chart.reset_points(500)  # more calls than columns: each column is a bucket of calls
        await pilot.pause()
        assert chart._kept is not None and chart._kept[1] == [None] * len(chart.columns())
        chart.add_points([CallPoint(c, 10 * c, 5 * c, None) for c in range(1, 250)], 251)
        await pilot.pause()
        assert chart._kept == _fresh(chart)
        chart.add_points([CallPoint(c, 10 * c, 5 * c, 7 * c) for c in range(250, 501)], 0)
        await pilot.pause()
        assert chart._kept == _fresh(chart) and chart._kept[2] == 5000
        last = chart._calls_to_columns()[500][0]
        assert chart._kept[1][last] == 2500
        chart.add_points([CallPoint(500, 10, 5, None)], 0)  # call 500 again, lower: its column goes down
        await pilot.pause()
        assert chart._kept == _fresh(chart) and chart._kept[1][last] == 5 * 499  # call 499 is now its column's highest


async def test_few_calls_span_several_columns_each():
    app = ChartApp()
    async with app.run_test(size=(60, 12)) as pilot:
        chart = app.query_one(ReplayChart)
        chart.reset_points(5)
        chart.add_points([CallPoint(3, 300, 100, None)], 4)
        await pilot.pause()
        base, pipe, top, rec = chart._kept
        columns = chart._calls_to_columns()[3]
        assert len(columns) > 1 and all(pipe[k] == 100 and base[k] == 300 for k in columns)
        assert top == 300 and sum(v is not None for v in pipe) == len(columns)
