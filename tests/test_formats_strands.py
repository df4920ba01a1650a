"""Strands FileSessionManager reader: stored messages, the window rebuilt from agent.json
(removed_message_count + summary_message, or a sliding window), blocks, redaction, usage."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import inspector
from inspector.formats import SessionFormatError, load
from inspector.formats import builtin  # noqa: F401  (registers every format)
from inspector.formats.base import FORMATS, Probe
from inspector.model import ImageBlock, RawBlock, ThinkingBlock, ToolResultBlock
from inspector.units import build_view

FIX = Path(__file__).parent / "fixtures" / "real" / "strands"
TRAVEL = FIX / "session_travel-42"
NOTES = FIX / "session_notes-7"


@pytest.fixture(scope="module")
def session():
    return load(TRAVEL)


def test_detection():
    assert FORMATS["strands"].detect(Probe(TRAVEL)) == 90
    assert FORMATS["strands"].detect(Probe(TRAVEL / "agents" / "agent_default")) == 90
    assert FORMATS["strands"].detect(Probe(TRAVEL / "session.json")) == 0
    assert {n: f.detect(Probe(TRAVEL)) for n, f in FORMATS.items() if n != "strands"} == dict.fromkeys(
        [n for n in FORMATS if n != "strands"], 0
    )


def test_all_stored_messages_plus_the_summary_in_order(session):
    assert [str(m.source) for m in session.messages] == [
        "messages/message_0.json, $.message",
        "messages/message_1.json, $.message",
        "messages/message_2.json, $.message",
        "messages/message_3.json, $.message",
        "agent.json, $.conversation_manager_state.summary_message",
        "messages/message_4.json, $.message",
        "messages/message_5.json, $.message",
        "messages/message_6.json, $.message",
        "messages/message_7.json, $.message",
        "messages/message_8.json, $.message",
        "messages/message_9.json, $.message",  # numeric order: 9 before 10
        "messages/message_10.json, $.redact_message",
        "messages/message_11.json, $.message",
    ]
    assert [m.index for m in session.messages] == list(range(13))
    summary = session.messages[4]
    assert (summary.role, summary.starts_context) == ("user", True)
    assert summary.text.startswith("The user is planning a Saturday in Seattle.")
    assert [m.starts_context for m in session.messages].count(True) == 1


def test_window_units_turns_and_calls(session):
    view = build_view(session)
    assert [(u.kind.value, u.indices) for u in view.units] == [
        ("user", (0,)), ("tool_exchange", (1, 2)), ("assistant", (3,)), ("summary", (4,)), ("user", (5,)),
        ("tool_exchange", (6, 7)), ("tool_exchange", (8, 9)), ("assistant", (10,)), ("user", (11,)), ("tool_exchange", (12,)),
    ]  # fmt: skip
    assert [(t.number, t.start, t.stop) for t in view.turns] == [(1, 0, 5), (2, 5, 11), (3, 11, 13)]  # the summary is no prompt
    assert [(c.message_index, c.context_start) for c in view.calls] == [(1, 0), (3, 0), (6, 4), (8, 4), (10, 4), (12, 4)]
    plan = inspector.plan(session)
    status = [d.status.value for d in plan.decisions()]
    assert status == ["dropped"] * 4 + ["kept"] * 9  # model context = [summary] + messages[4:]


def test_blocks_and_usage(session):
    m = session.messages
    assert m[1].tool_calls[0].arguments == '{"city":"Seattle","date":"2026-03-14"}'
    assert isinstance(m[5].content[1], RawBlock) and m[5].content[1].raw == {"cachePoint": {"type": "default"}}
    assert isinstance(m[6].content[0], ThinkingBlock) and m[6].content[0].signature == "c2lnLTE="
    assert [c.id for c in m[6].tool_calls] == ["tooluse_r1", "tooluse_m1"]  # parallel calls
    results = [b for b in m[7].content if isinstance(b, ToolResultBlock)]
    assert [(r.tool_call_id, r.is_error) for r in results] == [("tooluse_r1", False), ("tooluse_m1", True)]
    assert results[0].text == '{"name":"Matt\'s in the Market","slots":["18:30","19:00"]}'
    assert results[1].content == "museum API timed out after 10 s"
    assert m[11].text == "Thanks! Send the plan to my calendar. [card number redacted]"
    assert m[11].extra["redacted"] is True
    view = build_view(session)
    usage = [m[c.message_index].usage for c in view.calls]
    assert [(u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens) for u in usage] == [
        (1200, 45, None, None),
        (1320, 110, None, None),
        (610, 90, 400, 0),
        (780, 40, 1010, 0),
        (850, 70, 1010, 0),
        (930, 60, 1010, 0),
    ]
    assert [u.context_tokens for u in usage] == [1200, 1320, 1010, 1790, 1860, 1940]


def test_other_agents_are_sidechains_and_extra(session):
    assert list(session.sidechains) == ["agent_researcher"]
    assert [x.text for x in session.sidechains["agent_researcher"]] == [
        "List museums in Seattle open at 10:00 on Saturday.",
        "MoPOP and the Seattle Art Museum open at 10:00.",
    ]
    assert session.extra == {
        "agent_id": "default",
        "session_id": "travel-42",
        "conversation_manager": "SummarizingConversationManager",
        "removed_message_count": 4,
        "model_call_count": 6,
    }
    assert session.skipped == []


def test_sliding_window_marks_where_the_window_starts():
    s = load(NOTES / "agents" / "agent_default")
    assert len(s.messages) == 6
    assert [m.starts_context for m in s.messages] == [False, False, True, False, False, False]
    assert s.messages[2].extra["window_start"] is True
    view = build_view(s)
    assert [(c.message_index, c.context_start) for c in view.calls] == [(1, 0), (3, 2), (5, 2)]
    assert [d.status.value for d in inspector.plan(s).decisions()] == ["dropped", "dropped"] + ["kept"] * 4


def test_storage_dir_names_its_sessions():
    with pytest.raises(SessionFormatError) as err:
        load(FIX)
    assert str(err.value).startswith(
        f"{FIX}: this is a Strands storage directory with 2 sessions (session_notes-7, session_travel-42); open one of them."
    )


def test_bad_message_file_and_image_bytes(tmp_path):
    agent = tmp_path / "session_x" / "agents" / "agent_default"
    shutil.copytree(NOTES / "agents" / "agent_default", agent)
    (agent / "messages" / "message_6.json").write_text('{"message": {"role": "user", "content": [')
    (agent / "messages" / "message_7.json").write_text(
        '{"message": {"role": "user", "content": [{"image": {"format": "png", "source": {"bytes": {"__bytes_encoded__": true, "data": "iVBORw0K"}}}}]}, "message_id": 7}'
    )
    (agent / "messages" / "message_8.json").write_text('{"message": {"role": "tool", "content": []}}')
    s = load(tmp_path / "session_x")
    assert len(s.messages) == 7
    image = s.messages[6].content[0]
    assert isinstance(image, ImageBlock) and (image.media_type, image.source_kind, image.data) == ("image/png", "base64", "iVBORw0K")
    assert [(x.where, x.reason.split(" (")[0], x.kind) for x in s.skipped] == [
        ("messages/message_6.json", "not valid JSON", "error"),
        ("messages/message_8.json, $.message", "expected a message with role 'user' or 'assistant', got 'tool'", "error"),
    ]
