"""The readers' shortcut for the message forms nearly every file writes (OpenAI, the inspector's JSONL) builds exactly
what its general reader builds, and leaves every other form to it."""

from __future__ import annotations

import copy

import pytest

from inspector.formats.common_forms import common_message
from inspector.formats.jsonl import _plain_tool_call, parse_message
from inspector.formats.openai_chat import _common_tool_call, _MessageReader
from inspector.model import new_source


def _common_message(d, i, prefix_path):
    """As the OpenAI reader calls it."""
    return common_message(d, i, new_source(None, f"{prefix_path}[{i}]", None), _common_tool_call)


def _jsonl_common(d, index, line_no):
    """As the JSONL reader calls it."""
    return common_message(d, index, new_source(line_no, None, None), _plain_tool_call)


CALL = {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": '{"p": 1}'}}
CALL2 = {"id": "call_2", "type": "function", "function": {"name": "grep", "arguments": "{}"}}

TAKEN = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "hi"},
    {"role": "user", "content": ""},
    {"role": "assistant", "content": "hello"},
    {"role": "assistant", "content": "let me look", "tool_calls": [CALL, CALL2]},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "assistant", "content": "", "tool_calls": [CALL]},
    {"role": "tool", "content": "42 lines", "tool_call_id": "call_1"},
    {"role": "tool", "content": None, "tool_call_id": "call_1"},
    {"role": "tool", "content": "", "tool_call_id": "call_1"},
]

LEFT = [
    {"role": "developer", "content": "rules"},  # the source role is kept in extra
    {"role": "user", "content": None},
    {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    {"role": "user", "content": "hi", "name": "ann"},
    {"role": "user"},
    {"role": ["user"], "content": "hi"},  # unhashable: the general reader names it
    {"role": "tool", "content": "x"},  # no tool_call_id
    {"role": "user", "content": "x", "tool_call_id": "call_1"},  # kept in extra for a user
    {"role": "tool", "content": [{"type": "text", "text": "x"}], "tool_call_id": "call_1"},
    {"role": "tool", "content": "x", "tool_call_id": 7},
    {"role": "assistant", "content": "x", "tool_calls": []},
    {"role": "assistant", "content": "x", "tool_calls": None},
    {"role": "assistant", "content": 5, "tool_calls": [CALL]},
    {"role": "assistant", "content": "x", "tool_calls": [{**CALL, "index": 0}]},
    {"role": "assistant", "content": "x", "tool_calls": [CALL, {"id": "c", "function": {"name": "f", "arguments": "{}"}}]},
    {"role": "user", "content": "x", "tool_calls": [CALL]},  # kept in extra for a user
    {"role": "function", "content": "x", "name": "f"},
    {"role": "assistant", "content": "x", "usage": {"prompt_tokens": 3, "completion_tokens": 1}},
    ["not", "a", "message"],
]


def _general(d, i):
    return _MessageReader(("messages",)).message(copy.deepcopy(d), i)


@pytest.mark.parametrize("d", TAKEN, ids=lambda d: f"{d['role']}-{sorted(d)}-{type(d['content']).__name__}")
def test_a_common_form_is_built_as_the_general_reader_builds_it(d):
    made = _common_message(copy.deepcopy(d), 7, "$.messages")
    assert made is not None
    assert made == _general(d, 7)
    assert made.model_dump() == _general(d, 7).model_dump()
    assert str(made.source) == "$.messages[7]"


@pytest.mark.parametrize("d", LEFT, ids=repr)
def test_every_other_form_is_left_to_the_general_reader(d):
    assert _common_message(copy.deepcopy(d), 3, "$") is None


# -- the inspector's JSONL reader: the same shortcut, its own forms ----------------------------------


JSONL_CALL = {"id": "call_1", "name": "read", "arguments": '{"p": 1}'}

JSONL_TAKEN = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": ""},
    {"role": "assistant", "content": "hello"},
    {"role": "assistant", "content": "let me look", "tool_calls": [JSONL_CALL, {**JSONL_CALL, "id": "call_2"}]},
    {"role": "assistant", "content": None, "tool_calls": [JSONL_CALL]},
    {"role": "tool", "content": "42 lines", "tool_call_id": "call_1"},
    {"role": "tool", "content": None, "tool_call_id": "call_1"},
]

JSONL_LEFT = [
    {"role": "tool", "content": "no id"},  # an error line: parse_message names it
    {"role": "user", "content": None},
    {"role": "user", "content": [{"type": "text", "text": "hi"}]},
    {"role": {"a": 1}, "content": "hi"},
    {"role": "user", "content": "x", "tool_call_id": "call_1"},
    {"role": "user", "content": "x", "tool_calls": [JSONL_CALL]},
    {"role": "assistant", "content": "x", "tool_calls": []},
    {"role": "assistant", "content": "x", "tool_calls": [{**JSONL_CALL, "type": "function"}]},
    {"role": "assistant", "content": "x", "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": "{}"}}]},
    {"role": "assistant", "content": "x", "tool_calls": [{**JSONL_CALL, "arguments": {"p": 1}}]},
    {"role": "tool", "content": [{"type": "text", "text": "x"}], "tool_call_id": "call_1"},
    {"role": "tool", "content": "x", "tool_call_id": "call_1", "is_error": True},
    {"role": "assistant", "content": "x", "summary": True},
    {"role": "assistant", "content": "x", "usage": {"input_tokens": 3}},
    {"role": "user", "content": "x", "ts": 1},
    "a string",
]


@pytest.mark.parametrize("d", JSONL_TAKEN, ids=repr)
def test_a_common_jsonl_line_is_built_as_parse_message_builds_it(d):
    made = _jsonl_common(copy.deepcopy(d), 4, 12)
    assert made is not None
    assert made == parse_message(copy.deepcopy(d), 4, 12)
    assert made.model_dump() == parse_message(copy.deepcopy(d), 4, 12).model_dump()


@pytest.mark.parametrize("d", JSONL_LEFT, ids=repr)
def test_every_other_jsonl_line_is_left_to_parse_message(d):
    assert _jsonl_common(copy.deepcopy(d), 4, 12) is None


@pytest.mark.parametrize("d", [
    {"role": "assistant", "tool_calls": [CALL], "tool_call_id": "call_1"},  # three keys, no content
    {"role": "tool", "tool_call_id": "call_1", "name": "read"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function", "function": {"name": "f"}, "x": 1}]},
    {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{}"}, "x": "c"}]},
    {"role": "assistant", "content": None, "tool_calls": [{**CALL, "function": {"name": "f", "description": "{}"}}]},
    {"content": "hi", "name": "x"},
], ids=repr)
def test_a_message_with_the_right_number_of_other_keys_is_left_to_the_general_reader(d):
    assert _common_message(copy.deepcopy(d), 3, "$") is None


@pytest.mark.parametrize("c", [{"id": "c", "name": "f", "input": "{}"}, {"id": "c", "arguments": "{}", "type": "x"}], ids=repr)
def test_a_jsonl_call_with_other_keys_is_left_to_parse_message(c):
    assert _jsonl_common({"role": "assistant", "content": "x", "tool_calls": [c]}, 0, 1) is None
