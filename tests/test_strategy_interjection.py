"""A person typing during a tool loop: the message carrying the results and the typed text opens
a turn but stays in its tool exchange, whose call sits in the turn before (issue 2's rule).

Every strategy treats that exchange as part of the turn it opens: protected with the current
turn, kept whole by tool_pruning in a prior turn (with a reason), never split by a window cut.
Session (approx / OpenAI profile token totals in brackets; overhead 3):

0 system [9] | 1 user [14] 2 answer [26] | 3 user [14] 4 call bash [14] 5 result [104]
6 call read_file [16] | 7 results of 6 + "stop, read b.py instead" [210] 8 answer [26] | 9 user [14]
"""

from __future__ import annotations

import inspector
from inspector.strategies import Settings, Status
from inspector.strategies.common import current_opening_unit, turn_cut
from inspector.strategies.pipeline import start

from strategy_builders import SessionBuilder, text_of


def interjection_session() -> SessionBuilder:
    b = SessionBuilder(id_prefix="toolu_")
    b.system("You are helpful.")
    b.user(text_of(10, "q"))
    b.answer(text_of(20, "f"))
    b.user(text_of(10, "r"))
    b.exchange("bash", '{"cmd": "ls"}', text_of(100, "c"))
    _, ids = b.assistant("", [("read_file", '{"path": "a.py"}')])
    b.results([(ids[0], text_of(200, "a"))], text="stop, read b.py instead")
    b.answer(text_of(20, "g"))
    b.user(text_of(10, "s"))
    return b


def gone(plan) -> list[int]:
    return [d.index for d in plan.decisions() if d.status in (Status.DROPPED, Status.SUMMARIZED)]


def test_the_view_puts_the_call_in_the_turn_before_the_results_it_opens():
    a = interjection_session().analyze()
    assert a.table.totals == [9, 14, 26, 14, 14, 104, 16, 210, 26, 14]
    assert [(t.number, t.start, t.stop, t.final_index) for t in a.view.turns] == [
        (0, 0, 1, None), (1, 1, 3, 2), (2, 3, 7, None), (3, 7, 9, 8), (4, 9, 10, None),
    ]
    assert a.view.units[a.view.unit_of[7]].indices == (6, 7)
    w = start(a.view, a.table, Settings(), 4)  # call 4 (message 8): turn 3 is current
    assert current_opening_unit(w) == (6,)
    assert w.protected(6) and not w.protected(5)
    assert turn_cut(w, 3) == 6 and turn_cut(w, 2) == 3


def test_tool_pruning_keeps_a_prior_turns_mixed_opening_message_with_its_call_and_says_why():
    a = interjection_session().analyze()
    plan = inspector.plan(a, "tool_pruning")
    assert gone(plan) == [4, 5]
    assert plan.decision(6).status is Status.KEPT and plan.decision(7).status is Status.KEPT
    assert plan.decision(6).by == "tool_pruning"
    assert plan.decision(6).reason == (
        "kept by tool_pruning: its results are in message 7, which opens turn 3 with the user's text; kept with it"
    )
    assert plan.decision(7).reason == (
        "kept by tool_pruning: opens turn 3 and also carries tool results, so their call (message 6) is kept with it"
    )
    assert plan.tokens_after == 3 + 9 + 14 + 26 + 14 + 16 + 210 + 26 + 14 == 332
    assert [m.text for m in plan.messages_after()][5] == "stop, read b.py instead"
    assert plan.valid == {"openai": True, "anthropic": True}


def test_tool_pruning_protects_the_current_turns_opening_call_without_a_reason():
    a = interjection_session().analyze()
    plan = inspector.plan(a, "tool_pruning", at_call=4)  # message 8: turn 3 is current
    assert gone(plan) == [4, 5]
    assert plan.decision(6).reason == "kept" and plan.decision(6).by is None
    assert plan.tokens_after == 3 + 9 + 14 + 26 + 14 + 16 + 210 == 292


def test_fifo_never_drops_the_call_whose_results_open_the_current_turn():
    a = interjection_session().analyze()
    plan = inspector.plan(a, "fifo", budget=0, min_history_messages=0, at_call=4)
    assert gone(plan) == [1, 2, 3, 4, 5]
    assert plan.decision(5).reason == "dropped by fifo: oldest removable unit while 356 > budget 0"
    assert plan.tokens_after == 3 + 9 + 16 + 210 == 238
    assert plan.valid == {"openai": True, "anthropic": True}


def test_summarize_stops_before_the_current_turns_opening_call():
    a = interjection_session().analyze()
    plan = inspector.plan(a, "summarize", budget=0, summary_ratio=1.0, at_call=4)
    assert gone(plan) == [1, 2, 3, 4, 5]
    assert plan.inserted[0].replaces == (1, 2, 3, 4, 5) and plan.inserted[0].tokens == 81
    assert plan.tokens_after == 3 + 9 + 81 + 16 + 210 == 319


def test_sliding_window_cuts_a_turn_before_the_call_its_opening_results_answer():
    a = interjection_session().analyze()
    plan = inspector.plan(a, "sliding_window", window_turns=2)  # turns 3 and 4, from message 6
    assert gone(plan) == [1, 2, 3, 4, 5]
    assert plan.decision(5).reason == "dropped by sliding_window: turn 2 is outside the last 2 turns"
    assert plan.tokens_after == 3 + 9 + 16 + 210 + 26 + 14 == 278
    current = inspector.plan(a, "sliding_window", window_turns=1, at_call=4)
    assert gone(current) == [1, 2, 3, 4, 5] and current.tokens_after == 238
    assert plan.valid == current.valid == {"openai": True, "anthropic": True}


def test_sliding_window_messages_mode_never_cuts_at_a_message_carrying_results():
    a = interjection_session().analyze()
    plan = inspector.plan(a, "sliding_window", window_mode="messages", window_messages=4)
    # the last 4 start at message 6 (a call), then 7 (results + text) and 8 are not plain user messages
    assert gone(plan) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert plan.decision(6).reason == (
        "dropped by sliding_window: outside the last 4 messages (cut moved forward to message 9, a plain user message)"
    )
    assert plan.tokens_after == 3 + 9 + 14 == 26
