"""Format detection by content, and every error path of loading, with its exact message."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

import inspector
import inspector.formats.builtin  # noqa: F401  (registers the formats in their canonical order first)
from inspector.formats import SessionFormatError, anthropic, jsonl, openai_chat
from inspector.formats.probe import HEAD_BYTES, Probe
from inspector.providers import anthropic as anthropic_wire

FIXTURES = Path(__file__).parent / "fixtures" / "formats"
NOT_RECOGNISED = (
    "this is not a session format the inspector recognises. Expected a JSON list of chat messages (OpenAI), "
    "an object with 'messages' (OpenAI or Anthropic), or JSONL with one message per line."
)


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def error_of(path: Path, format: str | None = None) -> SessionFormatError:
    with pytest.raises(SessionFormatError) as info:
        inspector.load(path, format=format)
    return info.value


def scores(path: Path) -> dict[str, int]:
    probe = Probe(path)
    return {name: mod.detect(probe) for name, mod in (("openai", openai_chat), ("anthropic", anthropic), ("jsonl", jsonl))}


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("openai_request.json", "openai"),
        ("openai_list_parts.json", "openai"),
        ("openai_legacy.json", "openai"),
        ("anthropic_request.json", "anthropic"),
        ("anthropic_blocks.json", "anthropic"),
        ("session.jsonl", "jsonl"),
        ("bad_lines.jsonl", "jsonl"),
    ],
)
def test_fixtures_are_detected(name, fmt):
    assert inspector.load(FIXTURES / name).format == fmt


def test_scores_of_each_detector(tmp_path):
    assert scores(FIXTURES / "openai_request.json") == {"openai": 90, "anthropic": 2, "jsonl": 0}
    assert scores(FIXTURES / "anthropic_request.json") == {"openai": 5, "anthropic": 95, "jsonl": 0}
    assert scores(FIXTURES / "session.jsonl") == {"openai": 0, "anthropic": 0, "jsonl": 100}
    plain = write(tmp_path, "plain.json", '{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}')
    assert scores(plain) == {"openai": 60, "anthropic": 50, "jsonl": 0}
    headerless = write(tmp_path, "h.jsonl", '{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "yo"}\n')
    assert scores(headerless) == {"openai": 0, "anthropic": 0, "jsonl": 80}


def test_other_jsonl_formats_score_zero(tmp_path):
    claude_code = write(
        tmp_path,
        "cc.jsonl",
        '{"type": "user", "message": {"role": "user", "content": "hi"}, "uuid": "u1", "sessionId": "s"}\n'
        '{"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": "yo"}]}, "uuid": "u2"}\n',
    )
    codex = write(
        tmp_path,
        "rollout.jsonl",
        '{"timestamp": "2025-11-17T21:30:28.664Z", "type": "session_meta", "payload": {"id": "0199", "cwd": "/x"}}\n'
        '{"timestamp": "2025-11-17T21:30:29Z", "type": "response_item", "payload": {"type": "message", "role": "user", "content": []}}\n',
    )
    one_line = write(tmp_path, "one.jsonl", '{"type": "user", "message": {"role": "user", "content": "hi"}}\n')
    for path in (claude_code, codex, one_line):
        assert scores(path) == {"openai": 0, "anthropic": 0, "jsonl": 0}


def test_plain_messages_with_system_or_claude_model_are_anthropic(tmp_path):
    with_system = write(tmp_path, "a.json", '{"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]}')
    claude = write(tmp_path, "b.json", '{"model": "claude-3-5-haiku", "messages": [{"role": "user", "content": "hi"}]}')
    bare_blocks = write(tmp_path, "c.json", '[{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]}]')
    assert [inspector.load(p).format for p in (with_system, claude, bare_blocks)] == ["anthropic"] * 3


def test_format_can_be_forced(tmp_path):
    plain = write(tmp_path, "plain.json", '{"messages": [{"role": "user", "content": "hi"}]}')
    s = inspector.load(plain, format="anthropic")
    assert s.format == "anthropic" and s.messages[0].text == "hi"


def test_jsonl_whose_first_line_is_bad_is_still_detected(tmp_path):
    path = write(tmp_path, "s.jsonl", '{"role": "user", "cont\n{"role": "user", "content": "hi"}\n')
    s = inspector.load(path)
    assert s.format == "jsonl" and [m.source.line for m in s.messages] == [2]
    assert [k.where for k in s.skipped] == ["line 1"]


def test_jsonl_whose_first_line_is_longer_than_the_head(tmp_path):
    big = "x" * (HEAD_BYTES + 10)
    path = write(tmp_path, "big.jsonl", orjson.dumps({"role": "user", "content": big}).decode() + "\n")
    s = inspector.load(path)
    assert s.format == "jsonl" and len(s.messages[0].text) == HEAD_BYTES + 10


# -- errors -------------------------------------------------------------------------------------


def test_empty_file(tmp_path):
    for text in ("", "  \n\n"):
        path = write(tmp_path, "empty.json", text)
        err = error_of(path)
        assert str(err).startswith(f"{path}, line 1: the file is empty. Expected a JSON or JSONL agent session. Known formats: ")


def test_not_json(tmp_path):
    path = write(tmp_path, "notes.txt", "User: hello\nAssistant: hi\n")
    assert str(error_of(path)).startswith(f"{path}: {NOT_RECOGNISED} Known formats: ")


def test_malformed_json_reports_line_and_column(tmp_path):
    path = write(
        tmp_path,
        "broken.json",
        '{"messages": [\n  {"role": "user", "content": "hi"},\n  {"role": "assistant" "content": "x"}\n]}\n',
    )
    err = error_of(path)
    assert err.where == "line 3, column 24"
    assert err.problem == "this is not valid JSON (unexpected character, expected ',' or '}')."
    assert str(err).startswith(
        f"{path}, line 3, column 24: this is not valid JSON (unexpected character, expected ',' or '}}'). "
        "Expected a JSON document (OpenAI or Anthropic messages) or JSONL with one JSON object per line. Known formats: "
    )


def test_truncated_single_line_json(tmp_path):
    path = write(tmp_path, "cut.json", '[{"role": "user", "content": "hel')
    err = error_of(path)
    assert (err.where, err.problem) == ("line 1, column 34", "this is not valid JSON (unexpected end of data).")


@pytest.mark.parametrize(
    ("text", "where", "problem"),
    [
        ('{"messages": "hello"}', "line 1, $.messages", "expected a list of messages, found a string (reading it as openai)."),
        ("[1, 2]", "line 1, $[0]", 'expected a message object with "role", found a number (reading it as openai).'),
        (
            '[{"role": "user", "content": "a"}, {"content": "b"}]',
            "line 1, $[1].role",
            'expected one of "system", "developer", "user", "assistant", "tool" or "function", found no role (reading it as openai).',
        ),
    ],
)
def test_json_of_the_wrong_shape(tmp_path, text, where, problem):
    err = error_of(write(tmp_path, "s.json", text))
    assert (err.where, err.problem) == (where, problem)


@pytest.mark.parametrize("text", ['{"foo": 1}', "42", '"just a string"', '{"type": "user", "message": {}}'])
def test_json_that_is_no_session_at_all(tmp_path, text):
    path = write(tmp_path, "s.json", text)
    assert str(error_of(path)).startswith(f"{path}: {NOT_RECOGNISED} Known formats: ")


def test_wrong_shape_when_forced_names_the_path(tmp_path):
    path = write(tmp_path, "s.json", '{"foo": 1}')
    err = error_of(path, format="openai")
    assert (err.where, err.problem) == (
        "line 1, $",
        'expected a list of chat messages or an object with "messages", found an object without "messages" (reading it as openai).',
    )
    err = error_of(path, format="anthropic")
    assert err.problem == 'expected an object with "messages" (and optionally "system", "tools"), found an object without "messages" (reading it as anthropic).'


def test_jsonl_forced_on_a_json_document(tmp_path):
    path = write(tmp_path, "s.json", '{\n  "messages": []\n}\n')
    err = error_of(path, format="jsonl")
    assert err.where == "line 1"
    assert err.problem == "no line is an inspector JSONL record (3 bad lines; the first: not valid JSON (unexpected end of data at column 2))."


def test_unknown_format_name(tmp_path):
    path = write(tmp_path, "s.json", "[]")
    err = error_of(path, format="nope")
    assert str(err).startswith("nope: unknown format 'nope'. Known formats: ")
    known = str(err).split("Known formats: ")[1].split(" (use --format")[0].split(", ")
    assert {"openai", "anthropic", "jsonl"} <= set(known)


def test_missing_file(tmp_path):
    path = tmp_path / "missing.json"
    assert str(error_of(path)).startswith(f"{path}: no such file or directory. Known formats: ")


def test_empty_message_list_loads(tmp_path):
    s = inspector.load(write(tmp_path, "s.json", "[]"))
    assert (s.format, s.messages) == ("openai", [])


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir()))
def test_readers_build_valid_models(name):
    """Readers build models without validation (speed); validating their dump must give them back."""
    s = inspector.load(FIXTURES / name)
    assert type(s).model_validate(s.model_dump()) == s


def test_null_tool_result_content_round_trips(tmp_path):
    anthropic_doc = {"messages": [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": None}]},
    ]}
    s = anthropic.session_from_document(anthropic_doc)
    assert s.messages[1].content[0].content == ""
    assert orjson.loads(anthropic_wire.write_document(s)) == anthropic_doc
    line = {"role": "user", "content": [{"type": "tool_result", "tool_call_id": "t", "content": None}]}
    path = write(tmp_path, "s.jsonl", orjson.dumps(line).decode() + "\n")
    assert orjson.loads(jsonl.write(inspector.load(path))) == line
