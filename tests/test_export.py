"""Export: provider request bodies from plans, and the atomic, never-over-the-session write."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import inspector
from inspector.providers.export import ExportError, export_request, write_export
from inspector.formats import anthropic
from inspector.providers import anthropic as anthropic_wire, openai as openai_wire
from inspector.providers import validate
from inspector.providers.validate import validate_messages

from strategy_builders import small_session

SUMMARY_START = "[Earlier conversation summary]: (simulated offline summary of 3 earlier messages, turn 1)"


@pytest.fixture(scope="module")
def small():
    return small_session().analyze()


def test_anthropic_body_puts_system_prompt_and_summary_in_system(small):
    plan = inspector.plan(small, "summarize,truncate_results", budget=600, max_result_tokens=5)
    body = export_request(plan, "anthropic")
    assert [b["text"] for b in body["system"]][0] == "You are helpful."
    assert body["system"][1]["text"].startswith(SUMMARY_START)
    assert [m["role"] for m in body["messages"]] == ["assistant", "user", "assistant", "user", "assistant", "user", "assistant", "user"]
    assert body["messages"][2]["content"][0] == {"type": "tool_use", "id": "call_2", "name": "read_file", "input": {"path": "b.py"}}
    assert body["messages"][3]["content"][0]["content"] == "bbb bbb bbb bbb bbb \n[... truncated 295 tokens ...]"
    assert not any(m["role"] == "system" for m in body["messages"])
    assert validate_messages(plan.messages_after(), "anthropic") == []


def test_openai_body_keeps_the_pruned_history_in_order(small):
    plan = inspector.plan(small, "tool_pruning")
    body = export_request(plan, "openai")
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert body["messages"][0] == {"role": "system", "content": "You are helpful."}
    assert "tools" not in body


def test_cleared_results_and_inputs_are_exported(small):
    plan = inspector.plan(small, "clear_tool_uses", trigger=0, keep=2, clear_tool_inputs=True)
    body = export_request(plan, "openai")
    call = body["messages"][2]["tool_calls"][0]
    assert call["function"]["arguments"] == "{}" and call["id"] == "call_1"
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "call_1", "content": "[cleared]"}
    body = export_request(plan, "anthropic")
    assert body["messages"][1]["content"][0]["input"] == {}


def test_an_analysis_exports_unpruned(small):
    assert export_request(small, "openai") == openai_wire.dump_request(small.session, small.session.messages)
    assert export_request(small, "anthropic") == anthropic_wire.dump_request(small.session, small.session.messages)


def test_unknown_provider(small):
    with pytest.raises(ValueError, match="unknown provider 'gemini'"):
        export_request(small, "gemini")  # type: ignore[arg-type]


def test_write_export_is_atomic_and_leaves_no_temp_files(tmp_path, small):
    body = export_request(inspector.plan(small, "tool_pruning"), "anthropic")
    out = tmp_path / "out.json"
    out.write_text("old")
    written = write_export(body, out, tmp_path / "session.json")
    assert written == out.resolve()
    assert json.loads(out.read_text()) == body
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
    assert oct(out.stat().st_mode & 0o777) == "0o644"


def test_write_export_refuses_the_session_file(tmp_path):
    session = tmp_path / "session.json"
    session.write_text('{"messages": []}')
    for target in (session, tmp_path / "sub" / ".." / "session.json"):
        (tmp_path / "sub").mkdir(exist_ok=True)
        with pytest.raises(ExportError, match="refusing to write the export to .*it is the session file"):
            write_export({"messages": []}, target, session)
    link = tmp_path / "link.json"
    link.symlink_to(session)
    with pytest.raises(ExportError, match="it is the session file"):
        write_export({"messages": []}, link, session)
    hard = tmp_path / "hard.json"
    os.link(session, hard)
    with pytest.raises(ExportError, match="it is the session file"):
        write_export({"messages": []}, hard, session)
    assert session.read_text() == '{"messages": []}'


def test_write_export_refuses_directories_and_missing_directories(tmp_path):
    with pytest.raises(ExportError, match="it is a directory"):
        write_export({}, tmp_path, None)
    with pytest.raises(ExportError, match="does not exist"):
        write_export({}, tmp_path / "nope" / "out.json", None)


def test_write_export_cleans_up_when_serialising_fails(tmp_path):
    with pytest.raises(TypeError):
        write_export({"bad": object()}, tmp_path / "out.json", None)
    assert list(Path(tmp_path).iterdir()) == []


def interjection_before_results() -> inspector.Analysis:
    """A user message with typed text *before* its tool result (as some agents record it)."""
    from strategy_builders import SessionBuilder

    b = SessionBuilder(id_prefix="toolu_")
    b.system("sys")
    b.user("q1")
    _, ids = b.assistant("", [("read", "{}")])
    from inspector.model import TextBlock, ToolResultBlock

    b._add("user", [TextBlock(text="<system-reminder>note</system-reminder>"), ToolResultBlock(tool_call_id=ids[0], content="file body")], content_form="blocks")
    b.answer("a1")
    b.user("q2")
    return b.analyze()


def test_anthropic_export_lists_tool_results_before_other_content():
    a = interjection_before_results()
    plan = inspector.plan(a)
    body = export_request(plan, "anthropic")
    assert body["messages"][2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "file body"},
            {"type": "text", "text": "<system-reminder>note</system-reminder>"},
        ],
    }
    # The plan's validation describes this exported request: valid.
    assert plan.violations == {"openai": [], "anthropic": []}
    # Sent as is (no exporter), the order is reported at the result's own position.
    as_is = validate_messages(a.session.messages, "anthropic", extract_system=False)
    assert [(v.index, v.source, v.rule, v.message) for v in as_is] == [
        (0, 0, "system_role", validate.ANTHROPIC_SYSTEM),
        (3, 3, "results_not_first", "messages.3.content.1: `tool_result` blocks must come first in the content of a `user` message, before any text or other block."),
    ]
    # The exported body, read back and checked as sent, is valid.
    back = anthropic.session_from_document(body)
    assert validate_messages(back.messages, "anthropic", extract_system=True) == []
    assert [v.rule for v in validate_messages(back.messages, "anthropic", extract_system=False)] == ["system_role"]


def test_anthropic_round_trip_keeps_the_source_block_order():
    a = interjection_before_results()
    plain = anthropic_wire.dump_request(a.session)
    assert [b["type"] for b in plain["messages"][2]["content"]] == ["text", "tool_result"]


def test_orphan_result_after_text_is_content_0_exported_and_content_1_as_is():
    a = interjection_before_results()
    plan = inspector.plan(a, "fifo", budget=0, min_history_messages=3, pair_safe=False)
    # the naive loop drops 1 and 2 (the call): message 3's result is orphaned
    assert [d.index for d in plan.decisions() if d.status.value == "dropped"] == [1, 2]
    [v] = plan.violations["anthropic"]
    assert (v.index, v.source, v.rule) == (0, 3, "orphan_result")
    assert v.message == validate.ANTHROPIC_ORPHAN.format(0, 0, "toolu_1")
    as_is = validate_messages(plan.messages_after(), "anthropic", extract_system=False)
    assert [(v.index, v.rule, v.message) for v in as_is] == [
        (0, "system_role", validate.ANTHROPIC_SYSTEM),
        (1, "results_not_first", validate.ANTHROPIC_RESULTS_FIRST.format(1, 1)),
        (1, "orphan_result", validate.ANTHROPIC_ORPHAN.format(1, 1, "toolu_1")),
    ]


def screenshot_session() -> inspector.Analysis:
    from inspector.model import ImageBlock, Message, Session, TextBlock, ToolCallBlock, ToolResultBlock

    image = ImageBlock(media_type="image/png", source_kind="base64", data="iVBORw0KGgo=", width=512, height=512)
    messages = [
        Message(index=0, role="user", content=[TextBlock(text="take a screenshot")]),
        Message(index=1, role="assistant", content=[ToolCallBlock(id="call_1", name="screenshot", arguments="{}")]),
        Message(index=2, role="tool", content=[ToolResultBlock(tool_call_id="call_1", content=[image, TextBlock(text="screenshot taken")])]),
        Message(index=3, role="assistant", content=[ToolCallBlock(id="call_2", name="bash", arguments="{}")]),
    ]
    return inspector.analyze(Session(format="inspector", messages=messages), "approx")


def test_openai_export_moves_tool_result_images_into_a_user_message_after_the_batch():
    a = screenshot_session()
    plan = inspector.plan(a)
    body = export_request(plan, "openai")
    assert body["messages"][2:] == [
        {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "screenshot taken"}]},
        {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}]},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "call_2", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
    ]
    # The validator counts the moved images' message: the unanswered call is messages[4].
    expected = [(4, 3, "missing_result", validate.OPENAI_MISSING.format("call_2"))]
    assert [(v.index, v.source, v.rule, v.message) for v in plan.violations["openai"]] == expected
    assert [(v.index, v.source, v.rule, v.message) for v in validate_messages(plan.messages_after(), "openai")] == expected


def test_a_cleared_screenshot_result_has_no_image_to_move():
    a = screenshot_session()
    plan = inspector.plan(a, "clear_tool_uses", trigger=0, keep=0)
    assert plan.messages_after()[2].tool_results[0].content == "[cleared]"
    body = export_request(plan, "openai")
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert [v.index for v in plan.violations["openai"]] == [3]
    assert [v.index for v in validate_messages(plan.messages_after(), "openai")] == [3]
