"""sliding_window in turns and messages modes: exact cuts, reasons and totals."""

from __future__ import annotations

import pytest

import inspector
from inspector.strategies import Status

from strategy_builders import SessionBuilder, small_session, text_of


def dropped(plan) -> list[int]:
    return [d.index for d in plan.decisions() if d.status is Status.DROPPED]


@pytest.fixture(scope="module")
def small():
    return small_session().analyze()


def test_turns_keeps_the_last_n_turns_whole(small):
    plan = inspector.plan(small, "sliding_window", window_turns=2)
    assert dropped(plan) == [1, 2, 3, 4]
    assert plan.tokens_after == 1064 - 14 - 16 - 504 - 26 == 504
    assert plan.decision(3).reason == "dropped by sliding_window: turn 1 is outside the last 2 turns"


def test_turns_window_of_one_keeps_only_the_current_turn_and_system(small):
    plan = inspector.plan(small, "sliding_window", window_turns=1)
    assert dropped(plan) == list(range(1, 11))
    assert plan.tokens_after == 9 + 14 + 3
    assert plan.decision(7).reason == "dropped by sliding_window: turn 2 is outside the last 1 turns"


def test_turns_window_zero_still_keeps_the_current_turn(small):
    plan = inspector.plan(small, "sliding_window", window_turns=0)
    assert dropped(plan) == list(range(1, 11))
    assert plan.tokens_after == 26


def test_turns_window_larger_than_the_session_is_a_no_op(small):
    assert dropped(inspector.plan(small, "sliding_window", window_turns=3)) == []
    assert dropped(inspector.plan(small, "sliding_window")) == []  # default 10


def test_turns_window_at_a_call(small):
    # Call 4 is message 8, in turn 2; the window of 1 turn keeps turn 2's messages 5-7.
    plan = inspector.plan(small, "sliding_window", window_turns=1, at_call=4)
    assert dropped(plan) == [1, 2, 3, 4]
    assert plan.tokens_after == 9 + 14 + 16 + 304 + 3


def test_preamble_before_the_first_user_message_is_kept():
    b = SessionBuilder()
    b.system("You are helpful.")
    b.answer("Hello! How can I help?")  # turn 0: a greeting before any user message
    for _ in range(3):
        b.user(text_of(10))
        b.answer(text_of(10))
    a = b.analyze()
    plan = inspector.plan(a, "sliding_window", window_turns=1)
    assert dropped(plan) == [2, 3, 4, 5]
    assert plan.decision(1).status is Status.KEPT


def test_messages_mode_moves_the_cut_forward_to_a_plain_user_message(small):
    # 11 non-system messages; the last 8 start at message 4 (a final answer): the cut moves
    # forward to message 5, the next user message.
    plan = inspector.plan(small, "sliding_window", window_mode="messages", window_messages=8)
    assert dropped(plan) == [1, 2, 3, 4]
    assert plan.tokens_after == 504
    assert plan.decision(1).reason == (
        "dropped by sliding_window: outside the last 8 messages (cut moved forward to message 5, a plain user message)"
    )


def test_messages_mode_never_starts_on_a_tool_result(small):
    # The last 9 start at message 3, a tool result; the cut moves past it and the answer to 5.
    plan = inspector.plan(small, "sliding_window", window_mode="messages", window_messages=9)
    assert dropped(plan) == [1, 2, 3, 4]


def test_messages_mode_within_the_window_is_a_no_op(small):
    assert dropped(inspector.plan(small, "sliding_window", window_mode="messages", window_messages=11)) == []
    assert dropped(inspector.plan(small, "sliding_window", window_mode="messages")) == []  # default 40


def test_messages_mode_keeps_the_whole_current_turn_when_the_window_is_shorter(small):
    # Call 5 is message 10; its turn 2 has five messages (5-9) before it; a window of 2 would
    # start inside the turn, so the cut moves back to the turn's start.
    plan = inspector.plan(small, "sliding_window", window_mode="messages", window_messages=2, at_call=5)
    assert dropped(plan) == [1, 2, 3, 4]
    assert plan.decision(2).reason == (
        "dropped by sliding_window: outside the last 2 messages (cut moved to message 5, where the current turn starts)"
    )


def test_messages_mode_with_anthropic_style_results():
    b = SessionBuilder(id_prefix="toolu_")
    b.user(text_of(10))
    _, ids = b.assistant("Let me look.", [("read_file", '{"path": "a.py"}')])
    b.results([(ids[0], text_of(50))], text="<reminder>keep going</reminder>")
    b.answer(text_of(10))
    b.user(text_of(10))
    b.answer(text_of(10))
    b.user(text_of(10))
    a = b.analyze()
    # The last 5 start at 2, a user message holding a result (and text): not a place to cut, so
    # the cut moves past it and the answer 3 to the user message 4.
    plan = inspector.plan(a, "sliding_window", window_mode="messages", window_messages=5)
    assert dropped(plan) == [0, 1, 2, 3]
    assert plan.valid == {"openai": True, "anthropic": True}
