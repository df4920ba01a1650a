"""The incremental replay (inspector.strategies.incremental) equals planning every call on its own.

For generated sessions (system prompts, reminders mid-session, parallel tool calls answered by
OpenAI tool messages or Anthropic result blocks, thinking blocks, recorded usage so every call
has its own part "not in file", tool loops with no prompt) and for every
strategy with a fast path under several settings, each call's total from
:func:`~inspector.strategies.incremental.replay_tokens` must equal the total of
:func:`~inspector.strategies.pipeline.run` at that call, which is the definition. The test also
checks the fast path was taken, so it cannot pass by falling back.
"""

from __future__ import annotations

import itertools
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import analyze, load
from inspector.strategies.first_stage import first_stage
from inspector.strategies.base import PerIndex
from inspector.strategies.common import _guard
from inspector.strategies.incremental import INCREMENTAL, PIPELINES, _guard_spans, facts, replay_tokens, replays_incrementally
from inspector.analysis.agent_removed import credited_column
from inspector.analysis.predict import hidden_per_call
from inspector.analysis.replay import call_facts, replay, with_shared_tokens
from inspector.analysis.requests import RequestChain
from inspector.strategies.layouts import layout_fn
from inspector.model import Message, Session, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock, Usage
from inspector.strategies import Settings
from inspector.strategies.pipeline import STRATEGIES, plan, start

TOOLS = ("bash", "read_file", "grep")


@st.composite
def sessions(draw) -> Session:
    messages: list[Message] = []
    ids = itertools.count(1)

    def add(role: str, content: list, **kw) -> None:
        messages.append(Message(index=len(messages), role=role, content=content, **kw))

    def text(most: int = 60) -> str:
        return "w " * draw(st.integers(0, most))

    def usage() -> dict:
        return {"usage": Usage(input_tokens=draw(st.integers(0, 3000)))} if draw(st.booleans()) else {}

    if draw(st.booleans()):
        add("system", [TextBlock(text="system " + text())])
    prompts = draw(st.integers(0, 5)) > 0  # else a tool loop nobody prompted (no plain user message)

    def exchange() -> None:
        calls = [
            ToolCallBlock(id=f"call_{next(ids)}", name=draw(st.sampled_from(TOOLS)), arguments="{}")
            for _ in range(draw(st.integers(1, 3)))
        ]
        head: list = [ThinkingBlock(thinking=text())] if draw(st.integers(0, 3)) == 0 else []
        if draw(st.booleans()):
            head.append(TextBlock(text=text(10)))
        add("assistant", head + calls, **usage())
        if draw(st.booleans()):
            add("user", [ToolResultBlock(tool_call_id=c.id, content=text(400)) for c in calls], content_form="blocks")
        else:
            for c in calls:
                add("tool", [ToolResultBlock(tool_call_id=c.id, content="line\n" * draw(st.integers(0, 5)) + text(400))])

    if draw(st.integers(0, 4)) == 0:  # a tool loop before the first prompt (turn 0)
        exchange()
    for _ in range(draw(st.integers(0, 7))):
        if draw(st.integers(0, 9)) == 0:
            add("system", [TextBlock(text="reminder " + text())])
        if prompts:
            add("user", [TextBlock(text="ask " + text())])
        for _ in range(draw(st.integers(0, 4))):
            exchange()
        if draw(st.booleans()):
            content: list = [ThinkingBlock(thinking=text())] if draw(st.integers(0, 3)) == 0 else []
            add("assistant", content + [TextBlock(text="done " + text())], **usage())
    return Session(format="inspector", messages=messages)


def reference(view, table, names, s, n, hidden):
    """The definition: the strategies' own code applied to the history of call ``n``."""
    w = start(view, table, s, n, hidden)
    for name in names:
        STRATEGIES[name].apply(w)
    return w


def _variants() -> list[tuple[str, dict]]:
    budgets = [{"budget": b} for b in (0, 150, 600, 2000, 10**6)]
    return [
        *(("fifo", {**b, "min_history_messages": m}) for b in budgets for m in (0, 2, 5)),
        *(("sliding_window", {"window_mode": "turns", "window_turns": t}) for t in (0, 1, 2, 4)),
        *(("sliding_window", {"window_mode": "messages", "window_messages": m}) for m in (0, 1, 3, 8, 40)),
        *(("strands_sliding_window", {"window_messages": m}) for m in (0, 1, 2, 5, 12)),
        *(
            ("trim_messages", {**b, "trim_include_system": inc, "trim_start_on": start})
            for b in budgets[:4] for inc in (False, True) for start in ("none", "human", "ai", "tool", "human_or_tool")
        ),
        *(("trim_messages", {**b, "trim_strategy": "first"}) for b in budgets[:4]),
        ("tool_pruning", {}),
        *(("truncate_results", {"max_result_tokens": m, "truncate_unit": u}) for m in (0, 20, 100) for u in ("tokens", "chars")),
        *(("thinking_prune", {"thinking_keep_turns": k}) for k in (1, 2)),
        *(("last_n_observations", {"observations_keep": k, "polling": p}) for k in (0, 1, 3) for p in (1, 2, 3)),
        *(
            ("clear_tool_uses", {"trigger": t, "keep": k, "clear_at_least": a, "exclude_tools": ex})
            for t in (0, 800) for k in (0, 2) for a in (0, 300) for ex in ((), ("bash",))
        ),
        *(("summarize", {**b, "summary_ratio": r, "summary_tokens": t}) for b in budgets for r in (0.3, 0.05, 1.0) for t in (1, 40, 300)),
        *(
            ("mask_tool_outputs", {
                "mask_protect_tokens": p, "mask_min_tokens": mn, "mask_keep_results": kr, "mask_protect_turns": pt,
                "mask_tools": tools, "mask_protected_tools": never,
            })
            for p in (0, 200) for mn in (0, 150) for kr in (None, 2) for pt in (0, 1, 2)
            for tools, never in (((), ()), (("bash", "grep"), ("grep",)))
        ),
    ]


VARIANTS = [((name,), params) for name, params in _variants()] + [
    (("tool_pruning", "truncate_results"), {"max_result_tokens": m, "truncate_unit": u}) for m in (0, 20) for u in ("tokens", "chars")
] + [(("tool_pruning", "sliding_window"), {"window_turns": t}) for t in (0, 1, 2, 4)] + [
    (("tool_pruning", name), params) for name, params in _variants() if name in ("fifo", "strands_sliding_window")
] + [
    (("clear_tool_uses", "fifo"), {**b, "trigger": t, "keep": k, "clear_at_least": a, "exclude_tools": ex, "min_history_messages": mh})
    for b in ({"budget": 0}, {"budget": 300}, {"budget": 1500}) for t in (0, 800) for k in (0, 2) for a in (0, 300)
    for ex in ((), ("bash",)) for mh in (0, 2)
] + [
    (("truncate_results", name), {**params, "max_result_tokens": m})
    for name, params in _variants() if name in ("fifo", "sliding_window", "strands_sliding_window", "tool_pruning", "trim_messages")
    for m in (20,)
]


#: Fast paths that work inside the current turn too (around what protected_in_turn keeps).
NEVER_PLANNED = {("fifo",), ("clear_tool_uses",), ("summarize",), ("clear_tool_uses", "fifo"), ("tool_pruning", "fifo")}


def test_every_fast_path_is_exercised():
    assert {names[0] for names, _ in VARIANTS if len(names) == 1} == set(INCREMENTAL)
    assert {names for names, _ in VARIANTS if len(names) > 1} == set(PIPELINES)
    assert set(INCREMENTAL) <= set(STRATEGIES)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions())
def test_incremental_replay_equals_planning_each_call(session):
    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    if not view.calls:
        return
    assert facts(view, table).eligible  # the generator only makes sessions the fast paths take
    hidden = hidden_per_call(view, table)
    numbers = list(range(1, len(view.calls) + 1))
    for names, params in VARIANTS:
        s = Settings(**params)
        fast = replay_tokens(view, table, names, s, hidden, numbers)
        if fast is None and names == ("last_n_observations",):  # its one guard: results before the first prompt
            first = next((i for i, r in enumerate(view.roles) if r == "user" and not view.result_ids[i]), None)
            assert first is not None and any(view.result_ids[:first])
            continue
        assert fast is not None, (names, params)
        if names in NEVER_PLANNED:  # no call handed to the strategy's own code, in the current turn neither
            with mock.patch("inspector.strategies.pipeline.run", side_effect=AssertionError(names)):
                assert replay_tokens(view, table, names, s, hidden, numbers) == fast
        slow = [reference(view, table, names, s, n, hidden[n - 1]).total() for n in numbers]
        assert fast == slow, (names, params)


def test_replay_uses_the_fast_path_and_falls_back_where_it_has_none(monkeypatch):
    from strategy_builders import seeds_session

    a = seeds_session().analyze()
    s = Settings(budget=1500)
    fast = replay(a.view, a.table, "fifo", s)
    import inspector.analysis.replay as replay_module

    monkeypatch.setattr(replay_module, "replay_tokens", lambda *args: None)
    slow = replay(a.view, a.table, "fifo", s)
    assert [c.tokens for c in fast.calls] == [c.tokens for c in slow.calls]
    assert [c.tokens for c in fast.calls] == [82, 502, 1122, 1342, 1422, 1178, 1498, 1358, 978, 1378, 1498]
    assert replay_tokens(a.view, a.table, ("compact",), s, [0] * 11, [1]) is None
    assert replay_tokens(a.view, a.table, ("clear_tool_uses", "fifo"), s.model_copy(update={"pair_safe": False}), [0] * 11, [1]) is None
    assert replay_tokens(a.view, a.table, ("fifo",), s.model_copy(update={"pair_safe": False}), [0] * 11, [1]) is None


@pytest.mark.parametrize("name", sorted(INCREMENTAL))
def test_a_recorded_compaction_falls_back(name):
    from strategy_builders import SessionBuilder, text_of

    b = SessionBuilder()
    b.system(text_of(5))
    b.user(text_of(10))
    b.answer(text_of(10))
    b.user("This session is being continued from a previous conversation. " + text_of(5), starts_context=True)
    b.answer(text_of(10))
    a = b.analyze()
    assert not facts(a.view, a.table).eligible
    assert replay_tokens(a.view, a.table, (name,), Settings(budget=10), [0, 0], [1, 2]) is None
    assert not replays_incrementally(a.view, a.table, ("compact",), Settings(budget=10))


PLANNED_FIRST = [(names[0], params) for names, params in VARIANTS if names in (("fifo",), ("trim_messages",))] + [
    ("trim_messages", {"budget": 300, "trim_end_on": "ai"}),
    ("fifo", {"budget": 300, "pair_safe": False}),
]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions())
def test_a_plan_whose_first_stage_takes_its_fast_path_is_the_strategys_own(session):
    """Statuses, reasons (rendered), order and totals of plan() equal the strategy's own code, at
    every call and after the session, alone and followed by another strategy."""
    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    total = table.overhead + table.prefix[len(view)]
    f = facts(view, table)
    turn = view.turns[-1].number if view.turns else 0
    if f.ns_prefix[min(f.turn_start.get(turn, 0), len(view))] > 0:
        # the fast path is taken while dropping before the current turn is enough (beyond that
        # fifo works inside the turn, around what protected_in_turn keeps, and its own code plans it)
        assert first_stage("fifo", view, table, Settings(budget=total - 1), None, 0) is not None
    for name, params in PLANNED_FIRST:
        s = Settings(**params)
        for names in ((name,), (name, "tool_pruning")):
            for n in [*range(1, len(view.calls) + 1), None]:
                p = plan(view, table, names, s, n, 7)
                w = reference(view, table, names, s, n, 7)
                assert p.sequence == w.order and p.status == w.status and p.by == w.by, (names, params, n)
                # a Working's reasons may be lazy (PerIndex: tool_pruning's), rendered per message
                assert [p.reason(i) for i in range(p.stop)] == [
                    "kept" if r is None else str(r.at(i) if isinstance(r, PerIndex) else r) for i, r in enumerate(w.reasons)]
                assert p.tokens_after == w.total() and p.tokens_after_of == [t if x else 0 for t, x in zip(w.tokens, w.live)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions())
def test_the_guard_as_index_spans_is_protected_in_turn(session):
    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    f = facts(view, table)
    for c in view.calls:
        spans = _guard_spans(f, c.message_index, c.turn)
        assert {i for lo, hi in spans for i in range(lo, hi)} == _guard(view, c.message_index, c.turn).members, c.number
        assert all(lo < hi for lo, hi in spans) and all(b < c for (_, b), (c, _) in zip(spans, spans[1:]))


#: compacting at most calls: LangChain's summarization, OpenHands' condenser (its summaries pile up after the head)
AT_MOST_CALLS = [{"compact_tokens": 300, "keep_tail_messages": 3}, {"compact_messages": 5, "keep_head_messages": 1, "keep_tail_messages": 2}]
COMPACTING = [
    {"budget": b, **keep} for b in (150, 600, 2000)
    for keep in ({}, {"keep_tail_messages": 3}, {"keep_tail_tokens": 300, "tail_at_user": True}, {"keep_head_messages": 2},
                 {"keep_user_tokens": 200}, {"keep_tail_share": 0.3, "summary_tokens": 20})
] + [{"compact_messages": 6, "keep_tail_messages": 2}, {"compact_tokens": 500, "context_window": 2000}] + AT_MOST_CALLS


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions())
def test_stateful_compaction_sized_in_one_pass_equals_its_step_by_step_simulation(session):
    """replay_compacting sizes each call's history from its state in O(1) and builds it only where
    the trigger fires: every call (and summary call) as when every history is built."""
    from inspector.analysis import compaction

    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    hidden = hidden_per_call(view, table)
    for params in COMPACTING:
        s = Settings(**params)
        assert compaction._sizes(view, table, ("compact",)) is not None and replays_incrementally(view, table, ("compact",), s)
        fast = [compaction.replay_compacting(view, table, ("compact",), s, hidden, validate) for validate in (False, True)]
        with mock.patch.object(compaction, "_sizes", lambda *args: None):
            slow = [compaction.replay_compacting(view, table, ("compact",), s, hidden, validate) for validate in (False, True)]
        assert fast == slow, params


@st.composite
def sessions_with_reasoning(draw) -> Session:
    """:func:`sessions` as Codex or another format, some calls recording reasoning tokens (Codex's
    encrypted reasoning) besides the thinking blocks, under a model that drops earlier turns'
    reasoning or keeps it."""
    session = draw(sessions())
    models = draw(st.lists(st.sampled_from([None, "gpt-5.6", "claude-opus-4-6"]), min_size=1, max_size=2))
    messages = []
    for m in session.messages:
        if m.role == "assistant" and draw(st.integers(0, 2)) == 0:
            model = draw(st.sampled_from(models))  # a session may switch models
            m = m.model_copy(update={"usage": Usage(input_tokens=draw(st.integers(0, 3000)), model=model,
                                                    reasoning_tokens=draw(st.integers(0, 400)))})
        messages.append(m)
    return Session(format=draw(st.sampled_from(["inspector", "codex"])), messages=messages)


#: The pipelines whose every call has a layout (a clearing or masking that splits a message's results has none).
ALWAYS_LAID_OUT = {
    names for names, _ in VARIANTS
    if layout_fn(names) is not None and not {"clear_tool_uses", "mask_tool_outputs"} & set(names)
}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions_with_reasoning())
def test_shared_tokens_of_the_fast_path_equal_planning_each_call(session):
    """Every call's ``shared_tokens`` (what money prices) from the fast path's layouts equals
    :class:`RequestChain` fed the strategies' own plans, reasoning re-sent and dropped included;
    and so does every call's total, which ``shared=True`` reads off the same layouts."""
    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    if not view.calls:
        return
    hidden = call_facts(view, table).hidden
    numbers = list(range(1, len(view.calls) + 1))
    for names, params in VARIANTS:
        if layout_fn(names) is None:
            continue
        s = Settings(**params)
        if names in ALWAYS_LAID_OUT and replays_incrementally(view, table, names, s):  # (observations: see above)
            with mock.patch("inspector.analysis.replay._pipeline_tokens", side_effect=AssertionError(names)):
                fast = replay(view, table, names, s, shared=True)
                later = with_shared_tokens(view, table, replay(view, table, names, s))
        else:
            fast = replay(view, table, names, s, shared=True)
            later = with_shared_tokens(view, table, replay(view, table, names, s))
        chain = RequestChain(view, table)
        plans = [reference(view, table, names, s, n, hidden[n - 1]) for n in numbers]
        slow = [chain.feed(n, w) for n, w in zip(numbers, plans)]
        assert [c.shared_tokens for c in fast.calls] == slow, (names, params)
        # tokens from the layouts; a replay's call total keeps what the agent had removed (agent_removed)
        assert [c.tokens for c in fast.calls] == credited_column(view, table, numbers, [w.total() for w in plans]), (names, params)
        assert later.calls == fast.calls
        some = sorted({2, len(numbers)}) if len(numbers) > 1 else [1]
        if replays_incrementally(view, table, names, s):  # a subset's first call knows its previous one
            shares = [c.shared_tokens for c in replay(view, table, names, s, calls=some, shared=True).calls]
            assert shares == [slow[n - 1] for n in some]


@st.composite
def single_prompt_sessions(draw) -> Session:
    """:func:`sessions` with every plain user message after the first left out: one agent loop."""
    session = draw(sessions())
    kept, seen = [], False
    for m in session.messages:
        plain = m.role == "user" and not any(isinstance(b, ToolResultBlock) for b in m.content)
        if plain and seen:
            continue
        seen = seen or plain
        kept.append(m.model_copy(update={"index": len(kept)}))
    return Session(format="inspector", messages=kept)


@st.composite
def chats_then_a_loop(draw) -> Session:
    """Turns of a prompt and a plain answer (a chat), then :func:`single_prompt_sessions`' agent
    loop as the last turn: tool_pruning has nothing to remove from any turn before the last."""
    loop = draw(single_prompt_sessions())
    messages = [m for m in loop.messages if m.role == "system"]
    for k in range(draw(st.integers(1, 4))):
        messages.append(Message(index=0, role="user", content=[TextBlock(text=f"question {k} " + "w " * draw(st.integers(0, 80)))]))
        messages.append(Message(index=0, role="assistant", content=[TextBlock(text="answer " + "w " * draw(st.integers(0, 80)))],
                                **({"usage": Usage(input_tokens=draw(st.integers(0, 3000)))} if draw(st.booleans()) else {})))
    plain = [i for i, m in enumerate(loop.messages)
             if m.role == "user" and not any(isinstance(b, ToolResultBlock) for b in m.content)]
    messages += [m for m in loop.messages[plain[0] if plain else len(loop.messages):] if m.role != "system"]
    return Session(format="inspector", messages=[m.model_copy(update={"index": i}) for i, m in enumerate(messages)])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.one_of(single_prompt_sessions(), chats_then_a_loop()))
def test_tool_pruning_then_a_fast_path_where_pruning_removes_nothing_is_that_fast_path(session):
    """On a single-prompt session, or a chat whose tools are all in its last turn, tool_pruning
    changes nothing, so ``tool_pruning,X`` replays as X's fast path: every call's total and shared
    prefix as planning each call gives them."""
    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    if not view.calls:
        return
    last = max(c.turn for c in view.calls)
    assert all(t.number == 0 or t.number >= last or t.stop - t.start == 2 for t in view.turns)
    hidden = call_facts(view, table).hidden
    numbers = list(range(1, len(view.calls) + 1))
    for (name,), params in [(names, params) for names, params in VARIANTS if len(names) == 1][::3]:
        names, s = ("tool_pruning", name), Settings(**params)
        fast = replay_tokens(view, table, names, s, hidden, numbers)
        if fast is None:  # only where X alone has none, or the pipeline's own fast path (PIPELINES) has none
            assert names in PIPELINES or replay_tokens(view, table, (name,), s, hidden, numbers) is None
            continue
        plans = [reference(view, table, names, s, n, hidden[n - 1]) for n in numbers]
        assert fast == [w.total() for w in plans], (names, params)
        if layout_fn(names) is not None:
            chain = RequestChain(view, table)
            assert [c.shared_tokens for c in replay(view, table, names, s, shared=True).calls] == [
                chain.feed(n, w) for n, w in zip(numbers, plans)], (names, params)


def test_tool_pruning_then_fifo_replays_in_one_pass_where_pruning_acts():
    """Where tool_pruning removes earlier turns' exchanges, fifo's cut is still found without
    planning any call (tool_pruning then another window strategy is planned there)."""
    from strategy_builders import seeds_session

    a = seeds_session().analyze()
    n = len(a.view.calls)
    unpruned = a.table.overhead + a.table.prefix[a.view.calls[-1].message_index]
    assert unpruned == 4002 and replay_tokens(a.view, a.table, ("tool_pruning",), Settings(), [0] * n, [n]) == [1602]
    numbers = list(range(1, n + 1))
    for budget, want in ((1500, [82, 502, 1122, 1342, 162, 982, 1302, 242, 762, 1482, 1498]),
                         (600, [82, 502, 702, 302, 162, 902, 402, 242, 602, 802, 202])):
        s = Settings(budget=budget)
        with mock.patch("inspector.strategies.pipeline.run", side_effect=AssertionError(budget)):
            assert replay_tokens(a.view, a.table, ("tool_pruning", "fifo"), s, [0] * n, numbers) == want
        assert [reference(a.view, a.table, ("tool_pruning", "fifo"), s, k, 0).total() for k in numbers] == want
    assert replay_tokens(a.view, a.table, ("tool_pruning", "trim_messages"), Settings(budget=1500), [0] * n, [1]) is None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions())
def test_tool_pruning_then_fifo_at_the_edges_of_its_cut_equals_planning(session):
    """For every call, budgets that make fifo's cut (after tool_pruning) land exactly at each of
    its candidates (and one token either side), inside the current turn too, and min_history
    at the number of messages left (and one either side): as planning that call decides."""
    from inspector.strategies.common import candidates, non_system_count

    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    hidden = hidden_per_call(view, table)
    names = ("tool_pruning", "fifo")
    for n in range(1, len(view.calls) + 1):
        w = reference(view, table, ("tool_pruning",), Settings(), n, hidden[n - 1])
        total, live = w.total(), non_system_count(w)
        budgets, dropped = {total - 1, total, total + 1}, 0
        for i in candidates(w, in_turn=True):
            dropped += w.tokens[i]
            budgets.update(total - dropped + d for d in (-1, 0, 1))
        for budget in sorted(b for b in budgets if b >= 0):
            for mh in sorted({0, 2, max(live - 1, 0), live, live + 1}):
                s = Settings(budget=budget, min_history_messages=mh)
                assert replay_tokens(view, table, names, s, hidden, [n]) == [reference(view, table, names, s, n, hidden[n - 1]).total()], (n, budget, mh)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions())
def test_tool_pruning_then_strands_window_of_every_size_equals_planning(session):
    """For every call, every window from 0 to one more than the messages tool_pruning leaves: the
    cut in what pruning leaves of earlier turns, at their last message, or in the current turn."""
    from inspector.strategies.common import non_system_count

    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    hidden = hidden_per_call(view, table)
    names = ("tool_pruning", "strands_sliding_window")
    for n in range(1, len(view.calls) + 1):
        live = non_system_count(reference(view, table, ("tool_pruning",), Settings(), n, hidden[n - 1]))
        for size in range(live + 2):
            s = Settings(window_messages=size)
            got = replay_tokens(view, table, names, s, hidden, [n])
            if got is None:  # only its guard: a user or tool message that makes calls
                assert any(r in ("user", "tool") and view.call_ids[i] for i, r in enumerate(view.roles))
                continue
            assert got == [reference(view, table, names, s, n, hidden[n - 1]).total()], (n, size)


@pytest.mark.parametrize("names", [("tool_pruning",), ("tool_pruning", "truncate_results"), ("tool_pruning", "fifo"),
                                   ("tool_pruning", "strands_sliding_window")])
def test_tool_pruning_keeps_a_summary_in_an_earlier_turn_in_the_layouts_too(names):
    """A real LangChain history whose earlier turn holds a summary (message 8, after the turn's
    final answer): tool_pruning keeps it, so the layouts' "pruned" drops must too (they dropped it:
    call 4 was 48 tokens short)."""
    a = analyze(load("tests/fixtures/real/langchain/history.json"))
    view, table = a.view, a.table
    assert view.turn_of[8] == 1 and view.flags[8] and view.turns[1].final_index == 7
    hidden = hidden_per_call(view, table)
    s = Settings(budget=300, window_messages=3)
    plans = [reference(view, table, names, s, n, hidden[n - 1]) for n in range(1, len(view.calls) + 1)]
    assert 8 in plans[-1].order
    fast = replay(view, table, names, s, shared=True)
    chain = RequestChain(view, table)
    assert [c.tokens for c in fast.calls] == [w.total() for w in plans]
    assert [c.shared_tokens for c in fast.calls] == [chain.feed(n, w) for n, w in enumerate(plans, 1)]


@st.composite
def broken_sessions(draw) -> Session:
    """:func:`sessions_with_reasoning` broken the way a careless pipeline or file breaks them:
    messages left out (orphaned results, calls without results), empty assistant messages,
    and sometimes one tool-call id used twice."""
    session = draw(sessions_with_reasoning())
    messages: list[Message] = []
    for m in session.messages:
        if m.role != "system" and draw(st.integers(0, 7)) == 0:
            continue
        if draw(st.integers(0, 12)) == 0:
            messages.append(Message(index=0, role="assistant", content=[TextBlock(text="")] if draw(st.booleans()) else []))
        messages.append(m)
    calls = [b for m in messages for b in m.content if isinstance(b, ToolCallBlock)]
    if len(calls) > 1 and draw(st.integers(0, 3)) > 0:  # the last call (and its result) takes the first one's id
        twice, last = calls[0].id, calls[-1].id

        def renamed(b):
            if isinstance(b, ToolCallBlock) and b.id == last:
                return b.model_copy(update={"id": twice})
            if isinstance(b, ToolResultBlock) and b.tool_call_id == last:
                return b.model_copy(update={"tool_call_id": twice})
            return b

        messages = [m.model_copy(update={"content": [renamed(b) for b in m.content]}) for m in messages]
    return Session(format=session.format, messages=[m.model_copy(update={"index": i}) for i, m in enumerate(messages)])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.one_of(sessions(), broken_sessions()))
def test_compactions_every_call_validity_carried_from_call_to_call_equals_validating_each_request(session):
    """The one-pass replay of ``compact`` carries each call's validity from the previous call's
    (validating only the segment a call adds to, :class:`CarriedValidity`): every call's
    violations per provider as when every request is built and validated whole."""
    from inspector.analysis import compaction

    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    hidden = hidden_per_call(view, table)
    for params in COMPACTING:
        s = Settings(**params)
        fast = compaction.replay_compacting(view, table, ("compact",), s, hidden, validate=True)
        with mock.patch.object(compaction, "_sizes", lambda *args: None):
            slow = compaction.replay_compacting(view, table, ("compact",), s, hidden, validate=True)
        assert fast == slow, params


def test_carried_validity_counts_what_breaks_in_each_request():
    """A session whose requests break the rules in several ways (an orphaned result, a call
    without its result, an empty assistant message mid-history): each call's counts, carried,
    equal the whole request's; and some are not zero, so the comparison means something."""
    from inspector.analysis.compaction_requests import CarriedValidity, request_slots, violation_counts

    def m(role, *content):
        return Message(index=0, role=role, content=list(content))

    messages = [m("system", TextBlock(text="sys")), m("user", TextBlock(text="ask"))]
    for k in range(6):
        messages.append(m("assistant", ToolCallBlock(id=f"c{k}", name="bash", arguments="{}")))
        if k != 2:  # call c2 is never answered
            messages.append(m("tool", ToolResultBlock(tool_call_id=f"c{k}" if k != 4 else "nobody", content="out")))
        if k == 3:
            messages.append(m("assistant"))  # empty, not the last message
            messages.append(m("user", TextBlock(text="go on")))
    messages.append(m("assistant", TextBlock(text="done")))
    a = analyze(Session(format="inspector", messages=[x.model_copy(update={"index": i}) for i, x in enumerate(messages)]),
                encoding="approx")
    carried = CarriedValidity(a.view, a.table)
    assert carried.carried
    got = [carried.counts(None, c.message_index) for c in a.view.calls]
    assert got == [violation_counts(a.view, a.table, request_slots(None, c.message_index)) for c in a.view.calls]
    assert got[-1] == (("openai", 3), ("anthropic", 4))
    # a tool-call id used twice is a violation across segments: each request is validated whole
    again = [x.model_copy(update={"index": i}) for i, x in enumerate(messages[:4] + messages)]
    a = analyze(Session(format="inspector", messages=again), encoding="approx")
    carried = CarriedValidity(a.view, a.table)
    assert not carried.carried
    got = [carried.counts(None, c.message_index) for c in a.view.calls]
    assert got == [violation_counts(a.view, a.table, request_slots(None, c.message_index)) for c in a.view.calls]
    assert got[-1] == (("openai", 3), ("anthropic", 5))


COMPACT_SHARES = COMPACTING[::3] + [{"budget": 600, "keep_user_tokens": 200}, {"budget": 150, "keep_head_messages": 2},
                                     {"budget": 300, "keep_user_tokens": 20}, {"compact_messages": 8, "keep_user_tokens": 10_000}] + \
    [p for p in AT_MOST_CALLS if p not in COMPACTING[::3]]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.one_of(sessions_with_reasoning(), broken_sessions()))
def test_compacts_shared_prefixes_from_its_states_layouts_equal_building_each_request(session):
    """``replay(..., ("compact",), shared=True)`` takes each call's shared prefix from its
    state's layout (:class:`CompactShares`): every call (tokens, shared prefix, summary calls)
    as when every request is built and fed to :class:`RequestChain`, Codex reasoning and Claude
    thinking included; and so is the money."""
    from inspector.analysis.money import session_money

    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    if not view.calls:
        return
    for params in COMPACT_SHARES:
        s = Settings(**params)
        fast = replay(view, table, ("compact",), s, shared=True)
        with mock.patch("inspector.analysis.replay.sizes_from_state", return_value=False):
            slow = replay(view, table, ("compact",), s, shared=True)
        assert fast.calls == slow.calls, params
        if params is COMPACT_SHARES[0]:
            assert session_money(view, table, ("compact",), s, replay=fast).calls == \
                session_money(view, table, ("compact",), s, replay=slow).calls


def test_compacts_shared_prefixes_come_from_layouts_between_compactions():
    """Only the calls next to a compaction (where the trigger fired, so the request was built)
    are compared piece by piece; every other call's prefix comes from its state's layout."""
    from strategy_builders import seeds_session

    from inspector.analysis import compaction_requests

    a = seeds_session().analyze()
    s = Settings(budget=1500)
    built = []
    real = compaction_requests.RequestChain.feed
    with mock.patch.object(compaction_requests.RequestChain, "feed", lambda self, n, w: built.append(n) or real(self, n, w)):
        r = replay(a.view, a.table, ("compact",), s, shared=True)
    summaries = [c.call for c in r.calls if c.kind == "summary"]
    assert summaries and len(r.calls) - len(summaries) == len(a.view.calls)
    assert set(built) <= {k for n in summaries for k in (n - 1, n, n + 1)}


def test_codex_compactions_shared_prefixes_come_from_layouts_between_compactions():
    """Codex's compaction (``keep_user_tokens``) keeps the user messages, then the summary: its
    state's layout sends the last kept one and the summary as one point, so between two
    compactions no request is built either, and every call is as when every request is built."""
    from strategy_builders import seeds_session

    from inspector.analysis import compaction_requests

    a = seeds_session().analyze()
    s = Settings(budget=1500, keep_user_tokens=200)
    built = []
    real = compaction_requests.RequestChain.feed
    with mock.patch.object(compaction_requests.RequestChain, "feed", lambda self, n, w: built.append(n) or real(self, n, w)):
        r = replay(a.view, a.table, ("compact",), s, shared=True)
    summaries = [c.call for c in r.calls if c.kind == "summary"]
    assert len(summaries) >= 2 and len(r.calls) - len(summaries) == len(a.view.calls)
    # the call after a compaction is compared with the compaction's request by their layouts
    assert set(built) == {k for n in summaries for k in (n - 1, n)}
    with mock.patch("inspector.analysis.replay.sizes_from_state", return_value=False):
        assert r.calls == replay(a.view, a.table, ("compact",), s, shared=True).calls


def test_a_folding_summary_in_the_earlier_ones_place_shares_the_messages_before_it():
    """LangChain's summarization compacts at most calls, each summary folding the earlier one in
    its place: the two requests then share the messages before it and break there, found from
    the layouts' first points (:func:`.requests._new_first_point`) without walking them; every
    call as when every request is built."""
    from strategy_builders import seeds_session

    from inspector.analysis import requests

    a = seeds_session().analyze()
    s = Settings(compact_tokens=300, keep_tail_messages=3, summary_tokens=40)
    found = []
    real = requests._new_first_point
    with mock.patch.object(requests, "_new_first_point", lambda *args: found.append(real(*args)) or found[-1]):
        r = replay(a.view, a.table, ("compact",), s, shared=True)
    summaries = [c.call for c in r.calls if c.kind == "summary"]
    assert summaries == list(range(3, 12))  # at every call from the third
    # from the second compaction on, the summary stands after the system prompt (message 0) in both requests
    assert found == [None, None] + [1] * 8
    with mock.patch("inspector.analysis.replay.sizes_from_state", return_value=False):
        assert r.calls == replay(a.view, a.table, ("compact",), s, shared=True).calls


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions(), st.sampled_from([0.05, 0.3]), st.sampled_from([6, 300]))
def test_summarize_at_the_edge_of_its_checks_equals_planning(session, ratio, cap):
    """summarize's rounds stop when the rest plus the summary fits: budgets that make the rest
    after a cut fit with that cut's summary exactly (and one token either side), for every cut
    of the last call's history, are replayed as planning that call decides."""
    from types import SimpleNamespace

    from inspector.strategies.summarize import _SummaryBuilder
    from inspector.tokens import get_counter, get_profile

    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    if not view.calls:
        return
    hidden = hidden_per_call(view, table)
    n = len(view.calls)
    stop = view.calls[-1].message_index
    total = table.overhead + hidden[-1] + table.prefix[stop]
    seq = [i for i in range(stop) if view.roles[i] != "system"]
    builder = _SummaryBuilder(SimpleNamespace(view=view), seq, get_counter(table.encoding), get_profile(table.profile), cap)
    replaced = 0
    budgets = set()
    for p, i in enumerate(seq, 1):
        replaced += table.totals[i]
        budgets.update(total - replaced + builder.tokens(p) + d for d in (-1, 0, 1))
    for budget in sorted(b for b in budgets if b >= 0):
        s = Settings(budget=budget, summary_ratio=ratio, summary_tokens=cap)
        assert replay_tokens(view, table, ("summarize",), s, hidden, [n]) == [reference(view, table, ("summarize",), s, n, hidden[-1]).total()], budget


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions(), st.sampled_from([(0, 0, ()), (0, 2, ()), (800, 0, ("bash",))]))
def test_the_first_candidate_prefix_reaching_a_size_is_the_binary_search(session, clearing):
    """fifo's cut (fifo_in_turn_cut) bisects the candidates' prefix sums, with tool results as
    they are and as clear_tool_uses leaves them (one array in the first run of candidates): for
    every call and every size a prefix has (and one token either side), the prefix found is the
    one the generic binary search over ``tokens(q)`` finds."""
    trigger, keep, excluded = clearing
    _check_first_reaching(session, Settings(trigger=trigger, keep=keep, exclude_tools=excluded))


def test_the_first_prefix_reaching_a_size_after_a_protected_exchange_is_the_binary_search():
    """The same where the candidates start after protected results clear_tool_uses keeps (the
    exchange whose results the turn's prompt carries, at the start of the history). The replay
    hands such a session to planning (its exchange crosses into the turn: not units_simple), but
    the search is the same arithmetic on the same spans."""
    messages: list[Message] = []

    def add(role: str, content: list, **kw) -> None:
        messages.append(Message(index=len(messages), role=role, content=content, **kw))

    add("assistant", [ToolCallBlock(id="c0", name="bash", arguments="{}")])
    add("user", [ToolResultBlock(tool_call_id="c0", content="w " * 300), TextBlock(text="ask w w")], content_form="blocks")
    for k in range(1, 6):
        add("assistant", [ToolCallBlock(id=f"c{k}", name="grep", arguments="{}")])
        add("tool", [ToolResultBlock(tool_call_id=f"c{k}", content="w " * (50 * k))])
    add("assistant", [TextBlock(text="done")])
    session = Session(format="inspector", messages=messages)
    a = analyze(session, encoding="approx")
    f = facts(a.view, a.table)
    assert f.stops[-1] == len(messages) - 1 and _guard_spans(f, f.stops[-1], f.turns[-1])[0] == (0, 2)
    _check_first_reaching(session, Settings(trigger=0, keep=0))


def _check_first_reaching(session: Session, s: Settings) -> None:
    from inspector.strategies.incremental import _Candidates, _ClearedCandidates, _clearing, _derived, _bisect_tokens, _ns_tokens

    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    if not view.calls:
        return
    f = facts(view, table)
    for stop, turn in zip(f.stops, f.turns):
        seq = _Candidates(f, stop, turn, _derived(f, "ns_tokens", _ns_tokens))
        if not seq.m:
            continue
        sequences = [seq]
        freed, eligible, spans = _clearing(f, s, stop, turn, table.prefix[stop] + table.overhead)
        if freed:
            sequences.append(_ClearedCandidates(f, s, seq, eligible, spans))
        for c in sequences:
            needs = sorted({c.tokens(q) + d for q in range(c.m + 1) for d in (-1, 0, 1)})
            assert [c.first_reaching(need) for need in needs] == [_bisect_tokens(c, need, 1) for need in needs]
