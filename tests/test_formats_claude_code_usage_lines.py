"""Claude Code writes one API response over several lines, each repeating ``message.id`` and a
usage object (the same one on 14,288 of 14,291 such lines in the real transcripts). The reader
makes a Usage for a line only when its usage or model differs from the one the message holds:
these pin what the merged message's usage is in each case, and the skipped records' ``where``."""

from __future__ import annotations

import json
from functools import partial

from claude_code_builders import entry
from inspector.formats import load
from inspector.formats.records import ignored, ignored_at
from inspector.model import SourceRef, Usage

_entry = partial(entry, version="2.1.230", timestamp="2026-10-01T10:00:00.000Z")


def _line(uuid, parent, text, usage, model="claude-opus-5", mid="msg_A"):
    message = {"id": mid, "type": "message", "role": "assistant", "content": [{"type": "text", "text": text}], "usage": usage}
    if model is not None:
        message["model"] = model
    return _entry(uuid, parent, "assistant", message, requestId="req_" + mid)


def _load(tmp_path, lines):
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return load(path)


U = {"input_tokens": 3, "cache_creation_input_tokens": 10, "cache_read_input_tokens": 500, "output_tokens": 7,
     "cache_creation": {"ephemeral_1h_input_tokens": 4}}


def test_lines_repeating_the_usage_merge_to_it(tmp_path):
    s = _load(tmp_path, [_entry("u1", None, "user", {"role": "user", "content": "hi"}),
                         _line("a1", "u1", "one", U), _line("a2", "a1", "two", dict(U)), _line("a3", "a2", "three", dict(U))])
    reply = s.messages[1]
    assert [b.text for b in reply.content] == ["one", "two", "three"] and reply.extra["lines"] == [2, 3, 4]
    assert reply.usage == Usage(input_tokens=3, output_tokens=7, cache_read_input_tokens=500, cache_creation_input_tokens=10,
                                cache_creation_1h_input_tokens=4, model="claude-opus-5")


def test_a_line_with_other_counts_or_no_model_merges_per_field(tmp_path):
    grown = {**U, "output_tokens": 90, "cache_read_input_tokens": 400}
    s = _load(tmp_path, [_entry("u1", None, "user", {"role": "user", "content": "hi"}),
                         _line("a1", "u1", "one", U), _line("a2", "a1", "two", grown), _line("a3", "a2", "three", dict(U), model=None),
                         _line("a4", "a3", "four", dict(U))])
    u = s.messages[1].usage  # each count the largest written, the model the first recorded
    assert (u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens, u.model) == (
        3, 90, 500, 10, "claude-opus-5")
    assert len(s.messages) == 2 and s.model == "claude-opus-5"


def test_a_new_response_with_the_same_usage_gets_its_own(tmp_path):
    s = _load(tmp_path, [_entry("u1", None, "user", {"role": "user", "content": "hi"}), _line("a1", "u1", "one", U),
                         _entry("u2", "a1", "user", {"role": "user", "content": "again"}), _line("a2", "u2", "two", dict(U), mid="msg_B")])
    first, second = s.messages[1].usage, s.messages[3].usage
    assert first == second and first is not second


def test_a_preserved_copy_written_over_two_lines_takes_the_second_lines_usage(tmp_path):
    # the copy starts with no usage (counted before the boundary); its next line merges into it
    # as into any response and brings the usage back: the behaviour before lines repeating their
    # usage were skipped, kept as it was (possibly a defect: the call is then counted twice)
    boundary = {"parentUuid": None, "logicalParentUuid": "a2", "type": "system", "subtype": "compact_boundary", "uuid": "b1",
                "sessionId": "s", "compactMetadata": {"trigger": "manual", "preTokens": 600, "postTokens": 90}}
    s = _load(tmp_path, [_entry("u1", None, "user", {"role": "user", "content": "hi"}),
                         _line("a1", "u1", "one", U), _line("a2", "a1", "two", dict(U)), boundary,
                         _entry("s1", "b1", "user", {"role": "user", "content": "summary"}, isCompactSummary=True),
                         _line("p1", "s1", "one", dict(U)), _line("p2", "p1", "two", dict(U))])
    copy = s.messages[3]
    assert copy.extra["preserved_copy"] and copy.extra["lines"] == [6, 7]
    assert copy.usage == s.messages[1].usage


def test_ignored_at_writes_where_as_a_source_ref_does():
    assert ignored_at(12, None, "progress") == ignored(SourceRef(line=12), "progress")
    assert ignored_at(12, None, "progress").where == "line 12"
    assert ignored_at(3, "agent-x.jsonl", "progress") == ignored(SourceRef(line=3, file="agent-x.jsonl"), "progress")
