"""The span lane (:func:`inspector.strategies.layouts.span_cuts`,
:meth:`inspector.analysis.edit_shares.EditShares.span_lane`): each call's run says exactly what
its layout says, the lane's (shared, sent) equal the direct path's call by call wherever it
answers, and the replay it feeds equals the per-call plans, on generated sessions read as every
format's (OpenAI, the inspector's JSONL, Claude Code, Codex), the calls it leaves to the general
path (fifo inside the current turn) included."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from inspector import analyze
from inspector.analysis.edit_shares import EditShares
from inspector.analysis.replay import call_facts
from inspector.analysis.requests import LayoutChain
from inspector.model import Session
from inspector.strategies import Settings
from inspector.strategies.layouts import PLAIN, replay_layouts, span_cuts
from tests.test_edit_shares import _assert_replay_equals_the_plans, _generated
from tests.test_incremental_replay import VARIANTS, sessions

FORMATS = ("openai", "inspector", "claude_code", "codex")


def _lane(view, table, names, s):
    """``(layout_of, lane, chain, direct)`` of pipeline ``names`` (None: no lane, or reasoning re-sent)."""
    facts = call_facts(view, table)
    got = replay_layouts(view, table, names, s, facts.hidden)
    if got is None:
        return None
    f, layout_of = got
    lane = span_cuts(f, names, s, facts.hidden)
    chain = LayoutChain(view, table, f, [p.not_in_file for p in facts.predicted])
    if lane is None or chain.with_reasoning:
        return None
    return f, layout_of, lane, EditShares(chain.layouts, chain.prefix, view.calls, chain.turn_first, chain.codex)


def _ops(layout, stop):
    """The op each message below ``stop`` is sent under (PLAIN outside every run)."""
    out = [PLAIN] * stop
    for lo, hi, op in layout:
        out[lo:min(hi, stop)] = [op] * (min(hi, stop) - lo)
    return out


def _assert_lane_equals_the_layouts(a) -> int:
    """Every laned pipeline: each call's run equals its layout (where it has one), and the
    lane's answers equal EditShares.call's, fed in order. Returns how many calls it answered."""
    view, table = a.view, a.table
    answered = 0
    for names, params in VARIANTS:
        s = Settings(**params)
        got = _lane(view, table, names, s)
        if got is None:
            continue
        f, layout_of, (drop, edit, spans), direct = got
        shares, sents = direct.span_lane(drop, edit, spans, f.turns)
        check = EditShares(direct.layouts, direct.prefix, view.calls, direct.turn_first, direct.codex)
        before = None
        for n, span in enumerate(spans, 1):
            stop = view.calls[n - 1].message_index
            layout = layout_of(n)
            ops = _ops(layout, stop) if layout is not None else None
            if span is not None:  # (None: the general path asks the layout; it may still be one run)
                lo, hi = span
                assert ops == [drop if lo <= i < hi else edit for i in range(stop)], (names, params, n)
            expected = check.call(n, layout, before)
            if span is not None and (n == 1 or spans[n - 2] is not None):
                assert (shares[n - 1], sents[n - 1]) == expected, (names, params, n)
                answered += 1
            else:
                assert shares[n - 1] is None and sents[n - 1] is None, (names, params, n)
            before = layout
    return answered


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions(), st.sampled_from(FORMATS))
def test_the_lane_equals_the_layouts_and_the_plans_in_every_format(session, fmt):
    a = analyze(Session(format=fmt, messages=session.messages), encoding="approx")
    if not a.view.calls:
        return
    _assert_lane_equals_the_layouts(a)
    for names, params in VARIANTS:
        s = Settings(**params)
        if _lane(a.view, a.table, names, s) is not None:
            _assert_replay_equals_the_plans(a.view, a.table, names, s)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("names,params,over,answered,fallen_back", [
    (("fifo",), {}, 6000, 147, 22),
    (("fifo",), {}, 300, 0, 178),  # every cut inside the current turn: all left to the general path
    (("truncate_results", "fifo"), {"max_result_tokens": 20}, 3000, 178, 0),
    (("tool_pruning", "truncate_results"), {"max_result_tokens": 20}, None, 178, 0),
    (("tool_pruning",), {}, None, 178, 0),
    (("truncate_results",), {"max_result_tokens": 20}, None, 178, 0),
    (("thinking_prune",), {"thinking_keep_turns": 1}, None, 178, 0),
    (("sliding_window",), {"window_mode": "messages", "window_messages": 8}, None, 178, 0),
    (("strands_sliding_window",), {"window_messages": 8}, None, 178, 0),
    (("sliding_window",), {"window_mode": "turns", "window_turns": 2}, None, 178, 0),
    (("trim_messages",), {"budget": 3000}, None, 178, 0),
    (("trim_messages",), {"budget": 3000, "trim_strategy": "first"}, None, 178, 0),
    (("last_n_observations",), {"observations_keep": 2}, None, 178, 0),
    (("truncate_results", "trim_messages"), {"budget": 3000, "max_result_tokens": 20}, None, 178, 0),
    (("mask_tool_outputs",), {"mask_protect_tokens": 200}, None, 178, 0),
    (("mask_tool_outputs",), {"mask_keep_results": 2, "mask_protect_tokens": 0}, None, 178, 0),
    # the current turn's results among those it would mask: planned (the call after each: the general path)
    (("mask_tool_outputs",), {"mask_protect_tokens": 200, "mask_protect_turns": 0}, None, 1, 128),
])
def test_a_generated_session_is_answered_by_the_lane_and_matches_the_plans(fmt, names, params, over, answered, fallen_back):
    """On a generated session (bench/gen_session.py, 400 messages, 178 calls) read as each
    format, with the budget ``over`` tokens above the part the file does not show (Claude Code
    and Codex add a typical one): the lane answers every call of a one-run pipeline but those
    whose fifo cut goes inside the current turn (``fallen_back``) and the call after each, which
    the general path answers; the replay equals the plans either way."""
    a = analyze(Session(format=fmt, messages=_generated(400).messages), encoding="approx")
    view, table = a.view, a.table
    if over is not None:
        params = {**params, "budget": call_facts(view, table).hidden[0] + over}
    s = Settings(**params)
    got = _lane(view, table, names, s)
    assert got is not None
    f, _, lane, direct = got
    shares, _ = direct.span_lane(*lane, f.turns)
    assert sum(x is not None for x in shares) == answered
    assert sum(c is None for c in lane[2]) == fallen_back
    _assert_replay_equals_the_plans(view, table, names, s)


@pytest.mark.parametrize("fmt", ("openai", "claude_code"))
def test_a_message_masked_in_part_is_left_to_the_general_path(fmt):
    """mask_tool_outputs keeping the last result of a user message that answers two calls masks
    that message in part (a "point" in its layout): the lane leaves exactly those calls (and the
    call after each) to the general path, and the replay equals the plans."""
    from inspector.model import Message, TextBlock, ToolCallBlock, ToolResultBlock

    messages: list[Message] = []

    def add(role: str, content: list, **kw) -> None:
        messages.append(Message(index=len(messages), role=role, content=content, **kw))

    add("system", [TextBlock(text="sys " * 20)])
    for t in range(4):
        add("user", [TextBlock(text="ask " * 30)])
        for e in range(2):
            calls = [ToolCallBlock(id=f"c{t}{e}{k}", name="bash", arguments="{}") for k in range(2)]
            add("assistant", calls)
            add("user", [ToolResultBlock(tool_call_id=c.id, content="w " * 300) for c in calls], content_form="blocks")
        add("assistant", [TextBlock(text="done " * 10)])
    a = analyze(Session(format=fmt, messages=messages), encoding="approx")
    names, s = ("mask_tool_outputs",), Settings(mask_keep_results=1, mask_protect_tokens=0, mask_protect_turns=1, mask_min_tokens=0)
    f, layout_of, (drop, edit, spans), direct = _lane(a.view, a.table, names, s)
    points = [any(op[0] == "point" for _, _, op in layout_of(n)) for n in range(1, len(spans) + 1)]
    assert points == [False] * 3 + [True] * 9
    assert [span is None for span in spans] == points
    shares, _ = direct.span_lane(drop, edit, spans, f.turns)
    assert sum(x is not None for x in shares) == 3
    _assert_replay_equals_the_plans(a.view, a.table, names, s)
