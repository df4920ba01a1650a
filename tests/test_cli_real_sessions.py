"""The CLI on the hand-written Claude Code and Codex fixtures: skipped records grouped by reason,
sidechains, recorded usage per call beside the estimate, and ``--calibrate``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import as_json, run

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
CLAUDE = REAL / "claude_code" / "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13.jsonl"
CODEX = REAL / "codex" / "rollout-2026-02-11T14-05-00-0195a3c2-7b1e-7f40-9d2a-41c8e07b5a19.jsonl"
THREE = Path(__file__).resolve().parent.parent / "sample_sessions" / "three_questions.json"
BAD_JSON = "not valid JSON (unexpected end of data: line 1 column 36 (char 35))"




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


# ------------------------------------------------------------------------------------------
# recorded usage beside the estimate

CLAUDE_ESTIMATES = [28, 280, 369, 449, 525, 140, 215]  # anthropic framing, the default for Claude Code
CLAUDE_RECORDED = [15203, 16205, 16752, 17124, 17406, 6103, 6702]
CODEX_ESTIMATES = [154, 323, 421, 200, 331]
CODEX_RECORDED = [5120, 7900, 8400, 2600, 3100]


def test_info_claude_code_recorded_usage_per_call(capsys):
    usage = as_json(capsys, "info", CLAUDE)["usage"]
    assert [c["estimate"] for c in usage["calls"]] == CLAUDE_ESTIMATES
    assert [c["recorded"] for c in usage["calls"]] == CLAUDE_RECORDED
    assert usage["calls"][0] == {
        "call": 1, "message_index": 1, "turn": 1, "input_tokens": 3, "cache_read_input_tokens": 11000,
        "cache_creation_input_tokens": 4200, "output_tokens": 131, "recorded": 15203, "estimate": 28, "ratio": 542.964,
    }
    # a cache read the file recorded as 0 stays 0
    assert (usage["calls"][5]["cache_read_input_tokens"], usage["calls"][5]["ratio"]) == (0, 43.593)
    assert {k: v for k, v in usage.items() if k != "calls"} == {
        "calls_with_usage": 7, "recorded_input_total": 95495, "estimate_total": 2006, "output_total": 723,
        "ratio": 47.605,
    }
    code, out, _ = run(capsys, "info", CLAUDE)
    text = words(out)
    assert "call msg turn input cache read cache write recorded estimate ratio" in text
    assert "1 1 1 3 11,000 4,200 15,203 28 542.96" in text
    assert "6 12 4 3 0 6,100 6,103 140 43.59" in text
    assert "total 95,495 2,006 47.60" in text


def test_info_codex_cache_creation_not_recorded_is_a_dash_not_zero(capsys):
    usage = as_json(capsys, "info", CODEX)["usage"]
    assert [c["estimate"] for c in usage["calls"]] == CODEX_ESTIMATES
    assert [c["recorded"] for c in usage["calls"]] == CODEX_RECORDED
    assert [c["cache_read_input_tokens"] for c in usage["calls"]] == [3072, 5120, 7808, 0, 2560]
    assert {c["cache_creation_input_tokens"] for c in usage["calls"]} == {None}
    assert [c["ratio"] for c in usage["calls"]] == [33.247, 24.458, 19.952, 13.0, 9.366]
    assert (usage["recorded_input_total"], usage["estimate_total"], usage["ratio"]) == (27120, 1429, 18.978)
    code, out, _ = run(capsys, "info", CODEX)
    text = words(out)
    assert "1 5 3 2,048 3,072 — 5,120 154 33.25" in text
    assert "4 14 6 2,600 0 — 2,600 200 13.00" in text


def test_replay_claude_code_recorded_beside_baseline_and_strategy(capsys):
    d = as_json(capsys, "replay", CLAUDE, "--strategy", "tool_pruning")
    calls = d["calls"]
    assert [c["baseline_tokens"] for c in calls] == CLAUDE_ESTIMATES
    assert [c["recorded_tokens"] for c in calls] == CLAUDE_RECORDED
    assert [c["cache_read_input_tokens"] for c in calls] == [11000, 15300, 16400, 16700, 17100, 0, 6500]
    assert [c["cache_creation_input_tokens"] for c in calls] == [4200, 900, 350, 420, 300, 6100, 200]
    assert [c["ratio"] for c in calls] == [542.964, 57.875, 45.398, 38.138, 33.154, 43.593, 31.172]
    assert (d["recorded_total"], d["ratio"]) == (95495, 47.605)
    assert [c["tokens"] for c in calls] == [28, 280, 369, 108, 184, 140, 215]
    code, out, _ = run(capsys, "replay", CLAUDE, "--strategy", "tool_pruning")
    text = words(out)
    assert "call msg turn baseline with pipeline saved recorded cache read cache write ratio" in text
    assert "1 1 1 28 28 0 15,203 11,000 4,200 542.96" in text
    assert "4 7 2 449 108 341 17,124 16,700 420 38.14" in text
    assert "total 2,006 1,324 682 95,495 47.60" in text
    assert "Input tokens over all 7 calls: 2,006 -> 1,324, saving 34.0%." in text


def test_replay_codex_recorded_usage(capsys):
    d = as_json(capsys, "replay", CODEX)
    first = d["calls"][0]
    assert {k: first[k] for k in list(first)[:10]} == {
        "call": 1, "message_index": 5, "turn": 3, "baseline_tokens": 154, "tokens": 154, "recorded_tokens": 5120,
        "input_tokens": 2048, "cache_read_input_tokens": 3072, "cache_creation_input_tokens": None, "ratio": 33.247,
    }
    assert (d["baseline_total"], d["recorded_total"], d["ratio"]) == (1429, 27120, 18.978)
    code, out, _ = run(capsys, "replay", CODEX)
    text = words(out)
    # without a pipeline the table is the baseline beside the recording (no repeated columns)
    assert "call msg turn baseline recorded cache read cache write ratio" in text
    assert "5 16 6 331 3,100 2,560 — 9.37" in text
    assert "total 1,429 27,120 18.98" in text
    assert "Input tokens over all 5 calls: 1,429." in text


# ------------------------------------------------------------------------------------------
# --calibrate

CLAUDE_FACTOR = 95495 / 2006  # recorded / estimated input over the 7 calls
CODEX_FACTOR = 27120 / 1429


def test_info_calibrate_scales_every_estimate_but_no_recorded_figure(capsys):
    plain = as_json(capsys, "info", CLAUDE)
    d = as_json(capsys, "info", CLAUDE, "--calibrate")
    assert plain["calibration"] is None
    assert d["calibration"] == {"factor": CLAUDE_FACTOR, "calls": 7, "note": None}
    assert plain["tokens"]["by_unit_kind"] == {"system": 0, "user": 64, "assistant": 107, "tool_exchange": 492, "summary": 119}
    tokens = d["tokens"]
    assert tokens["by_unit_kind"] == {"system": 0, "user": 3047, "assistant": 5094, "tool_exchange": 23422, "summary": 5665}
    assert tokens["by_unit_kind"]["user"] == round(64 * CLAUDE_FACTOR)
    # the calibrated parts still add up to the calibrated total
    assert (tokens["messages"], tokens["tool_definitions"], tokens["reply_priming"], tokens["total"]) == (37228, 0, 143, 37371)
    assert tokens["messages"] == sum(tokens["by_unit_kind"].values())
    assert d["context_next_call"] == {"tokens": 10854, "compaction_at": 10}
    assert [(m["index"], m["tokens"]) for m in d["largest_messages"][:3]] == [(2, 9902), (10, 5665), (3, 3332)]
    assert d["tools"][0] == {"tool": "Read", "calls": 2, "results": 2, "call_tokens": 1190, "result_tokens": 9473, "tokens": 10663}
    usage = d["usage"]
    assert [c["estimate"] for c in usage["calls"]] == [1333, 13329, 17566, 21375, 24992, 6665, 10235]
    assert [c["recorded"] for c in usage["calls"]] == CLAUDE_RECORDED  # recorded figures are never scaled
    assert [c["ratio"] for c in usage["calls"]] == [11.405, 1.216, 0.954, 0.801, 0.696, 0.916, 0.655]
    assert (usage["recorded_input_total"], usage["estimate_total"], usage["ratio"]) == (95495, 95495, 1.0)
    # calibrating is a view: the next run without it sees the inspector's own counts again
    assert as_json(capsys, "info", CLAUDE) == plain


def test_info_calibrate_rich_labels_scaled_figures(capsys):
    code, out, err = run(capsys, "info", CLAUDE, "--calibrate")
    assert code == 0 and err == ""
    text = words(out)
    assert ("Calibrated: estimates × 47.6 (recorded / estimated input over 7 model calls that recorded usage); "
            "figures marked (cal.) are scaled, recorded figures are as the file logged them.") in text
    assert "Tokens by unit kind (cal.)" in text and "kind units tokens (cal.) share" in text
    assert "total 37,371 100.0%" in text
    assert "recorded estimate (cal.) ratio" in text
    assert "1 1 1 3 11,000 4,200 15,203 1,333 11.40" in text
    assert "total 95,495 95,495 1.00" in text


def test_replay_calibrate_codex(capsys):
    d = as_json(capsys, "replay", CODEX, "--calibrate", "--strategy", "fifo", "--budget", "300")
    assert d["calibration"] == {"factor": CODEX_FACTOR, "calls": 5, "note": None}
    calls = d["calls"]
    assert [c["baseline_tokens"] for c in calls] == [2923, 6130, 7990, 3796, 6282]
    assert [c["tokens"] for c in calls] == [2923, 5409, 6699, 3796, 4023]
    assert [c["recorded_tokens"] for c in calls] == CODEX_RECORDED
    assert [c["ratio"] for c in calls] == [1.752, 1.289, 1.051, 0.685, 0.493]
    # totals are the sums of the calibrated rows; the saving is the uncalibrated one (15.7% either way)
    assert (d["baseline_total"], d["total"], d["savings_pct"]) == (27121, 22850, 15.7)
    assert (d["recorded_total"], d["ratio"]) == (27120, 1.0)
    plain = as_json(capsys, "replay", CODEX, "--strategy", "fifo", "--budget", "300")
    assert [c["tokens"] for c in plain["calls"]] == [154, 285, 353, 200, 212]
    assert (plain["calibration"], plain["baseline_total"], plain["total"], plain["savings_pct"]) == (None, 1429, 1204, 15.7)
    code, out, _ = run(capsys, "replay", CODEX, "--calibrate", "--strategy", "fifo", "--budget", "300")
    text = words(out)
    assert "Calibrated: estimates × 18.98" in text
    assert "Strategies still decide on the uncalibrated counts (budget, trigger and caps apply to those)." in text
    assert "call msg turn baseline (cal.) with pipeline (cal.) saved recorded cache read cache write ratio" in text
    assert "5 16 6 6,282 4,023 2,259 3,100 2,560 — 0.49" in text
    assert "total 27,121 22,850 4,271 27,120 1.00" in text
    assert "Input tokens (cal.) over all 5 calls: 27,121 -> 22,850, saving 15.7%." in text


def test_plan_calibrate_scales_tokens_and_holds_the_budget_against_the_plan_counts(capsys):
    args = ("plan", CLAUDE, "--strategy", "fifo", "--budget", "300", "--at", "5")
    plain = as_json(capsys, *args)
    d = as_json(capsys, *args, "--calibrate")
    assert plain["calibration"] is None
    assert d["calibration"] == {"factor": CLAUDE_FACTOR, "calls": 7, "note": None}
    # the plan is the same plan: same decisions and reasons (in the inspector's counts)
    assert [(m["index"], m["status"], m["reason"]) for m in d["messages"]] == [
        (m["index"], m["status"], m["reason"]) for m in plain["messages"]
    ]
    assert plain["messages"][0]["reason"] == "dropped by fifo: oldest removable unit while 525 > budget 300"
    assert [(m["tokens"], m["tokens_after"]) for m in plain["messages"][:4]] == [(25, 0), (44, 0), (208, 0), (70, 70)]
    assert [(m["tokens"], m["tokens_after"]) for m in d["messages"][:4]] == [(1190, 0), (2095, 0), (9902, 0), (3332, 3332)]
    assert (plain["tokens_before"], plain["tokens_after"], plain["saving"], plain["overhead"]) == (525, 248, 277, 3)
    assert (d["tokens_before"], d["tokens_after"], d["saving"], d["overhead"]) == (24992, 11806, 13186, 143)
    assert d["stages"] == [{"strategy": "fifo", "tokens_before": 24992, "tokens_after": 11806}]
    assert d["saving_pct"] == plain["saving_pct"] == 52.8
    assert d["budget"] == 300 and d["fits"] is plain["fits"] is True  # 248 <= 300, as fifo planned it
    code, out, _ = run(capsys, *args, "--calibrate")
    text = words(out)
    assert "# role unit turn tokens (cal.) after (cal.) status reason" in text
    assert ("24,992 -> 11,806 tokens (cal.), saving 13,186 (52.8%); includes 143 of tool definitions and reply "
            "priming; budget 300 (against uncalibrated counts): fits.") in text


def test_compare_calibrate_codex(capsys):
    args = ("compare", CODEX, "--budget", "300", "--strategy", "fifo;summarize")
    plain = as_json(capsys, *args)
    d = as_json(capsys, *args, "--calibrate")
    assert d["calibration"] == {"factor": CODEX_FACTOR, "calls": 5, "note": None}
    assert [(r["pipeline"], r["tokens_last_call"], r["replay_total"], r["saving_pct"]) for r in plain["rows"]] == [
        ("none", 331, 1429, 0.0), ("fifo", 212, 1204, 15.7), ("summarize", 288, 1344, 5.9),
    ]
    assert [(r["pipeline"], r["tokens_last_call"], r["replay_total"], r["saving_pct"]) for r in d["rows"]] == [
        ("none", 6282, 27121, 0.0), ("fifo", 4023, 22850, 15.7), ("summarize", 5466, 25507, 5.9),
    ]
    # the same totals as replay --calibrate (sums of the calibrated calls)
    assert d["rows"][1]["replay_total"] == as_json(capsys, "replay", CODEX, "--calibrate", "--strategy", "fifo", "--budget", "300")["total"]
    code, out, _ = run(capsys, *args, "--calibrate")
    text = words(out)
    assert "pipeline tokens at call 5 (cal.) replay total (cal.) saving OpenAI Anthropic" in text
    assert "fifo 4,023 22,850 15.7% valid valid" in text


@pytest.mark.parametrize("command", ["info", "plan", "replay", "compare"])
def test_calibrate_without_recorded_usage_is_a_note_not_an_error(capsys, command):
    args = (command, THREE) + (("--strategy", "fifo", "--budget", "4000") if command != "info" else ())
    plain = as_json(capsys, *args)
    d = as_json(capsys, *args, "--calibrate")
    note = (f"Nothing to calibrate against: {THREE} records no input token usage for any model call, "
            "so the figures are the inspector's own estimates.")
    assert d["calibration"] == {"factor": None, "calls": 0, "note": note}
    assert {**d, "calibration": None} == plain  # every figure as without --calibrate
    code, out, err = run(capsys, *args, "--calibrate")
    assert (code, err) == (0, "")
    assert f"note: {note}" in words(out)
    assert "(cal.)" not in out
