"""Property tests (hypothesis) over generated sessions, for every strategy and a few pipelines.

Generated sessions are valid to start with and mix the shapes strategies must survive: parallel
calls, OpenAI tool messages and Anthropic-style result blocks (with text after them: such a
message opens a turn while staying in its exchange, whose call sits in the turn before), a
person's interjection sent with the results of an interrupted tool loop, assistant text next to
tool calls, interrupted turns with no final answer, summary messages, system messages in the
middle, and what agents' harnesses add in the user role (Codex ``<environment_context>``, Claude
Code interruption notices, SWE-agent observations of text actions): no prompts, so long turns. Counting uses ``approx`` so every figure can be checked exactly.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.analysis.planning import CheckedPlan
from inspector import analyze
from inspector.model import Message, Session, TextBlock, ToolCallBlock, ToolResultBlock
from inspector.strategies import Settings, Status, plan
from inspector.strategies.pipeline import run
from inspector.tokens import count_message, get_counter, get_profile
from inspector.units import UnitKind
from inspector.providers.validate import validate_messages, validate_plan

TOOLS = ("read_file", "bash", "search", "query_db")
WORDS = ("alpha", "beta", "gamma", "delta", "file", "error", "test", "value", "the", "of")
PIPELINES = [
    ("fifo",),
    ("sliding_window",),
    ("summarize",),
    ("truncate_results",),
    ("tool_pruning",),
    ("clear_tool_uses",),
    ("tool_pruning", "sliding_window"),
    ("truncate_results", "summarize", "fifo"),
    ("clear_tool_uses", "fifo"),
    ("sliding_window", "summarize"),
    ("mask_tool_outputs",),
    ("last_n_observations",),
    ("thinking_prune",),
    ("mask_tool_outputs", "fifo"),
    ("thinking_prune", "last_n_observations", "sliding_window"),
]
PROPERTY_SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def words(draw, low: int, high: int) -> str:
    n = draw(st.integers(low, high))
    return " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=n, max_size=n)))


@st.composite
def sessions(draw) -> Session:
    messages: list[Message] = []
    next_id = 0

    def add(role: str, content: list, injected: str | None = None) -> None:
        messages.append(Message(index=len(messages), role=role, content=content, injected=injected))

    if draw(st.booleans()):
        add("system", [TextBlock(text="You are an agent. " + words(draw, 0, 30))])
    for turn in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["plain", "plain", "plain", "summary", "system_then_plain"]))
        if kind == "summary":
            add("user", [TextBlock(text="Here is a summary of the conversation to date: " + words(draw, 1, 20))])
        else:
            if kind == "system_then_plain":
                add("system", [TextBlock(text="Reminder: " + words(draw, 1, 5))])
            if draw(st.integers(0, 3)) == 0:
                add("user", [TextBlock(text="<environment_context>" + words(draw, 1, 8) + "</environment_context>")])
            add("user", [TextBlock(text=words(draw, 1, 40))])
        anthropic_style = draw(st.booleans())
        for _ in range(draw(st.integers(0, 6))):
            if draw(st.integers(0, 4)) == 0:  # a text action and the harness's observation of it
                add("assistant", [TextBlock(text="run " + words(draw, 1, 6))])
                add("user", [TextBlock(text="output: " + words(draw, 0, 200))], injected="observation")
                continue
            calls = []
            for _ in range(draw(st.integers(1, 3))):
                next_id += 1
                calls.append(ToolCallBlock(id=f"call_{next_id}", name=draw(st.sampled_from(TOOLS)), arguments='{"q": "x"}'))
            text = [TextBlock(text=words(draw, 1, 10))] if draw(st.booleans()) else []
            add("assistant", text + calls)
            results = [ToolResultBlock(tool_call_id=c.id, content=words(draw, 0, 300)) for c in calls]
            if anthropic_style:
                shape = draw(st.sampled_from(["results", "reminder_after", "interjection_before"]))
                if shape == "reminder_after":
                    add("user", results + [TextBlock(text="<reminder>" + words(draw, 1, 5) + "</reminder>")])
                elif shape == "interjection_before":  # typed text first: still results, then other content
                    add("user", [TextBlock(text="stop, " + words(draw, 1, 8))] + results)
                else:
                    add("user", results)
            else:
                for r in results:
                    add("tool", [r])
        if draw(st.integers(0, 4)) > 0:  # otherwise the user interrupted: no final answer
            add("assistant", [TextBlock(text=words(draw, 1, 60))])
        elif draw(st.booleans()):
            add("user", [TextBlock(text="[Request interrupted by user]")])
    return Session(format="inspector", messages=messages)


@st.composite
def cases(draw):
    session = draw(sessions())
    analysis = analyze(session, "approx", draw(st.sampled_from(["openai", "anthropic"])))
    total = analysis.table.prefix[-1] + analysis.table.overhead
    calls = len(analysis.view.calls)
    at_call = draw(st.one_of(st.none(), st.integers(1, calls))) if calls else None
    s = Settings(
        budget=draw(st.integers(0, total + 50)),
        min_history_messages=draw(st.integers(0, 3)),
        window_mode=draw(st.sampled_from(["turns", "messages"])),
        window_turns=draw(st.integers(0, 5)),
        window_messages=draw(st.integers(0, 30)),
        max_result_tokens=draw(st.integers(1, 120)),
        truncate_unit=draw(st.sampled_from(["tokens", "chars"])),
        summary_ratio=draw(st.sampled_from([0.1, 0.3, 0.5, 1.0])),
        summary_tokens=draw(st.integers(1, 80)),
        trigger=draw(st.integers(0, total + 10)),
        keep=draw(st.integers(0, 5)),
        clear_at_least=draw(st.sampled_from([0, 0, 50, 500])),
        exclude_tools=tuple(draw(st.lists(st.sampled_from(TOOLS), max_size=2, unique=True))),
        clear_tool_inputs=draw(st.booleans()),
        mask_protect_tokens=draw(st.integers(0, 300)),
        mask_min_tokens=draw(st.sampled_from([0, 0, 50, 500])),
        mask_keep_results=draw(st.one_of(st.none(), st.integers(0, 5))),
        mask_protect_turns=draw(st.integers(0, 3)),
        mask_tools=tuple(draw(st.lists(st.sampled_from(TOOLS), max_size=2, unique=True))),
        mask_protected_tools=tuple(draw(st.lists(st.sampled_from(TOOLS), max_size=1, unique=True))),
        observations_keep=draw(st.integers(0, 6)),
        polling=draw(st.integers(1, 4)),
        thinking_keep_turns=draw(st.integers(1, 3)),
        context_window=draw(st.integers(1, total + 50)),
        reserved_output=draw(st.integers(0, 100)),
        compact_margin=draw(st.one_of(st.none(), st.integers(0, 200))),
        compact_share=draw(st.sampled_from([0.0, 0.5, 0.9])),
        compact_tokens=draw(st.one_of(st.none(), st.integers(0, total + 10))),
        compact_messages=draw(st.one_of(st.none(), st.integers(0, 20))),
        keep_head_messages=draw(st.integers(0, 4)),
        keep_tail_messages=draw(st.one_of(st.none(), st.integers(0, 10))),
        keep_tail_tokens=draw(st.one_of(st.none(), st.integers(0, total + 10))),
        keep_tail_share=draw(st.sampled_from([0.0, 0.3])),
        tail_at_user=draw(st.booleans()),
        keep_user_tokens=draw(st.one_of(st.none(), st.integers(0, 200))),
    )
    return analysis, s, at_call


def live_units_split(p) -> list[int]:
    """Tool exchanges some of whose messages are sent and some not (among those the call saw)."""
    gone = (Status.DROPPED, Status.SUMMARIZED)
    split = []
    for unit in p.view.units:
        if unit.kind is not UnitKind.TOOL_EXCHANGE:
            continue
        members = [i for i in unit.indices if i < p.stop]
        states = {p.status[i] in gone for i in members}
        if len(states) > 1:
            split.append(unit.id)
    return split


def current_turn_indices(view, stop: int, current: int) -> list[int]:
    """The current turn whole, with the exchange whose results message opens it (its call sits
    in the turn before): what turn-based strategies (tool_pruning, sliding_window) keep."""
    out = {i for i in range(stop) if view.roles[i] == "system" or view.turn_of[i] == current}
    opening = next((t.user_index for t in view.turns if t.number == current), None)
    if opening is not None and opening < stop and view.result_ids[opening]:
        out.update(i for i in view.units[view.unit_of[opening]].indices if i < stop)
    return sorted(out)


def protected_indices(view, stop: int, current: int) -> list[int]:
    """What no strategy may drop: system messages; of the current turn, its prompt with what
    the harness sent before the first reply, and its latest exchange (the last reply to the end
    of the history); the exchange whose results the prompt carries; every tool exchange any of
    these is part of."""
    turn = [i for i in range(stop) if view.turn_of[i] == current]
    replies = [i for i in turn if view.roles[i] == "assistant"]
    out = {i for i in range(stop) if view.roles[i] == "system"}
    if turn:
        out.update(i for i in turn if not replies or i < replies[0])
        out.update(range(replies[-1] if replies else turn[0], stop))
    opening = next((t.user_index for t in view.turns if t.number == current), None)
    if opening is not None and opening < stop and view.result_ids[opening]:
        out.update(i for i in view.units[view.unit_of[opening]].indices if i < stop)
    for i in list(out):
        out.update(j for j in view.units[view.unit_of[i]].indices if j < stop)
    return sorted(out)


#: Strategies that may drop messages of the current turn (never the protected ones).
IN_TURN = {"fifo", "summarize", "compact", "strands_sliding_window"}


def check_common(analysis, s: Settings, at_call, names, p, keeps_current_turn: bool = True) -> None:
    view = analysis.view
    gone = (Status.DROPPED, Status.SUMMARIZED)
    # System messages and what the current turn needs (its prompt, its latest exchange) are
    # always sent; strategies that keep turns whole keep the rest of the current turn too.
    for i in protected_indices(view, p.stop, p.current_turn):
        if keeps_current_turn or view.roles[i] == "system":
            assert p.status[i] not in gone, (i, p.status[i], p.reasons[i])
    if keeps_current_turn and not IN_TURN & set(names):
        for i in current_turn_indices(view, p.stop, p.current_turn):
            assert p.status[i] not in gone, (i, p.status[i], p.reasons[i])
    # Every figure adds up: the running total, the decisions, and the materialised messages.
    decisions = p.decisions()
    assert p.tokens_after == analysis.table.overhead + sum(d.tokens_after for d in decisions)
    counter, profile = get_counter("approx"), get_profile(analysis.table.profile)
    messages = p.messages_after()
    assert p.tokens_after == analysis.table.overhead + sum(count_message(m, counter, profile).total for m in messages)
    assert len(messages) == sum(1 for d in decisions if d.status not in gone)
    # Same input, same plan.
    again = plan(view, analysis.table, names, s, at_call)
    assert again.sequence == p.sequence and again.status == p.status and again.edits == p.edits
    assert [again.reason(i) for i in range(again.stop)] == [p.reason(i) for i in range(p.stop)]
    # The fast validator agrees with validating the materialised messages.
    for provider, found in validate_plan(p).items():
        slow = validate_messages(messages, provider)
        assert [(v.index, v.source, v.message) for v in found] == [(v.index, v.source, v.message) for v in slow]


@PROPERTY_SETTINGS
@given(cases(), st.sampled_from(PIPELINES))
def test_pipelines_keep_pairs_system_and_current_turn_and_stay_valid(case, names):
    analysis, s, at_call = case
    p = plan(analysis.view, analysis.table, names, s, at_call)
    check_common(analysis, s, at_call, names, p)
    assert live_units_split(p) == []
    # Valid for both providers; only a history with nothing to send is (rightly) reported empty.
    sent_roles = [analysis.view.roles[i] if type(i) is int else i.role for i in p.sequence]
    expect_empty = {"openai": not sent_roles, "anthropic": all(r == "system" for r in sent_roles)}
    for provider, found in validate_plan(p).items():
        assert [v.rule for v in found] == (["empty_history"] if expect_empty[provider] else []), found
    w, _, _ = run(analysis.view, analysis.table, names, s, at_call)
    assert w.total() == w.recount()


#: Strategies that may take the current turn too, as the agents they model do.
COMPACTING = [
    ("compact",),
    ("strands_sliding_window",),
    ("mask_tool_outputs", "compact"),
    ("thinking_prune", "last_n_observations", "compact"),
]


@PROPERTY_SETTINGS
@given(cases(), st.sampled_from(COMPACTING))
def test_compaction_keeps_pairs_and_system_and_stays_valid(case, names):
    analysis, s, at_call = case
    p = plan(analysis.view, analysis.table, names, s, at_call)
    check_common(analysis, s, at_call, names, p, keeps_current_turn=False)
    assert live_units_split(p) == []
    sent_roles = [analysis.view.roles[i] if type(i) is int else i.role for i in p.sequence]
    expect_empty = {"openai": not sent_roles, "anthropic": all(r == "system" for r in sent_roles)}
    for provider, found in CheckedPlan.of(p).violations.items():
        assert [v.rule for v in found] == (["empty_history"] if expect_empty[provider] else []), found
    w, _, _ = run(analysis.view, analysis.table, names, s, at_call)
    assert w.total() == w.recount()


@PROPERTY_SETTINGS
@given(cases(), st.sampled_from([("fifo",), ("summarize",), ("truncate_results", "summarize", "fifo"), ("tool_pruning", "fifo")]))
def test_budget_is_met_whenever_it_covers_system_and_current_turn(case, names):
    analysis, s, at_call = case
    s = s.model_copy(update={"min_history_messages": 0})
    view, table = analysis.view, analysis.table
    stop = view.call_for(at_call).message_index if at_call is not None else len(view)
    current = view.calls[at_call - 1].turn if at_call is not None else (view.turn_of[-1] if stop else 0)
    floor = table.overhead + sum(table.totals[i] for i in protected_indices(view, stop, current))
    if "summarize" in names:  # room for the summary message (system framing + its cap)
        floor += count_message(Message(index=-1, role="system", content=[TextBlock(text="")]), get_counter("approx"), get_profile(table.profile)).total
        floor += s.summary_tokens
    budget = s.budget if s.budget is not None else floor
    s = s.model_copy(update={"budget": max(budget, floor)})
    p = plan(view, table, names, s, at_call)
    assert p.tokens_after <= s.budget, (p.tokens_before, p.tokens_after, s.budget, floor)


@PROPERTY_SETTINGS
@given(cases())
def test_naive_fifo_keeps_system_and_current_turn_and_reports_every_orphan(case):
    analysis, s, at_call = case
    s = s.model_copy(update={"pair_safe": False})
    names = ("fifo",)
    p = plan(analysis.view, analysis.table, names, s, at_call)
    check_common(analysis, s, at_call, names, p)
    view = analysis.view
    live = [i for i in p.sequence if type(i) is int]
    live_calls = {c for i in live for c in view.call_ids[i]}
    orphans = {i for i in live if any(r not in live_calls for r in view.result_ids[i])}
    assert {v.source for v in validate_plan(p)["openai"] if v.rule == "orphan_result"} == orphans
    assert {v.source for v in validate_plan(p)["anthropic"] if v.rule == "orphan_result"} == orphans


@PROPERTY_SETTINGS
@given(cases(), st.sampled_from([(), ("tool_pruning",), ("summarize",), ("truncate_results",)]))
def test_fifo_fast_path_matches_the_unit_by_unit_loop(case, before):
    from inspector.strategies import fifo as fifo_module
    from inspector.strategies.pipeline import STRATEGIES, start

    analysis, s, at_call = case
    outcomes = []
    for drop in (fifo_module._drop_units_fast, fifo_module._drop_units_general):
        w = start(analysis.view, analysis.table, s, at_call)
        for name in before:
            STRATEGIES[name].apply(w)
        if s.budget is not None and w.running > s.budget:
            drop(w, s.budget)
        outcomes.append((w.order, w.status, [str(r) for r in w.reasons], w.running, bytes(w.live)))
        assert w.running == w.recount()
    assert outcomes[0] == outcomes[1]


@PROPERTY_SETTINGS
@given(cases())
def test_working_protects_exactly_system_messages_the_prompt_and_the_latest_exchange(case):
    from inspector.strategies.pipeline import start

    analysis, s, at_call = case
    w = start(analysis.view, analysis.table, s, at_call)
    expected = protected_indices(analysis.view, w.stop, w.current_turn)
    assert [i for i in range(w.stop) if w.protected(i)] == expected


@PROPERTY_SETTINGS
@given(cases(), st.sampled_from([("fifo",), ("summarize",), ("clear_tool_uses",), ("mask_tool_outputs",), ("clear_tool_uses", "fifo")]))
def test_in_turn_strategies_never_drop_or_edit_what_the_call_needs(case, names):
    analysis, s, at_call = case
    s = s.model_copy(update={"min_history_messages": 0, "mask_protect_turns": 0, "mask_protect_tokens": 0, "keep": 0})
    p = plan(analysis.view, analysis.table, names, s, at_call)
    protected = protected_indices(analysis.view, p.stop, p.current_turn)
    assert [i for i in protected if p.status[i] is not Status.KEPT or i in p.edits] == []
    assert live_units_split(p) == []
    assert all(found == [] or [v.rule for v in found] == ["empty_history"] for found in validate_plan(p).values())
