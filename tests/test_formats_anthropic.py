"""Anthropic Messages reader and writer, on the hand-written fixtures in fixtures/formats/."""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import orjson
import pytest

import inspector
import inspector.formats.builtin  # noqa: F401  (registers the formats in their canonical order first)
from inspector.formats import SessionFormatError
from inspector.formats import anthropic
from inspector.providers import anthropic as anthropic_wire
from inspector.formats.imagesize import image_size
from inspector.model import (
    ImageBlock,
    Message,
    RawBlock,
    Session,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from inspector.units import UnitKind, build_view

FIXTURES = Path(__file__).parent / "fixtures" / "formats"


def load(name: str) -> Session:
    return inspector.load(FIXTURES / name)


@pytest.mark.parametrize("name", ["anthropic_request.json", "anthropic_blocks.json"])
def test_round_trip_is_lossless(name):
    session = load(name)
    assert session.format == "anthropic"
    written = anthropic_wire.write_document(session)
    assert orjson.loads(written) == orjson.loads((FIXTURES / name).read_bytes())


def test_system_is_message_zero_and_indices_shift():
    s = load("anthropic_request.json")
    system = s.messages[0]
    assert (system.role, system.content_form, system.source.json_path) == ("system", "string", "$.system")
    assert system.text == "You are an HR assistant. Answer leave questions from the HR database only."
    assert [m.role for m in s.messages] == ["system", "user", "assistant", "user", "assistant", "user", "assistant"]
    assert [m.index for m in s.messages] == list(range(7))
    assert s.messages[1].source.json_path == "$.messages[0]"
    assert s.extra == {"model": "claude-sonnet-4-5", "max_tokens": 2048, "temperature": 0}


def test_parallel_tool_use_and_results_in_one_user_message():
    s = load("anthropic_request.json")
    thinking, text, call_a, call_b = s.messages[2].content
    assert thinking == ThinkingBlock(thinking="Two employees; look both up in parallel.", signature="EqQBCkYIBhgCKkB0c2lnbmF0dXJl")
    assert text == TextBlock(text="Let me look both of them up.")
    assert (call_a.id, call_a.name, call_a.arguments) == ("toolu_01A", "lookup_employee", '{"name":"Priya Raman"}')
    assert orjson.loads(call_b.arguments) == {"name": "Tom Okafor", "exact": True, "limit": 1.5}
    ok, failed = s.messages[3].content
    assert (ok.tool_call_id, ok.is_error, ok.content) == ("toolu_01A", False, '{"employee_id": "E-311", "name": "Priya Raman"}')
    assert ok.extra == {"is_error": False}
    assert (failed.tool_call_id, failed.is_error) == ("toolu_01B", True)
    assert failed.content == [TextBlock(text='{"error":"not_found","message":"no employee named Tom Okafor"}')]
    assert s.messages[3].role == "user" and s.messages[3].only_tool_results

    view = build_view(s)
    unit = view.units[view.unit_of[2]]
    assert (unit.kind, unit.indices) == (UnitKind.TOOL_EXCHANGE, (2, 3))
    assert view.turn_of[3] == 1  # a user message of tool results does not start a turn


def test_redacted_thinking_document_and_image():
    s = load("anthropic_request.json")
    redacted = s.messages[4].content[0]
    assert redacted.redacted and redacted.thinking.startswith("EmwKAhgBEgy3")
    result, text, document, image = s.messages[5].content
    assert isinstance(result, ToolResultBlock) and result.extra == {"cache_control": {"type": "ephemeral"}}
    assert isinstance(document, RawBlock) and document.text == "Vacation days roll over up to 5 days."
    assert document.raw["title"] == "Leave policy"
    assert isinstance(image, ImageBlock)
    assert (image.source_kind, image.media_type, image.width, image.height) == ("base64", "image/png", 40, 30)


def test_tools_and_their_extra_fields():
    s = load("anthropic_request.json")
    assert [t.name for t in s.tools] == ["lookup_employee", "query_leave"]
    assert s.tools[1].parameters["properties"]["year"] == {"type": "integer"}
    assert s.tools[1].extra == {"cache_control": {"type": "ephemeral"}}
    server = load("anthropic_blocks.json").tools[0]
    assert (server.name, server.description, server.parameters) == ("web_search", "", {})
    assert server.extra == {"type": "web_search_20250305", "max_uses": 3, "_omit": ["description", "input_schema"]}


def test_system_blocks_server_tools_and_unknown_result_parts():
    s = load("anthropic_blocks.json")
    system = s.messages[0]
    assert system.content_form == "blocks"
    assert system.content == [
        TextBlock(text="You are a research assistant.", extra={"cache_control": {"type": "ephemeral"}}),
        TextBlock(text="Cite your sources."),
    ]
    user_image = s.messages[1].content[1]
    assert (user_image.source_kind, user_image.data, user_image.width) == ("url", "https://example.com/tower.jpg", None)
    server_use, search_result, cited, call = s.messages[2].content
    assert server_use.text == 'web_search {"query":"Eiffel Tower completion date"}'
    # each result as compact JSON, without its type and its encrypted payload
    assert search_result.text == '{"url":"https://en.wikipedia.org/wiki/Eiffel_Tower","title":"Eiffel Tower"}'
    assert cited.extra["citations"][0]["cited_text"] == "completed in March 1889"
    assert call.arguments == "{}"
    part, note = s.messages[3].content[0].content
    assert part.text == "Opened to the public in May 1889."
    assert part.extra["_raw"]["type"] == "search_result"
    assert note == TextBlock(text="1 note found.")


def test_compaction_block_starts_context():
    doc = {"messages": [
        {"role": "user", "content": "go on"},
        {"role": "assistant", "content": [{"type": "compaction", "content": "Summary: the user wants a report."}, {"type": "text", "text": "ok"}]},
    ]}
    s = anthropic.session_from_document(doc)
    assert [m.starts_context for m in s.messages] == [False, True]
    assert s.messages[1].content[0].text == "Summary: the user wants a report."


def test_openai_history_becomes_valid_anthropic_shape():
    s = load("openai_request.json")
    request = anthropic_wire.dump_request(s)
    assert request["system"] == s.messages[0].text
    assert "model" not in request  # OpenAI request fields are not carried over
    msgs = request["messages"]
    assert msgs[1] == {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "call_lookup_1", "name": "lookup_vendor", "input": {"name": "TechCorp"}},
            {"type": "tool_use", "id": "call_lookup_2", "name": "lookup_vendor", "input": {"name": "Globex"}},
        ],
    }
    assert msgs[2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "call_lookup_1", "content": '{"error": "not_found", "name": "TechCorp"}'},
            {"type": "tool_result", "tool_use_id": "call_lookup_2", "content": '{"vendor_id": "V-1042", "name": "Globex", "status": "active"}'},
        ],
    }
    assert msgs[3]["content"][0] == {"type": "text", "text": s.messages[5].text}
    assert request["tools"][0] == {
        "name": "lookup_vendor",
        "description": "Find a vendor by name.",
        "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    }


def test_system_messages_anywhere_go_to_top_level_system_blocks():
    s = load("anthropic_request.json")
    summary = Message(index=0, role="system", content=[TextBlock(text="[Earlier conversation summary]: Priya has 12 days.")])
    request = anthropic_wire.dump_request(s, [s.messages[0], summary, s.messages[6]])
    assert request["system"] == [
        {"type": "text", "text": s.messages[0].text},
        {"type": "text", "text": "[Earlier conversation summary]: Priya has 12 days."},
    ]
    assert request["messages"] == [{"role": "assistant", "content": s.messages[6].text}]


def test_tool_arguments_that_are_not_an_object_are_wrapped():
    call = Message(index=0, role="assistant", content=[ToolCallBlock(id="c1", name="f", arguments='{"a": [1, 2')])
    s = Session(format="openai", messages=[call])
    (block,) = anthropic_wire.dump_request(s)["messages"][0]["content"]
    assert block["input"] == {"_unparsed_arguments": '{"a": [1, 2'}
    assert anthropic_wire.tool_input('["x"]') == {"_unparsed_arguments": '["x"]'}
    assert anthropic_wire.tool_input('{"a": 1}') == {"a": 1}


def test_write_emits_only_the_bare_list_for_a_bare_list():
    doc = [{"role": "user", "content": [{"type": "text", "text": "hi"}]}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {"q": 1}}]}]
    s = anthropic.session_from_document(doc)
    assert orjson.loads(anthropic_wire.write_document(s)) == doc


@pytest.mark.parametrize(
    ("doc", "where", "problem"),
    [
        (
            '{"system": "s", "messages": [{"role": "system", "content": "x"}]}',
            "line 1, $.messages[0].role",
            'expected "user" or "assistant", found "system" (the system prompt goes in the top-level "system") (reading it as anthropic).',
        ),
        (
            '{"system": "s",\n "messages": [\n  {"role": "assistant", "content": [\n    {"type": "tool_use", "name": "f", "input": {}}]}]}',
            "line 4, $.messages[0].content[0].id",
            'expected a tool_use block with string "id" and "name", found none (reading it as anthropic).',
        ),
        (
            '{"system": 7, "messages": []}',
            "line 1, $.system",
            "expected a string or a list of text blocks, found a number (reading it as anthropic).",
        ),
        (
            '{"system": "s", "messages": [{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": "yes"}]}]}',
            "line 1, $.messages[0].content[0].is_error",
            'expected true or false, found a string (reading it as anthropic).',
        ),
    ],
)
def test_structural_errors(tmp_path, doc, where, problem):
    path = tmp_path / "req.json"
    path.write_text(doc)
    with pytest.raises(SessionFormatError) as info:
        inspector.load(path, format="anthropic")
    assert (info.value.where, info.value.problem) == (where, problem)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_image_size_from_headers():
    png = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", 640, 480) + b"\x08\x02\x00\x00\x00"
    gif = b"GIF89a" + struct.pack("<HH", 320, 200) + b"\x00" * 8
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00" + b"\x00" * 9
    sof = b"\xff\xc0" + struct.pack(">HBHH", 17, 8, 768, 1024) + b"\x03" + b"\x00" * 9
    jpeg = b"\xff\xd8" + app0 + sof + b"\xff\xd9"
    assert image_size(_b64(png)) == (640, 480)
    assert image_size(_b64(gif)) == (320, 200)
    assert image_size(_b64(jpeg)) == (1024, 768)
    assert image_size(_b64(b"RIFF....WEBPVP8 ")) is None
    assert image_size("not base64 at all!") is None
