"""Why a strategy that is on changes nothing, what keeps an untouched row, and the diff of two
plans (analysis.idle, analysis.diff), with the figures of the bundled coding_agent sample."""

from __future__ import annotations

from cli_helpers import as_json, run

import inspector
from inspector.analysis.diff import plan_diff
from inspector.analysis.idle import IDLE, idle_reason, idle_reasons, kept_reason, register_idle
from inspector.strategies import Status

SAMPLE = "inspector/sample_sessions/coding_agent.jsonl"


def _analysis():
    return inspector.analyze(inspector.load(SAMPLE))


def test_each_idle_strategy_says_why_with_its_figures():
    a = _analysis()
    p = inspector.plan(a, ("fifo", "sliding_window", "clear_tool_uses", "truncate_results"), budget=200_000)
    assert p.tokens_before == p.tokens_after == 4402
    assert idle_reasons(p) == {
        "fifo": "budget 200,000 not exceeded at 4,402",
        "sliding_window": "window of 10 turns covers all 6",
        "clear_tool_uses": "trigger 100,000 not reached at 4,402",
        "truncate_results": "no tool result over 2,000 tokens",
    }
    assert idle_reasons(inspector.plan(a, ("fifo",), budget=None)) == {"fifo": "no budget set: nothing to fit"}
    assert idle_reasons(inspector.plan(a, ("sliding_window",), window_mode="messages")) == {
        "sliding_window": "window of 40 messages covers all 34"}
    assert idle_reasons(inspector.plan(a, ("tool_pruning",), at_call=1)) == {
        "tool_pruning": "no earlier turn to prune: the history is the current turn"}


def test_a_strategy_that_changes_something_has_no_idle_reason_and_unknown_ones_a_plain_one():
    a = _analysis()
    p = inspector.plan(a, ("fifo", "tool_pruning"), budget=3000)
    assert [s.tokens_after for s in p.stages] == [2968, 1417]
    assert idle_reasons(p) == {}
    assert idle_reasons(inspector.plan(a, ("compact",))) == {"compact": "changes nothing at this call"}


def test_plugins_register_their_own_explainer():
    a = _analysis()
    p = inspector.plan(a, ("compact",))
    saved = IDLE.pop("compact", None)
    try:
        register_idle("compact")(lambda plan, stage: f"not fired at {stage.tokens_before:,}")
        assert idle_reason(p, p.stages[0]) == "not fired at 4,402"
    finally:
        IDLE.pop("compact")
        if saved is not None:
            IDLE["compact"] = saved


def test_kept_rows_say_what_protects_them():
    a = _analysis()
    q = inspector.plan(a, ("tool_pruning",))
    assert q.stop == 80 and q.current_turn == 9
    assert kept_reason(q, 0) == "kept: the system prompt is never dropped"
    assert kept_reason(q, 79) == "kept: part of the current turn, which no strategy drops"
    assert kept_reason(q, 46) == "kept: no strategy touched it"
    assert kept_reason(inspector.plan(a), 46) == "kept: no strategy is on"


def test_plan_diff_lists_the_messages_two_pipelines_treat_differently():
    a = _analysis()
    fifo = inspector.plan(a, ("fifo",), budget=3000)
    pruning = inspector.plan(a, ("tool_pruning",))
    diff = plan_diff(fifo, pruning)
    assert len(diff) == 18
    first = diff[0]
    assert (first.index, first.status_a, first.tokens_a, first.status_b, first.tokens_b) == (46, Status.DROPPED, 0, Status.KEPT, 13)
    assert first.reason_a == "dropped by fifo: oldest removable unit while 4,402 > budget 3,000"
    assert first.reason_b == "kept"
    expected = [i for i in range(80) if fifo.status[i] is not pruning.status[i]
                or fifo.tokens_after_of[i] != pruning.tokens_after_of[i]]
    assert [d.index for d in diff] == expected
    assert plan_diff(fifo, fifo) == []


def test_plan_prints_and_carries_the_idle_reason(capsys):
    code, out, _ = run(capsys, "plan", SAMPLE, "--strategy", "fifo,clear_tool_uses", "--budget", "200000")
    assert code == 0
    assert "fifo: 4,402 -> 4,402 (budget 200,000 not exceeded at 4,402)" in out
    assert "clear_tool_uses: 4,402 -> 4,402 (trigger 100,000 not reached at 4,402)" in out
    d = as_json(capsys, "plan", SAMPLE, "--strategy", "fifo,tool_pruning", "--budget", "3000")
    assert [s["idle_reason"] for s in d["stages"]] == [None, None]
    d = as_json(capsys, "plan", SAMPLE, "--strategy", "fifo")  # the session's default budget
    assert d["budget"] == 200_000 and d["stages"][0]["idle_reason"] == "budget 200,000 not exceeded at 4,402"
