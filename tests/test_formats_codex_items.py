"""Response items newer Codex rollouts persist (0.15x): a ``context_compaction`` starts a new
context like ``compaction``, ``tool_search_output`` answers with the tools it loaded, and
``additional_tools`` (tool definitions inside the input) is kept where it was sent."""

from __future__ import annotations

from pathlib import Path

from inspector.formats import load
from inspector.formats.openai_responses import ItemReader
from inspector.model import SourceRef

ROLLOUT = Path(__file__).parent / "fixtures" / "constructed" / "codex_items" / "rollout-2026-10-03T01-00-00-01a0ff49-0000-7000-8000-000000000001.jsonl"


def test_newer_items_are_read_not_skipped():
    s = load(ROLLOUT)
    assert (s.format, s.model) == ("codex", "gpt-6")
    assert [(m.role, m.source.line, m.extra.get("item_type")) for m in s.messages] == [
        ("system", 1, None), ("system", 3, "additional_tools"), ("user", 4, None), ("assistant", 5, None),
        ("tool", 7, "tool_search_output"), ("assistant", 8, None), ("user", 10, None), ("user", 11, "compaction"),
        ("assistant", 13, None),
    ]
    assert [(x.where, x.reason) for x in s.skipped] == [("line 2", "turn_context"), ("line 12", "event_msg/context_compacted")]
    tools = s.messages[1].content[0]
    assert tools.text.startswith('[{"type":"custom","name":"exec","description":"Run a shell command')
    result = s.messages[4].tool_results[0]
    assert (result.tool_call_id, result.content) == ("ts_1", '[{"type":"function","name":"grep_files","description":"Search file contents.","parameters":{"type":"object","properties":{"pattern":{"type":"string"}}}}]')


def test_context_compaction_starts_a_context():
    s = load(ROLLOUT)
    assert [m.index for m in s.messages if m.starts_context] == [7]
    assert [(m.index, m.usage.context_tokens) for m in s.messages if m.usage] == [(3, 5000), (5, 5200), (8, 900)]


def test_compaction_aliases_and_trigger():
    reader = ItemReader([], [])
    for k, t in enumerate(("compaction_summary", "context_compaction", "compaction_trigger")):
        reader.add({"type": t, "encrypted_content": "x"} if t != "compaction_trigger" else {"type": t}, SourceRef(line=k + 1))
    assert [(m.starts_context, m.extra["item_type"], m.content[0].raw["type"]) for m in reader.messages] == [
        (True, "compaction", "compaction_summary"), (True, "compaction", "context_compaction")
    ]
    assert [(x.where, x.reason) for x in reader.skipped] == [("line 3", "compaction_trigger")]


def test_inter_agent_communication_records_are_model_input(tmp_path):
    """Later multi-agent rollouts persist a message between agents as a top-level record
    (openai/codex ``RolloutItem::InterAgentCommunication``); Codex sends the model its
    ``to_model_input_item``: the content, or a header and the encrypted payload."""
    import json

    lines = [
        {"timestamp": "t0", "type": "session_meta", "payload": {"id": "root", "cwd": "/w", "cli_version": "0.160.0", "base_instructions": {"text": "You are Codex."}}},
        {"timestamp": "t1", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "review it"}]}},
        {"timestamp": "t2", "type": "inter_agent_communication", "payload": {"author": "/root/tester", "recipient": "/root", "other_recipients": [], "content": "One test fails in src/a.test.ts.", "trigger_turn": False}},
        {"timestamp": "t3", "type": "inter_agent_communication", "payload": {"id": "m2", "author": "/root", "recipient": "/root/tester", "other_recipients": [], "content": "", "encrypted_content": "QUJD", "trigger_turn": True}},
    ]
    path = tmp_path / "rollout-2026-10-02T09-00-00-root.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    s = load(path)
    plain, encrypted = s.messages[2], s.messages[3]
    assert (plain.role, plain.injected, plain.text, plain.extra) == ("user", "agent_message", "One test fails in src/a.test.ts.", {"record": "agent_message", "author": "/root/tester", "recipient": "/root"})
    assert encrypted.text == "Message Type: NEW_TASK\nTask name: /root/tester\nSender: /root\nPayload:\n"
    assert [b.type for b in encrypted.content] == ["text", "raw"] and encrypted.extra["id"] == "m2"
    assert [x.reason for x in s.skipped] == []


def test_recorded_cache_writes_are_kept_apart(tmp_path):
    """Codex token_count usage has carried ``cache_write_input_tokens`` since mid-2026 (part of
    ``input_tokens``, like ``cached_input_tokens``); it was left inside the uncached input."""
    import json

    usage = {"input_tokens": 40000, "cached_input_tokens": 32435, "cache_write_input_tokens": 104, "output_tokens": 200, "reasoning_output_tokens": 0, "total_tokens": 40200}
    lines = [
        {"timestamp": "t0", "type": "session_meta", "payload": {"id": "s", "cwd": "/w", "cli_version": "0.153.4"}},
        {"timestamp": "t1", "type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}},
        {"timestamp": "t2", "type": "response_item", "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hello"}]}},
        {"timestamp": "t3", "type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": usage, "last_token_usage": usage, "model_context_window": 258400}}},
    ]
    path = tmp_path / "rollout-2026-09-01T10-00-00-s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    u = load(path).messages[1].usage
    assert (u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens, u.context_tokens) == (7461, 32435, 104, 40000)
