"""The lesson (``context-inspector learn`` and the viewer's lesson screen): each step's exact
figures, the seeds' measured table reproduced by ``measured_three_questions.json``, the CLI's
text and JSON, and the lesson screen read through Pilot."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import inspector
from inspector.analysis.lesson import MEASURED_SAMPLE, STEPS, question_table, step_analysis, step_figures, step_named
from inspector.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_sessions"

OPENAI_ORPHAN = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."


@pytest.fixture(scope="module")
def figures() -> dict[str, dict]:
    return {step.key: step_figures(step, SAMPLES) for step in STEPS}


def test_the_three_question_replay_reproduces_the_measured_table():
    session = inspector.load(SAMPLES / MEASURED_SAMPLE)
    analysis = inspector.analyze(session, encoding="cl100k_base", profile="openai")
    q = question_table(analysis, ("tool_pruning",))
    assert [(r["first"], r["last"]) for r in q["questions"]] == [(964, 1349), (1537, 2370), (2670, 3500)]
    assert [r["calls"] for r in q["questions"]] == [4, 4, 3]
    assert q["calls"] == 11 and q["input_total"] == 21837
    # each earlier turn as the next question's first call sees it, and what tool pruning keeps of it
    assert [(p["turn"], p["tokens"], p["pruned"]) for p in q["prior_turns"]] == [(1, 573, 188), (2, 1133, 300)]
    assert [(r["first_pruned"], r["last_pruned"]) for r in q["questions"]] == [(964, 1349), (1152, 1985), (1452, 2282)]
    assert q["input_total_pruned"] == 16643


def test_the_measured_sample_is_what_its_generator_writes():
    spec = importlib.util.spec_from_file_location("make_lesson_sample", SAMPLES / "make_lesson_sample.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (SAMPLES / MEASURED_SAMPLE).read_text(encoding="utf-8") == module.text()


def test_naive_fifo_orphans_a_result_and_the_providers_reject_it(figures):
    f = figures["naive_fifo"]
    assert (f["encoding"], f["profile"], f["tokens_before"], f["tokens_after"]) == ("cl100k_base", "openai", 3641, 2993)
    assert f["valid"] == {"openai": False, "anthropic": False}
    assert f["errors"]["openai"] == [OPENAI_ORPHAN]
    assert f["errors"]["anthropic"][0].startswith("messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks")
    assert [(r["index"], r["role"], r["status"]) for r in f["rows"]] == [(10, "assistant", "dropped"), (11, "tool", "kept")]


def test_pair_safe_fifo_drops_the_call_and_its_result_together(figures):
    f = figures["pair_safe_fifo"]
    assert f["valid"] == {"openai": True, "anthropic": True} and f["errors"] == {}
    assert f["tokens_after"] == 2732
    assert [(r["index"], r["status"], r["tokens_after"]) for r in f["rows"]] == [(10, "dropped", 0), (11, "dropped", 0)]


def test_truncation_at_2000_tokens_leaves_its_marker(figures):
    (row,) = figures["truncate_results"]["rows"]
    assert (row["index"], row["status"], row["tokens"], row["tokens_after"]) == (9, "truncated", 8410, 2019)
    assert row["reason"] == "truncated by truncate_results: tool result of 8,404 tokens cut to 2,000 (+13-token marker)"


def test_sliding_window_and_summarize(figures):
    window, summary = figures["sliding_window"], figures["summarize"]
    assert (window["at_call"], window["tokens_before"], window["tokens_after"]) == (20, 9760, 4276)
    assert window["rows"][0]["reason"] == "dropped by sliding_window: turn 1 is outside the last 2 turns"
    assert (summary["tokens_after"], summary["inserted"]) == (4580, 1)
    assert {r["status"] for r in summary["rows"]} == {"summarized"}


def test_learn_json_and_text(capsys):
    assert main(["learn", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [s["key"] for s in report["steps"]] == [s.key for s in STEPS]
    assert report["steps"][-1]["questions"]["input_total"] == 21837
    assert main(["learn", "--step", "naive_fifo"]) == 0  # no terminal in tests: printed
    out = " ".join(capsys.readouterr().out.split())  # lines wrap at 120 columns
    assert "Step 1 of 1: Drop the oldest messages, one at a time" in out
    assert "openai: rejected: " + OPENAI_ORPHAN in out
    assert main(["learn", "--step", "tool_pruning", "--print"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "11 calls, 21,837 input tokens (16,643 with tool pruning)." in out
    assert "turn 1 573 -> 188, turn 2 1,133 -> 300 tokens" in out


def test_learn_unknown_step_is_a_usage_error(capsys):
    assert main(["learn", "--step", "nope"]) == 2
    assert "no lesson step 'nope'" in capsys.readouterr().err


def test_step_named():
    assert step_named("tool_pruning").encoding == "cl100k_base"
    with pytest.raises(KeyError):
        step_named("missing")
    assert step_analysis(step_named("truncate_results"), SAMPLES).table.profile == "anthropic"
