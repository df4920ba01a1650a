"""The CLI on the hand-written Claude Code and Codex fixtures: skipped records grouped by reason,
sidechains, recorded usage per call beside the estimate, and ``--calibrate``."""

from __future__ import annotations

import json
from pathlib import Path

from inspector.cli.main import main

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
CLAUDE = REAL / "claude_code" / "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13.jsonl"
CODEX = REAL / "codex" / "rollout-2026-02-11T14-05-00-0195a3c2-7b1e-7f40-9d2a-41c8e07b5a19.jsonl"
BAD_JSON = "not valid JSON (unexpected end of data: line 1 column 36 (char 35))"


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys, *args) -> dict:
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)


def words(text: str) -> str:
    return " ".join(text.split())


# ------------------------------------------------------------------------------------------
# skipped records and sidechains


def test_info_claude_code_groups_ignored_records_and_lists_the_bad_line(capsys):
    d = as_json(capsys, "info", CLAUDE)
    assert d["skipped"] == {
        "ignored": {
            "progress": 2,
            "summary": 1,
            "file-history-snapshot": 1,
            "system/turn_duration": 1,
            "mystery-record (unknown record type)": 1,
            "assistant/<synthetic> (API error reply)": 1,
            "assistant (duplicate uuid, replayed entry)": 1,
        },
        "ignored_at": {
            "progress": ["line 10", "line 22"],
            "summary": ["line 1"],
            "file-history-snapshot": ["line 2"],
            "system/turn_duration": ["line 14"],
            "mystery-record (unknown record type)": ["line 15"],
            "assistant/<synthetic> (API error reply)": ["line 28"],
            "assistant (duplicate uuid, replayed entry)": ["line 33"],
        },
        "errors": [{"where": "line 32", "reason": BAD_JSON}],
    }
    assert d["sidechains"] == {"a9f2": 4, "acompact-7d1": 2}


def test_info_claude_code_tables_for_skipped_and_sidechains(capsys):
    code, out, err = run(capsys, "info", CLAUDE)
    assert code == 0 and err == ""
    text = words(out)
    assert "Skipped 9 records (8 ignored, 1 error)" in text
    assert "kind reason count first lines" in text
    assert "ignored progress 2 line 10, line 22" in text
    assert "ignored mystery-record (unknown record type) 1 line 15" in text
    assert f"error {BAD_JSON} 1 line 32" in text
    assert "2 sidechains" in text and "a9f2 4" in text and "acompact-7d1 2" in text


def test_info_codex_counts_ignored_record_types(capsys):
    d = as_json(capsys, "info", CODEX)
    assert d["skipped"]["ignored"] == {
        "turn_context": 2,
        "event_msg/agent_message": 2,
        "event_msg/task_started": 1,
        "event_msg/user_message": 1,
        "event_msg/token_count (no usage info)": 1,
        "event_msg/token_count (repeat)": 1,
        "event_msg/task_complete": 1,
        "event_msg/context_compacted": 1,
        "response_item/ghost_snapshot": 1,
        "world_state (unknown record type)": 1,
    }
    assert d["skipped"]["ignored_at"]["turn_context"] == ["line 2", "line 28"]
    assert d["skipped"]["errors"] == []
    assert d["sidechains"] == {}
    code, out, _ = run(capsys, "info", CODEX)
    assert "Skipped 12 records (12 ignored)" in out
    assert "sidechain" not in out
