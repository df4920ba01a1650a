"""Keys planned ahead (inspector.tui.speculate), and what keeps a key's window short: a plan
found kept is applied in the key's own repaint, the collector runs once the screen is idle, the
totals bar lays the screen out only when its height changes."""

from __future__ import annotations

import gc

import inspector
from inspector.analysis.session import of as analysis_of
from inspector.tokens import count_session
from inspector.tui import engine
from inspector.tui.engine import RowsUpTo, Snapshot, ViewInfo
from inspector.tui.gchold import IDLE_COLLECT, GcHold
from inspector.tui.speculate import Speculation, neighbours
from inspector.tui.state import PipelineState
from inspector.tui.widgets.totals import TotalsBar
from inspector.units import build_view

from tui_helpers import make_app, sample, settle

SIZE = (160, 48)


def test_the_neighbours_are_one_key_away_of_the_kind_just_made():
    state = PipelineState.initial(enabled=("fifo",)).set("budget", 5000)
    toggles = [(state.toggle_at(k), None) for k in range(len(state.order))]
    assert len(state.order) == 6 and toggles[0][0].pipeline == ()
    assert list(neighbours(state, None, 7, "", 9000)) == toggles
    assert list(neighbours(state, 3, 7, "call", 9000)) == [(state, 2), (state, 4)]
    assert list(neighbours(state, 7, 7, "call", 9000)) == [(state, 6), (state, None)]  # past the last: next call
    assert list(neighbours(state, None, 7, "call", 9000)) == [(state, 7)]  # [ from the next call; ] goes nowhere
    assert list(neighbours(state, None, 0, "call", 9000)) == []  # no model calls
    assert list(neighbours(state, 2, 7, "budget", 9000)) == [(state.set("budget", 4000), 2), (state.set("budget", 6000), 2)]
    unset = PipelineState.initial()
    assert [s.settings.budget for s, _ in neighbours(unset, None, 0, "budget", 9400)] == [9000]  # - and + both seed it


def _setup():
    session = sample("coding_agent.jsonl")
    view = build_view(session)
    table = count_session(session.messages, session.tools, encoding="cl100k_base", profile="openai")
    return view, table, ViewInfo(view)


def test_the_plans_ahead_are_the_library_plans_and_stop_when_anything_changes():
    view, table, info = _setup()
    jobs = []
    holds = []
    spec = Speculation(lambda job, group: jobs.append(job), holds.append)
    state = PipelineState.initial(encoding="cl100k_base").set("budget", 3000)
    snap = Snapshot(5, view, table, state, None)
    candidates = [(state.toggle("fifo"), None), (state.toggle("tool_pruning"), 2), (state, 3)]
    spec.start(snap, info, candidates)
    jobs.pop()(lambda: False)
    assert spec.planned == 3 and holds == [True, False]  # the replay waited meanwhile
    for s, call in candidates:
        kept = info.kept_result(Snapshot(6, view, table, s, call))
        public = inspector.plan(analysis_of(view, table), s.pipeline, settings=s.settings, at_call=call)
        assert (kept.generation, kept.plan.tokens_after, list(kept.plan.status)) == (6, public.tokens_after, list(public.status))
    spec.start(snap, info, candidates)  # every one kept already: no job
    assert not jobs
    later = [(state.toggle("summarize"), None), (state.toggle("clear_tool_uses"), None)]
    spec.start(snap, info, later)
    spec.stop()  # a key came before the job ran
    jobs.pop()(lambda: False)
    assert spec.planned == 3 and not any(info.has_result(Snapshot(0, view, table, s, c)) for s, c in later)


def test_a_plan_without_inserted_messages_keeps_its_rows_as_ranges():
    view, table, info = _setup()
    state = PipelineState.initial(encoding="cl100k_base").set("budget", 3000)
    result = engine.compute_plan(Snapshot(1, view, table, state, 4), info)
    stop, n = result.plan.stop, len(view)
    assert result.rows == range(stop) and isinstance(result.row_of, RowsUpTo)
    assert list(result.row_of) == list(range(stop)) + [-1] * (n - stop)
    assert (result.row_of[-1], result.row_of[stop - 1], len(result.row_of)) == (-1, stop - 1, n)
    assert result.row_of[stop - 2: stop + 1] == [stop - 2, stop - 1, -1]


async def test_a_key_whose_plan_was_computed_ahead_is_shown_in_its_own_repaint():
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        for _ in range(300):  # the plans one key away, computed while the screen is idle
            await pilot.pause(0.01)
            if app.info.has_result(Snapshot(0, app.view, app.table, app.state.toggle_at(3), None)):
                break
        ahead = app.info.kept_result(Snapshot(0, app.view, app.table, app.state.toggle_at(3), None))
        assert ahead is not None
        app.action_toggle(3)  # no worker, no message: the result is on the app when the key returns
        assert app.result.generation == app._gen and app.result.plan is ahead.plan
        assert app.state.pipeline == (app.state.order[3],)
        await settle(pilot, app)
        assert app.result.plan is ahead.plan


def test_the_collector_runs_when_the_screen_is_idle_and_freezes_what_survives():
    timers = []

    class Timer:
        stopped = False

        def stop(self):
            self.stopped = True

    def set_timer(delay, callback):
        timers.append((delay, callback, Timer()))
        return timers[-1][2]

    busy = [True]
    hold = GcHold(set_timer, busy=lambda: busy[0])
    frozen = gc.get_freeze_count()
    try:
        hold.pause()
        hold.resume_when_idle()  # painted: not yet
        assert not gc.isenabled() and timers[-1][0] == IDLE_COLLECT
        hold.pause()  # another key within IDLE_COLLECT
        assert timers[1][2].stopped and not gc.isenabled()
        hold.resume_when_idle()
        timers[-1][1]()  # plans are being computed ahead: after them
        assert not gc.isenabled() and len(timers) == 5 and timers[-1][0] == IDLE_COLLECT
        busy[0] = False
        keep = [[k] for k in range(1000)]  # survives the collection: frozen with the rest
        timers[-1][1]()
        assert gc.isenabled() and gc.get_freeze_count() >= frozen + len(keep)
    finally:
        gc.enable()


async def test_the_totals_bar_lays_the_screen_out_only_when_its_height_changes():
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        bar = app.query_one(TotalsBar)
        layouts: list[bool] = []
        refresh = bar.refresh
        bar.refresh = lambda *a, layout=False, **kw: (layouts.append(layout), refresh(*a, layout=layout, **kw))
        await pilot.press("1")  # fifo on: the same lines, other figures
        await settle(pilot, app)
        assert layouts and not any(layouts)
        lines = bar.render().plain.count("\n") + 1
        assert lines == bar.size.height
        bar.counting = "exact count 5%…" + " …" * 200  # a line that wraps: one more line
        bar.show(app.result, None, bar.counting)
        assert layouts[-1] is True
