"""A compaction folds the earlier summary into the new one (OpenHands' condenser, LangChain's
SummarizationMiddleware, Aider's ChatSummary, Claude Code): after the second compaction one
summary stands where the first did, replacing what both replaced. Each session is replayed
from the state (:mod:`inspector.analysis.compaction_step`) and step by step (every history
built and compacted by ``compact_now``); both must agree."""

from __future__ import annotations

from unittest import mock

import pytest

from inspector.analysis import compaction
from inspector.presets import resolve
from inspector.strategies.base import Inserted
from inspector.strategies.index_runs import IndexRuns

from strategy_builders import SessionBuilder, text_of


def _exchanges(turns: list[int], reminders: tuple[int, ...] = ()):
    """System prompt, then per turn a user message and that many Read exchanges of 40-token
    results; a system message before the turns in ``reminders``."""
    b = SessionBuilder()
    b.system("You are a coding agent.")
    for t, calls in enumerate(turns):
        if t in reminders:
            b.system(f"reminder {t}")
        b.user(f"task {t}: " + text_of(20))
        for _ in range(calls):
            b.exchange("Read", "{}", text_of(40))
    b.answer("done")
    return b.analyze()


def _summaries(a, preset: str, overrides: dict) -> tuple[list[tuple[int, list[Inserted]]], list[tuple[int, list[Inserted]]]]:
    """Per compaction (the call it happened before), the summaries of the state it kept: from the
    state, and step by step."""
    _, names, settings = resolve(preset, overrides)
    hidden = [0] * len(a.view.calls)
    runs = []
    for sized in (True, False):
        states: dict[int, object] = {}
        on_state = lambda n, state, w: states.__setitem__(n, state)  # noqa: E731
        if sized:
            calls = compaction.replay_compacting(a.view, a.table, names, settings, hidden, on_state=on_state)
        else:
            with mock.patch.object(compaction, "_sizes", lambda *args: None):
                calls = compaction.replay_compacting(a.view, a.table, names, settings, hidden, on_state=on_state)
        runs.append((calls, [(c.call, [x for x in states[c.call].slots if type(x) is not int])
                             for c in calls if c.kind == "summary"]))
    (fast, folded), (slow, stepped) = runs
    assert fast == slow
    assert [(n, [(x.replaces, x.tokens) for x in s]) for n, s in folded] == [(n, [(x.replaces, x.tokens) for x in s]) for n, s in stepped]
    return folded, fast


def test_openhands_second_summary_folds_the_first_after_the_kept_head():
    # 0 system, 1 user, exchanges at 2-3, 4-5, ... 24-25, 26 the answer
    a = _exchanges([12])
    folded, calls = _summaries(a, "openhands", {"compact_messages": 6, "keep_head_messages": 1, "keep_tail_messages": 2,
                                                "summary_tokens": 1000})
    # call 4 (message 8) sees 7 messages: 2-5 go; call 6 (message 12) sees the user message, the
    # summary and 6-11 (8 messages): 6-9 go and the first summary with them
    assert [n for n, _ in folded] == [4, 6, 8, 10, 12]
    (_, [first]), (_, [second]) = folded[:2]
    assert first.replaces == (2, 3, 4, 5)
    assert second.replaces == (2, 3, 4, 5, 6, 7, 8, 9)
    assert "summary of 8 messages" in second.reason
    assert "summary of 8 earlier messages" in second.text
    _, [last] = folded[-1]
    assert last.replaces == tuple(range(2, 22))  # call 12: one summary of everything forgotten, after the head
    # the call after the second compaction sends the system prompt, the user message, the one summary and 10-11
    after = next(c for c in calls if c.kind == "call" and c.call == 6)
    assert after.tokens == a.table.overhead + sum(a.table.totals[i] for i in (0, 1, 10, 11)) + second.tokens


@pytest.mark.parametrize("preset, overrides, turns, expected", [
    # langchain-summarization: no head; call 6 (message 12, 315 tokens > 300) keeps 10-11 and
    # summarises 1-9; call 10 (message 20) keeps 18-19 and folds that summary with 10-17
    ("langchain-summarization", {"compact_tokens": 300, "keep_tail_messages": 2, "summary_tokens": 500}, [12],
     [(6, tuple(range(1, 10)), 56), (10, tuple(range(1, 18)), 56)]),
    # aider: turns at user messages 1, 8, 15, 22; the tail (at most 300 tokens) starts at a user
    # message: call 7 (message 16) keeps 8-15, call 10 (message 23) keeps 15-22, call 12 (message
    # 27) keeps 22-26; each summary holds more first lines than the one it folds
    ("aider", {"compact_tokens": 400, "keep_tail_tokens": 300, "summary_tokens": 1024}, [3, 3, 3, 3],
     [(7, tuple(range(1, 8)), 56), (10, tuple(range(1, 15)), 81), (12, tuple(range(1, 22)), 105)]),
])
def test_a_second_compaction_folds_the_first_summary(preset, overrides, turns, expected):
    a = _exchanges(turns)
    folded, _ = _summaries(a, preset, overrides)
    # one summary after each compaction, of every message replaced so far
    assert [(n, [(x.replaces, x.tokens) for x in s]) for n, s in folded] == [(n, [(r, t)]) for n, r, t in expected]


def test_a_folding_summary_extends_the_runs_of_the_one_it_folds():
    # system messages at 0, 10 and 20 (always kept), turns at 1, 11, 21: call 6 (message 14)
    # summarises 1-9 and 11 and keeps 12-13; each summary stands for every non-system message
    # forgotten so far, as runs around the system messages: the runs of the one it folds, then
    # the new ones after them
    a = _exchanges([4, 4, 4], reminders=(1, 2))
    folded, _ = _summaries(a, "langchain-summarization", {"compact_tokens": 300, "keep_tail_messages": 2, "summary_tokens": 500})
    summaries = [s for _, [s] in folded]
    assert [n for n, _ in folded] == [6, 9, 12]
    assert [x.replaces.runs for x in summaries] == [((1, 10), (11, 12)), ((1, 10), (11, 20)), ((1, 10), (11, 20), (21, 26))]
    assert all(type(x.replaces) is IndexRuns for x in summaries)
    assert summaries[2].replaces == (*range(1, 10), *range(11, 20), *range(21, 26))  # equal to the tuple of its indices
    assert [len(x.replaces) for x in summaries] == [10, 18, 23]
    assert "summary of 23 messages" in summaries[2].reason
    first, second, third = (x.replaces for x in summaries)
    assert first.extends is None and second.extends is first and third.extends is second
