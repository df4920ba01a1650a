"""A large JSON array parsed a block at a time gives exactly orjson's whole-file value, and
anything the streamed parse cannot vouch for goes the whole-file way (same value, same error)."""

from __future__ import annotations

import json

import orjson
import pytest

from inspector import load
from inspector.formats import jsonstream
from inspector.formats.jsonstream import _array_elements, _NotStreamable, load_json
from inspector.formats.probe import SessionFormatError


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    monkeypatch.setattr(jsonstream, "STREAM_FROM_BYTES", 0)
    monkeypatch.setattr(jsonstream, "BLOCK_BYTES", 7)  # every element straddles blocks


TRICKY = [
    {"role": "system", "content": "cut here? },{\"role\": no: inside a string"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
        {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{\"x\": {}}"}},
    ]},
    {"role": "tool", "tool_call_id": "a", "content": "} , {"},
    {"role": "user", "content": [{"type": "text", "text": "é ✓ \\"}, {"type": "text", "text": "}]"}]},
]


@pytest.mark.parametrize("block", [7, 64, 1 << 20])
@pytest.mark.parametrize("indent", [None, 2])
def test_the_streamed_value_is_orjson_s(tmp_path, monkeypatch, indent, block):
    monkeypatch.setattr(jsonstream, "BLOCK_BYTES", block)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(TRICKY * 40, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")
    assert _array_elements(path) == orjson.loads(path.read_bytes()) == TRICKY * 40


class _CountingOrjson:
    """orjson with its calls and failed parses counted."""

    JSONDecodeError = orjson.JSONDecodeError

    def __init__(self) -> None:
        self.calls = self.failed = 0

    def loads(self, data):
        self.calls += 1
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            self.failed += 1
            raise


@pytest.mark.parametrize("indent", [None, 2])
def test_a_block_s_run_of_messages_is_one_parse_cut_before_a_message(tmp_path, monkeypatch, indent):
    # the nested tool-call and part lists have cuts too, but none before an object whose first
    # key is "role": every run parses at its first try
    monkeypatch.setattr(jsonstream, "BLOCK_BYTES", 4096)
    counting = _CountingOrjson()
    monkeypatch.setattr(jsonstream, "orjson", counting)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(TRICKY * 200, indent=indent), encoding="utf-8")
    blocks = -(-path.stat().st_size // 4096)
    assert _array_elements(path) == TRICKY * 200
    assert counting.failed == 0 and counting.calls <= blocks + 1  # the last run at the end


@pytest.mark.parametrize("text", [
    '{"messages": [{"role": "user", "content": "hi"}]}',  # an object at the top
    "[]",
    '[1, {"a": 1}]',
    '\ufeff[{"a": 1}, {"b": 2}]',  # a BOM
    '[{"a": 1},\r{"b": 2}]',  # CR line ends
])
def test_other_documents_take_the_whole_file_way(tmp_path, text):
    path = tmp_path / "s.json"
    path.write_bytes(text.encode("utf-8"))
    with pytest.raises(_NotStreamable):
        _array_elements(path)
    assert load_json(path) == json.loads(text.removeprefix("\ufeff"))


@pytest.mark.parametrize("block", [7, 64])
def test_an_element_with_many_nested_objects_is_parsed_whole(tmp_path, monkeypatch, block):
    # nested objects that start like the elements: each cut between them is a failed parse
    monkeypatch.setattr(jsonstream, "MAX_FAILED_CUTS", 3)
    monkeypatch.setattr(jsonstream, "BLOCK_BYTES", block)
    doc = [{"k": [{"k": i} for i in range(40)]}, {"k": 1}]
    path = tmp_path / "s.json"
    path.write_bytes(orjson.dumps(doc))
    with pytest.raises(_NotStreamable):
        _array_elements(path)
    assert load_json(path) == doc


def test_bad_json_is_reported_where_the_whole_file_parse_finds_it(tmp_path):
    path = tmp_path / "s.json"
    path.write_bytes(b'[{"role": "user", "content": "a"},\n{"role": "user", "content": "b"}}]\n')
    with pytest.raises(SessionFormatError) as err:
        load(path, "openai")
    assert str(err.value).startswith(f"{path}, line 2, column 33: this is not valid JSON (")
    assert not list(tmp_path.glob("*"))[1:]  # nothing written next to the input


def test_a_streamed_session_is_the_session_read_whole(tmp_path, monkeypatch):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(TRICKY), encoding="utf-8")
    streamed = load(path)
    monkeypatch.setattr(jsonstream, "STREAM_FROM_BYTES", 1 << 40)
    assert load(path) == streamed
    assert [m.role for m in streamed.messages] == ["system", "assistant", "tool", "user"]
