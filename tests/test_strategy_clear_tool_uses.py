"""clear_tool_uses: Anthropic's clear_tool_uses_20250919 semantics on small sessions."""

from __future__ import annotations

import pytest

import inspector
from inspector.strategies import Status

from strategy_builders import SessionBuilder, small_session, text_of

# small_session: tool uses are the calls in 2 (read_file, result 3: 500 tokens), 6 (read_file,
# result 7: 300) and 8 (bash, result 9: 100). "[cleared]" is 3 approx tokens; a tool message
# with it costs 7.


def cleared(plan) -> list[int]:
    return [d.index for d in plan.decisions() if d.status is Status.CLEARED]


@pytest.fixture(scope="module")
def small():
    return small_session().analyze()


def test_clears_all_but_the_last_keep_tool_uses_once_over_the_trigger(small):
    plan = inspector.plan(small, "clear_tool_uses", trigger=1000, keep=1)
    assert cleared(plan) == [3, 7]
    assert plan.decision(3).tokens_after == 7
    assert plan.tokens_after == 1064 - 504 - 304 + 7 + 7 == 270
    assert plan.decision(3).reason == (
        "cleared by clear_tool_uses: read_file result replaced by [cleared] "
        "while 1,064 > trigger 1,000 (keeps the last 1 tool uses)"
    )
    messages = plan.messages_after()
    assert messages[3].tool_results[0].content == "[cleared]"
    assert messages[3].tool_results[0].tool_call_id == "call_1"  # the pair stays
    assert plan.valid == {"openai": True, "anthropic": True}


def test_trigger_must_be_exceeded(small):
    assert cleared(inspector.plan(small, "clear_tool_uses", trigger=1064, keep=0)) == []
    assert cleared(inspector.plan(small, "clear_tool_uses", trigger=1063, keep=0)) == [3, 7, 9]
    assert cleared(inspector.plan(small, "clear_tool_uses", keep=0)) == []  # default trigger 100,000


def test_default_keep_of_three_leaves_three_uses(small):
    assert cleared(inspector.plan(small, "clear_tool_uses", trigger=0)) == []


def test_exclude_tools_are_never_cleared_but_count_for_keep(small):
    plan = inspector.plan(small, "clear_tool_uses", trigger=0, keep=1, exclude_tools=("read_file",))
    assert cleared(plan) == []  # the only bash use is the one kept
    plan = inspector.plan(small, "clear_tool_uses", trigger=0, keep=0, exclude_tools=("read_file",))
    assert cleared(plan) == [9]
    assert plan.tokens_after == 1064 - 104 + 7


def test_clear_at_least_is_all_or_nothing(small):
    # Clearing 3 and 7 frees (504 - 7) + (304 - 7) = 794 tokens.
    assert cleared(inspector.plan(small, "clear_tool_uses", trigger=0, keep=1, clear_at_least=794)) == [3, 7]
    plan = inspector.plan(small, "clear_tool_uses", trigger=0, keep=1, clear_at_least=795)
    assert cleared(plan) == [] and plan.tokens_after == 1064


def test_clear_tool_inputs_clears_the_call_arguments_too(small):
    plan = inspector.plan(small, "clear_tool_uses", trigger=0, keep=1, clear_tool_inputs=True)
    assert cleared(plan) == [2, 3, 6, 7]
    # read_file + '{"path": "a.py"}' = 3 + 4 tokens -> read_file + "{}" = 3 + 1.
    assert plan.decision(2).tokens_after == 16 - 3
    assert plan.tokens_after == 270 - 3 - 3
    message = plan.messages_after()[2]
    assert message.tool_calls[0].arguments == "{}" and message.tool_calls[0].id == "call_1"
    assert plan.decision(2).reason == (
        "cleared by clear_tool_uses: read_file input replaced by {} "
        "while 1,064 > trigger 0 (keeps the last 1 tool uses)"
    )
    assert plan.valid == {"openai": True, "anthropic": True}


def test_keep_counts_tool_uses_not_messages():
    b = SessionBuilder(id_prefix="toolu_")
    b.user(text_of(10))
    _, first = b.assistant("", [("read_file", '{"path": "a"}')])
    b.results([(first[0], text_of(100))])
    _, batch = b.assistant("", [("read_file", '{"path": "b"}'), ("read_file", '{"path": "c"}'), ("bash", "{}")])
    b.results([(batch[0], text_of(100)), (batch[1], text_of(100)), (batch[2], text_of(100))])
    b.answer(text_of(5))
    b.user(text_of(5))
    a = b.analyze()
    # keep=3: the parallel batch of three uses is the whole keep; only the first use is cleared.
    plan = inspector.plan(a, "clear_tool_uses", trigger=0)
    assert cleared(plan) == [2]
    # keep=2: the first block of the batch message is cleared too, the other two are not.
    plan = inspector.plan(a, "clear_tool_uses", trigger=0, keep=2)
    assert cleared(plan) == [2, 4]
    assert [e.block for e in plan.edits[4]] == [0]
    assert [r.content == "[cleared]" for r in plan.messages_after()[4].tool_results] == [True, False, False]
    assert plan.valid == {"openai": True, "anthropic": True}


def test_results_no_bigger_than_the_placeholder_are_left_alone():
    b = SessionBuilder()
    b.user(text_of(10))
    b.exchange("ping", "{}", "ok")
    b.exchange("ping", "{}", text_of(50))
    b.answer(text_of(5))
    b.user(text_of(5))
    a = b.analyze()
    assert cleared(inspector.plan(a, "clear_tool_uses", trigger=0, keep=0)) == [4]


def test_clearing_after_truncation_uses_the_truncated_size(small):
    plan = inspector.plan(small, "truncate_results,clear_tool_uses", max_result_tokens=50, trigger=0, keep=2)
    assert cleared(plan) == [3]
    assert [e.kind for e in plan.edits[3]] == ["truncate", "clear"]
    assert plan.edits[3][1].tokens_before == 58
    assert plan.messages_after()[3].tool_results[0].content == "[cleared]"


def test_reused_call_ids_pair_each_result_with_its_own_call():
    """Agents that number calls per turn send ``call_0`` in every turn: each result answers the
    latest call with its id, so every old result is cleared, not only the first one."""
    b = SessionBuilder()
    b.system("You are helpful.")
    for k in range(4):
        b.user(text_of(10, "q"))
        a, _ = b.assistant("", [("read_file", '{"path": "a.py"}')])
        b.messages[a].content[0].id = "call_0"
        b.tool("call_0", text_of(200, "r"))
        b.answer(text_of(10, "a"))
    b.user(text_of(10, "q"))
    a = b.analyze()
    plan = inspector.plan(a, "clear_tool_uses", trigger=100, keep=1)
    assert cleared(plan) == [3, 7, 11]
    assert [plan.decision(i).tokens_after for i in (3, 7, 11, 15)] == [7, 7, 7, 204]
    assert plan.tokens_after == a.table.prefix[-1] + 3 - 3 * (204 - 7)
    # Anthropic rejects a tool_use id used twice in one request ("`tool_use` ids must be unique")
    assert plan.valid == {"openai": True, "anthropic": False}
    assert {v.rule for v in plan.violations["anthropic"]} == {"duplicate_tool_id"}
