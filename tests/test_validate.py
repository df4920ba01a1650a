"""Provider validity rules: exact error texts and indices as each provider's request lays them out."""

from __future__ import annotations

import pytest

import inspector
from inspector.model import Message, TextBlock, ToolCallBlock, ToolResultBlock
from inspector.units import build_view
from inspector.providers.validate import (
    ANTHROPIC_BAD_ID,
    ANTHROPIC_DUPLICATE_ID,
    ANTHROPIC_EMPTY,
    ANTHROPIC_MISSING,
    ANTHROPIC_NO_CONTENT,
    ANTHROPIC_ORPHAN,
    ANTHROPIC_SYSTEM,
    OPENAI_DUPLICATE,
    OPENAI_EMPTY,
    OPENAI_MISSING,
    OPENAI_NULL,
    OPENAI_ORPHAN,
    OPENAI_UNKNOWN_ID,
    validate_messages,
    validate_plan,
    validate_session,
)

from strategy_builders import SessionBuilder, small_session, text_of


def brief(violations) -> list[tuple]:
    return [(v.index, v.source, v.rule, v.message) for v in violations]


def msg(index: int, role: str, *blocks) -> Message:
    return Message(index=index, role=role, content=list(blocks))


def call(cid: str, name: str = "read_file") -> ToolCallBlock:
    return ToolCallBlock(id=cid, name=name, arguments="{}")


def result(cid: str, text: str = "ok") -> ToolResultBlock:
    return ToolResultBlock(tool_call_id=cid, content=text)


def text(t: str) -> TextBlock:
    return TextBlock(text=t)


def test_error_texts_are_the_providers_own():
    assert OPENAI_ORPHAN == (
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
    )
    assert ANTHROPIC_ORPHAN.format(2, 0, "toolu_01") == (
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_01. "
        "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
    )


def test_valid_history_has_no_violations():
    a = small_session().analyze()
    assert validate_session(a.view) == {"openai": [], "anthropic": []}
    plan = inspector.plan(a)
    assert plan.violations == {"openai": [], "anthropic": []}
    assert plan.valid == {"openai": True, "anthropic": True}


def test_orphan_tool_result_at_the_front():
    messages = [msg(0, "system", text("sys")), msg(3, "tool", result("call_1")), msg(4, "assistant", text("done"))]
    assert brief(validate_messages(messages, "openai")) == [(1, 3, "orphan_result", OPENAI_ORPHAN)]
    # Anthropic: the system message moves to `system`, so the result is messages.0.
    assert brief(validate_messages(messages, "anthropic")) == [
        (0, 3, "orphan_result", ANTHROPIC_ORPHAN.format(0, 0, "call_1"))
    ]


def test_result_for_an_id_the_previous_assistant_did_not_call():
    messages = [
        msg(0, "user", text("hi")),
        msg(1, "assistant", call("call_1")),
        msg(2, "tool", result("call_1")),
        msg(3, "tool", result("call_9")),
        msg(4, "assistant", text("done")),
    ]
    assert brief(validate_messages(messages, "openai")) == [
        (3, 3, "orphan_result", OPENAI_UNKNOWN_ID.format("call_9"))
    ]
    # Anthropic merges the two tool messages into one user message: call_9 is its block 1.
    assert brief(validate_messages(messages, "anthropic")) == [
        (2, 3, "orphan_result", ANTHROPIC_ORPHAN.format(2, 1, "call_9"))
    ]


def test_missing_results_of_a_parallel_batch():
    messages = [
        msg(0, "user", text("hi")),
        msg(1, "assistant", call("call_1"), call("call_2")),
        msg(2, "tool", result("call_1")),
        msg(3, "user", text("next")),
    ]
    assert brief(validate_messages(messages, "openai")) == [
        (1, 1, "missing_result", OPENAI_MISSING.format("call_2"))
    ]
    assert brief(validate_messages(messages, "anthropic")) == [
        (1, 1, "missing_result", ANTHROPIC_MISSING.format(1, "call_2"))
    ]


def test_user_message_between_a_call_and_its_result():
    messages = [
        msg(0, "user", text("hi")),
        msg(1, "assistant", call("call_1")),
        msg(2, "user", text("wait")),
        msg(3, "tool", result("call_1")),
    ]
    assert brief(validate_messages(messages, "openai")) == [
        (1, 1, "missing_result", OPENAI_MISSING.format("call_1")),
        (3, 3, "orphan_result", OPENAI_ORPHAN),
    ]
    assert brief(validate_messages(messages, "anthropic")) == [
        (1, 1, "missing_result", ANTHROPIC_MISSING.format(1, "call_1")),
        (3, 3, "orphan_result", ANTHROPIC_ORPHAN.format(3, 0, "call_1")),
    ]


def test_history_ending_with_an_unanswered_call():
    messages = [msg(0, "user", text("hi")), msg(1, "assistant", call("call_1"))]
    assert brief(validate_messages(messages, "openai")) == [(1, 1, "missing_result", OPENAI_MISSING.format("call_1"))]
    assert brief(validate_messages(messages, "anthropic")) == [
        (1, 1, "missing_result", ANTHROPIC_MISSING.format(1, "call_1"))
    ]


def test_anthropic_style_results_with_text_use_content_positions():
    messages = [
        msg(0, "user", text("hi")),
        msg(1, "assistant", text("Looking."), call("toolu_1")),
        msg(2, "user", result("toolu_1"), result("toolu_7"), text("<reminder/>")),
    ]
    assert brief(validate_messages(messages, "anthropic")) == [
        (2, 2, "orphan_result", ANTHROPIC_ORPHAN.format(2, 1, "toolu_7"))
    ]
    # OpenAI gets one tool message per result, then a user message with the text.
    assert brief(validate_messages(messages, "openai")) == [
        (3, 2, "orphan_result", OPENAI_UNKNOWN_ID.format("toolu_7"))
    ]


def test_empty_content():
    """OpenAI rejects null content (except on an assistant message with tool calls), not "": the
    rule follows what the exporter writes. Anthropic rejects empty messages but a final one."""
    from inspector.providers import openai as openai_chat
    from inspector.model import ThinkingBlock

    messages = [msg(0, "user", text("hi")), msg(1, "assistant"), msg(2, "user", text(""))]
    assert [m["content"] for m in openai_chat.dump_messages(messages, keep_extra=False)] == ["hi", "", ""]
    assert validate_messages(messages, "openai") == []
    assert brief(validate_messages(messages, "anthropic")) == [
        (1, 1, "empty_content", ANTHROPIC_NO_CONTENT.format(1)),
        (2, 2, "empty_content", ANTHROPIC_NO_CONTENT.format(2)),
    ]
    # Recorded as null: written as null, rejected by OpenAI; thinking is not sent to OpenAI.
    null = [
        msg(0, "user", text("hi")),
        Message(index=1, role="assistant", content=[], content_form="null"),
        msg(2, "user", text("again")),
        Message(index=3, role="assistant", content=[ThinkingBlock(thinking="hm")], content_form="null"),
        msg(4, "user", text("and")),
        Message(index=5, role="assistant", content=[ThinkingBlock(thinking="hm")]),
        msg(6, "user", text("last")),
    ]
    assert [m["content"] for m in openai_chat.dump_messages(null, keep_extra=False)] == ["hi", None, "again", None, "and", "", "last"]
    assert brief(validate_messages(null, "openai")) == [
        (1, 1, "empty_content", OPENAI_NULL),
        (3, 3, "empty_content", OPENAI_NULL),
    ]
    # Anthropic: only message 1 has no content (thinking blocks are content there).
    assert brief(validate_messages(null, "anthropic")) == [(1, 1, "empty_content", ANTHROPIC_NO_CONTENT.format(1))]
    from inspector.model import Session

    plan = inspector.plan(inspector.analyze(Session(format="inspector", messages=null), "approx"))
    assert {p: brief(v) for p, v in plan.violations.items()} == {
        p: brief(validate_messages(null, p)) for p in ("openai", "anthropic")
    }
    # A final empty assistant message is allowed by Anthropic (a prefill); OpenAI takes "".
    tail = [msg(0, "user", text("hi")), msg(1, "assistant")]
    assert validate_messages(tail, "anthropic") == []
    assert validate_messages(tail, "openai") == []


def test_a_tool_message_recorded_with_null_content_is_rejected_by_openai():
    messages = [
        msg(0, "user", text("hi")),
        msg(1, "assistant", call("call_1")),
        Message(index=2, role="tool", content=[result("call_1", "")], content_form="null"),
        msg(3, "assistant", text("done")),
    ]
    from inspector.providers import openai as openai_chat

    assert openai_chat.dump_messages(messages, keep_extra=False)[2] == {"role": "tool", "tool_call_id": "call_1", "content": None}
    assert brief(validate_messages(messages, "openai")) == [(2, 2, "empty_content", OPENAI_NULL)]
    assert validate_messages(messages, "anthropic") == []


def test_assistant_with_tool_calls_and_no_text_is_fine():
    messages = [msg(0, "user", text("hi")), msg(1, "assistant", call("c")), msg(2, "tool", result("c"))]
    assert validate_messages(messages, "openai") == [] and validate_messages(messages, "anthropic") == []


def test_empty_history():
    assert brief(validate_messages([], "openai")) == [(None, None, "empty_history", OPENAI_EMPTY)]
    assert brief(validate_messages([], "anthropic")) == [(None, None, "empty_history", ANTHROPIC_EMPTY)]
    # Only a system prompt: fine for OpenAI, but Anthropic's messages list is then empty.
    only_system = [msg(0, "system", text("sys"))]
    assert validate_messages(only_system, "openai") == []
    assert brief(validate_messages(only_system, "anthropic")) == [(None, None, "empty_history", ANTHROPIC_EMPTY)]


def test_system_messages_are_extracted_for_anthropic_unless_sent_as_is():
    messages = [msg(0, "system", text("sys")), msg(1, "user", text("hi")), msg(2, "system", text("mid")), msg(3, "assistant", text("ok"))]
    assert validate_messages(messages, "anthropic") == []
    assert brief(validate_messages(messages, "anthropic", extract_system=False)) == [
        (0, 0, "system_role", ANTHROPIC_SYSTEM),
        (2, 2, "system_role", ANTHROPIC_SYSTEM),
    ]
    assert validate_messages(messages, "openai") == []


def test_unknown_provider():
    with pytest.raises(ValueError, match="unknown provider 'bedrock'"):
        validate_messages([], "bedrock")  # type: ignore[arg-type]


def test_session_orphans_are_reported():
    b = SessionBuilder()
    b.user(text_of(5))
    b.tool("call_404", "stray result")
    b.answer("ok")
    v = validate_session(build_view(b.build()))
    assert brief(v["openai"]) == [(1, 1, "orphan_result", OPENAI_ORPHAN)]
    assert brief(v["anthropic"]) == [(1, 1, "orphan_result", ANTHROPIC_ORPHAN.format(1, 0, "call_404"))]


PIPELINES = [
    ("fifo", {"budget": 1040, "pair_safe": False}),
    ("fifo", {"budget": 600}),
    ("summarize", {"budget": 600}),
    ("tool_pruning", {}),
    ("clear_tool_uses", {"trigger": 0, "keep": 1, "clear_tool_inputs": True}),
    ("truncate_results,sliding_window", {"max_result_tokens": 10, "window_turns": 2}),
]


@pytest.mark.parametrize("pipeline,settings", PIPELINES)
def test_plan_validation_agrees_with_validating_the_materialised_messages(pipeline, settings):
    a = small_session().analyze()
    for at_call in (None, 2, 4):
        plan = inspector.plan(a, pipeline, at_call=at_call, **settings)
        fast = validate_plan(plan)
        messages = plan.messages_after()
        for provider in ("openai", "anthropic"):
            assert brief(fast[provider]) == brief(validate_messages(messages, provider))


def test_openai_layout_matches_the_exporter_for_blank_text_and_thinking_beside_results():
    """The exporter sends no user message for blank text or thinking next to tool results, so the
    validator's messages.N must not count one either."""
    from inspector.providers.export import export_request
    from inspector.model import Session, ThinkingBlock

    messages = [
        msg(0, "user", text("q")),
        msg(1, "assistant", call("call_1")),
        Message(index=2, role="user", content=[result("call_1"), text(" \n"), ThinkingBlock(thinking="hm")], content_form="blocks"),
        msg(3, "assistant", call("call_2")),
    ]
    plan = inspector.plan(inspector.analyze(Session(format="inspector", messages=messages), "approx"))
    body = export_request(plan, "openai")
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert brief(plan.violations["openai"]) == [(3, 3, "missing_result", OPENAI_MISSING.format("call_2"))]
    assert brief(validate_messages(messages, "openai")) == brief(plan.violations["openai"])


def test_a_message_that_answers_and_calls_exports_its_calls_as_an_assistant_message():
    """A message holding tool results and tool calls (a hand-made or damaged file; the hostile
    corpus made one from a Claude Code transcript) used to crash the OpenAI writer with
    "cannot write a ToolCallBlock as an OpenAI content part"; its calls now go out after the tool
    messages as the assistant call they are, its text as the user message beside the results."""
    from inspector.providers.openai import dump_messages

    messages = [
        msg(0, "user", text("q")),
        msg(1, "assistant", call("call_1")),
        Message(index=2, role="assistant", content=[result("call_1"), text("and"), call("call_2")], content_form="blocks"),
    ]
    dumped = dump_messages(messages, keep_extra=False)
    assert [(m["role"], m.get("tool_call_id"), [c["id"] for c in m.get("tool_calls") or []]) for m in dumped] == [
        ("user", None, []), ("assistant", None, ["call_1"]), ("tool", "call_1", []), ("user", None, []), ("assistant", None, ["call_2"]),
    ]
    assert dumped[3]["content"] == [{"type": "text", "text": "and"}]


def test_empty_and_duplicate_tool_ids():
    """Anthropic rejects a tool_use id that is empty (or has other characters than
    [a-zA-Z0-9_-]) and a tool_use id used twice in a request; OpenAI rejects two tool messages
    answering one id. The texts are the providers' own."""
    assert ANTHROPIC_BAD_ID.format(1, 1) == "messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
    assert ANTHROPIC_DUPLICATE_ID.format(3, 0) == "messages.3.content.0: `tool_use` ids must be unique"
    assert OPENAI_DUPLICATE.format("", 2, 3) == "Invalid parameter: Duplicate value for 'tool_call_id' of '', in messages[2] and messages[3]."
    empty = [
        msg(0, "user", text("two lookups")),
        msg(1, "assistant", text("Looking."), call(""), call("")),
        msg(2, "tool", result("")),
        msg(3, "tool", result("")),
    ]
    assert brief(validate_messages(empty, "anthropic")) == [
        (1, 1, "invalid_tool_id", ANTHROPIC_BAD_ID.format(1, 1)),
        (1, 1, "invalid_tool_id", ANTHROPIC_BAD_ID.format(1, 2)),
    ]
    assert brief(validate_messages(empty, "openai")) == [(3, 3, "duplicate_tool_id", OPENAI_DUPLICATE.format("", 2, 3))]
    reused = [
        msg(0, "user", text("again")),
        msg(1, "assistant", call("toolu_1")),
        msg(2, "tool", result("toolu_1")),
        msg(3, "assistant", call("toolu_1")),
        msg(4, "tool", result("toolu_1")),
    ]
    assert brief(validate_messages(reused, "anthropic")) == [(3, 3, "duplicate_tool_id", ANTHROPIC_DUPLICATE_ID.format(3, 0))]
    assert validate_messages(reused, "openai") == []  # each batch answers its own call
