"""Proxy captures read as sessions: the split into conversations by shared prefix, system prompt
and tools as real units, usage per call, breakpoints kept, Responses chained by
previous_response_id (not exact), follow, and ``info`` on a capture."""

from __future__ import annotations

import json

import inspector
from cli_helpers import as_json
from inspector.follow import Follower
from inspector.formats import detect, session_profile

SYSTEM = [{"type": "text", "text": "You are a coding agent. Be careful.", "cache_control": {"type": "ephemeral"}}]
TOOLS = [{"name": "Read", "description": "Read a file from disk", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]
CC = {"type": "ephemeral"}

USER1 = {"role": "user", "content": [{"type": "text", "text": "Fix the bug in a.py"}]}
USER1_CC = {"role": "user", "content": [{"type": "text", "text": "Fix the bug in a.py", "cache_control": CC}]}
CALL1 = [{"type": "text", "text": "Reading it."}, {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "a.py"}}]
RESULT = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x = 1/0"}]}
RESULT_CC = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "x = 1/0", "cache_control": CC}]}
ANSWER2 = [{"type": "text", "text": "Division by zero on line 1."}]
THANKS = {"role": "user", "content": [{"type": "text", "text": "Thanks", "cache_control": CC}]}


def usage(inp: int, out: int, read: int = 0, write: int = 0) -> dict:
    return {"input_tokens": inp, "output_tokens": out, "cache_read_input_tokens": read, "cache_creation_input_tokens": write}


def exchange(n: int, request, response=None, *, api="messages", provider="anthropic", status=200, **more) -> dict:
    line = {"type": "exchange", "n": n, "time": "2026-11-23T20:00:00.000Z", "provider": provider, "api": api, "method": "POST",
            "path": {"messages": "/v1/messages", "count_tokens": "/v1/messages/count_tokens", "chat": "/v1/chat/completions", "responses": "/v1/responses"}[api],
            "status": status, "streamed": True, "duration_ms": 10.0, "request": request, **more}
    if response is not None:
        line["response"] = response
    return line


def main_request(messages):
    return {"model": "claude-test", "max_tokens": 1000, "system": SYSTEM, "tools": TOOLS, "messages": messages}


def claude_capture() -> list[dict]:
    return [
        {"type": "capture_start", "time": "2026-11-23T20:00:00.000Z", "version": "0.1.0", "upstreams": {"anthropic": "https://api.anthropic.com", "openai": "https://api.openai.com"}},
        exchange(1, {"model": "claude-haiku", "max_tokens": 50, "system": "Write a 3-word title.", "messages": [USER1]},
                 {"model": "claude-haiku", "content": [{"type": "text", "text": "Fix a.py"}], "stop_reason": "end_turn", "usage": usage(20, 4)}),
        exchange(2, main_request([USER1_CC]), {"model": "claude-test", "content": CALL1, "stop_reason": "tool_use", "usage": usage(10, 30, 0, 900)}),
        exchange(3, {"model": "claude-test", "messages": [USER1]}, {"usage": {"input_tokens": 42}}, api="count_tokens"),
        exchange(4, main_request([USER1, {"role": "assistant", "content": CALL1}, RESULT_CC]),
                 {"model": "claude-test", "content": ANSWER2, "stop_reason": "end_turn", "usage": usage(15, 12, 900, 40)}),
        exchange(5, {"model": "claude-test", "max_tokens": 500, "system": "You are a search sub-agent.", "messages": [{"role": "user", "content": "find tests"}]},
                 {"model": "claude-test", "content": [{"type": "text", "text": "tests/ has 3 files"}], "stop_reason": "end_turn", "usage": usage(30, 8)}),
        exchange(6, main_request([USER1, {"role": "assistant", "content": CALL1}, RESULT, {"role": "assistant", "content": ANSWER2}, THANKS]),
                 {"model": "claude-test", "content": [{"type": "text", "text": "You're welcome."}], "stop_reason": "end_turn", "usage": usage(6, 5, 940, 20)}),
        exchange(7, main_request([USER1]), status=429, response_error={"type": "error", "error": {"type": "rate_limit_error"}}),
        exchange(8, None, request_note="the request body is not JSON (unexpected end of data); its 12 bytes were forwarded untouched"),
    ]


def write(path, records) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_claude_capture_splits_main_conversation_from_side_calls(tmp_path):
    path = tmp_path / "capture.jsonl"
    write(path, claude_capture())
    assert detect(path).name == "capture"
    s = inspector.load(path)
    assert s.format == "capture"
    assert [m.role for m in s.messages] == ["system", "user", "assistant", "user", "assistant", "user", "assistant"]
    assert s.messages[0].text == "You are a coding agent. Be careful."
    assert s.messages[0].content[0].extra == {"cache_control": CC}
    assert s.messages[5].content[0].extra == {"cache_control": CC}  # the latest request's breakpoint
    assert s.messages[6].text == "You're welcome."
    assert [t.name for t in s.tools] == ["Read"]
    assert [(i, m.usage.input_tokens, m.usage.cache_read_input_tokens, m.usage.cache_creation_input_tokens, m.usage.output_tokens, m.usage.model)
            for i, m in enumerate(s.messages) if m.usage] == [
        (2, 10, 0, 900, 30, "claude-test"), (4, 15, 900, 40, 12, "claude-test"), (6, 6, 940, 20, 5, "claude-test"),
    ]
    # Each call's own breakpoints: the system prompt and the last message it sent.
    assert [s.messages[i].extra["capture"] for i in (2, 4, 6)] == [
        {"line": 3, "exchange": 2, "api": "messages", "exact": True, "stop_reason": "tool_use", "cache_breakpoints": [0, 1]},
        {"line": 5, "exchange": 4, "api": "messages", "exact": True, "stop_reason": "end_turn", "cache_breakpoints": [0, 3]},
        {"line": 7, "exchange": 6, "api": "messages", "exact": True, "stop_reason": "end_turn", "cache_breakpoints": [0, 5]},
    ]
    assert list(s.sidechains) == ["messages from line 2", "count_tokens from line 4", "messages from line 6"]
    title = s.sidechains["messages from line 2"]
    assert [(m.role, m.text) for m in title] == [("system", "Write a 3-word title."), ("user", "Fix the bug in a.py"), ("assistant", "Fix a.py")]
    assert title[2].usage.input_tokens == 20
    assert [m.role for m in s.sidechains["count_tokens from line 4"]] == ["user"]
    assert [(k.where, k.reason, k.kind) for k in s.skipped] == [
        ("line 8", "request 7: the upstream answered 429", "ignored"),
        ("line 9", "request 8: the request body is not JSON (unexpected end of data); its 12 bytes were forwarded untouched", "ignored"),
    ]
    assert s.provider == "anthropic" and s.model == "claude-test"
    assert session_profile(s) == "anthropic"  # counted with Anthropic framing though the format holds either


def test_responses_previous_response_id_continues_and_is_not_exact(tmp_path):
    first = {"model": "gpt-test", "instructions": "Be brief.", "input": [{"role": "user", "content": "hi"}]}
    out1 = [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Hello."}]}]
    second = {"model": "gpt-test", "instructions": "Be brief.", "previous_response_id": "resp_1", "input": [{"role": "user", "content": "bye"}]}
    out2 = [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Bye."}]}]
    u = {"input_tokens": 50, "input_tokens_details": {"cached_tokens": 40}, "output_tokens": 3, "output_tokens_details": {"reasoning_tokens": 1}}
    path = tmp_path / "c.jsonl"
    write(path, [
        exchange(1, first, {"id": "resp_1", "model": "gpt-test", "content": out1, "usage": u, "stop_reason": "completed"}, api="responses", provider="openai"),
        exchange(2, second, {"id": "resp_2", "model": "gpt-test", "content": out2, "usage": u, "stop_reason": "completed"}, api="responses", provider="openai"),
    ])
    s = inspector.load(path)
    assert [(m.role, m.text) for m in s.messages] == [("system", "Be brief."), ("user", "hi"), ("assistant", "Hello."), ("user", "bye"), ("assistant", "Bye.")]
    assert [s.messages[i].extra["capture"]["exact"] for i in (2, 4)] == [True, False]
    assert (s.messages[4].usage.input_tokens, s.messages[4].usage.cache_read_input_tokens, s.messages[4].usage.reasoning_tokens) == (10, 40, 1)
    assert s.sidechains == {}


def test_chat_capture_attaches_usage_to_each_answer(tmp_path):
    m1 = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Capital of France?"}]
    a1 = {"role": "assistant", "content": "Paris."}
    m2 = m1 + [a1, {"role": "user", "content": "And Spain?"}]
    a2 = {"role": "assistant", "content": "Madrid."}
    u = {"prompt_tokens": 30, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 0}}
    path = tmp_path / "c.jsonl"
    write(path, [exchange(1, {"model": "gpt-test", "messages": m1}, {"content": a1, "usage": u}, api="chat", provider="openai"),
                 exchange(2, {"model": "gpt-test", "messages": m2}, {"content": a2, "usage": u}, api="chat", provider="openai")])
    s = inspector.load(path)
    assert [m.text for m in s.messages] == ["Be brief.", "Capital of France?", "Paris.", "And Spain?", "Madrid."]
    assert [i for i, m in enumerate(s.messages) if m.usage and m.usage.input_tokens == 30] == [2, 4]


def test_follow_sees_each_new_request(tmp_path):
    records = claude_capture()
    path = tmp_path / "capture.jsonl"
    write(path, records[:3])
    follower = Follower(path, "capture")
    assert [m.role for m in follower.session.messages] == ["system", "user", "assistant"]
    with open(path, "a") as fh:
        fh.write(json.dumps(records[4]) + "\n")
    update = follower.poll()
    assert [m.role for m in update.session.messages] == ["system", "user", "assistant", "user", "assistant"]
    assert update.first == 0  # message 1 lost its breakpoint: shown again from there (index 1 - 1)
    assert [m.role for m in update.messages] == ["system", "user", "assistant", "user", "assistant"]


def test_info_on_a_capture_shows_system_tools_and_recorded_usage(tmp_path, capsys):
    path = tmp_path / "capture.jsonl"
    write(path, claude_capture())
    report = as_json(capsys, "info", path, "--profile", "anthropic")
    assert report["session"]["format"] == "capture"
    assert report["tool_definitions"] == 1
    assert report["tokens"]["tool_definitions"] > 0
    assert report["tokens"]["by_unit_kind"]["system"] > 0
    assert [(row["message_index"], row["input_tokens"], row["cache_read_input_tokens"], row["recorded"]) for row in report["usage"]["calls"]] == [
        (2, 10, 0, 910), (4, 15, 900, 955), (6, 6, 940, 966),
    ]
    assert report["sidechains"] == {"messages from line 2": 3, "count_tokens from line 4": 1, "messages from line 6": 3}


def test_follow_updates_sidechains_while_the_main_conversation_waits(tmp_path):
    records = claude_capture()
    path = tmp_path / "capture.jsonl"
    write(path, records[:5])  # title call, main calls 1-2, count_tokens
    follower = Follower(path, "capture")
    assert list(follower.session.sidechains) == ["messages from line 2", "count_tokens from line 4"]
    with open(path, "a") as fh:
        fh.write(json.dumps(records[5]) + "\n")  # the sub-agent's call
    update = follower.poll()
    assert (update.first, update.messages) == (5, [])
    assert list(update.session.sidechains) == ["messages from line 2", "count_tokens from line 4", "messages from line 6"]


def test_server_side_compaction_starts_the_context_with_its_recorded_sizes(tmp_path):
    """Anthropic server-side compaction: the response's compaction block (sent back in later
    requests) is a summary that starts the context; the usage iterations record its size."""
    summary = [{"type": "compaction", "content": "Summary: the bug is a division by zero in a.py."}, {"type": "text", "text": "Continuing."}]
    edits = {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 150000}}]}
    compacted_usage = {**usage(40, 10, 0, 0), "iterations": [
        {"type": "compaction", "input_tokens": 151200, "output_tokens": 1850},
        {"type": "message", "input_tokens": 1900, "output_tokens": 10},
    ]}
    applied = [{"type": "clear_tool_uses_20250919", "cleared_tool_uses": 3, "cleared_input_tokens": 24000}]
    path = tmp_path / "capture.jsonl"
    write(path, [
        exchange(1, {**main_request([USER1]), "context_management": edits},
                 {"model": "claude-test", "content": summary, "stop_reason": "end_turn", "usage": compacted_usage,
                  "context_management": {"applied_edits": applied}}),
        exchange(2, {**main_request([USER1, {"role": "assistant", "content": summary}, THANKS]), "context_management": edits},
                 {"model": "claude-test", "content": [{"type": "text", "text": "You're welcome."}], "stop_reason": "end_turn", "usage": usage(1900, 5)}),
    ])
    s = inspector.load(path)
    assert [(m.role, m.starts_context) for m in s.messages] == [
        ("system", False), ("user", False), ("assistant", True), ("user", False), ("assistant", False)
    ]  # fmt: skip
    capture = s.messages[2].extra["capture"]
    assert (capture["compaction"], capture["applied_edits"]) == ({"input_tokens": 151200, "output_tokens": 1850}, applied)
    assert "compaction" not in s.messages[4].extra["capture"]
    assert s.extra["context_management"] == edits
    view = inspector.analyze(s).view
    assert [(c.message_index, c.context_start) for c in view.calls] == [(2, 0), (4, 2)]
    assert [u.kind.value for u in view.units] == ["system", "user", "summary", "user", "assistant"]
