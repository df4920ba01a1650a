"""fifo: exact dropped indices, totals and reasons on small hand-built sessions."""

from __future__ import annotations

import pytest

import inspector
from inspector.strategies import Status
from inspector.providers.validate import ANTHROPIC_ORPHAN, OPENAI_ORPHAN

from strategy_builders import SessionBuilder, small_session, text_of


def dropped(plan) -> list[int]:
    return [d.index for d in plan.decisions() if d.status is Status.DROPPED]


@pytest.fixture(scope="module")
def small():
    return small_session().analyze()


def test_small_session_totals(small):
    assert small.table.totals == [9, 14, 16, 504, 26, 14, 16, 304, 14, 104, 26, 14]
    assert small.table.overhead == 3


def test_drops_oldest_units_until_within_budget(small):
    plan = inspector.plan(small, "fifo", budget=600)
    assert dropped(plan) == [1, 2, 3]
    assert plan.tokens_before == 1064
    assert plan.tokens_after == 1064 - 14 - 16 - 504 == 530
    assert plan.decision(1).reason == "dropped by fifo: oldest removable unit while 1,064 > budget 600"
    # The call and its result go together, with the total before the unit was dropped.
    assert plan.decision(2).reason == "dropped by fifo: oldest removable unit while 1,050 > budget 600"
    assert plan.decision(3).reason == plan.decision(2).reason
    assert plan.decision(4).status is Status.KEPT and plan.decision(4).reason == "kept"
    assert plan.valid == {"openai": True, "anthropic": True}


def test_budget_counts_the_request_overhead(small):
    # 1,061 of messages + 3 of reply priming: a budget of 1,063 is exceeded by one token.
    plan = inspector.plan(small, "fifo", budget=1063)
    assert dropped(plan) == [1]
    assert plan.tokens_after == 1050
    assert inspector.plan(small, "fifo", budget=1064).tokens_after == 1064


def test_no_budget_or_within_budget_is_a_no_op(small):
    for plan in (inspector.plan(small, "fifo"), inspector.plan(small, "fifo", budget=5000)):
        assert dropped(plan) == []
        assert plan.tokens_after == plan.tokens_before == 1064


def test_never_below_min_history_messages(small):
    plan = inspector.plan(small, "fifo", budget=0)
    # 11 non-system messages; dropping the final answer 10 would leave 1 < 2.
    assert dropped(plan) == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert plan.tokens_after == 9 + 26 + 14 + 3
    plan = inspector.plan(small, "fifo", budget=0, min_history_messages=0)
    assert dropped(plan) == list(range(1, 11))
    assert plan.tokens_after == 9 + 14 + 3  # system prompt + current turn + overhead


def test_a_unit_that_would_cross_min_history_stops_the_loop(small):
    # min 4: after dropping 1, (2,3), 4, 5 there are 6 left; the exchange (6,7) would leave 4,
    # the exchange (8,9) would leave 2 < 4, so the loop stops before it.
    plan = inspector.plan(small, "fifo", budget=0, min_history_messages=4)
    assert dropped(plan) == [1, 2, 3, 4, 5, 6, 7]


def test_current_turn_is_never_dropped(small):
    # Calls are the assistant messages 2, 4, 6, 8, 10. At call 4 (message 8) the current turn is
    # turn 2: messages 5, 6, 7.
    plan = inspector.plan(small, "fifo", budget=0, at_call=4)
    assert plan.stop == 8 and plan.current_turn == 2
    assert dropped(plan) == [1, 2, 3, 4]
    assert plan.tokens_after == 9 + 14 + 16 + 304 + 3


def test_system_message_in_the_middle_is_skipped_not_dropped():
    b = SessionBuilder()
    b.system("You are helpful.")
    b.user(text_of(10))
    b.answer(text_of(10))
    b.system("Be brief from now on.")  # 21 chars -> 6 tokens, + 5 framing
    b.user(text_of(10))
    b.answer(text_of(10))
    b.user(text_of(10))
    a = b.analyze()
    plan = inspector.plan(a, "fifo", budget=40, min_history_messages=0)
    assert dropped(plan) == [1, 2, 4, 5]
    assert [d.index for d in plan.decisions() if d.status is Status.KEPT] == [0, 3, 6]
    assert plan.tokens_after == 9 + 11 + 14 + 3


def test_parallel_calls_are_one_unit():
    b = SessionBuilder()
    b.user(text_of(10))
    _, ids = b.assistant("", [("read_file", '{"path": "a.py"}'), ("read_file", '{"path": "b.py"}')])
    b.tool(ids[0], text_of(100))
    b.tool(ids[1], text_of(100))
    b.answer(text_of(10))
    b.user(text_of(10))
    a = b.analyze()
    # user 14, the call message 6 + 2 x (3 + 3 + 4) = 26, results 104 each, answer 16, user 14.
    assert a.table.totals == [14, 26, 104, 104, 16, 14]
    plan = inspector.plan(a, "fifo", budget=100, min_history_messages=0)
    assert dropped(plan) == [0, 1, 2, 3]
    assert plan.tokens_after == 16 + 14 + 3
    reasons = {plan.decision(i).reason for i in (1, 2, 3)}
    assert reasons == {"dropped by fifo: oldest removable unit while 267 > budget 100"}


def test_naive_loop_drops_first_message_and_following_assistant_leaving_orphans(small):
    plan = inspector.plan(small, "fifo", budget=1040, pair_safe=False)
    assert dropped(plan) == [1, 2]  # the user message, then the assistant call right after it
    assert plan.tokens_after == 1034
    assert plan.decision(1).reason == "dropped by fifo (pair_safe=false): first message while 1,064 > budget 1,040"
    assert plan.decision(2).reason == (
        "dropped by fifo (pair_safe=false): assistant message right after the first one, "
        "dropped with it while 1,064 > budget 1,040"
    )
    # The result 3 is now an orphan: both providers reject the request.
    openai = plan.violations["openai"]
    assert [(v.index, v.source, v.message) for v in openai] == [(1, 3, OPENAI_ORPHAN)]
    anthropic = plan.violations["anthropic"]
    assert [(v.index, v.source, v.message) for v in anthropic] == [(0, 3, ANTHROPIC_ORPHAN.format(0, 0, "call_1"))]
    assert plan.valid == {"openai": False, "anthropic": False}


def test_naive_loop_does_not_pair_a_user_message_with_a_following_user(small):
    # At budget 1,000 the loop goes on: 3 (the orphan result) is "first", 4 the assistant after it.
    plan = inspector.plan(small, "fifo", budget=1000, pair_safe=False)
    assert dropped(plan) == [1, 2, 3, 4]
    assert plan.tokens_after == 504
    assert plan.valid == {"openai": True, "anthropic": True}


def test_pair_safe_loop_on_the_same_budget_is_valid(small):
    plan = inspector.plan(small, "fifo", budget=1040)
    assert dropped(plan) == [1, 2, 3]
    assert plan.valid == {"openai": True, "anthropic": True}


def test_recorded_compaction_is_respected():
    b = SessionBuilder()
    b.system("You are helpful.")
    b.user(text_of(10))
    b.answer(text_of(10))
    b.user("Here is a summary of the conversation to date: " + text_of(5), starts_context=True)
    b.answer(text_of(10))
    b.user(text_of(10))
    a = b.analyze()
    plan = inspector.plan(a, "fifo", budget=10_000)
    assert [d.status for d in plan.decisions()][:3] == [Status.KEPT, Status.DROPPED, Status.DROPPED]
    assert plan.decision(1).by == "source"
    assert plan.tokens_before == a.table.overhead + a.table.totals[0] + sum(a.table.totals[3:])


def test_exchange_spanning_turns_is_kept_whole_by_the_general_loop():
    b = SessionBuilder()
    b.user(text_of(10))
    _, ids = b.assistant("", [("slow_job", "{}")])
    b.user("Are you still there?")  # turn 2 starts before the result arrives
    b.tool(ids[0], text_of(30))
    b.answer("The job finished.")
    b.user(text_of(5))
    a = b.analyze()
    plan = inspector.plan(a, "fifo", budget=0, min_history_messages=0)
    assert dropped(plan) == [0, 1, 2, 3, 4]
    assert plan.decision(1).reason == plan.decision(3).reason
    # At call 2 (message 4) turn 2 is current and holds the result 3: its exchange stays whole.
    plan = inspector.plan(a, "fifo", budget=0, min_history_messages=0, at_call=2)
    assert dropped(plan) == [0]
