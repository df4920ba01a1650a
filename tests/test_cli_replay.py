"""``replay`` and ``compare``: per-call input tokens with and without a strategy, side by side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import as_json, run

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions"
THREE = SAMPLES / "three_questions.json"
#: three_questions records gpt-4.1 (o200k_base by default); these are the seed's cl100k_base figures.
CL100K = ("--encoding", "cl100k_base")

BASELINE = [201, 653, 776, 4566, 4722, 4889, 5103, 7608, 7781, 9317, 9429]
TOOL_PRUNING = [201, 653, 776, 4566, 357, 524, 738, 3243, 530, 2066, 2178]




def test_replay_json_tool_pruning_removes_resent_tool_history(capsys):
    d = as_json(capsys, "replay", THREE, *CL100K, "--strategy", "tool_pruning")
    assert d["session"]["model_calls"] == 11
    assert d["pipeline"] == [{"strategy": "tool_pruning", "params": {}}]
    calls = d["calls"]
    assert [list(c)[:10] for c in calls[:1]] == [["call", "message_index", "turn", "model", "tokenizer", "baseline_tokens",
                                                  "not_in_file", "not_in_file_how", "predicted_tokens", "tokens"]]
    assert [c["call"] for c in calls] == list(range(1, 12))
    assert [c["message_index"] for c in calls] == [2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22]
    assert [c["turn"] for c in calls] == [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3]
    assert [c["baseline_tokens"] for c in calls] == BASELINE
    assert [c["tokens"] for c in calls] == TOOL_PRUNING
    # the first turn is the current turn for its own calls: nothing to prune there
    assert TOOL_PRUNING[:4] == BASELINE[:4]
    # on every later call, turn 1's tool results (4,365 tokens) are no longer re-sent
    assert {b - t for b, t in zip(BASELINE[4:8], TOOL_PRUNING[4:8])} == {4365}
    assert {b - t for b, t in zip(BASELINE[8:], TOOL_PRUNING[8:])} == {7251}
    assert (d["baseline_total"], d["predicted_total"], d["total"], d["savings_pct"]) == (55045, 55045, 15832, 71.2)
    assert d["fit"] == {"offset": 0, "scale": 1.0, "calls": 0, "basis": "none",
                        "how": "nothing recorded and no typical size known for this agent"}
    # nothing recorded: no made-up figures
    assert (d["recorded_total"], d["ratio"]) == (None, None)
    assert {(c["recorded_tokens"], c["cache_read_input_tokens"], c["ratio"]) for c in calls} == {(None, None, None)}


def test_replay_without_strategy_is_the_baseline_and_shows_recorded_usage(capsys):
    d = as_json(capsys, "replay", SAMPLES / "coding_agent.jsonl")
    assert d["pipeline"] == []
    assert d["baseline_total"] == 139418 and d["predicted_total"] == d["total"] == 159196 and d["savings_pct"] == 0.0
    first = d["calls"][0]
    assert {k: first[k] for k in list(first)[:17]} == {
        # the model the file's header names (meta.model); counted with cl100k_base, an estimate for it
        "call": 1, "message_index": 2, "turn": 1, "model": "claude-sonnet-4-5", "tokenizer": "cl100k_base (estimate for claude-sonnet-4-5)",
        "baseline_tokens": 378, "not_in_file": 0, "not_in_file_how": "nothing recorded and no typical size known for this agent",
        "predicted_tokens": 378, "tokens": 378, "recorded_tokens": 842,
        "input_tokens": 3, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 839, "ratio": 2.228,
        "kind": "call", "compacted_by": None,
    }
    assert d["calls"][1]["not_in_file_how"] == "inferred: recorded 842 at call 1 minus 378 counted"
    # money (tests/test_money.py has the figures): every call is priced, with no strategy cost == baseline_cost
    assert first["cost"] == first["baseline_cost"]
    assert (d["recorded_total"], d["ratio"]) == (160047, 1.148)
    code, out, _ = run(capsys, "replay", SAMPLES / "coding_agent.jsonl")
    words = " ".join(out.split())
    assert "total 139,418 159,196 160,047 1.15" in words
    assert "Input tokens over all 35 calls: 159,196." in words


def test_replay_table(capsys):
    code, out, err = run(capsys, "replay", THREE, *CL100K, "--strategy", "tool_pruning")
    assert code == 0 and err == ""
    words = " ".join(out.split())
    assert "Pipeline: tool_pruning()" in words
    assert "5 10 2 4,722 4,722 357 4,365" in words
    assert "total 55,045 55,045 15,832 39,213" in words
    assert "Input tokens over all 11 calls: 55,045 -> 15,832, saving 71.2%." in words
    assert "cache read" not in words and "ratio" not in words  # no recorded columns: nothing was recorded


@pytest.mark.parametrize("command, data", [("compare", "compare_data"), ("replay", "replay_data")])
def test_compare_and_replay_run_with_the_collector_paused_and_turn_it_on_again(capsys, monkeypatch, command, data):
    import gc

    import inspector.cli.main as cli_main

    seen: list[bool] = []
    build = getattr(cli_main, data)

    def watched(args, analysis=None):
        report = build(args, analysis)
        seen.append(gc.isenabled())  # after the replays, the pricing and the plans
        return report

    before = run(capsys, command, THREE, *CL100K, "--budget", "4000")
    monkeypatch.setattr(cli_main, data, watched)
    assert run(capsys, command, THREE, *CL100K, "--budget", "4000") == before
    assert seen == [False] and gc.isenabled()


def test_compare_json(capsys):
    d = as_json(capsys, "compare", THREE, *CL100K, "--budget", "4000")
    assert d["at_call"] == 11 and d["settings"]["budget"] == 4000
    rows = {r["pipeline"]: r for r in d["rows"]}
    assert list(rows) == [
        "none", "fifo", "sliding_window", "summarize", "truncate_results", "tool_pruning", "clear_tool_uses",
        "mask_tool_outputs", "last_n_observations", "thinking_prune", "compact", "trim_messages", "strands_sliding_window",
        "tool_pruning,sliding_window", "tool_pruning,truncate_results", "truncate_results,fifo", "clear_tool_uses,fifo",
    ]
    assert {k: rows["none"][k] for k in list(rows["none"])[:6]} == {
        "pipeline": "none", "tokens_last_call": 9429, "replay_total": 55045, "saving_pct": 0.0,
        "valid": {"openai": True, "anthropic": True}, "violations": {"openai": 0, "anthropic": 0},
    }
    # money beside tokens (figures in tests/test_money.py): no strategy saves nothing
    assert (rows["none"]["tokens_saved_pct"], rows["none"]["dollars_saved_pct"], rows["none"]["cache_breaks"]) == (0.0, 0.0, 0)
    assert (rows["tool_pruning"]["tokens_last_call"], rows["tool_pruning"]["replay_total"]) == (2178, 15832)
    assert rows["tool_pruning"]["saving_pct"] == 71.2
    # fifo also drops a turn's older exchanges when the budget needs it (18,280 when it kept turns whole)
    assert (rows["fifo"]["tokens_last_call"], rows["fifo"]["replay_total"], rows["fifo"]["saving_pct"]) == (2004, 17705, 67.8)
    assert rows["tool_pruning,truncate_results"]["replay_total"] == 13811
    assert all(r["valid"] == {"openai": True, "anthropic": True} for r in d["rows"])


def test_compare_shows_invalid_naive_fifo(capsys):
    d = as_json(capsys, "compare", THREE, *CL100K, "--budget", "9300", "--no-pair-safe", "--strategy", "fifo")
    assert [r["pipeline"] for r in d["rows"]] == ["none", "fifo"]
    assert d["rows"][1]["valid"] == {"openai": False, "anthropic": False}
    code, out, _ = run(capsys, "compare", THREE, *CL100K, "--budget", "9300", "--no-pair-safe", "--strategy", "fifo;tool_pruning")
    words = " ".join(out.split())
    assert "fifo 8,942 54,522 1.0% 1 violation 1 violation" in words
    assert "Budget 9,300, as set; window 10 turns" in words
    assert "tool_pruning 2,178 15,832 71.2% valid valid" in words
