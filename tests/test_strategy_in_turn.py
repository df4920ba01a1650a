"""Pruning inside the current turn: an autonomous run on one prompt (SWE-agent, Codex or Claude
Code left alone) is one long turn. Budget- and count-based strategies act inside it; what the call
needs (system prompt, the turn's prompt, the latest exchange) is never touched; turn-based
strategies leave a single-prompt run unchanged (inspector.strategies.common.protected_in_turn)."""

from __future__ import annotations

import pytest

import inspector
from inspector.strategies import Settings, Status
from inspector.strategies.common import protected_in_turn
from inspector.strategies.pipeline import start

from strategy_builders import SessionBuilder, text_of


@pytest.fixture(scope="module")
def run():
    """0 system | 1 prompt, four exchanges 2-9 (results of 104 tokens), 10 harness reminder,
    11-12 the latest exchange. Approx / OpenAI totals; 634 with the overhead of 3."""
    b = SessionBuilder()
    b.system("You are a coding agent.")
    b.user("Fix the failing test in tests/test_money.py")
    for k in range(4):
        b.exchange("bash", '{"cmd": "step"}', text_of(100, "abc"[k % 3]))
    b.user("<system-reminder>todo list</system-reminder>")
    b.exchange("bash", '{"cmd": "last"}', text_of(100))
    return b.analyze()


def changed(plan) -> list[tuple[int | None, str]]:
    return [(d.index, d.status.value) for d in plan.decisions() if d.status is not Status.KEPT]


def test_the_run_is_one_turn_and_its_guard_is_the_prompt_and_the_latest_exchange(run):
    assert run.table.totals == [11, 15, 14, 104, 14, 104, 14, 104, 14, 104, 15, 14, 104]
    assert [(t.number, t.start, t.stop) for t in run.view.turns] == [(0, 0, 1), (1, 1, 13)]
    assert run.view.injected[10] == "reminder"
    w = start(run.view, run.table, Settings(), None)
    guard = protected_in_turn(w)
    assert (guard.start, guard.tail, sorted(guard.members)) == (1, 11, [1, 11, 12])
    assert [i for i in range(13) if w.protected(i)] == [0, 1, 11, 12]
    # at call 5 (message 11) the latest exchange is the one that call answers, with the reminder
    w = start(run.view, run.table, Settings(), 5)
    assert sorted(protected_in_turn(w).members) == [1, 8, 9, 10]


def test_fifo_drops_the_turns_oldest_exchanges(run):
    p = inspector.plan(run, "fifo", budget=400)
    assert changed(p) == [(2, "dropped"), (3, "dropped"), (4, "dropped"), (5, "dropped")]
    assert (p.tokens_before, p.tokens_after) == (634, 398)
    p = inspector.plan(run, "fifo", budget=200, min_history_messages=0)
    assert [i for i, _ in changed(p)] == [2, 3, 4, 5, 6, 7, 8, 9] and p.tokens_after == 162
    p = inspector.plan(run, "fifo", budget=200, at_call=5)
    assert [i for i, _ in changed(p)] == [2, 3, 4, 5, 6, 7] and (p.tokens_before, p.tokens_after) == (516, 162)
    assert p.valid == {"openai": True, "anthropic": True}


def test_fifo_never_goes_below_what_the_call_needs(run):
    for pair_safe in (True, False):
        p = inspector.plan(run, "fifo", budget=0, min_history_messages=0, pair_safe=pair_safe)
        assert [i for i in range(13) if p.status[i] is Status.KEPT] == [0, 1, 11, 12]


def test_summarize_replaces_the_turns_middle_and_keeps_prompt_and_latest_exchange(run):
    p = inspector.plan(run, "summarize", budget=200, summary_tokens=20)
    assert [s if type(s) is int else "summary" for s in p.sequence] == [0, 1, "summary", 10, 11, 12]
    assert [i for i, _ in changed(p) if i is not None] == [2, 3, 4, 5, 6, 7, 8, 9]
    assert p.tokens_after == 187 and p.valid == {"openai": True, "anthropic": True}


def test_clear_tool_uses_and_masking_clear_the_turns_results_but_not_the_latest(run):
    p = inspector.plan(run, "clear_tool_uses", trigger=100, keep=0)
    assert changed(p) == [(3, "cleared"), (5, "cleared"), (7, "cleared"), (9, "cleared")]
    assert p.tokens_after == 246
    p = inspector.plan(run, "mask_tool_outputs", mask_protect_turns=0, mask_protect_tokens=0, mask_min_tokens=0)
    assert changed(p) == [(3, "cleared"), (5, "cleared"), (7, "cleared"), (9, "cleared")]


def test_turn_based_strategies_leave_a_single_prompt_run_unchanged(run):
    for pipeline, params in (("tool_pruning", {}), ("sliding_window", {"window_turns": 1})):
        p = inspector.plan(run, pipeline, **params)
        assert changed(p) == [] and p.tokens_after == 634
