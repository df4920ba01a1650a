"""The fold lane (:mod:`inspector.analysis.compaction_fold`): ``compact`` keeping only its newest
messages compacted from counts alone. Every compaction it answers equals
:func:`~inspector.analysis.compaction_step.compacted` on the request then
:func:`~inspector.analysis.compaction.state_after` (the state, its summary and its key); the
replays equal the step-by-step simulation (also tests/test_incremental_replay.py, whose
``COMPACTING`` settings it answers where they keep no head and a tail of messages alone)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings

from inspector import analyze
from inspector.analysis import compaction, compaction_fold
from inspector.analysis.compaction_fold import FoldLane, folds
from inspector.analysis.compaction_requests import request_slots
from inspector.analysis.compaction_step import compacted
from inspector.analysis.predict import hidden_per_call
from inspector.analysis.replay import replay
from inspector.model import Session
from inspector.strategies import Settings
from inspector.strategies.summarize import SharedCounts
from strategy_builders import SessionBuilder, text_of
from test_incremental_replay import sessions


def _generated(n: int) -> Session:
    spec = importlib.util.spec_from_file_location("gen_session", Path(__file__).parent.parent / "bench" / "gen_session.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate(n)


LANGCHAIN = {"compact_tokens": 4000, "keep_tail_messages": 20, "summary_tokens": 500}
#: settings the lane answers: LangChain's, a short tail, none (everything summarised), over a budget;
#: the last two leave a history no smaller than the one before at times (sent, not kept)
FOLDING = [LANGCHAIN, {"compact_tokens": 300, "keep_tail_messages": 3}, {"compact_tokens": 300, "keep_tail_messages": 1},
           {"budget": 600}, {"budget": 600, "keep_tail_messages": 0}, {"compact_messages": 6, "keep_tail_messages": 2},
           {"compact_tokens": 100, "keep_tail_messages": 1, "summary_tokens": 300}, {"budget": 200, "keep_tail_messages": 2}]


def _checked(view, table, params) -> tuple[list, list, int]:
    """The stateful replay of ``compact`` under ``params`` with each of the lane's compactions
    checked against the general step (a fresh :class:`SharedCounts` of its own): the replay's
    calls, the lane's answers (None: nothing replaced) and how many the general step answered."""
    s = Settings(**params)
    answers: list = []
    real = FoldLane.compacted

    def check(lane, state, stop, call, after):
        found = real(lane, state, stop, call, after)
        done = compacted(view, table, s, request_slots(state, stop), SharedCounts())
        expected = compaction.state_after(view, table, state, done, stop, call, after) if done is not None else None
        assert found == expected, call
        if found is not None:
            assert found.folded == expected.folded and found.lone == expected.lone, call
            summary, other = found.slots[found.lone], expected.slots[expected.lone]
            assert (summary.text_key, summary.tokens, summary.replaces.runs) == (other.text_key, other.tokens, other.replaces.runs)
        answers.append(found)
        return found

    general = mock.patch.object(compaction, "compacted", side_effect=compacted)
    with mock.patch.object(compaction_fold.FoldLane, "compacted", check), general as spy:
        calls = compaction.replay_compacting(view, table, ("compact",), s, hidden_per_call(view, table))
    return calls, answers, spy.call_count


@pytest.mark.parametrize("fmt, expected", [("inspector", (146, 164, 18)), ("openai", (146, 164, 18)), ("codex", (149, 178, 29))])
def test_every_compaction_of_a_generated_session_equals_the_general_step(fmt, expected):
    """On a generated session (bench/gen_session.py, 400 messages) read as each format, every time
    LangChain's trigger fires the lane answers, equal to the general step: ``expected`` is
    (compactions, answers, answers that replace nothing); the other answers leave a history
    no smaller than the one before (the call sends it, the state stays). The replay equals the
    step-by-step simulation (every history built and compacted)."""
    a = analyze(Session(format=fmt, messages=_generated(400).messages), encoding="approx")
    view, table = a.view, a.table
    calls, answers, general = _checked(view, table, LANGCHAIN)
    summaries = sum(1 for c in calls if c.kind == "summary")
    assert (summaries, len(answers), answers.count(None), general) == (*expected, 0)
    with mock.patch.object(compaction, "_sizes", lambda *args: None):
        assert calls == compaction.replay_compacting(view, table, ("compact",), Settings(**LANGCHAIN), hidden_per_call(view, table))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions())
def test_the_lane_equals_the_general_step_and_the_simulation(session):
    """On generated sessions (system reminders mid-session, parallel tool calls, turns with no
    prompt): every compaction the lane answers equals the general step; every call, summary
    call and shared prefix equals the step-by-step simulation's."""
    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    if not view.calls:
        return
    for params in FOLDING:
        assert folds(view, ("compact",), Settings(**params))
        assert_the_lane_equals_the_general_step(view, table, params)


def assert_the_lane_equals_the_general_step(view, table, params) -> None:
    """Under ``params``: every compaction the lane answers equals the general step
    (:func:`_checked`); the replay equals the step-by-step simulation; the shared replay equals
    the general path's (the lane off)."""
    s = Settings(**params)
    calls, _, _ = _checked(view, table, params)
    with mock.patch.object(compaction, "_sizes", lambda *args: None):
        assert calls == compaction.replay_compacting(view, table, ("compact",), s, hidden_per_call(view, table)), params
    with mock.patch.object(compaction, "folds", return_value=False):
        general = replay(view, table, ("compact",), s, shared=True)
    assert replay(view, table, ("compact",), s, shared=True).calls == general.calls, params


def test_a_compaction_not_kept_is_answered_too():
    """Where a summary is larger than the small messages it replaces, the compaction's history
    is sent but not kept (calls 2 and 3 here, before the first compaction kept): the lane
    answers every time the trigger fires, and the replay equals the simulation. (After a state
    of its own, a compaction not kept leaves the next call to the general step: not seen on
    generated sessions.)"""
    b = SessionBuilder()
    b.system("You are helpful.")
    for k in range(12):
        b.user(f"question {k} " + text_of(30 if k % 3 == 0 else 1))
        b.exchange("read_file", "{}", "ok")
        b.answer("done")
    view, table = (a := b.analyze()).view, a.table
    params = {"compact_tokens": 50, "keep_tail_messages": 1, "summary_tokens": 300}
    calls, answers, general = _checked(view, table, params)
    assert (len(view.calls), sum(1 for c in calls if c.kind == "summary"), len(answers), answers.count(None), general) == \
        (24, 21, 23, 0, 0)
    with mock.patch.object(compaction, "_sizes", lambda *args: None):
        assert calls == compaction.replay_compacting(view, table, ("compact",), Settings(**params), hidden_per_call(view, table))


def test_only_a_tail_of_messages_alone_folds():
    """A kept head, a tail in tokens or a share, a tail moved to a user message, Codex's kept
    user messages or masking first: the general step."""
    view = analyze(_generated(60), encoding="approx").view
    assert folds(view, ("compact",), Settings(**LANGCHAIN))
    for other in ({"keep_head_messages": 2}, {"keep_tail_tokens": 1000}, {"keep_tail_share": 0.3}, {"tail_at_user": True},
                  {"keep_user_tokens": 20_000}):
        assert not folds(view, ("compact",), Settings(**LANGCHAIN, **other)), other
    assert not folds(view, ("mask_tool_outputs", "compact"), Settings(**LANGCHAIN))
