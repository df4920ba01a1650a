"""The reasoning a call re-sends is named apart from the part not in the file, so info, plan
and the viewer add up the same way. On a Codex rollout info said "not in file: 3,598" and
plan "includes 7,694 not in the file" (the viewer too): 4,096 of it is the encrypted reasoning
of the turn's earlier calls, which the rows count as 0."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import as_json, run

ROLLOUT = (Path(__file__).parent / "fixtures" / "real" / "codex"
           / "agentcmd_rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl")


def test_plan_and_info_name_the_resent_reasoning_apart(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    info = as_json(capsys, "info", ROLLOUT)
    plan = as_json(capsys, "plan", ROLLOUT)
    assert (plan["not_in_file"], plan["resent_reasoning"], plan["tokens_before"]) == (7_694, 4_096, 30_204)
    assert info["tokens"]["not_in_file"] == plan["not_in_file"] - plan["resent_reasoning"] == 3_598
    _, out, _ = run(capsys, "plan", ROLLOUT)
    assert ("30,204 -> 30,204 tokens, saving 0 (0.0%); includes 3,598 not in the file, 4,096 of reasoning "
            "re-sent from earlier calls and 3 of tool definitions and reply priming;") in out
    _, out, _ = run(capsys, "info", ROLLOUT)
    assert ("Next call, whole context: 30,204 tokens (11.1% of the window), with 4,096 of reasoning re-sent "
            "from earlier calls.") in out


def test_a_call_that_re_sends_nothing_reads_as_before(capsys):
    plan = as_json(capsys, "plan", ROLLOUT, "--at", "1")
    assert plan["resent_reasoning"] == 0
    _, out, _ = run(capsys, "plan", ROLLOUT, "--at", "1")
    assert "re-sent" not in out and f"includes {plan['not_in_file']:,} not in the file and 3 of tool" in out
