"""Replay on a session shaped like the one measured in the seeds: 3 questions, 11 model calls."""

from __future__ import annotations

import pytest

import inspector
from inspector.model import Usage
from inspector.analysis.agent_removed import credited, removed_per_call
from inspector.analysis.predict import not_in_file_at
from inspector.analysis.replay import baseline_tokens, replay
from inspector.strategies import Settings

from strategy_builders import SessionBuilder, seeds_session, text_of

# Message totals (approx, OpenAI profile; overhead 3):
#   0 system 55
#   turn 1: 1 Q 24 | 2 call 16, 3 result 404 | 4 call 16, 5 result 604 | 6 call 16, 7 result 204 | 8 answer 56
#   turn 2: 9 Q 24 | 10 call 16, 11 result 804 | 12 call 16, 13 result 304 | 14 answer 56
#   turn 3: 15 Q 24 | 16 call 16, 17 result 504 | 18 call 16, 19 result 704 | 20 call 16, 21 result 104 | 22 answer 56
# Each assistant message is a call; its input is everything before it (+3).
BASELINE = [82, 502, 1122, 1342, 1422, 2242, 2562, 2642, 3162, 3882, 4002]
# tool_pruning: a prior turn is re-sent as question + answer only: turn 1 costs 80 instead of
# 1,340 (saving 1,260 on calls 5-7), turns 1 and 2 cost 160 instead of 2,560 (saving 2,400 on calls 8-11).
PRUNED = [82, 502, 1122, 1342, 162, 982, 1302, 242, 762, 1482, 1602]
# Call 4 recorded 1,340 against 1,342 counted: from call 5 on, every call's whole input (and so
# its input under a pipeline) carries that -2 as the part "not in file" (inspector.analysis.predict).
NOT_IN_FILE = [0, 0, 0, 0] + [-2] * 7
PREDICTED = [b + h for b, h in zip(BASELINE, NOT_IN_FILE)]
# Those 2 tokens the agent did not send leave with the first messages a pipeline removes
# (inspector.analysis.agent_removed): a pipeline that saves saves 2 less, and its call total is
# the pruned count itself.


@pytest.fixture(scope="module")
def seeds():
    b = seeds_session()
    b.messages[8].usage = Usage(input_tokens=1300, cache_read_input_tokens=40)
    return b.analyze()


def test_session_shape(seeds):
    assert len(seeds.view.calls) == 11
    assert [t.number for t in seeds.view.turns] == [0, 1, 2, 3]
    assert [c.message_index for c in seeds.view.calls] == [2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22]


def test_baseline_resends_prior_turns_tool_history_on_every_later_call(seeds):
    assert baseline_tokens(seeds.view, seeds.table) == BASELINE
    r = replay(seeds.view, seeds.table)
    assert [c.tokens for c in r.calls] == [c.predicted_tokens for c in r.calls] == PREDICTED
    assert r.baseline_total == 22962 and r.predicted_total == r.total == 22948 and r.savings_pct == 0.0


def test_tool_pruning_removes_it_from_later_turns(seeds):
    r = replay(seeds.view, seeds.table, "tool_pruning")
    assert [(c.call, c.message_index, c.turn) for c in r.calls][:5] == [(1, 2, 1), (2, 4, 1), (3, 6, 1), (4, 8, 1), (5, 10, 2)]
    assert [c.baseline_tokens for c in r.calls] == BASELINE
    assert [c.tokens for c in r.calls] == PRUNED
    assert [c.saving for c in r.calls] == [0, 0, 0, 0, 1258, 1258, 1258, 2398, 2398, 2398, 2398]
    assert r.baseline_total == 22962
    assert r.total == 9582
    assert r.savings_pct == pytest.approx(100 * 13366 / 22948)
    assert r.complete


def test_recorded_usage_is_reported_next_to_the_count(seeds):
    r = replay(seeds.view, seeds.table, "tool_pruning")
    assert [c.recorded_tokens for c in r.calls] == [None, None, None, 1340] + [None] * 7


def test_subset_of_calls_and_progress(seeds):
    seen = []
    r = replay(seeds.view, seeds.table, "tool_pruning", calls=[11, 5, 5], progress=lambda d, t: seen.append((d, t)))
    assert [c.call for c in r.calls] == [5, 11]
    assert [c.tokens for c in r.calls] == [162, 1602]
    assert seen == [(2, 2)]  # tool_pruning replays incrementally: every call in one pass
    assert not r.complete and r.session_calls == 11
    seen.clear()
    replay(seeds.view, seeds.table, "tool_pruning,trim_messages", Settings(budget=1000), calls=[11, 5, 5], progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1, 2), (2, 2)]  # planned call by call: progress after each
    with pytest.raises(ValueError, match="model call 12 out of range"):
        replay(seeds.view, seeds.table, "tool_pruning", calls=[12])


def test_replay_matches_a_plan_at_each_call(seeds):
    settings = Settings(budget=1000)
    r = replay(seeds.view, seeds.table, "tool_pruning,fifo", settings)
    for c in r.calls:
        hidden = not_in_file_at(seeds.view, seeds.table, c.call)
        plan = inspector.strategies.plan(seeds.view, seeds.table, "tool_pruning,fifo", settings, c.call, hidden)
        assert c.tokens == credited(plan.tokens_after, plan.tokens_before, removed_per_call(seeds.view, seeds.table)[c.call - 1])
        assert c.predicted_tokens == plan.tokens_before == c.baseline_tokens + hidden


def test_library_replay(seeds):
    r = inspector.replay(seeds, "tool_pruning")
    assert r.total == 9582


def test_baseline_after_a_recorded_compaction():
    b = SessionBuilder()
    b.system("You are helpful.")  # 9
    b.user(text_of(10))  # 14
    b.answer(text_of(10))  # 16  call 1: 3 + 9 + 14 = 26
    b.user("Here is a summary of the conversation to date: " + text_of(3), starts_context=True)
    b.answer(text_of(10))  # call 2 sees the system prompt and the summary only
    a = b.analyze()
    summary = a.table.totals[3]
    assert baseline_tokens(a.view, a.table) == [26, 3 + 9 + summary]
    assert [c.tokens for c in replay(a.view, a.table).calls] == [26, 3 + 9 + summary]


def test_forked_replay_equals_the_serial_one(monkeypatch):
    """``workers=2`` plans calls in forked processes: the figures must be the serial ones."""
    import inspector
    from inspector.analysis.replay import replay as run_replay
    from inspector.strategies import Settings

    session = inspector.load("sample_sessions/coding_agent.jsonl")
    a = inspector.analyze(session, "approx")
    calls = [c.number for c in a.view.calls] * 8  # duplicates collapse: still 35 calls
    settings = Settings(budget=1500)
    import sys

    # force the forked path on a small session (the package attribute `replay` is the function)
    monkeypatch.setattr(sys.modules["inspector.analysis.replay"], "_PARALLEL_MIN_CALLS", 2)
    seen: list[tuple[int, int]] = []
    forked = run_replay(a.view, a.table, "tool_pruning,fifo", settings, calls, progress=lambda d, t: seen.append((d, t)), workers=2)
    serial = run_replay(a.view, a.table, "tool_pruning,fifo", settings)
    assert [c.tokens for c in forked.calls] == [c.tokens for c in serial.calls]
    assert forked.total == serial.total < serial.baseline_total
    assert seen[-1] == (35, 35) and len(seen) == 2  # two chunks of at most 32 calls


def test_a_stateless_replays_rows_are_built_when_read_and_equal_the_per_call_rows(seeds):
    """A stateless replay keeps its rows as columns (:class:`CallRows`): each row read must be
    the :class:`CallReplay` of its call (facts of the view, the column's tokens and shared
    prefix), slices and negative indices included, and the totals those rows add up to."""
    import pickle

    from inspector.analysis.replay import CallReplay, CallRows, call_facts

    view, table = seeds.view, seeds.table
    facts = call_facts(view, table)
    for names, calls in ((("tool_pruning",), None), (("fifo",), [2, 5, 9]), ((), None)):
        r = replay(view, table, names, Settings(budget=1000), calls=calls, shared=True)
        rows = r.calls
        assert type(rows) is CallRows
        numbers = calls or range(1, 12)
        by_hand = [CallReplay(n, view.calls[n - 1].message_index, view.calls[n - 1].turn, facts.baselines[n - 1],
                              facts.recorded[n - 1], t, facts.predicted[n - 1].predicted_tokens, facts.predicted[n - 1].model,
                              "call", None, s) for n, t, s in zip(numbers, rows.tokens, rows.shares)]
        assert list(rows) == by_hand and rows == by_hand and by_hand == rows and len(rows) == len(by_hand)
        assert rows[-1] == by_hand[-1] and rows[1:] == by_hand[1:] and rows[0] == by_hand[0]
        with pytest.raises(IndexError):
            rows[len(by_hand)]
        assert (r.total, r.baseline_total, r.predicted_total) == (
            sum(c.tokens for c in by_hand), sum(c.baseline_tokens for c in by_hand), sum(c.predicted_tokens for c in by_hand))
        assert r.complete == (calls is None)
        assert pickle.loads(pickle.dumps(rows)) == by_hand
    assert [c.tokens for c in replay(view, table, ("tool_pruning",), Settings()).calls] == PRUNED
