"""``context-inspector plan``: the --json object of issue 3, exact on the samples, and the table."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import run

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions"
THREE = SAMPLES / "three_questions.json"
#: three_questions records gpt-4.1 (counted with o200k_base by default: tests/test_tokens.py); the
#: figures below are the seeds' cl100k_base counts.
CL100K = ("--encoding", "cl100k_base")

MESSAGE_KEYS = ["index", "role", "unit", "unit_id", "turn", "tokens", "status", "tokens_after", "by", "reason"]



def plan_json(capsys, *args) -> dict:
    code, out, err = run(capsys, "plan", *args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_plan_json_fifo_exact(capsys):
    d = plan_json(capsys, THREE, *CL100K, "--strategy", "fifo", "--budget", "4000")
    assert d["session"] == {"path": str(THREE), "format": "openai", "messages": 23, "turns": 3, "model_calls": 11}
    assert d["encoding"] == "cl100k_base"
    assert d["pipeline"] == [{"strategy": "fifo", "params": {"budget": 4000, "min_history_messages": 2, "pair_safe": True}}]
    assert (d["budget"], d["tokens_before"], d["tokens_after"]) == (4000, 9507, 2082)
    assert d["at_call"] is None and d["current_turn"] == 3
    assert len(d["messages"]) == 23
    assert all(list(m)[:10] == MESSAGE_KEYS for m in d["messages"])
    assert [m["index"] for m in d["messages"] if m["status"] == "dropped"] == list(range(1, 16))
    assert d["messages"][1] == {
        "index": 1, "role": "user", "unit": "user", "unit_id": 1, "turn": 1, "tokens": 18, "status": "dropped",
        "tokens_after": 0, "by": "fifo", "reason": "dropped by fifo: oldest removable unit while 9,507 > budget 4,000",
    }
    assert d["messages"][0]["status"] == "kept" and d["messages"][0]["unit"] == "system"
    assert {m["unit"] for m in d["messages"]} == {"system", "user", "assistant", "tool_exchange"}
    # every kept message's tokens plus the request overhead is the total after
    kept = sum(m["tokens_after"] for m in d["messages"])
    assert kept + d["overhead"] == d["tokens_after"]
    assert d["violations"] == {"openai": [], "anthropic": []}


def test_plan_pipeline_with_window_option(capsys):
    d = plan_json(capsys, THREE, *CL100K, "--strategy", "tool_pruning,sliding_window", "--window", "2", "--budget", "8000")
    assert [p["strategy"] for p in d["pipeline"]] == ["tool_pruning", "sliding_window"]
    assert d["pipeline"][1]["params"]["window_turns"] == 2
    assert d["tokens_after"] == 2102
    dropped = {m["index"]: m["by"] for m in d["messages"] if m["status"] == "dropped"}
    assert dropped == {1: "sliding_window", 8: "sliding_window", **{i: "tool_pruning" for i in [*range(2, 8), *range(10, 16)]}}
    assert [(s["strategy"], s["tokens_before"], s["tokens_after"]) for s in d["stages"]] == [
        ("tool_pruning", 9507, 2256),
        ("sliding_window", 2256, 2102),
    ]


def test_truncation_strategy_is_an_alias(capsys):
    a = plan_json(capsys, THREE, "--strategy", "tool_pruning")
    b = plan_json(capsys, THREE, "--truncation-strategy", "tool_pruning")
    assert a == b


def test_plan_at_call_makes_that_turn_current(capsys):
    d = plan_json(capsys, SAMPLES / "coding_agent.jsonl", "--strategy", "tool_pruning", "--at", "20")
    # 772 tokens the file does not show (recorded - counted at call 19) are in both totals
    assert (d["at_call"], d["current_turn"], d["tokens_before"], d["tokens_after"], d["not_in_file"]) == (20, 4, 9760, 3799, 772)
    assert len(d["messages"]) == 44  # the messages before call 20's assistant message
    dropped = [m["index"] for m in d["messages"] if m["status"] == "dropped"]
    assert dropped == [*range(2, 8), *range(10, 24), *range(26, 33)]
    last = plan_json(capsys, SAMPLES / "coding_agent.jsonl", "--at", "-1")
    assert last["at_call"] == 35


def test_plan_after_a_recorded_compaction(capsys):
    d = plan_json(capsys, SAMPLES / "coding_agent.jsonl")
    assert d["tokens_before"] == d["tokens_after"] == 3855 + 547  # messages + not in file
    before = [m for m in d["messages"] if m["index"] is not None and 0 < m["index"] < 45]
    assert {m["status"] for m in before} == {"dropped"} and {m["by"] for m in before} == {"source"}


def test_plan_summarize_inserts_a_message(capsys):
    d = plan_json(capsys, THREE, *CL100K, "--strategy", "summarize", "--budget", "4000")
    inserted = [m for m in d["messages"] if m["status"] == "inserted"]
    assert len(inserted) == 1
    ins = inserted[0]
    assert ins["index"] is None and ins["unit"] == "summary" and ins["role"] == "system"
    assert ins["tokens"] == 0 and ins["tokens_after"] == 111 and ins["by"] == "summarize"
    assert ins["replaces"] == list(range(1, 16)) and ins["simulated"] is True
    assert [m["index"] for m in d["messages"] if m["status"] == "summarized"] == list(range(1, 16))
    assert d["tokens_after"] == 2193


def test_plan_truncate_results(capsys):
    d = plan_json(capsys, SAMPLES / "hr_leave_balance.json", "--strategy", "truncate_results", "--max-result-tokens", "500",
                   "--encoding", "cl100k_base")
    changed = [m for m in d["messages"] if m["status"] != "kept"]
    assert [(m["index"], m["status"], m["tokens"], m["tokens_after"]) for m in changed] == [(9, "truncated", 7309, 517)]
    assert changed[0]["reason"] == "truncated by truncate_results: tool result of 7,303 tokens cut to 500 (+11-token marker)"
    assert (d["tokens_before"], d["tokens_after"]) == (9263, 2471)


def test_plan_naive_fifo_shows_provider_errors(capsys):
    d = plan_json(capsys, THREE, *CL100K, "--strategy", "fifo", "--budget", "9300", "--no-pair-safe")
    assert d["pipeline"][0]["params"]["pair_safe"] is False
    assert [m["index"] for m in d["messages"] if m["status"] == "dropped"] == [1, 2, 3, 4]
    openai, anthropic = d["violations"]["openai"], d["violations"]["anthropic"]
    assert [(v["index"], v["source"], v["rule"]) for v in openai] == [(1, 5, "orphan_result")]
    assert openai[0]["message"] == (
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
    )
    assert [(v["index"], v["source"]) for v in anthropic] == [(0, 5)]
    assert anthropic[0]["message"].startswith("messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: call_")


def test_plan_table(capsys):
    code, out, err = run(capsys, "plan", THREE, *CL100K, "--strategy", "fifo", "--budget", "9300", "--no-pair-safe")
    assert code == 0 and err == ""
    words = " ".join(out.split())
    assert "Input of the next model call (current turn 3); pipeline: fifo(budget=9300, min_history_messages=2, pair_safe=False)" in words
    assert "9,507 -> 9,020 tokens, saving 487 (5.1%)" in words
    assert "budget 9,300, as set: fits." in words
    assert "total 9,507 9,020" in words
    assert "OpenAI: 1 violation" in words and "Anthropic: 1 violation" in words
    assert "message 5 (position 1 in the request): Invalid parameter" in words
    assert "1 user user #1 1 18 0 dropped dropped by fifo (pair_safe=false)" in words
