"""The inspector's JSONL: reader (a RecordStream), writer, bad lines, and the line schema."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import inspector
import inspector.formats.builtin  # noqa: F401  (registers the formats in their canonical order first)
from inspector.formats import SessionFormatError, get_format, jsonl
from inspector.model import ImageBlock, Message, RawBlock, Session, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock, Usage
from inspector.schema import JSONL_LINE, jsonl_schema
from inspector.units import UnitKind, build_view

FIXTURES = Path(__file__).parent / "fixtures" / "formats"


def lines_of(text: str | bytes) -> list[dict]:
    return [orjson.loads(line) for line in (text.splitlines() if isinstance(text, bytes) else text.splitlines()) if line.strip()]


def test_round_trip_is_lossless():
    s = inspector.load(FIXTURES / "session.jsonl")
    assert s.format == "jsonl"
    assert lines_of(jsonl.write(s)) == lines_of((FIXTURES / "session.jsonl").read_bytes())


def test_header_messages_and_line_numbers():
    s = inspector.load(FIXTURES / "session.jsonl")
    assert [t.name for t in s.tools] == ["read_file", "run_tests"]
    assert s.extra == {"version": 1, "meta": {"agent": "demo-coder", "model": "gpt-4.1"}, "_header": True}
    assert [m.role for m in s.messages] == ["system", "user", "assistant", "tool", "tool", "assistant", "tool", "system", "user", "assistant"]
    assert [m.source.line for m in s.messages] == list(range(2, 12))
    assert s.messages[0].extra == {"ts": "2026-11-22T10:00:00Z"}
    assert s.skipped == []


def test_parallel_calls_results_errors_and_usage():
    s = inspector.load(FIXTURES / "session.jsonl")
    call = s.messages[2]
    assert [(c.id, c.name, c.arguments) for c in call.tool_calls] == [
        ("call_1", "read_file", '{"path": "app/dates.py"}'),
        ("call_2", "run_tests", "{}"),
    ]
    assert call.usage == Usage(input_tokens=812, output_tokens=40, cache_read_input_tokens=0, cache_creation_input_tokens=0)
    read_result, test_result = s.messages[3].content[0], s.messages[4].content[0]
    assert (read_result.tool_call_id, read_result.name, s.messages[3].name) == ("call_1", "read_file", "read_file")
    assert (test_result.tool_call_id, test_result.is_error) == ("call_2", True)
    later = s.messages[6].content[0]
    assert later.content == [TextBlock(text="4 passed")] and later.is_error is False
    view = build_view(s)
    unit = view.units[view.unit_of[2]]
    assert (unit.kind, unit.indices) == (UnitKind.TOOL_EXCHANGE, (2, 3, 4))


def test_blocks_summary_and_unknown_fields():
    s = inspector.load(FIXTURES / "session.jsonl")
    thinking, text, call = s.messages[5].content
    assert thinking == ThinkingBlock(thinking="The regex lacks the day part.")
    assert text.text == "The week pattern ignores the weekday; I will add it."
    assert isinstance(call, ToolCallBlock) and call.id == "call_3"
    assert s.messages[7].starts_context is True
    assert build_view(s).units[build_view(s).unit_of[7]].kind == UnitKind.SUMMARY
    caption, image, clip = s.messages[8].content
    assert isinstance(image, ImageBlock)
    assert (image.source_kind, image.media_type, image.width, image.height) == ("base64", "image/png", 3, 2)
    assert isinstance(clip, RawBlock) and clip.raw == {"type": "audio_clip", "seconds": 3}
    assert s.messages[8].extra == {"priority": "high"}
    assert s.messages[9].starts_context is False and s.messages[9].extra == {"summary": False}


def test_bad_lines_are_skipped_with_their_line_numbers():
    s = inspector.load(FIXTURES / "bad_lines.jsonl")
    assert [(m.role, m.source.line) for m in s.messages] == [("system", 1), ("assistant", 6), ("user", 9)]
    assert [(k.where, k.reason, k.kind) for k in s.skipped] == [
        ("line 2", "not valid JSON (unexpected end of data at column 33).", "error"),
        ("line 3", '$.role: expected "system", "user", "assistant" or "tool", found "human".', "error"),
        ("line 5", 'expected a JSON object (a message with "role"), found a list.', "error"),
        ("line 7", '$.tool_call_id: a "tool" message needs the id of the call it answers.', "error"),
        ("line 8", "$.tool_calls[0].name: expected the tool name as a string, found none.", "error"),
    ]
    assert [m.index for m in s.messages] == [0, 1, 2]


def test_a_file_with_no_usable_line_is_an_error(tmp_path):
    path = tmp_path / "junk.jsonl"
    path.write_text('{"role": "robot"}\nnot json\n')
    with pytest.raises(SessionFormatError) as info:
        inspector.load(path, format="jsonl")
    assert str(info.value).startswith(
        f"{path}, line 1: no line is an inspector JSONL record (2 bad lines; the first: "
        '$.role: expected "system", "user", "assistant" or "tool", found "robot"). Expected one JSON object per line: '
        'a message {"role": "system"|"user"|"assistant"|"tool", "content": ...} or a {"type": "session"} header. Known formats: '
    )


def test_empty_file_forced_as_jsonl(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n\n")
    with pytest.raises(SessionFormatError) as info:
        inspector.load(path, format="jsonl")
    assert (info.value.where, info.value.problem) == ("line 1", "the file is empty.")


def test_header_only_is_an_empty_session(tmp_path):
    path = tmp_path / "new.jsonl"
    path.write_text('{"type": "session", "version": 1}\n')
    s = inspector.load(path)
    assert s.format == "jsonl" and s.messages == [] and s.tools == []
    assert jsonl.write(s) == '{"type":"session","version":1}\n'


def test_stream_take_reports_only_new_messages():
    stream = jsonl.JsonlStream("x.jsonl")
    assert stream.take() == (0, [])
    stream.feed(b'{"role": "user", "content": "a"}', 1)
    stream.feed(b"", 2)
    stream.feed(b'{"role": "assistant", "content": "b"}', 3)
    first, new = stream.take()
    assert first == 0 and [m.text for m in new] == ["a", "b"]
    assert stream.take() == (2, [])
    stream.feed(b"{oops", 4)
    stream.feed(b'{"role": "user", "content": "c"}', 5)
    first, new = stream.take()
    assert first == 2 and [(m.index, m.source.line) for m in new] == [(2, 5)]
    assert [k.where for k in stream.session.skipped] == ["line 4"]


def test_openai_session_as_jsonl():
    s = inspector.load(FIXTURES / "openai_request.json")
    out = lines_of(jsonl.dump_lines(s))
    assert out[0]["type"] == "session"
    assert out[0]["meta"] == {"source_format": "openai", "model": "gpt-4o-2024-08-06", "temperature": 0.2, "tool_choice": "auto"}
    assert [t["name"] for t in out[0]["tools"]] == ["lookup_vendor", "create_vendor"]
    assert out[1] == {"role": "system", "content": s.messages[0].text}  # no "developer", no hints
    assert out[3] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_lookup_1", "name": "lookup_vendor", "arguments": '{"name": "TechCorp"}'},
            {"id": "call_lookup_2", "name": "lookup_vendor", "arguments": '{"name": "Globex"}'},
        ],
        "usage": {"input_tokens": 156, "output_tokens": 51, "cache_read_input_tokens": 256},
    }
    assert out[4] == {"role": "tool", "tool_call_id": "call_lookup_1", "content": '{"error": "not_found", "name": "TechCorp"}'}
    # reading it back gives the same messages
    stream = jsonl.JsonlStream()
    for n, line in enumerate(jsonl.dump_lines(s).encode().split(b"\n"), 1):
        stream.feed(line, n)
    back = stream.session
    assert [(m.role, m.text, [c.id for c in m.tool_calls]) for m in back.messages] == [
        (m.role, m.text, [c.id for c in m.tool_calls]) for m in s.messages
    ]


def test_anthropic_session_as_jsonl_keeps_blocks():
    s = inspector.load(FIXTURES / "anthropic_request.json")
    out = lines_of(jsonl.dump_lines(s, s.messages[2:4]))
    assert out[1]["content"][0] == {"type": "thinking", "thinking": "Two employees; look both up in parallel.", "signature": "EqQBCkYIBhgCKkB0c2lnbmF0dXJl"}
    assert [c["id"] for c in out[1]["tool_calls"]] == ["toolu_01A", "toolu_01B"]
    assert out[2]["role"] == "user"
    assert out[2]["content"][1] == {
        "type": "tool_result",
        "tool_call_id": "toolu_01B",
        "content": [{"type": "text", "text": '{"error":"not_found","message":"no employee named Tom Okafor"}'}],
        "is_error": True,
    }


@pytest.mark.parametrize(
    "name", ["session.jsonl", "openai_request.json", "openai_list_parts.json", "anthropic_request.json", "anthropic_blocks.json"]
)
def test_written_lines_match_the_schema(name):
    s = inspector.load(FIXTURES / name)
    for line in lines_of(jsonl.dump_lines(s)):
        JSONL_LINE.validate_python(line)


def test_fixture_lines_match_the_schema_and_the_schema_rejects_bad_ones():
    for line in lines_of((FIXTURES / "session.jsonl").read_bytes()):
        JSONL_LINE.validate_python(line)
    with pytest.raises(ValueError):
        JSONL_LINE.validate_python({"role": "human", "content": "x"})
    with pytest.raises(ValueError):
        JSONL_LINE.validate_python({"role": "user", "content": [{"type": "text"}]})
    JSONL_LINE.validate_python({"role": "user", "content": [{"type": "document", "source": {}}]})
    schema = jsonl_schema()
    assert schema["title"] == "context-inspector JSONL line"
    assert {d["$ref"].rsplit("/", 1)[1] for d in schema["anyOf"]} == {"SessionHeader", "MessageLine"}
    roles = schema["$defs"]["MessageLine"]["properties"]["role"]["enum"]
    assert roles == ["system", "user", "assistant", "tool"]


def test_new_message_written_as_jsonl():
    m = Message(index=0, role="tool", content=[ToolResultBlock(tool_call_id="c", content="out", is_error=True)])
    s = Session(format="jsonl", messages=[m])
    assert jsonl.dump_lines(s) == '{"role":"tool","tool_call_id":"c","content":"out","is_error":true}\n'
    assert get_format("jsonl").appendable and get_format("jsonl").stream is jsonl.stream


def test_lines_with_openai_shaped_tool_calls(tmp_path):
    """Logs that write one OpenAI message per line load as JSONL, and are written back as they were."""
    lines = [
        {"role": "user", "content": "list files"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "ls", "arguments": '{"path": "."}'}},
            {"id": "call_b", "type": "function", "function": {"name": "pwd"}},
        ]},
        {"role": "tool", "tool_call_id": "call_a", "content": "a.py\nb.py"},
        {"role": "tool", "tool_call_id": "call_b", "content": "/src"},
    ]
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in lines))
    s = inspector.load(path)
    assert s.format == "jsonl" and s.skipped == []
    assert [(c.id, c.name, c.arguments) for c in s.messages[1].tool_calls] == [("call_a", "ls", '{"path": "."}'), ("call_b", "pwd", "{}")]
    assert lines_of(jsonl.write(s)) == lines
    assert lines_of(jsonl.dump_lines(s.model_copy(update={"format": "openai"})))[1]["tool_calls"][1] == {"id": "call_b", "name": "pwd", "arguments": "{}"}


def test_a_plain_chat_line_reads_as_parse_message_makes_it():
    """feed's shortcut for ``{"role", "content": "text"}`` lines makes what parse_message makes."""
    import orjson

    from inspector.formats.jsonl import JsonlStream, parse_message

    lines = [b'{"role": "system", "content": "be brief"}', b'{"content": "hi", "role": "user"}',
             b'{"role": "assistant", "content": ""}', b'{"role": "user", "content": "x", "name": "ann"}']
    stream = JsonlStream()
    for n, line in enumerate(lines, 1):
        stream.feed(line, n)
    got = [m.model_dump() for m in stream.session.messages]
    assert got == [parse_message(orjson.loads(line), k, k + 1).model_dump() for k, line in enumerate(lines)]
    # what the shortcut does not take still goes through the checks, with their errors
    for n, line in enumerate([b'{"role": "tool", "content": "42"}', b'{"role": {"a": 1}, "content": "x"}'], 5):
        stream.feed(line, n)
    assert [(s.where, s.reason) for s in stream.session.skipped] == [
        ("line 5", '$.tool_call_id: a "tool" message needs the id of the call it answers.'),
        ("line 6", '$.role: expected "system", "user", "assistant" or "tool", found an object.'),
    ]
