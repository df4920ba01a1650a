"""Gemini CLI chats: detection, messages, recorded usage per call, notices skipped, discovery
under ~/.gemini/tmp/<hash>/chats/, and follow by re-reading the rewritten file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from inspector.discover import find_sessions
from inspector.follow_dir import RewriteFollower, follower_for
from inspector.formats import detect, load, provider_of

CHAT = Path(__file__).parent / "fixtures" / "real" / "public" / "agentcmd_session-2025-10-27T19-55-981c87cb.json"


def test_reads_calls_results_and_usage():
    assert detect(CHAT).name == "gemini_cli" and provider_of("gemini_cli") == "gemini"
    s = load(CHAT)
    assert (s.agent, s.model, len(s.messages), s.skipped) == ("gemini-cli", "gemini-2.5-pro", 31, [])
    assert [m.role for m in s.messages[:5]] == ["user", "assistant", "tool", "assistant", "tool"]
    first = s.messages[1]
    assert [b.type for b in first.content] == ["thinking", "tool_call"]
    assert (first.tool_calls[0].name, first.tool_calls[0].arguments) == ("list_directory", '{"path":"/Users/jnarowski/Dev/playground/src/test-project/"}')
    result = s.messages[2].tool_results[0]
    assert (result.tool_call_id, result.content, result.is_error) == (first.tool_calls[0].id, "Directory /Users/jnarowski/Dev/playground/src/test-project/ is empty.", False)
    calls = [m for m in s.messages if m.role == "assistant"]
    assert len(calls) == 15
    u = calls[0].usage
    # tokens {"input": 5377, "output": 21, "cached": 0, "thoughts": 36}
    assert (u.input_tokens, u.cache_read_input_tokens, u.output_tokens, u.model) == (5377, 0, 57, "gemini-2.5-pro")
    u = calls[1].usage  # {"input": 5423, "output": 170, "cached": 1381, "thoughts": 48}
    assert (u.input_tokens, u.cache_read_input_tokens, u.context_tokens, u.output_tokens) == (5423 - 1381, 1381, 5423, 218)
    assert [c.usage.context_tokens for c in calls][-3:] == [8489, 8653, 9198]


def test_notices_are_skipped_with_a_reason(tmp_path):
    doc = json.loads(CHAT.read_text())
    doc["messages"].insert(1, {"id": "x", "type": "info", "content": "Request cancelled."})
    path = tmp_path / "session-x.json"
    path.write_text(json.dumps(doc))
    s = load(path)
    assert [(x.where, x.reason, x.kind) for x in s.skipped] == [("$.messages[1]", "info (a Gemini CLI notice, not sent to the model)", "ignored")]


def test_discovered_and_followed(tmp_path):
    chats = tmp_path / "gemini" / "tmp" / "1b37d2" / "chats"
    chats.mkdir(parents=True)
    target = chats / "session-2025-10-27T19-55-981c87cb.json"
    shutil.copy(CHAT, target)
    found = find_sessions(claude_dir=tmp_path / "none", codex_home=tmp_path / "none", agent="gemini", dirs={"gemini": tmp_path / "gemini"})
    assert [(f.agent, f.format, f.project, f.session_id, f.messages) for f in found] == [
        ("gemini", "gemini_cli", "1b37d2", "981c87cb-90ef-4c7f-948d-23173ff43e4e", 18)
    ]
    doc = json.loads(CHAT.read_text())
    doc["messages"] = doc["messages"][:3]
    target.write_text(json.dumps(doc))
    follower = follower_for(target, "gemini_cli")
    assert isinstance(follower, RewriteFollower) and len(follower.session.messages) == 5
    doc = json.loads(CHAT.read_text())
    target.write_text(json.dumps(doc, indent=1))  # the CLI writes the whole file again
    update = follower.poll()
    assert (update.first, len(update.messages), update.notice) == (5, 26, None)
