"""Paginated Codex rollouts (0.146+) do not copy history: a fork or a backtrack starts a file whose
``session_meta.history_base`` names the first ``end_byte_offset`` bytes of an earlier rollout it
continues. The model was sent that prefix, then the file (shapes from openai/codex
``codex-rs/rollout``: ``ordinal`` on every record, ``history_mode: "paginated"``)."""

from __future__ import annotations

import json
from pathlib import Path

from inspector.formats import load
from inspector.formats.codex_lineage import lineage

PARENT = "01a0c000-0000-7000-8000-00000000000a"
CHILD = "01a0c000-0000-7000-8000-00000000000b"


def _line(ordinal: int, rtype: str, payload: dict) -> str:
    return json.dumps({"timestamp": f"2026-10-02T09:00:{ordinal:02d}.000Z", "ordinal": ordinal, "type": rtype, "payload": payload}, separators=(",", ":")) + "\n"


def _user(text: str) -> dict:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def _reply(text: str) -> dict:
    return {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}


def _usage(total_in: int) -> dict:
    last = {"input_tokens": total_in, "cached_input_tokens": 0, "output_tokens": 5, "reasoning_output_tokens": 0, "total_tokens": total_in + 5}
    return {"type": "token_count", "info": {"total_token_usage": last, "last_token_usage": last, "model_context_window": 258400}}


def _sessions(tmp_path: Path) -> tuple[Path, Path]:
    day = tmp_path / ".codex" / "sessions" / "2026" / "10" / "02"
    day.mkdir(parents=True)
    meta = {"id": PARENT, "cwd": "/w", "cli_version": "0.153.4", "history_mode": "paginated", "base_instructions": {"text": "You are Codex."}}
    parent_lines = [_line(0, "session_meta", meta), _line(1, "response_item", _user("first question")), _line(2, "response_item", _reply("first answer")), _line(3, "event_msg", _usage(1000))]
    later = [_line(4, "response_item", _user("a question the fork does not share")), _line(5, "response_item", _reply("parent only")), _line(6, "event_msg", _usage(1100))]
    parent = day / f"rollout-2026-10-02T09-00-00-{PARENT}.jsonl"
    parent.write_text("".join(parent_lines + later))
    base = {"thread_id": PARENT, "end_ordinal_exclusive": 4, "end_byte_offset": len("".join(parent_lines).encode())}
    child_meta = dict(meta, id=CHILD, forked_from_id=PARENT, history_base=base)
    child = day / f"rollout-2026-10-02T09-05-00-{CHILD}.jsonl"
    child.write_text(_line(4, "session_meta", child_meta) + _line(5, "response_item", _user("second question")) + _line(6, "response_item", _reply("second answer")) + _line(7, "event_msg", _usage(1040)))
    return parent, child


def test_a_fork_is_read_after_the_prefix_it_continues(tmp_path):
    parent, child = _sessions(tmp_path)
    assert [(p.path.name, p.end) for p in lineage(child).prefixes] == [(parent.name, 1004)]
    s = load(child)
    assert [(m.role, m.text, m.source.file, m.source.line) for m in s.messages] == [
        ("system", "You are Codex.", parent.name, 1),
        ("user", "first question", parent.name, 2),
        ("assistant", "first answer", parent.name, 3),
        ("user", "second question", None, 2),
        ("assistant", "second answer", None, 3),
    ]
    assert [m.usage.context_tokens for m in s.messages if m.usage] == [1000, 1040]
    assert (s.extra["session_id"], s.extra["history_base"]) == (CHILD, [{"file": parent.name, "bytes": 1004, "thread_id": PARENT}])
    assert [(x.where, x.reason) for x in s.skipped] == [("line 1", "session_meta")]


def test_a_missing_prefix_is_named(tmp_path):
    parent, child = _sessions(tmp_path)
    parent.unlink()
    s = load(child)
    assert [m.text for m in s.messages] == ["You are Codex.", "second question", "second answer"]
    assert [(x.where, x.reason, x.kind) for x in s.skipped] == [
        ("line 1", f"history before this file: the first 1004 bytes of rollout {PARENT}, which is not beside it", "error")
    ]


def test_the_live_follower_reads_the_prefix_first_as_a_load_does(tmp_path):
    from inspector.follow import Follower

    parent, child = _sessions(tmp_path)
    follower = Follower(child, "codex")
    loaded = load(child)
    assert [(m.role, m.text, m.source.file, m.source.line) for m in follower.session.messages] == [
        (m.role, m.text, m.source.file, m.source.line) for m in loaded.messages]
    assert follower.session.extra["session_id"] == CHILD
    assert follower.session.extra["history_base"] == [{"file": parent.name, "bytes": 1004, "thread_id": PARENT}]
    with child.open("a") as fh:
        fh.write(_line(8, "response_item", _user("third question")) + _line(9, "response_item", _reply("third answer")) + _line(10, "event_msg", _usage(1080)))
    update = follower.poll()
    assert [(m.text, m.source.line) for m in update.messages] == [("third question", 5), ("third answer", 6)]
    assert [m.usage.context_tokens for m in follower.session.messages if m.usage] == [1000, 1040, 1080]


def test_a_prefix_in_archived_sessions_is_found(tmp_path):
    parent, child = _sessions(tmp_path)
    archived = tmp_path / ".codex" / "archived_sessions"
    archived.mkdir()
    moved = parent.rename(archived / parent.name)  # the parent thread was archived since
    assert [(p.path, p.end) for p in lineage(child).prefixes] == [(moved, 1004)]
    assert [m.text for m in load(child).messages][:3] == ["You are Codex.", "first question", "first answer"]
    archived_child = child.rename(archived / child.name)  # and a fork archived with its parent live
    moved.rename(parent)
    assert [(p.path, p.end) for p in lineage(archived_child).prefixes] == [(parent, 1004)]
