"""The planning worker's reuse (inspector.tui.engine): a plan is the one inspector.plan makes,
the call's overhead is computed once per token table, and a result planned before for the same
inputs is shown again without planning."""

from __future__ import annotations

import inspector
from inspector.analysis.session import of as analysis_of
from inspector.tokens import count_session
from inspector.tui import engine
from inspector.tui.engine import Snapshot, ViewInfo, compute_plan
from inspector.tui.state import PipelineState
from inspector.units import build_view

from tui_helpers import sample


def _setup(name: str = "coding_agent.jsonl"):
    session = sample(name)
    view = build_view(session)
    table = count_session(session.messages, session.tools, encoding="cl100k_base", profile="openai")
    return view, table, ViewInfo(view)


def test_plans_match_inspector_plan_at_every_call_and_the_next() -> None:
    view, table, info = _setup()
    state = PipelineState.initial(encoding="cl100k_base", enabled=("tool_pruning", "fifo")).set("budget", 3000)
    for at_call in (None, 1, len(view.calls) // 2, len(view.calls), -1):
        mine = compute_plan(Snapshot(1, view, table, state, at_call), info).plan
        public = inspector.plan(analysis_of(view, table), state.pipeline, settings=state.settings, at_call=at_call)
        assert (mine.tokens_before, mine.tokens_after, mine.not_in_file) == (
            public.tokens_before, public.tokens_after, public.not_in_file)
        assert list(mine.status) == list(public.status)


def test_a_pipeline_toggled_back_reuses_its_result_with_the_new_generation() -> None:
    view, table, info = _setup()
    off = PipelineState.initial(encoding="cl100k_base").set("budget", 3000)
    on = off.toggle("fifo")
    first = compute_plan(Snapshot(1, view, table, off, None), info)
    with_fifo = compute_plan(Snapshot(2, view, table, on, None), info)
    again = compute_plan(Snapshot(3, view, table, off, None), info)
    assert with_fifo.plan is not first.plan
    assert again.plan is first.plan and again.rows is first.rows
    assert (again.generation, first.generation) == (3, 1)


def test_new_counts_or_another_budget_plan_again() -> None:
    view, table, info = _setup()
    state = PipelineState.initial(encoding="cl100k_base", enabled=("fifo",)).set("budget", 3000)
    first = compute_plan(Snapshot(1, view, table, state, None), info)
    approx = count_session(view.messages, view.session.tools, encoding="approx", profile="openai")
    recounted = compute_plan(Snapshot(2, view, approx, state, None), info)
    assert recounted.plan is not first.plan and recounted.plan.table is approx
    smaller = compute_plan(Snapshot(3, view, table, state.set("budget", 2000), None), info)
    assert smaller.plan is not first.plan and smaller.plan.settings.budget == 2000


def test_only_the_last_few_results_are_kept() -> None:
    view, table, info = _setup()
    base = PipelineState.initial(encoding="cl100k_base", enabled=("fifo",))
    budgets = [2000 + 100 * k for k in range(engine.KEPT_RESULTS + 1)]
    firsts = [compute_plan(Snapshot(k, view, table, base.set("budget", b), None), info) for k, b in enumerate(budgets)]
    oldest = compute_plan(Snapshot(99, view, table, base.set("budget", budgets[0]), None), info)
    newest = compute_plan(Snapshot(100, view, table, base.set("budget", budgets[-1]), None), info)
    assert oldest.plan is not firsts[0].plan
    assert newest.plan is firsts[-1].plan


def _gauge_by_rows(result):
    """The gauge's sums row by row, as the engine summed them before it grouped by kind."""
    from inspector.strategies import Status

    plan, info = result.plan, ViewInfo(result.snapshot.view)
    after, before = [0] * len(engine.CATEGORIES), [0] * len(engine.CATEGORIES)
    totals = result.snapshot.table.totals
    for r in result.rows:
        if type(r) is int:
            after[info.category[r]] += plan.tokens_after_of[r]
            if not (plan.status[r] is Status.DROPPED and plan.by[r] == "source"):
                before[info.category[r]] += totals[r]
        else:
            after[4 if r.kind == "summary" else 3] += r.tokens
    return after[:5], before[:5]


def test_the_gauge_sums_every_row_by_kind() -> None:
    from pathlib import Path

    compacted = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "money" / "agentcmd_full-session-four.jsonl"
    sessions = [sample("coding_agent.jsonl"), sample("three_questions.json"), inspector.load(compacted)]
    seen_source_drop = seen_inserted = False
    for session in sessions:
        view = build_view(session)
        table = count_session(session.messages, session.tools, encoding="cl100k_base", profile="openai")
        info = ViewInfo(view)
        for pipeline in ((), ("fifo",), ("summarize",), ("tool_pruning", "fifo"), ("clear_tool_uses",)):
            state = PipelineState.initial(encoding="cl100k_base", enabled=pipeline).set("budget", 2500)
            for at_call in (None, 2, -3):
                result = compute_plan(Snapshot(1, view, table, state, at_call), info)
                assert (result.by_category[:5], result.before_by_category[:5]) == _gauge_by_rows(result)
                assert result.sent_messages_before == sum(result.before_by_category[:5])
                seen_inserted |= bool(result.plan.inserted)
                seen_source_drop |= "source" in result.plan.by[: result.plan.stop]
    assert seen_inserted and seen_source_drop  # both corrections were exercised
