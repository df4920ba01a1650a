"""Codex multi-agent rollouts. A sub-agent spawned with the parent's history (``fork_turns``) starts its rollout with a
copy of that history: its own ``session_meta`` (``source.subagent``, ``subagent_history_start_ordinal``
N), then the parent's ``session_meta`` and conversation with the parent's ``token_count`` records.
Records whose ``ordinal`` is below N are "the parent's history, replayed so the child has context"
(openai/codex thread store ``read_rollout_head``; readers of the field agree). The lines are
constructed to that shape; ids and texts are made up."""

from __future__ import annotations

import json

from inspector.formats import load
from inspector.units import build_view

CHILD = "01a0c000-0000-7000-8000-0000000000c1"
PARENT = "01a0c000-0000-7000-8000-0000000000p0"


def _line(ordinal, rtype, payload):
    return json.dumps({"timestamp": f"2026-10-02T09:00:{ordinal:02d}.000Z", "ordinal": ordinal, "type": rtype, "payload": payload}) + "\n"


def _msg(role, text):
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _usage(total_in, prior=0):
    last = {"input_tokens": total_in, "cached_input_tokens": 0, "output_tokens": 5, "reasoning_output_tokens": 0, "total_tokens": total_in + 5}
    total = dict(last, input_tokens=prior + total_in, total_tokens=prior + total_in + 5)
    return {"type": "token_count", "info": {"total_token_usage": total, "last_token_usage": last, "model_context_window": 258400}}


def _rollout(tmp_path):
    child_meta = {"id": CHILD, "cwd": "/w", "cli_version": "0.160.0", "history_mode": "paginated", "base_instructions": {"text": "You are Codex."},
                  "source": {"subagent": {"thread_spawn": {"parent_thread_id": PARENT, "agent_path": "/root/explorer"}}},
                  "subagent_history_start_ordinal": 6}
    parent_meta = {"id": PARENT, "cwd": "/w", "cli_version": "0.160.0", "base_instructions": {"text": "You are Codex."}}
    lines = [
        _line(0, "session_meta", child_meta),
        _line(1, "session_meta", parent_meta),
        _line(2, "turn_context", {"model": "gpt-6-astra"}),
        _line(3, "response_item", _msg("user", "the parent's prompt")),
        _line(4, "response_item", _msg("assistant", "the parent's answer")),
        _line(5, "event_msg", _usage(5000)),
        _line(6, "response_item", _msg("user", "explore the repository")),
        _line(7, "response_item", _msg("assistant", "explored")),
        _line(8, "event_msg", _usage(5040, prior=5000)),
    ]
    path = tmp_path / f"rollout-2026-10-02T09-00-00-{CHILD}.jsonl"
    path.write_text("".join(lines))
    return path


def test_the_inherited_parent_history_is_context_not_the_sub_agents_calls(tmp_path):
    s = load(_rollout(tmp_path))
    assert [(m.role, m.text, m.resent, m.usage.context_tokens if m.usage else None) for m in s.messages] == [
        ("system", "You are Codex.", False, None),
        ("user", "the parent's prompt", False, None),
        ("assistant", "the parent's answer", True, None),
        ("user", "explore the repository", False, None),
        ("assistant", "explored", False, 5040),
    ]
    assert [c.message_index for c in build_view(s).calls] == [4]
    assert s.extra["session_id"] == CHILD and s.extra["subagent_history_start_ordinal"] == 6
    assert ("line 6", "event_msg/token_count (the parent's, in the history this sub-agent inherits)") in [(x.where, x.reason) for x in s.skipped]


def test_a_reply_of_reasoning_cut_short_by_mail_is_a_call_without_usage(tmp_path):
    """openai/codex turn.rs ``preempt_for_mailbox_mail``: a request is ended when a reasoning item
    is done and another agent's mail waits; the item is recorded, the token_count repeats the
    totals, and the next request sends the item and the mail (shape of the public 0.145 rollout,
    lines 213-221)."""
    meta = {"id": CHILD, "cwd": "/w", "cli_version": "0.145.0", "base_instructions": {"text": "You are Codex."}}
    reasoning = {"type": "reasoning", "summary": [{"type": "summary_text", "text": "waiting for the explorer"}], "encrypted_content": "REDACTED"}
    mail = {"type": "agent_message", "author": "/root/explorer", "recipient": "/root", "content": [{"type": "input_text", "text": "found it"}]}
    lines = [
        _line(0, "session_meta", meta), _line(1, "turn_context", {"model": "gpt-5.6-sol"}),
        _line(2, "response_item", _msg("user", "find it")), _line(3, "response_item", _msg("assistant", "spawned")),
        _line(4, "event_msg", _usage(1000)),
        _line(5, "response_item", reasoning), _line(6, "event_msg", _usage(1000)),  # the same totals: a repeat
        _line(7, "response_item", mail), _line(8, "response_item", _msg("assistant", "done")),
        _line(9, "event_msg", _usage(1100, prior=1000)),
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(lines))
    s = load(path)
    calls = build_view(s).calls
    assert [([b.type for b in s.messages[c.message_index].content], s.messages[c.message_index].usage.context_tokens if s.messages[c.message_index].usage else None) for c in calls] == [
        (["text"], 1000), (["thinking"], None), (["text"], 1100)]
