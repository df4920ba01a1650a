"""``context-inspector sessions`` and ``--latest``."""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest
from rich.console import Console

from inspector.cli.main import main
from inspector.cli.sessions import render
from inspector.discover import find_sessions

FIX = Path(__file__).parent / "fixtures" / "real"
CC = FIX / "claude_code" / "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13.jsonl"
ROLLOUT = next((FIX / "codex").glob("rollout-*.jsonl"))


@pytest.fixture
def homes(tmp_path):
    claude = tmp_path / "claude"
    shop = claude / "projects" / "-home-dev-shop"
    shop.mkdir(parents=True)
    shutil.copy(CC, shop / CC.name)
    codex = tmp_path / "codex"
    day = codex / "sessions" / "2026" / "02" / "11"
    day.mkdir(parents=True)
    shutil.copy(ROLLOUT, day / ROLLOUT.name)
    os.utime(shop / CC.name, (1_780_000_000, 1_780_000_000))
    os.utime(day / ROLLOUT.name, (1_780_003_600, 1_780_003_600))
    return claude, codex


def test_sessions_json(homes, capsys):
    claude, codex = homes
    assert main(["sessions", "--claude-dir", str(claude), "--codex-home", str(codex), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert list(report) == ["schema_version", "sessions"]  # an object since schema_version 1
    rows = report["sessions"]
    assert [(r["agent"], r["format"], r["project"], r["messages"]) for r in rows] == [
        ("codex", "codex", "/home/dev/api", 18),
        ("claude", "claude_code", "/home/dev/shop", 26),
    ]
    assert rows[1]["title"] == "Fix flaky login test"
    assert rows[0]["last_activity"] == "2026-05-28T21:26:40+00:00"


def test_sessions_table_and_options(homes, capsys):
    claude, codex = homes
    assert main(["sessions", "--claude-dir", str(claude), "--codex-home", str(codex), "--agent", "claude"]) == 0
    out = capsys.readouterr().out
    assert "1 recent session" in out and "/home/dev/shop" in out and "~26" in out and "Fix flaky login test" in out
    assert "/home/dev/api" not in out
    assert main(["sessions", "--limit", "0"]) == 2
    assert capsys.readouterr().err == "context-inspector sessions: error: --limit 0: give a positive number of sessions.\n"


def test_render_is_plain_text(homes):
    claude, codex = homes
    found = find_sessions(claude, codex)
    console = Console(width=200, record=True, highlight=False)
    render(found, console, now=datetime(2026, 5, 28, 22, 26, 40, tzinfo=timezone.utc))
    text = console.export_text()
    assert "2026-05-28 21:26 (1 h ago)" in text
    assert "2026-05-28 20:26 (2 h ago)" in text
    assert "codex" in text and "claude" in text


def test_latest_opens_the_newest(homes, monkeypatch):
    claude, codex = homes
    import inspector.tui.app as app

    opened = {}
    monkeypatch.setattr(app, "run", lambda path, **kw: opened.update(path=path, **kw) or 0)
    assert main(["--latest", "--claude-dir", str(claude), "--codex-home", str(codex)]) == 0
    assert (Path(opened["path"]).name, opened["format"]) == (ROLLOUT.name, "codex")
    assert main(["--latest", "claude", "--claude-dir", str(claude), "--codex-home", str(codex)]) == 0
    assert (Path(opened["path"]).name, opened["format"]) == (CC.name, "claude_code")


def test_latest_without_sessions(tmp_path, capsys):
    assert main(["--latest", "codex", "--codex-home", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"context-inspector: error: --latest: no Codex sessions found in {tmp_path / 'sessions'}.\n"
    assert main(["x.jsonl", "--latest"]) == 2
    assert "give either SESSION (x.jsonl) or --latest, not both." in capsys.readouterr().err


def test_sessions_without_any_says_where_it_looked(tmp_path, capsys):
    # it said only "No sessions found.", where --latest names the folders
    assert main(["sessions", "--agent", "codex", "--codex-home", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"No sessions found in {tmp_path / 'sessions'}.\n"
