"""Claude Code's partial compaction (2.1.2xx: ``compactMetadata.preservedSegment``) writes the
preserved messages again after the summary, under new uuids but with their original
``message.id``. Third-party readers measured it on 76 real compactions (every one manual, every
one with a ``preservedSegment``); the lines below are constructed to that shape."""

from __future__ import annotations

import json
from functools import partial

from claude_code_builders import entry, reply
from inspector.formats import load
from inspector.units import build_view


_entry = partial(entry, version="2.1.230", timestamp="2026-10-01T10:00:00.000Z")


def _reply(mid, text, read):
    return reply(mid, [{"type": "text", "text": text}], read, model="claude-opus-5", stop_reason="end_turn")


def test_the_preserved_segment_is_read_after_the_summary_once(tmp_path):
    boundary = {
        "parentUuid": None, "logicalParentUuid": "u2", "type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "uuid": "b1", "sessionId": "s",
        "compactMetadata": {"trigger": "manual", "preTokens": 5023, "postTokens": 900, "preservedSegment": {"headUuid": "p1", "anchorUuid": "s1", "tailUuid": "p2"}},
    }
    lines = [
        _entry("u1", None, "user", {"role": "user", "content": "first prompt"}),
        _entry("a1", "u1", "assistant", _reply("msg_X", "the answer to keep", 5000), requestId="req_X"),
        _entry("u2", "a1", "user", {"role": "user", "content": "<command-name>/compact</command-name>"}, isMeta=True),
        boundary,
        _entry("s1", "b1", "user", {"role": "user", "content": "This session is being continued from a previous conversation."}, isCompactSummary=True),
        _entry("p1", "s1", "user", {"role": "user", "content": "first prompt"}),
        _entry("p2", "p1", "assistant", _reply("msg_X", "the answer to keep", 5000), requestId="req_X"),
        _entry("u3", "p2", "user", {"role": "user", "content": "next prompt"}),
        _entry("a3", "u3", "assistant", _reply("msg_Z", "next answer", 900), requestId="req_Z"),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    s = load(path)
    assert [(m.role, m.source.line, m.starts_context) for m in s.messages] == [
        ("user", 1, False), ("assistant", 2, False), ("user", 3, False), ("user", 5, True),
        ("user", 6, False), ("assistant", 7, False), ("user", 8, False), ("assistant", 9, False),
    ]
    before, copy = s.messages[1], s.messages[5]
    assert [b.text for b in before.content] == ["the answer to keep"]  # was merged twice on main
    assert (copy.text, copy.usage, copy.extra["preserved_copy"]) == ("the answer to keep", None, True)
    assert [m.usage.context_tokens for m in s.messages if m.usage] == [5003, 903]
    # the copy is context, not a model call: two calls, as the file records
    assert copy.resent and [c.message_index for c in build_view(s).calls] == [1, 7]
