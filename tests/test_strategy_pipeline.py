"""The pipeline runner, the registry and the Plan API shared by every strategy."""

from __future__ import annotations

import re

import pytest

import inspector
from inspector.strategies import STRATEGIES, Settings, Status, UnknownStrategy, parse_pipeline, plan
from inspector.strategies.pipeline import run

from strategy_builders import SessionBuilder, seeds_session, small_session, text_of

BUILTIN = [
    "fifo", "sliding_window", "summarize", "truncate_results", "tool_pruning", "clear_tool_uses",
    "mask_tool_outputs", "last_n_observations", "thinking_prune", "compact", "trim_messages", "strands_sliding_window",
]


def test_registry_lists_every_builtin_with_params_and_a_two_sentence_summary():
    assert list(STRATEGIES) == BUILTIN
    for name, strategy in STRATEGIES.items():
        assert strategy.name == name
        assert set(strategy.params) <= set(Settings.model_fields)
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", strategy.summary.strip()) if s]
        assert len(sentences) == 2, (name, sentences)


def test_parse_pipeline():
    assert parse_pipeline("tool_pruning, sliding_window") == ("tool_pruning", "sliding_window")
    assert parse_pipeline(["fifo"]) == ("fifo",)
    assert parse_pipeline("none") == () == parse_pipeline("")
    with pytest.raises(UnknownStrategy, match=r"unknown strategy 'lifo'; choose from: fifo, sliding_window"):
        parse_pipeline("fifo,lifo")


def test_empty_pipeline_keeps_everything():
    a = small_session().analyze()
    p = inspector.plan(a)
    assert p.tokens_before == p.tokens_after == 1064 and p.saving == 0 and p.saving_pct == 0.0
    assert all(d.status is Status.KEPT and d.reason == "kept" for d in p.decisions())
    assert p.stages == [] and p.pipeline == ()


def test_stages_record_each_strategys_totals():
    a = small_session().analyze()
    p = inspector.plan(a, "tool_pruning,sliding_window", window_turns=1)
    assert [(s.strategy, s.tokens_before, s.tokens_after) for s in p.stages] == [
        ("tool_pruning", 1064, 106),
        ("sliding_window", 106, 26),
    ]
    assert p.stages[1].params == {"window_mode": "turns", "window_turns": 1, "window_messages": 40}
    assert p.saving == 1038 and p.saving_pct == pytest.approx(100 * 1038 / 1064)
    # The second stage's reasons belong to it; the first stage's stay.
    assert p.decision(2).by == "tool_pruning" and p.decision(4).by == "sliding_window"


def test_at_call_sees_only_the_messages_before_the_call():
    a = small_session().analyze()
    p = inspector.plan(a, at_call=2)  # call 2 is message 4
    assert p.stop == 4 and p.call.message_index == 4 and p.current_turn == 1
    assert len(p.decisions()) == 4
    assert p.tokens_before == 3 + 9 + 14 + 16 + 504
    assert inspector.plan(a, at_call=-1).stop == 10  # the last call
    with pytest.raises(ValueError, match="model call 6 out of range: the session has 5 calls"):
        inspector.plan(a, at_call=6)


def test_default_call_is_the_next_one_after_the_whole_session():
    a = small_session().analyze()
    p = inspector.plan(a)
    assert p.call is None and p.stop == 12 and p.current_turn == 3


def test_decisions_place_inserted_messages_where_they_are_sent():
    a = small_session().analyze()
    p = inspector.plan(a, "summarize,fifo", budget=600)
    kinds = [(d.index, d.status.value) for d in p.decisions()]
    assert kinds[:5] == [(0, "kept"), (None, "inserted"), (1, "summarized"), (2, "summarized"), (3, "summarized")]
    assert len(p.inserted) == 1


def test_fifo_after_summarize_keeps_the_inserted_summary():
    a = small_session().analyze()
    p = inspector.plan(a, "summarize,fifo", budget=120, min_history_messages=0)
    # summarize replaced everything before the current turn (1-10) by a 108-token summary; fifo
    # then finds nothing it may drop: the system prompt, the summary and the current turn remain.
    assert len(p.inserted) == 1 and p.inserted[0].tokens == 108
    assert p.stages[1].tokens_before == p.stages[1].tokens_after == p.tokens_after == 9 + 108 + 14 + 3
    assert p.messages_after()[1].text.startswith("[Earlier conversation summary]:")


def test_running_total_matches_a_recount_for_every_strategy_and_pipeline():
    a = seeds_session().analyze()
    settings = Settings(budget=900, window_turns=1, max_result_tokens=100, trigger=0, keep=1, clear_tool_inputs=True)
    pipelines = [[name] for name in BUILTIN] + [
        ["tool_pruning", "sliding_window"],
        ["truncate_results", "summarize", "fifo"],
        ["clear_tool_uses", "truncate_results"],
    ]
    for names in pipelines:
        for at_call in (None, 3, 7, 11):
            w, _, _ = run(a.view, a.table, tuple(names), settings, at_call)
            assert w.total() == w.recount(), (names, at_call)
            assert [s for s in w.order if type(s) is int] == [i for i in range(w.stop) if w.live[i]]


def test_plan_never_modifies_the_session():
    b = small_session()
    a = b.analyze()
    before = a.session.model_dump()
    for name in BUILTIN:
        p = plan(a.view, a.table, name, Settings(budget=0, trigger=0, keep=0, max_result_tokens=5, clear_tool_inputs=True))
        p.messages_after()
    assert a.session.model_dump() == before


def test_library_plan_takes_a_session_too():
    b = SessionBuilder()
    b.user("hello world")
    b.answer("hi")
    b.user("bye")
    p = inspector.plan(b.build(), "fifo", budget=0, min_history_messages=0, encoding="cl100k_base")
    # cl100k: "hello world" is 2 tokens + 3 + 1 ("user") framing = 6; "hi" 1 + 3 + 1 = 5.
    assert p.table.totals == [6, 5, 5]
    assert [d.index for d in p.decisions() if d.status is Status.DROPPED] == [0, 1]
    assert p.tokens_after == 5 + 3


def test_working_helpers_keep_the_invariants():
    a = small_session().analyze()
    w, _, _ = run(a.view, a.table, (), Settings())
    w.drop({1, 2, 3}, "test", "because")
    assert w.total() == w.recount() == 1064 - 534
    assert w.order[:2] == [0, 4] and w.status[2] is Status.DROPPED and w.reasons[2] == "because"
    w.drop([], "test", "nothing")
    assert w.total() == 530


def test_sessions_without_messages_or_calls():
    b = SessionBuilder()
    empty = b.analyze()
    p = inspector.plan(empty, ",".join(BUILTIN), budget=0, trigger=0)
    assert p.decisions() == [] and p.tokens_after == 3
    assert p.violations["openai"][0].rule == "empty_history"
    b.system("Only a system prompt.")
    b.user(text_of(3))
    # compact and trim_messages may take the current turn too (as the agents they model do)
    protecting = [s for s in BUILTIN if s not in ("compact", "trim_messages", "strands_sliding_window")]
    p = inspector.plan(b.analyze(), ",".join(protecting), budget=0, trigger=0, window_turns=0)
    assert [d.status for d in p.decisions()] == [Status.KEPT, Status.KEPT]
