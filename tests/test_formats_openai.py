"""OpenAI Chat Completions reader and writer, on the hand-written fixtures in fixtures/formats/."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import inspector
import inspector.formats.builtin  # noqa: F401  (registers the formats in their canonical order first)
from inspector.formats import SessionFormatError
from inspector.formats import openai_chat
from inspector.providers import anthropic as anthropic_wire, openai as openai_wire
from inspector.model import (
    ImageBlock,
    Message,
    RawBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    Usage,
)
from inspector.units import ORPHAN_CALL, ORPHAN_RESULT, UnitKind, build_view

FIXTURES = Path(__file__).parent / "fixtures" / "formats"
OPENAI_FIXTURES = ["openai_request.json", "openai_list_parts.json", "openai_legacy.json"]


def load(name: str):
    return inspector.load(FIXTURES / name)


@pytest.mark.parametrize("name", OPENAI_FIXTURES)
def test_round_trip_is_lossless(name):
    session = load(name)
    assert session.format == "openai"
    written = openai_wire.write_document(session)
    assert orjson.loads(written) == orjson.loads((FIXTURES / name).read_bytes())


def test_request_object_messages_roles_and_sources():
    s = load("openai_request.json")
    assert [m.role for m in s.messages] == ["system", "user", "assistant", "tool", "tool", "assistant", "tool", "assistant"]
    assert [m.index for m in s.messages] == list(range(8))
    assert s.messages[0].extra == {"_role": "developer"}
    assert s.messages[3].source.json_path == "$.messages[3]"
    assert s.messages[3].source.line is None
    assert s.extra == {"model": "gpt-4o-2024-08-06", "temperature": 0.2, "tool_choice": "auto"}
    assert s.messages[7].extra == {"refusal": None}


def test_parallel_tool_calls_and_their_results():
    s = load("openai_request.json")
    calls = s.messages[2].tool_calls
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("call_lookup_1", "lookup_vendor", '{"name": "TechCorp"}'),
        ("call_lookup_2", "lookup_vendor", '{"name": "Globex"}'),
    ]
    assert s.messages[2].content_form == "null"
    assert s.messages[2].content == calls  # content null: the calls are the only blocks
    results = [s.messages[i].content for i in (3, 4)]
    assert [r[0].tool_call_id for r in results] == ["call_lookup_1", "call_lookup_2"]
    assert results[0][0].content == '{"error": "not_found", "name": "TechCorp"}'
    # text and a call in one assistant message: text first, then the call
    m5 = s.messages[5]
    assert [type(b) for b in m5.content] == [TextBlock, ToolCallBlock]
    assert s.messages[6].name == "create_vendor" and s.messages[6].content[0].name == "create_vendor"

    view = build_view(s)
    exchange = view.units[view.unit_of[2]]
    assert exchange.kind == UnitKind.TOOL_EXCHANGE
    assert exchange.indices == (2, 3, 4)
    assert view.flags[3] == 0 and view.flags[4] == 0


def test_usage_keeps_cached_tokens_apart():
    s = load("openai_request.json")
    assert s.messages[2].usage == Usage(input_tokens=156, output_tokens=51, cache_read_input_tokens=256)
    assert s.messages[2].usage.context_tokens == 412
    assert s.messages[5].usage is None
    other = openai_chat.session_from_document([{"role": "assistant", "content": "x", "usage": {"input_tokens": 9, "output_tokens": 2}}])
    assert other.messages[0].usage == Usage(input_tokens=9, output_tokens=2)


def test_tools_become_definitions():
    s = load("openai_request.json")
    assert [t.name for t in s.tools] == ["lookup_vendor", "create_vendor"]
    assert s.tools[1].description == "Create a vendor record."
    assert s.tools[1].parameters["required"] == ["name", "country"]
    assert s.tools[1].extra == {"type": "function", "_nested": {"strict": True}}


def test_bare_list_with_content_parts():
    s = load("openai_list_parts.json")
    assert s.extra == {"_bare": True}
    system, user, call, result, answer = s.messages
    assert system.content_form == "parts" and system.text == "You describe images for a product catalogue."
    assert user.name == "dana"
    text, png, url_image, audio = user.content
    assert text == TextBlock(text="What colour is this swatch?")
    assert isinstance(png, ImageBlock)
    assert (png.source_kind, png.media_type, png.width, png.height, png.detail) == ("base64", "image/png", 3, 2, "low")
    assert png.data.startswith("data:image/png;base64,iVBOR")
    assert (url_image.source_kind, url_image.data, url_image.width) == ("url", "https://cdn.example.com/swatches/back.jpg", None)
    assert isinstance(audio, RawBlock)
    assert audio.raw == {"type": "input_audio", "input_audio": {"data": "UklGRiQAAABXQVZF", "format": "wav"}}
    assert audio.text == '{"input_audio":{"format":"wav"}}'  # base64 payload is not counted as text
    assert call.content_form == "null" and call.extra == {"_omit": ["content"]}
    assert result.content_form == "parts"
    assert result.content == [ToolResultBlock(tool_call_id="call_px", content=[TextBlock(text="rgb(255, 0, 0) everywhere")])]
    assert answer.extra == {"reasoning_content": "All sampled pixels are 255,0,0."}
    written = orjson.loads(openai_wire.write_document(s))
    assert isinstance(written, list) and "content" not in written[2]


def test_legacy_function_call_gets_a_stable_id_and_is_written_back():
    s = load("openai_legacy.json")
    assert [m.role for m in s.messages] == ["system", "user", "assistant", "tool", "assistant", "user", "assistant", "tool", "assistant"]
    (c1,) = s.messages[2].tool_calls
    (c2,) = s.messages[6].tool_calls
    assert (c1.id, c1.name, c1.arguments) == ("legacy_fc_2", "get_current_weather", '{"location": "Boston, MA"}')
    assert c2.id == "legacy_fc_6"
    r1, r2 = s.messages[3].content[0], s.messages[7].content[0]
    assert (r1.tool_call_id, r1.name, r1.content) == ("legacy_fc_2", "get_current_weather", '{"temperature": "72", "unit": "fahrenheit"}')
    assert r2.tool_call_id == "legacy_fc_6"
    assert [t.name for t in s.tools] == ["get_current_weather"]
    view = build_view(s)
    assert view.units[view.unit_of[2]].indices == (2, 3)
    assert all(f & (ORPHAN_RESULT | ORPHAN_CALL) == 0 for f in view.flags)

    dumped = openai_wire.dump_messages(s.messages)
    assert dumped[2] == {"role": "assistant", "content": None, "function_call": {"name": "get_current_weather", "arguments": '{"location": "Boston, MA"}'}}
    assert dumped[3] == {"role": "function", "name": "get_current_weather", "content": '{"temperature": "72", "unit": "fahrenheit"}'}
    request = openai_wire.dump_request(s)
    assert "tools" not in request and request["functions"][0]["name"] == "get_current_weather"


def test_legacy_calls_become_modern_in_a_cross_format_dump():
    s = load("openai_legacy.json")
    dumped = openai_wire.dump_messages(s.messages, keep_extra=False)
    assert dumped[2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "legacy_fc_2", "type": "function", "function": {"name": "get_current_weather", "arguments": '{"location": "Boston, MA"}'}}],
    }
    assert dumped[3] == {"role": "tool", "tool_call_id": "legacy_fc_2", "content": '{"temperature": "72", "unit": "fahrenheit"}', "name": "get_current_weather"}


def test_function_message_without_a_call_is_an_orphan():
    s = openai_chat.session_from_document([{"role": "function", "name": "f", "content": "late"}])
    assert s.messages[0].content[0].tool_call_id == "legacy_fc_orphan_0"
    assert build_view(s).flags[0] == ORPHAN_RESULT


def test_developer_role_is_system_and_written_back():
    s = load("openai_request.json")
    assert openai_wire.dump_messages(s.messages[:1]) == [{"role": "developer", "content": s.messages[0].text}]
    assert openai_wire.dump_messages(s.messages[:1], keep_extra=False) == [{"role": "system", "content": s.messages[0].text}]


def test_dump_request_with_a_subset_of_messages():
    s = load("openai_request.json")
    request = openai_wire.dump_request(s, [s.messages[0], s.messages[7]])
    assert request == {
        "messages": [
            {"role": "developer", "content": s.messages[0].text},
            {"role": "assistant", "content": s.messages[7].text, "refusal": None},
        ],
        "tools": orjson.loads((FIXTURES / "openai_request.json").read_bytes())["tools"],
        "model": "gpt-4o-2024-08-06",
        "temperature": 0.2,
        "tool_choice": "auto",
    }


def test_anthropic_session_dumped_as_openai_messages():
    s = load("anthropic_request.json")
    request = openai_wire.dump_request(s)
    assert set(request) == {"messages", "tools"}  # Anthropic request fields are not carried over
    msgs = request["messages"]
    assert msgs[0] == {"role": "system", "content": s.messages[0].text}
    assert msgs[2] == {
        "role": "assistant",
        "content": "Let me look both of them up.",  # thinking is left out
        "tool_calls": [
            {"id": "toolu_01A", "type": "function", "function": {"name": "lookup_employee", "arguments": '{"name":"Priya Raman"}'}},
            {"id": "toolu_01B", "type": "function", "function": {"name": "lookup_employee", "arguments": '{"name":"Tom Okafor","exact":true,"limit":1.5}'}},
        ],
    }
    # one user message with two tool_result blocks -> two tool messages
    assert [m["role"] for m in msgs[3:5]] == ["tool", "tool"]
    assert msgs[4] == {"role": "tool", "tool_call_id": "toolu_01B", "content": [{"type": "text", "text": '{"error":"not_found","message":"no employee named Tom Okafor"}'}]}
    # a tool result followed by text, a document and an image: tool message, then a user message
    assert msgs[6]["role"] == "tool" and msgs[7]["role"] == "user"
    text, document, image = msgs[7]["content"]
    assert document == {"type": "text", "text": "Vacation days roll over up to 5 days."}
    assert image["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo")
    assert request["tools"][1] == {
        "type": "function",
        "function": {"name": "query_leave", "description": "Leave balance rows for an employee id.", "parameters": s.tools[1].parameters},
    }


def test_content_null_and_absent_are_kept_apart():
    doc = [
        {"role": "assistant", "content": None, "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
        {"role": "assistant", "tool_calls": [{"id": "b", "function": {"name": "f", "arguments": {"x": 1}}}]},
        {"role": "tool", "tool_call_id": "a", "content": None},
        {"role": "tool", "tool_call_id": "b", "content": ""},
    ]
    s = openai_chat.session_from_document(doc)
    assert s.messages[1].tool_calls[0].arguments == '{"x":1}'
    assert openai_wire.dump_messages(s.messages) == doc


def test_write_of_a_new_session_without_extras():
    m = Message(index=0, role="user", content=[TextBlock(text="hi")])
    s = inspector.Session(format="jsonl", messages=[m])
    assert orjson.loads(openai_wire.write_document(s)) == {"messages": [{"role": "user", "content": "hi"}]}


def _error(tmp_path, doc_text: str) -> SessionFormatError:
    path = tmp_path / "session.json"
    path.write_text(doc_text)
    with pytest.raises(SessionFormatError) as info:
        inspector.load(path)
    return info.value


@pytest.mark.parametrize(
    ("doc", "where", "problem"),
    [
        (
            '[\n  {"role": "user", "content": "hi"},\n  {"role": "assistant",\n   "tool_calls": [\n     "oops"\n   ]}\n]\n',
            "line 5, $[1].tool_calls[0]",
            'expected an object with "function", found a string (reading it as openai).',
        ),
        (
            '{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]}]}',
            "line 1, $.messages[1].tool_calls[0].function.name",
            "expected the tool name as a string, found none (reading it as openai).",
        ),
        (
            '{"messages": [{"role": "tool", "content": "x"}]}',
            "line 1, $.messages[0].tool_call_id",
            'expected the id of the call a "tool" message answers, found none (reading it as openai).',
        ),
        (
            '{"messages": [{"role": "user", "content": 42}]}',
            "line 1, $.messages[0].content",
            "expected a string, a list of parts or null, found a number (reading it as openai).",
        ),
        (
            '{"messages": [{"role": "user", "content": "a"}, {"role": "tool", "tool_call_id": "x", "content": "y"}], "tools": {"a": 1}}',
            "line 1, $.tools",
            "expected a list of tool definitions, found an object (reading it as openai).",
        ),
    ],
)
def test_structural_errors_name_the_json_path_and_line(tmp_path, doc, where, problem):
    err = _error(tmp_path, doc)
    assert (err.where, err.problem) == (where, problem)
    assert str(err).startswith(f"{tmp_path / 'session.json'}, {where}: {problem} Known formats: ")


def test_unknown_role_is_an_error_when_forced(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('[{"role": "human", "content": "hi"}]')
    with pytest.raises(SessionFormatError) as info:
        inspector.load(path, format="openai")
    assert info.value.where == "line 1, $[0].role"
    assert info.value.problem == 'expected one of "system", "developer", "user", "assistant", "tool" or "function", found "human" (reading it as openai).'


def test_anthropic_writer_round_trip_of_openai_tool_exchange_is_valid_shape():
    s = load("openai_request.json")
    msgs = anthropic_wire.dump_request(s)["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user", "assistant", "user", "assistant"]
    assert [b["tool_use_id"] for b in msgs[2]["content"]] == ["call_lookup_1", "call_lookup_2"]
