"""Live following of Strands directories (new message files, agent.json rewrites) and Agents SDK
SQLite sessions (new rows, removed rows)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from inspector.follow import Follower
from inspector.formats import agents_sqlite
from inspector.follow_dir import SqliteFollower, StrandsFollower, follower_for

FIX = Path(__file__).parent / "fixtures" / "real"


def _message_file(agent: Path, n: int, role: str, text: str) -> None:
    body = {"message": {"role": role, "content": [{"text": text}]}, "message_id": n, "redact_message": None}
    tmp = agent / "messages" / f"message_{n}.json.tmp"
    tmp.write_text(json.dumps(body))
    tmp.rename(agent / "messages" / f"message_{n}.json")  # as FileSessionManager writes


def test_strands_new_message_files(tmp_path):
    session_dir = tmp_path / "session_notes-7"
    shutil.copytree(FIX / "strands" / "session_notes-7", session_dir)
    agent = session_dir / "agents" / "agent_default"
    follower = follower_for(session_dir, "strands")
    assert isinstance(follower, StrandsFollower)
    session = follower.session
    assert len(session.messages) == 6
    assert follower.poll().messages == []
    _message_file(agent, 6, "user", "Note: renew passport.")
    _message_file(agent, 7, "assistant", "Saved: renew passport.")
    (agent / "messages" / "message_8.json").write_text('{"message": {"role": "user", "cont')  # still being written
    update = follower.poll()
    assert (update.first, [m.text for m in update.messages], update.notice) == (6, ["Note: renew passport.", "Saved: renew passport."], None)
    assert [m.index for m in session.messages] == list(range(8))
    _message_file(agent, 8, "user", "Read them back.")
    update = follower.poll()
    assert (update.first, [m.text for m in update.messages]) == (8, ["Read them back."])
    assert update.session is session


def test_strands_agent_json_change_rebuilds_the_window(tmp_path):
    session_dir = tmp_path / "session_notes-7"
    shutil.copytree(FIX / "strands" / "session_notes-7", session_dir)
    agent = session_dir / "agents" / "agent_default"
    follower = StrandsFollower(session_dir)
    state = json.loads((agent / "agent.json").read_text())
    state["conversation_manager_state"] = {
        "__name__": "SummarizingConversationManager",
        "removed_message_count": 4,
        "summary_message": {"role": "user", "content": [{"text": "Notes so far: call the dentist on Monday."}]},
    }
    (agent / "agent.json").write_text(json.dumps(state))
    update = follower.poll()
    assert update.first == 2  # message 2 no longer starts the window
    assert [m.text for m in update.messages] == [
        "Note: call the dentist on Monday.",
        "Saved: call the dentist on Monday.",
        "Notes so far: call the dentist on Monday.",
        "What are my notes?",
        "You have one note: call the dentist on Monday.",
    ]
    assert update.messages[2].starts_context and not update.messages[0].starts_context
    assert update.notice == f"{session_dir}: agent.json changed (the conversation manager trimmed or summarised); reloaded from message 2."
    assert follower.session.messages[4].index == 4


def test_strands_deleted(tmp_path):
    session_dir = tmp_path / "session_notes-7"
    shutil.copytree(FIX / "strands" / "session_notes-7", session_dir)
    follower = StrandsFollower(session_dir)
    shutil.rmtree(session_dir)
    update = follower.poll()
    assert update.stopped and update.notice == f"{session_dir} was deleted: keeping the 6 messages already loaded and no longer following it."


def _db(tmp_path: Path) -> Path:
    path = tmp_path / "conversations.db"
    con = sqlite3.connect(path)
    con.executescript((FIX / "agents_sqlite" / "conversations.sql").read_text())
    con.commit()
    con.close()
    return path


def _insert(path: Path, *items: dict) -> None:
    con = sqlite3.connect(path)
    con.executemany("INSERT INTO agent_messages (session_id, message_data) VALUES ('support-118', ?)", [(json.dumps(i),) for i in items])
    con.commit()
    con.close()


def test_sqlite_new_rows(tmp_path):
    path = _db(tmp_path)
    follower = follower_for(path, "agents_sqlite")
    assert isinstance(follower, SqliteFollower)
    assert len(follower.session.messages) == 7
    assert follower.poll().messages == []
    _insert(path, {"role": "user", "content": "And order 5523?"}, {"type": "function_call", "call_id": "call_o3", "name": "get_order", "arguments": "{\"order_id\": \"5523\"}"})
    update = follower.poll()
    assert update.first == 7
    assert [(m.role, len(m.content)) for m in update.messages] == [("user", 1), ("assistant", 1)]
    _insert(path, {"type": "function_call_output", "call_id": "call_o3", "output": "not found"})
    update = follower.poll()
    assert (update.first, [m.role for m in update.messages]) == (9, ["tool"])
    assert str(update.messages[0].source) == "agent_messages[id=16].message_data"


def test_sqlite_popped_row_reloads(tmp_path):
    path = _db(tmp_path)
    follower = SqliteFollower(path)
    con = sqlite3.connect(path)
    con.execute("DELETE FROM agent_messages WHERE id = (SELECT MAX(id) FROM agent_messages WHERE session_id = 'support-118')")
    con.execute("DELETE FROM agent_messages WHERE id = 12")  # pop_item twice: the final answer goes
    con.commit()
    con.close()
    update = follower.poll()
    assert update.first == 6 and update.messages == []  # message 6 is gone
    assert len(follower.session.messages) == 6
    assert update.notice == f"{path}: rows of session support-118 were removed; reloaded from message 6."
    _insert(path, {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Refunded both."}]})
    update = follower.poll()
    assert (update.first, [m.text for m in update.messages]) == (6, ["Refunded both."])


def test_jsonl_formats_use_the_jsonl_follower():
    rollout = next((FIX / "codex").glob("*.jsonl"))
    assert isinstance(follower_for(rollout, "codex"), Follower)


def test_can_follow():
    from inspector.follow_dir import can_follow

    assert [f for f in ("claude_code", "codex", "jsonl", "strands", "agents_sqlite", "openai", "langchain") if can_follow(f)] == [
        "claude_code", "codex", "jsonl", "strands", "agents_sqlite"
    ]  # fmt: skip


def test_sqlite_poll_copies_the_database_only_when_it_changed(tmp_path, monkeypatch):
    path = _db(tmp_path)
    follower = SqliteFollower(path)
    copies = []
    real_connect = agents_sqlite.connect
    monkeypatch.setattr(agents_sqlite, "connect", lambda p: copies.append(p) or real_connect(p))
    for _ in range(5):
        assert follower.poll().messages == []
    assert copies == []
    _insert(path, {"role": "user", "content": "And order 5523?"})
    assert [m.text for m in follower.poll().messages] == ["And order 5523?"]
    assert copies == [path]  # one private copy for the row count and the new rows together
    assert follower.poll().messages == []
    assert copies == [path]
