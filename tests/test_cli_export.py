"""``context-inspector export``: a request body the provider accepts, written safely."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cli_helpers import run

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions"



def test_export_anthropic_truncated(capsys, tmp_path):
    out_path = tmp_path / "request.json"
    code, out, err = run(capsys, "export", SAMPLES / "hr_leave_balance.json", "--strategy", "truncate_results",
                         "--max-result-tokens", "500", "--to", "anthropic", "-o", out_path, "--encoding", "cl100k_base")
    assert code == 0 and out == ""
    assert err == (f"wrote {out_path}: anthropic request body with 14 messages "
                   "(2,471 tokens by cl100k_base, anthropic profile; 9,263 before truncate_results; budget 200,000 = "
                   "the 200,000-token window of claude-sonnet-4-5-20250929 (genai-prices)).\n")
    body = json.loads(out_path.read_text())
    assert isinstance(body["system"], str) and body["system"].startswith("You are Harbor")
    assert [m["role"] for m in body["messages"]] == ["user", "assistant"] * 7
    result = body["messages"][8]["content"][0]
    assert result["type"] == "tool_result" and result["content"].endswith("\n[... truncated 6,803 tokens ...]")
    assert len(body["tools"]) == 5 and "input_schema" in body["tools"][0]


def test_export_anthropic_moves_system_and_summary_to_system(capsys, tmp_path):
    out_path = tmp_path / "coding.json"
    code, _, _ = run(capsys, "export", SAMPLES / "coding_agent.jsonl", "--strategy", "tool_pruning", "--to", "anthropic",
                     "-o", out_path)
    assert code == 0
    body = json.loads(out_path.read_text())
    assert all(m["role"] in ("user", "assistant") for m in body["messages"])
    system_text = " ".join(b["text"] for b in body["system"])
    assert "[Earlier conversation summary]:" in system_text
    assert len(body["messages"]) == 10


def test_export_openai_to_stdout(capsys):
    code, out, err = run(capsys, "export", SAMPLES / "three_questions.json", "--strategy", "tool_pruning",
                         "--to", "openai", "-o", "-")
    assert code == 0 and err == ""
    body = json.loads(out)
    assert [m["role"] for m in body["messages"]] == [
        "system", "user", "assistant", "user", "assistant", "user", "assistant", "tool", "assistant", "tool", "assistant"
    ]
    assert body["model"] == "gpt-4.1-2025-04-14" and len(body["tools"]) == 3


def test_export_refuses_to_overwrite_the_session(capsys, tmp_path):
    session = tmp_path / "s.json"
    shutil.copy(SAMPLES / "three_questions.json", session)
    before = session.read_bytes()
    code, out, err = run(capsys, "export", session, "--strategy", "fifo", "--budget", "4000", "--to", "openai", "-o", session)
    assert code == 2 and out == ""
    assert err.startswith(f"context-inspector export: error: refusing to write the export to {session}: it is the session file")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert session.read_bytes() == before


def test_export_into_a_missing_directory(capsys, tmp_path):
    code, _, err = run(capsys, "export", SAMPLES / "three_questions.json", "--to", "openai", "-o", tmp_path / "no" / "x.json")
    assert code == 2
    assert f"directory {tmp_path / 'no'} does not exist" in err
