"""Codex moves an archived thread's rollout to ``$CODEX_HOME/archived_sessions/`` (flat, the file
name kept: openai/codex ``ARCHIVED_SESSIONS_SUBDIR``); listing must find it there too."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from inspector.discover import find_sessions, latest

FIX = Path(__file__).parent / "fixtures" / "real"
ROLLOUT = next((FIX / "codex").glob("rollout-*.jsonl"))


def test_archived_rollouts_are_listed_with_the_live_ones(tmp_path):
    home = tmp_path / "codex"
    day = home / "sessions" / "2026" / "02" / "11"
    archived = home / "archived_sessions"
    day.mkdir(parents=True)
    archived.mkdir()
    live = shutil.copy(ROLLOUT, day / ROLLOUT.name)
    old = shutil.copy(ROLLOUT, archived / ROLLOUT.name.replace("2026", "2025", 1))
    (archived / "notes.txt").write_text("not a rollout")
    os.utime(live, (1_780_000_200, 1_780_000_200))
    os.utime(old, (1_770_000_000, 1_770_000_000))
    found = find_sessions(codex_home=home, agent="codex")
    assert [(f.path.parent.name, f.format, f.messages) for f in found] == [("11", "codex", 18), ("archived_sessions", "codex", 18)]
    os.utime(old, (1_790_000_000, 1_790_000_000))
    assert latest("codex", codex_home=home).path == Path(old)
