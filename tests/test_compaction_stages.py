"""``mask_tool_outputs,compact`` (Gemini CLI, OpenCode, Claude Code microcompact) replayed from
each call's compaction state (:mod:`inspector.analysis.compaction_stages`) equals its own
step-by-step simulation: every call's history built from the state and masked afresh."""

from __future__ import annotations

from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import analyze
from inspector.analysis import compaction
from inspector.analysis.compaction_stages import MASKED, MaskedStates
from inspector.analysis.predict import hidden_per_call
from inspector.analysis.replay import replay
from inspector.strategies import Settings
from test_incremental_replay import broken_sessions, sessions, sessions_with_reasoning

MASKING = [
    {"mask_protect_tokens": p, "mask_min_tokens": m, "mask_protect_turns": t, **extra}
    for p, m, t, extra in (
        (0, 0, 0, {}), (100, 50, 1, {}), (300, 0, 2, {}), (50, 100, 1, {"mask_keep_results": 2}),
        (0, 0, 1, {"mask_tools": ("read",)}), (200, 0, 0, {"mask_protected_tools": ("bash",), "mask_placeholder": "[cleared]"}),
    )
]
COMPACTING = [{"budget": 600}, {"budget": 2000, "keep_tail_share": 0.3}, {"compact_messages": 6, "keep_tail_messages": 2},
              {"budget": 900, "keep_tail_tokens": 300, "tail_at_user": True}, {"budget": 700, "keep_user_tokens": 200}]
CASES = [{**m, **c} for k, m in enumerate(MASKING) for c in COMPACTING[k % 2 :: 2]]


def _slow(view, table, s, hidden, validate):
    with mock.patch.object(compaction, "_sizes", lambda *args: None):
        return compaction.replay_compacting(view, table, MASKED, s, hidden, validate)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.one_of(sessions(), broken_sessions()))
def test_masking_then_compacting_from_the_state_equals_its_step_by_step_simulation(session):
    """Every call (summary calls, tokens, compactions, violations) as when every history is
    built and masked."""
    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    hidden = hidden_per_call(view, table)
    for params in CASES:
        s = Settings(**params)
        for validate in (False, True):
            fast = compaction.replay_compacting(view, table, MASKED, s, hidden, validate)
            assert fast == _slow(view, table, s, hidden, validate), (params, validate)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.one_of(sessions_with_reasoning(), broken_sessions()))
def test_masking_then_compacting_shared_prefixes_from_layouts_equal_building_each_request(session):
    """``replay(..., shared=True)`` takes each call's shared prefix from the state's layout with
    the masking's runs in its gaps: every call as when every request is built."""
    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    if not view.calls:
        return
    for params in CASES[::2]:
        s = Settings(**params)
        fast = replay(view, table, MASKED, s, shared=True)
        with mock.patch("inspector.analysis.replay.sizes_from_state", return_value=False):
            slow = replay(view, table, MASKED, s, shared=True)
        assert fast.calls == slow.calls, params


def test_the_generated_session_is_masked_and_compacted_from_its_states():
    """On a generated agent session the Gemini CLI preset compacts, masks between compactions,
    and builds no history: neither at a compaction (:mod:`.compaction_step`) nor where the
    call's turn began before it."""
    from strategy_builders import seeds_session

    a = seeds_session().analyze()
    s = Settings(budget=1500, mask_protect_tokens=200, mask_min_tokens=100, mask_protect_turns=1, keep_tail_share=0.3)
    hidden = hidden_per_call(a.view, a.table)
    built = []
    real = compaction.build_history
    with mock.patch.object(compaction, "build_history", lambda *args: built.append(args[4]) or real(*args)):
        fast = compaction.replay_compacting(a.view, a.table, MASKED, s, hidden)
    assert fast == _slow(a.view, a.table, s, hidden, False)
    summaries = [c.call for c in fast if c.kind == "summary"]
    masked = MaskedStates(a.view, a.table, s)
    assert summaries == [7, 10] and any(masked.cut(c, None)[1] for c in a.view.calls if masked.cut(c, None))
    with mock.patch.object(compaction, "build_history", lambda *args: built.append(args[4]) or real(*args)):
        shared = replay(a.view, a.table, MASKED, s, shared=True)
    with mock.patch("inspector.analysis.replay.sizes_from_state", return_value=False):
        assert shared.calls == replay(a.view, a.table, MASKED, s, shared=True).calls
    assert built == []


def _generated():
    from test_compaction_step import _generated

    return analyze(_generated(400), encoding="approx")


# the masking presets' own settings, their window and thresholds scaled to a 400-message session
# (and the generated session's tool names): (preset, changed params, compactions, the compactions
# done from the state, those of them whose history masks results)
SCALED = [
    ("claude-code-microcompact", {"context_window": 60_000, "mask_tools": ("read_file", "run_shell")}, 6, 6, 5),
    ("opencode", {"context_window": 40_000, "mask_protect_tokens": 1000, "mask_min_tokens": 500, "keep_tail_tokens": 8000,
                  "mask_protect_turns": 1}, 10, 27, 22),
    ("gemini-cli", {"context_window": 30_000, "mask_protect_tokens": 4000, "mask_min_tokens": 3000}, 7, 7, 6),
]


@pytest.mark.parametrize("name, changed, compactions, done, masking", SCALED)
def test_the_masking_presets_compact_from_their_states_without_building_a_history(name, changed, compactions, done, masking):
    """Claude Code's microcompact, OpenCode and Gemini CLI compact on the state's slots plus the
    messages since, the tail measured in masked sizes (:meth:`MaskedStates.tokens`; a compaction
    done that frees nothing is not kept): every call, summary call and shared prefix as in the
    step-by-step simulation, and no history built."""
    from inspector.presets import builtin_preset

    a = _generated()
    view, table = a.view, a.table
    s = Settings(**{**builtin_preset(name).params, **changed})
    hidden = hidden_per_call(view, table)
    built, masked_at = [], []
    real, tokens = compaction.build_history, MaskedStates.tokens

    def masked_tokens(self, call, state):
        out = tokens(self, call, state)
        masked_at.append((call.number, out is not table.totals))
        return out

    with mock.patch.object(compaction, "build_history", lambda *args: built.append(args[4]) or real(*args)):
        with mock.patch.object(MaskedStates, "tokens", masked_tokens):
            fast = [compaction.replay_compacting(view, table, MASKED, s, hidden, False)]
        fast.append(compaction.replay_compacting(view, table, MASKED, s, hidden, True))
        shared = replay(view, table, MASKED, s, shared=True)
    assert built == []
    assert fast == [_slow(view, table, s, hidden, validate) for validate in (False, True)]
    with mock.patch("inspector.analysis.replay.sizes_from_state", return_value=False):
        assert shared.calls == replay(view, table, MASKED, s, shared=True).calls
    summaries = [c.call for c in fast[0] if c.kind == "summary"]
    assert len(summaries) == compactions
    assert len(masked_at) == done and set(summaries) <= {n for n, _ in masked_at}
    assert sum(1 for _, masks in masked_at if masks) == masking
    assert sum(1 for c in shared.calls if c.kind == "summary") == compactions


def test_a_compactions_request_with_no_layout_is_built_as_the_compaction_left_it():
    """Where the layouts of a compaction done from the state, or of the call after it, are
    missing, the compaction's request is built from the state before it and compacted
    (:func:`.compaction.request_history`: masked as before it, not afresh): every shared prefix
    as when every request is built."""
    from inspector.presets import builtin_preset

    a = _generated()
    view, table = a.view, a.table
    name, changed = SCALED[1][:2]
    s = Settings(**{**builtin_preset(name).params, **changed})
    real_layout, real_left = MaskedStates.layout, MaskedStates.compacted_from
    rebuilt = []

    def left(self, call, state):
        found = real_left(self, call, state)
        if found is not None:
            rebuilt.append(call.number)
        return found

    with mock.patch.object(MaskedStates, "layout", lambda self, call, state: None if call.number % 2 else real_layout(self, call, state)), \
            mock.patch.object(MaskedStates, "compacted_from", left):
        fast = replay(view, table, MASKED, s, shared=True)
    with mock.patch("inspector.analysis.replay.sizes_from_state", return_value=False):
        slow = replay(view, table, MASKED, s, shared=True)
    assert fast.calls == slow.calls
    summaries = [c.call for c in fast.calls if c.kind == "summary"]
    # each compaction's request is built once: for its own call (odd) or for the call after it
    assert rebuilt == summaries == [37, 53, 56, 81, 83, 95, 115, 128, 138, 164]


def test_a_session_masking_has_no_fast_path_on_is_built_call_by_call():
    """A tool exchange split across turns (its result after the next prompt): masking's
    stateless fast path does not hold, so neither does its replay from the compaction state
    (hypothesis found a broken session where the state's answer was 216 tokens, the built one
    308): every call is built, as the step-by-step simulation."""
    from inspector.model import Message, Session, TextBlock, ToolCallBlock, ToolResultBlock
    from inspector.strategies.common import view_cache

    def m(role, *content):
        return Message(index=0, role=role, content=list(content))

    messages = [m("system", TextBlock(text="sys")), m("user", TextBlock(text="ask")),
                m("assistant", ToolCallBlock(id="c1", name="bash", arguments="{}"), ToolCallBlock(id="c2", name="grep", arguments="{}")),
                m("tool", ToolResultBlock(tool_call_id="c1", content="w " * 300)), m("user", TextBlock(text="next")),
                m("tool", ToolResultBlock(tool_call_id="c2", content="w " * 300)), m("assistant", TextBlock(text="done"))]
    a = analyze(Session(format="inspector", messages=[x.model_copy(update={"index": i}) for i, x in enumerate(messages)]),
                encoding="approx")
    assert not view_cache(a.view).units_simple
    s = Settings(**CASES[0])
    assert compaction._sizes(a.view, a.table, MASKED, s) is None
    hidden = hidden_per_call(a.view, a.table)
    assert compaction.replay_compacting(a.view, a.table, MASKED, s, hidden) == _slow(a.view, a.table, s, hidden, False)


def test_a_broken_exchange_is_masked_as_its_step_by_step_simulation_masks_it():
    """Found by hypothesis on 1733ed1 (this file's first test): results answering an assistant
    message two messages back, a call with no result, an empty assistant message between a call
    and its result. The fast path sized call 5 at 276 tokens, one less than the simulation."""
    from inspector.model import Message, Session, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock, Usage

    def calls(*ids):
        return [ToolCallBlock(id=i, name="read_file" if i == "call_2" else "bash", arguments="{}") for i in ids]

    def result(i, words):
        return ToolResultBlock(tool_call_id=i, content="w " * words)

    no_usage = Usage(input_tokens=0, reasoning_tokens=0)
    contents = [
        ("assistant", [ThinkingBlock(thinking=""), *calls("call_1", "call_2", "call_3")], no_usage),
        ("assistant", [], None),
        ("user", [result("call_1", 0), result("call_2", 7), result("call_3", 271)], None),
        ("user", [TextBlock(text="ask ")], None),
        ("assistant", calls("call_4", "call_5", "call_6"), no_usage),
        ("tool", [result("call_4", 121)], None),
        ("assistant", [], None),
        ("tool", [result("call_6", 0)], None),
        ("assistant", [ThinkingBlock(thinking=""), *calls("call_9")], None),
    ]
    session = Session(format="inspector", messages=[
        Message(index=i, role=role, content=blocks, usage=usage, content_form="blocks" if i == 2 else "string")
        for i, (role, blocks, usage) in enumerate(contents)])
    a = analyze(session, encoding="approx")
    hidden = hidden_per_call(a.view, a.table)
    s = Settings(budget=2000, keep_tail_share=0.3, mask_protect_tokens=200, mask_min_tokens=0,
                 mask_protect_turns=0, mask_protected_tools=("bash",), mask_placeholder="[cleared]")
    fast = compaction.replay_compacting(a.view, a.table, MASKED, s, hidden, False)
    assert fast == _slow(a.view, a.table, s, hidden, False)
    assert [c.tokens for c in fast] == [c.baseline_tokens for c in fast]  # nothing reaches the budget or is masked
