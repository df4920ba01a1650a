"""tool_pruning: one test per acceptance criterion of the seeds' proposal (issue 3)."""

from __future__ import annotations

import inspector
from inspector.strategies import Status

from strategy_builders import SessionBuilder, seeds_session, small_session, text_of


def kept(plan) -> list[int]:
    return [d.index for d in plan.decisions() if d.status is Status.KEPT]


def dropped(plan) -> list[int]:
    return [d.index for d in plan.decisions() if d.status is Status.DROPPED]


def test_prior_turns_keep_only_the_user_message_and_the_final_reply():
    a = small_session().analyze()
    plan = inspector.plan(a, "tool_pruning")
    assert kept(plan) == [0, 1, 4, 5, 10, 11]
    assert dropped(plan) == [2, 3, 6, 7, 8, 9]
    assert plan.tokens_after == 9 + 14 + 26 + 14 + 26 + 14 + 3 == 106
    assert plan.decision(2).reason == (
        "dropped by tool_pruning: tool call in prior turn 1 (only its question and final answer are kept)"
    )
    assert plan.decision(9).reason == (
        "dropped by tool_pruning: tool result in prior turn 2 (only its question and final answer are kept)"
    )
    assert plan.valid == {"openai": True, "anthropic": True}


def test_assistant_messages_with_tool_calls_are_dropped_even_when_they_carry_text():
    b = SessionBuilder(id_prefix="toolu_")
    b.system("You are helpful.")
    b.user("Onboard TechCorp as a vendor.")
    _, ids = b.assistant("I'll check whether TechCorp already exists.", [("lookup_vendor", '{"name": "TechCorp"}')])
    b.results([(ids[0], '{"error": "not_found"}')])
    _, ids = b.assistant("Not found, creating it now.", [("create_vendor", '{"name": "TechCorp"}')])
    b.results([(ids[0], '{"id": "V-1042"}')])
    b.answer("TechCorp is onboarded as vendor V-1042.")
    b.user("Thanks! What is its id again?")
    a = b.analyze()
    plan = inspector.plan(a, "tool_pruning")
    assert dropped(plan) == [2, 3, 4, 5]
    assert [m.text for m in plan.messages_after()] == [
        "You are helpful.",
        "Onboard TechCorp as a vendor.",
        "TechCorp is onboarded as vendor V-1042.",
        "Thanks! What is its id again?",
    ]
    assert plan.valid == {"openai": True, "anthropic": True}


def test_all_tool_results_of_prior_turns_are_dropped():
    a = seeds_session().analyze()
    plan = inspector.plan(a, "tool_pruning")
    view = a.view
    prior_results = [i for i in range(len(view)) if view.result_ids[i] and view.turn_of[i] < 3]
    assert prior_results == [3, 5, 7, 11, 13]
    assert all(plan.decision(i).status is Status.DROPPED for i in prior_results)
    assert not any(view.call_ids[i] for i in kept(plan) if view.turn_of[i] < 3)


def test_current_turn_is_kept_whole():
    a = seeds_session().analyze()
    # Call 10 is message 20: the current turn 3 holds messages 15-19 (question, two exchanges).
    plan = inspector.plan(a, "tool_pruning", at_call=10)
    assert plan.current_turn == 3
    assert kept(plan) == [0, 1, 8, 9, 14, 15, 16, 17, 18, 19]
    assert plan.decision(17).status is Status.KEPT


def test_single_turn_session_is_unchanged():
    b = SessionBuilder()
    b.system("You are helpful.")
    b.user(text_of(10))
    b.exchange("bash", '{"cmd": "ls"}', text_of(300))
    b.exchange("bash", '{"cmd": "pwd"}', text_of(10))
    b.answer(text_of(20))
    a = b.analyze()
    plan = inspector.plan(a, "tool_pruning")
    assert dropped(plan) == []
    assert plan.tokens_after == plan.tokens_before == sum(a.table.totals) + 3


def test_prior_turn_without_final_reply_keeps_its_user_message_only():
    b = SessionBuilder()
    b.user("Run the full test suite.")
    b.exchange("run_tests", "{}", text_of(400))  # the user interrupts here: no final reply
    b.user("Stop, just run the unit tests.")
    b.exchange("run_tests", '{"only": "unit"}', text_of(100))
    b.answer("All 42 unit tests pass.")
    b.user("Great.")
    a = b.analyze()
    plan = inspector.plan(a, "tool_pruning")
    assert kept(plan) == [0, 3, 6, 7]
    assert dropped(plan) == [1, 2, 4, 5]


def test_intermediate_replies_without_tool_calls_are_dropped_too():
    b = SessionBuilder()
    b.user(text_of(10))
    b.answer("Working on it.")  # an assistant message that is not the turn's last reply
    b.exchange("bash", "{}", text_of(50))
    b.answer("Done.")
    b.user(text_of(10))
    a = b.analyze()
    plan = inspector.plan(a, "tool_pruning")
    assert dropped(plan) == [1, 2, 3]
    assert plan.decision(1).reason == (
        "dropped by tool_pruning: intermediate message in prior turn 1 (only its question and final answer are kept)"
    )


def test_system_messages_are_kept():
    b = SessionBuilder()
    b.system("You are helpful.")
    b.user(text_of(10))
    b.system("Tool budget reminder.")
    b.exchange("bash", "{}", text_of(50))
    b.answer("Done.")
    b.user(text_of(10))
    a = b.analyze()
    assert kept(inspector.plan(a, "tool_pruning")) == [0, 1, 2, 5, 6]


def test_result_arriving_after_the_user_spoke_again_keeps_its_exchange_whole():
    b = SessionBuilder()
    b.user(text_of(10))
    _, ids = b.assistant("", [("slow_job", "{}")])
    b.user("Are you still there?")  # a new turn starts before the result arrives
    b.tool(ids[0], text_of(30))
    b.answer("The job finished.")
    b.user(text_of(5))
    a = b.analyze()
    # At the end, turn 2 (messages 2-4) is prior; the exchange (1, 3) spans turns 1 and 2 and is
    # dropped as a whole because both turns are prior.
    assert dropped(inspector.plan(a, "tool_pruning")) == [1, 3]
    # At call 2 (message 4) turn 2 is current: the result 3 is in it, so the call 1 stays.
    plan = inspector.plan(a, "tool_pruning", at_call=2)
    assert dropped(plan) == []
    assert plan.valid == {"openai": False, "anthropic": False}  # the source itself is invalid here


# --- the run-based planning equals the per-message definition ---------------------------------

from hypothesis import HealthCheck, given, settings as hyp_settings  # noqa: E402

from inspector.strategies import Settings  # noqa: E402
from inspector.strategies.base import PerIndex, Working, reason  # noqa: E402
from inspector.strategies.common import current_opening_unit, current_turn_start, keep_units_whole, view_cache  # noqa: E402
from inspector.strategies.pipeline import STRATEGIES, start  # noqa: E402
from inspector.units import SUMMARY  # noqa: E402

from test_incremental_replay import sessions  # noqa: E402


def per_message_tool_pruning(w: Working) -> None:
    """tool_pruning as it was written first: every message of every prior turn looked at in turn."""
    view = w.view
    roles, call_ids, result_ids, flags = view.roles, view.call_ids, view.result_ids, view.flags
    live, limit, cache = w.live, current_turn_start(w), view_cache(view)
    kept_with = {}
    for number, before in cache.opening_unit_before.items():
        opening = cache.turn_start[number]
        if opening >= limit:
            continue
        kept_with[opening] = reason("kept by tool_pruning: opens turn {} and also carries tool results, so their "
                                    "call (message {}) is kept with it", (number, before[0]))
        for j in before:
            kept_with[j] = reason("kept by tool_pruning: its results are in message {}, which opens turn {} with "
                                  "the user's text; kept with it", (opening, number))
    protected = set(current_opening_unit(w))
    drop, reasons = [], []
    for turn in view.turns:
        if turn.number == 0:
            continue
        if turn.start >= limit:
            break
        for i in range(turn.start, min(turn.stop, limit)):
            if i in (turn.user_index, turn.final_index) or not live[i] or roles[i] == "system" or flags[i] & SUMMARY:
                continue
            if i in kept_with or i in protected:
                continue
            drop.append(i)
            kind = "tool call" if call_ids[i] else "tool result" if result_ids[i] else "intermediate message"
            reasons.append(reason("dropped by tool_pruning: {} in prior turn {} (only its question and final answer "
                                  "are kept)", (kind, turn.number)))
    if drop:
        keep = set(keep_units_whole(w, drop))
        reasons = [r for i, r in zip(drop, reasons) if i in keep]
        w.drop_many([i for i in drop if i in keep], "tool_pruning", reasons)
    for i, why in kept_with.items():
        if i < w.stop and live[i] and w.reasons[i] is None:
            w.by[i] = "tool_pruning"
            w.reasons[i] = why


def _rendered(w: Working) -> list[str]:
    return ["kept" if r is None else str(r.at(i) if isinstance(r, PerIndex) else r) for i, r in enumerate(w.reasons)]


@hyp_settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions())
def test_tool_pruning_by_runs_equals_the_per_message_definition(session):
    """Order, statuses, reasons (rendered), tokens and total at every call, alone and after a stage
    that dropped or edited messages first (then not every message is live)."""
    a = inspector.analyze(session, encoding="approx")
    view, table = a.view, a.table
    for before, s in (((), Settings()), (("truncate_results",), Settings(max_result_tokens=20)),
                      (("sliding_window",), Settings(window_mode="messages", window_messages=3))):
        for n in [*range(1, len(view.calls) + 1), None]:
            ours, ref = start(view, table, s, n, 5), start(view, table, s, n, 5)
            for name in before:
                STRATEGIES[name].apply(ours)
                STRATEGIES[name].apply(ref)
            STRATEGIES["tool_pruning"].apply(ours)
            per_message_tool_pruning(ref)
            assert ours.order == ref.order and ours.status == ref.status and ours.by == ref.by, (before, n)
            assert _rendered(ours) == _rendered(ref) and ours.tokens == ref.tokens
            assert ours.total() == ref.total() == ours.recount()
