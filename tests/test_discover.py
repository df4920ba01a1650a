"""Session discovery: Claude Code projects, Codex rollouts, Strands storage dirs; env overrides,
newest first, limits, estimates without parsing."""

from __future__ import annotations

import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from inspector.discover import claude_dirs, codex_dir, find_sessions, latest

FIX = Path(__file__).parent / "fixtures" / "real"
CC = FIX / "claude_code" / "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13.jsonl"
ROLLOUT = next((FIX / "codex").glob("rollout-*.jsonl"))


def _touch(path: Path, when: int) -> None:
    os.utime(path, (when, when))


@pytest.fixture
def homes(tmp_path):
    claude = tmp_path / "claude"
    shop = claude / "projects" / "-home-dev-shop"
    shop.mkdir(parents=True)
    shutil.copy(CC, shop / CC.name)
    shutil.copy(FIX / "claude_code" / "rewind.jsonl", shop / "9a1b2c3d-rewind.jsonl")
    (shop / "agent-a9f2.jsonl").write_text('{"type":"user","isSidechain":true}\n')  # a sub-agent: not listed
    (claude / "projects" / "stray.jsonl").write_text("{}\n")  # not inside a project folder
    codex = tmp_path / "codex"
    day = codex / "sessions" / "2026" / "02" / "11"
    day.mkdir(parents=True)
    shutil.copy(ROLLOUT, day / ROLLOUT.name)
    (day / "notes.txt").write_text("not a rollout")
    strands = tmp_path / "strands"
    shutil.copytree(FIX / "strands", strands)
    _touch(shop / CC.name, 1_780_000_300)
    _touch(shop / "9a1b2c3d-rewind.jsonl", 1_780_000_100)
    _touch(day / ROLLOUT.name, 1_780_000_200)
    for f in (strands / "session_travel-42").rglob("*"):
        _touch(f, 1_780_000_000)
    for f in (strands / "session_notes-7").rglob("*"):
        _touch(f, 1_770_000_000)
    return claude, codex, strands


def test_lists_every_agent_newest_first(homes):
    claude, codex, strands = homes
    found = find_sessions(claude_dir=claude, codex_home=codex, strands_dirs=[strands])
    assert [(f.agent, f.path.name) for f in found] == [
        ("claude", CC.name),
        ("codex", ROLLOUT.name),
        ("claude", "9a1b2c3d-rewind.jsonl"),
        ("strands", "session_travel-42"),
        ("strands", "session_notes-7"),
    ]
    cc = found[0]
    assert (cc.project, cc.session_id, cc.title, cc.size) == ("/home/dev/shop", "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13", "Fix flaky login test", CC.stat().st_size)
    assert cc.messages == 26  # user/assistant records, block lines and the replayed line included
    assert cc.last_activity == datetime.fromtimestamp(1_780_000_300, tz=timezone.utc)
    assert cc.format == "claude_code"
    cx = found[1]
    assert (cx.project, cx.session_id, cx.messages, cx.format) == ("/home/dev/api", "0195a3c2-7b1e-7f40-9d2a-41c8e07b5a19", 18, "codex")
    rw = found[2]
    assert (rw.project, rw.session_id, rw.title, rw.messages) == ("/home/dev/tools", "rw-1", None, 6)
    travel = found[3]
    assert (travel.project, travel.messages, travel.format) == ("travel-42", 12, "strands")
    assert travel.size == sum(p.stat().st_size for p in (strands / "session_travel-42" / "agents" / "agent_default" / "messages").iterdir())
    assert found[0].to_json()["last_activity"] == "2026-05-28T20:31:40+00:00"


def test_limit_and_agent_filter(homes):
    claude, codex, strands = homes
    assert [f.path.name for f in find_sessions(claude_dir=claude, codex_home=codex, strands_dirs=[strands], limit=2)] == [CC.name, ROLLOUT.name]
    only = find_sessions(claude_dir=claude, codex_home=codex, strands_dirs=[strands], agent="strands")
    assert [f.project for f in only] == ["travel-42", "notes-7"]
    assert latest("codex", claude_dir=claude, codex_home=codex).path.name == ROLLOUT.name
    assert latest("claude_code", claude_dir=claude, codex_home=codex).path.name == CC.name
    assert latest(claude_dir=claude, codex_home=codex, strands_dirs=[strands]).agent == "claude"
    with pytest.raises(ValueError, match="unknown agent 'cursor'; choose one of: claude, codex, strands, gemini"):
        find_sessions(agent="cursor")


def test_environment_overrides(homes, monkeypatch, tmp_path):
    claude, codex, _ = homes
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", f"{claude}, {tmp_path / 'other'}")
    monkeypatch.setenv("CODEX_HOME", str(codex))
    assert claude_dirs() == [claude, tmp_path / "other"]
    assert codex_dir() == codex
    assert [f.agent for f in find_sessions()] == ["claude", "codex", "claude"]
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.delenv("CODEX_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "nobody"))
    assert claude_dirs() == [tmp_path / "nobody" / ".claude", tmp_path / "nobody" / ".config" / "claude"]
    assert find_sessions() == []
    assert latest() is None


def test_a_session_dir_given_directly(homes):
    _, _, strands = homes
    found = find_sessions(claude_dir=strands / "x", codex_home=strands / "x", strands_dirs=[strands / "session_notes-7"])
    assert [(f.agent, f.project, f.messages) for f in found] == [("strands", "notes-7", 6)]
