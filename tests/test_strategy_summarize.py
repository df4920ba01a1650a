"""summarize: the cut, the inserted summary message, its size and the totals."""

from __future__ import annotations

import math

import pytest

import inspector
from inspector.strategies import Status
from inspector.tokens import count_message, get_counter, get_profile

from strategy_builders import SessionBuilder, small_session, text_of

FIRST_SUMMARY = (
    "[Earlier conversation summary]: (simulated offline summary of 3 earlier messages, turn 1)\n"
    "Tools used: read_file x1.\n"
    "- User: " + " ".join(["qqq"] * 10)
)


def summarized(plan) -> list[int]:
    return [d.index for d in plan.decisions() if d.status is Status.SUMMARIZED]


@pytest.fixture(scope="module")
def small():
    return small_session().analyze()


def test_replaces_the_oldest_messages_by_one_system_summary(small):
    plan = inspector.plan(small, "summarize", budget=600)
    # 11 non-system messages (1-11, the current turn's included); int(11 * 0.3) = 3 messages:
    # 1, 2, 3 (the cut after 3 splits nothing).
    assert summarized(plan) == [1, 2, 3]
    [summary] = plan.inserted
    assert summary.role == "system" and summary.kind == "summary" and summary.simulated
    assert summary.text == FIRST_SUMMARY
    assert summary.tokens == 5 + math.ceil(len(FIRST_SUMMARY) / 4) == 46
    assert summary.replaces == (1, 2, 3)
    assert plan.tokens_after == 1064 - 14 - 16 - 504 + 46 == 576
    assert plan.decision(2).reason == (
        "summarized by summarize: among the oldest 3 messages replaced by one summary while 1,064 > budget 600"
    )
    assert plan.decision(2).tokens_after == 0


def test_summary_is_sent_where_the_replaced_messages_were(small):
    plan = inspector.plan(small, "summarize", budget=600)
    decisions = plan.decisions()
    assert [d.index for d in decisions[:5]] == [0, None, 1, 2, 3]
    assert decisions[1].status is Status.INSERTED and decisions[1].tokens_after == 46
    messages = plan.messages_after()
    assert [m.role for m in messages[:3]] == ["system", "system", "assistant"]
    assert messages[1].text == FIRST_SUMMARY and messages[1].index == -1
    assert plan.valid == {"openai": True, "anthropic": True}


def test_cut_moves_forward_so_no_exchange_is_split(small):
    # ratio 0.2 -> 2 messages: the cut would fall between the call 2 and its result 3.
    plan = inspector.plan(small, "summarize", budget=1000, summary_ratio=0.2)
    assert summarized(plan) == [1, 2, 3]


def test_repeats_rounds_until_within_budget(small):
    # ratio 0.1: round 1 replaces message 1 (total 1,064 - 14 + its summary is still over);
    # round 2 takes one more, moved forward past the result: 1, 2, 3 as above.
    plan = inspector.plan(small, "summarize", budget=600, summary_ratio=0.1)
    assert summarized(plan) == [1, 2, 3]
    assert plan.tokens_after == 576


def test_never_enters_the_current_turn(small):
    plan = inspector.plan(small, "summarize", budget=0)
    assert summarized(plan) == list(range(1, 11))
    [summary] = plan.inserted
    assert plan.tokens_after == 9 + summary.tokens + 14 + 3
    assert "(simulated offline summary of 10 earlier messages, turns 1-2)" in summary.text
    assert "Tools used: read_file x2, bash x1." in summary.text


def test_summary_is_cut_to_summary_tokens(small):
    plan = inspector.plan(small, "summarize", budget=600, summary_tokens=10)
    [summary] = plan.inserted
    assert summary.text == FIRST_SUMMARY[:40]
    assert summary.tokens == 5 + 10


def test_no_budget_or_within_budget_is_a_no_op(small):
    for plan in (inspector.plan(small, "summarize"), inspector.plan(small, "summarize", budget=1064)):
        assert summarized(plan) == [] and plan.inserted == []
        assert plan.tokens_after == 1064


def test_nothing_before_the_current_turn_is_a_no_op():
    b = SessionBuilder()
    b.system("You are helpful.")
    b.user(text_of(100))
    b.exchange("bash", '{"cmd": "ls"}', text_of(500))
    a = b.analyze()
    plan = inspector.plan(a, "summarize", budget=10)
    assert plan.inserted == [] and plan.tokens_after == plan.tokens_before


def test_summary_tokens_are_counted_with_the_tables_encoding():
    a = small_session().analyze(encoding="cl100k_base")
    plan = inspector.plan(a, "summarize", budget=300, summary_tokens=40)
    [summary] = plan.inserted
    counter, profile = get_counter("cl100k_base"), get_profile("openai")
    message = plan.messages_after()[1]
    assert count_message(message, counter, profile).total == summary.tokens
    assert counter.count(summary.text) <= 40
    assert plan.tokens_after == sum(
        count_message(m, counter, profile).total for m in plan.messages_after()
    ) + a.table.overhead


def test_same_input_gives_the_same_summary(small):
    one = inspector.plan(small, "summarize", budget=0)
    two = inspector.plan(small, "summarize", budget=0)
    assert one.inserted == two.inserted


def test_the_ratio_is_of_the_whole_history_not_of_the_messages_before_the_current_turn():
    """30 non-system messages, 22 of them before the current turn: int(30 * 0.3) = 9 are
    replaced (int(22 * 0.3) = 6 would have been moved to 7, inside turn 2's exchange)."""
    b = SessionBuilder()
    b.system("You are helpful.")
    for k in range(5):
        b.user(text_of(2, "q"))
        b.exchange("read", "{}", text_of(200, "r"))
        b.answer(text_of(2, "a"))
    b.user(text_of(2, "q"))
    for k in range(4):
        b.exchange("read", "{}", "x")
    b.answer("fin")
    a = b.analyze()
    assert sum(1 for r in a.view.roles if r != "system") == 30
    plan = inspector.plan(a, "summarize", budget=900)
    assert summarized(plan) == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    [summary] = plan.inserted
    assert summary.replaces == tuple(range(1, 10))
    assert summary.text.startswith(
        "[Earlier conversation summary]: (simulated offline summary of 9 earlier messages, turns 1-3)"
    )
    assert plan.decision(1).reason == (
        "summarized by summarize: among the oldest 9 messages replaced by one summary while 1,234 > budget 900"
    )
    assert sum(a.table.totals[1:10]) == 464 and summary.tokens == 56
    assert plan.tokens_after == 1234 - 464 + 56 == 826
