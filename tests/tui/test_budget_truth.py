"""Two things users tripped on. (1) ``plan --preset claude-code --budget 4000`` said "over budget"
while the plan changed nothing: Claude Code compacts at its own trigger, not at the budget; every
view now says so, in the words of one function (analysis.window.budget_unused_note). (2) The
viewer's ``--model`` did not move its budget the way the commands' ``--model`` does."""

from __future__ import annotations

from pathlib import Path

import inspector
from inspector.analysis.window import budget_unused_note
from inspector.presets import builtin_preset, settings_for
from inspector.strategies import Settings

from cli_helpers import as_json, run
from tui_helpers import make_app, settle

SIZE = (160, 48)
CC = Path(__file__).parent.parent / "fixtures" / "real" / "claude_code" / "agentcmd_full-session-four.jsonl"
CODING = Path(inspector.__file__).parent / "sample_sessions" / "coding_agent.jsonl"
NOTE = ("the preset claude-code compacts at its own trigger (155,000 tokens), not at the budget; "
        "this call (53,301 tokens) does not reach it")


def test_the_note_names_a_compaction_with_its_own_trigger_and_nothing_for_a_budget_strategy():
    claude = settings_for(builtin_preset("claude-code"), {})  # 200,000 - 20,000 - 13,000
    assert budget_unused_note(claude, ("compact",), 53_301, "the preset claude-code") == (
        "the preset claude-code compacts at its own trigger (167,000 tokens), not at the budget; "
        "this call (53,301 tokens) does not reach it")
    assert budget_unused_note(claude, ("compact",), 170_000).endswith("compact compacts at its own trigger (167,000 tokens), "
                                                                       "not at the budget; this call (170,000 tokens) reaches it")
    plain = Settings(budget=4000)
    assert budget_unused_note(plain, ("tool_pruning",), 50_000) == "no strategy of tool_pruning reads the budget"
    assert budget_unused_note(plain, ("tool_pruning", "fifo"), 50_000) == ""
    assert budget_unused_note(plain, ("compact",), 50_000) == ""  # no trigger of its own: it fires at the budget
    assert budget_unused_note(plain, (), 50_000) == ""


def test_plan_over_a_budget_the_preset_does_not_read_says_why_nothing_changes(capsys):
    code, out, _ = run(capsys, "plan", CC, "--preset", "claude-code", "--budget", "4000")
    text = " ".join(out.split())
    assert code == 0 and f"budget 4,000, as set: over budget; {NOTE}." in text
    report = as_json(capsys, "plan", CC, "--preset", "claude-code", "--budget", "4000")
    assert (report["tokens_before"], report["tokens_after"], report["fits"]) == (53_301, 53_301, False)
    assert report["budget_unused_note"] == NOTE
    fifo = as_json(capsys, "plan", CC, "--strategy", "fifo", "--budget", "4000")
    assert fifo["fits"] is False and fifo["budget_unused_note"] == ""
    assert as_json(capsys, "plan", CC, "--preset", "claude-code")["budget_unused_note"] == ""  # fits: nothing to explain


async def test_the_viewer_says_the_same_under_its_gauge():
    app = make_app(inspector.load(CC), path=str(CC), preset="claude-code", budget=4000)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.state.preset == "claude-code" and app.result.plan.tokens_before == 53_301
        shown = " ".join(app.query_one("#totals").build(200).plain.split())
        assert f"over by 49,301 ({NOTE})" in shown
        narrow = app.query_one("#totals").build(76).plain
        assert " ".join(narrow.split()).count(NOTE) == 1  # all of it, wrapped to the width, not cut off by it
        assert max(len(line.rstrip()) for line in narrow.split("\n") if "compacts" in line or "reach it" in line) <= 76


async def test_the_viewers_model_sets_its_budget_as_the_commands_model_does(capsys):
    """coding_agent.jsonl records claude-sonnet-4-5 (200,000); --model gpt-4-0613 has 8,192."""
    cli = as_json(capsys, "plan", CODING, "--model", "gpt-4-0613", "--strategy", "fifo")
    assert cli["budget"] == 8_192
    app = make_app("coding_agent.jsonl", model="gpt-4-0613")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.state.settings.budget == cli["budget"]
        assert "window 8,192 (gpt-4-0613, genai-prices)" in app.query_one("#totals").build(200).plain
    default = as_json(capsys, "plan", CODING, "--strategy", "fifo")["budget"]
    plain = make_app("coding_agent.jsonl")
    async with plain.run_test(size=SIZE) as pilot:
        await settle(pilot, plain)
        assert plain.state.settings.budget == default == 200_000


def test_the_command_line_hands_its_model_to_the_viewer(monkeypatch):
    import sys
    import types

    from inspector.cli.main import main

    given = []
    module = types.ModuleType("inspector.tui.app")
    module.run = lambda path, **kw: given.append(kw) or 0
    monkeypatch.setitem(sys.modules, "inspector.tui.app", module)
    assert main([str(CODING), "--model", "gpt-4-0613"]) == 0
    assert (given[0]["model"], given[0]["encoding"]) == ("gpt-4-0613", "cl100k_base")
    main([str(CODING)])
    assert "model" not in given[1]


def test_the_note_weighs_the_input_the_compaction_sees_after_the_stages_before_it(capsys):
    """claude-code-microcompact masks tool outputs before compacting: with a 96,000 window its
    trigger is 51,000; the call is 53,301 but compact sees 41,552 and changes nothing. The note said
    "this call (53,301 tokens) reaches it" beside "compact: ... (changes nothing at this call)"."""
    report = as_json(capsys, "plan", CC, "--preset", "claude-code-microcompact", "--budget", "4000",
                     "--set", "context_window=96000")
    assert [(s["strategy"], s["tokens_before"], s["tokens_after"]) for s in report["stages"]] == [
        ("mask_tool_outputs", 53_301, 41_552), ("compact", 41_552, 41_552)]
    assert report["budget_unused_note"] == (
        "the preset claude-code-microcompact compacts at its own trigger (51,000 tokens), not at the budget; "
        "this call (53,301 tokens, 41,552 as compact reads it) does not reach it")
