"""``plan`` (text and --json), export's summary line and the HTML report show a plan's call total
as replay has it where the agent had removed content the file still shows
(:func:`inspector.analysis.agent_removed.plan_total`). The fixture is lines 1-172 of a public
Claude Code 2.1.17 session whose call 30 recorded 95,864 after 138,395 with no record of why:
fifo at budget 8,000 on call 32 showed -7,218 while replay showed 9,921."""

from __future__ import annotations

from pathlib import Path

import inspector
from inspector.analysis.agent_removed import plan_total
from inspector.analysis.planning import settings_of

from cli_helpers import as_json, run

FIXTURE = Path(__file__).parent / "fixtures" / "real" / "claude_code" / "entire_cc2.1.17_unrecorded_clear.jsonl"
CC = Path(__file__).parent / "fixtures" / "real" / "claude_code" / "agentcmd_full-session-four.jsonl"
FIFO = ("--strategy", "fifo", "--budget", "8000")
NOTE = ("the agent had already removed 17,139 tokens the file still shows: they are the first the pipeline "
        "removes (the plan's own total, which its budget checks read, is -7,218)")


def test_plan_json_at_call_32_is_replays_total_with_the_plans_own_beside_it(capsys):
    report = as_json(capsys, "plan", FIXTURE, *FIFO, "--at", "32")
    assert (report["tokens_before"], report["tokens_after"], report["saving"], report["saving_pct"]) == (119_562, 9_921, 109_641, 91.7)
    assert (report["plan_tokens_after"], report["agent_removed"], report["not_in_file"]) == (-7_218, 17_139, -12_229)
    assert report["agent_removed_note"] == NOTE
    assert report["fits"] is False  # 9,921 > 8,000, though fifo's own check read -7,218
    assert [(s["tokens_before"], s["tokens_after"]) for s in report["stages"]] == [(119_562, 9_921)]
    replayed = as_json(capsys, "replay", FIXTURE, *FIFO)["calls"]
    assert [c["tokens"] for c in replayed if c.get("call") in (32, 33)] == [9_921, 12_899]
    last = as_json(capsys, "plan", FIXTURE, *FIFO, "--at", "33")
    assert (last["tokens_after"], last["plan_tokens_after"], last["agent_removed"]) == (12_899, -4_407, 17_306)


def test_plan_text_at_call_32_says_why_its_total_is_not_the_plans_own(capsys):
    code, out, _ = run(capsys, "plan", FIXTURE, *FIFO, "--at", "32")
    text = " ".join(out.split())
    assert code == 0
    # the re-sent reasoning apart (review9): the part not in the file is then the -17,139 the agent removed
    assert ("119,562 -> 9,921 tokens, saving 109,641 (91.7%); includes -17,139 not in the file, 4,910 of reasoning "
            "re-sent from earlier calls and 3 of tool definitions and reply priming; budget 8,000, as set: over budget. "
            "The agent had already removed 17,139 tokens the file still shows: they are the first the pipeline "
            "removes (the plan's own total, which its budget checks read, is -7,218).") in text
    assert "fifo: 119,562 -> 9,921" in text and "-7,218 " not in text.replace("is -7,218)", "")


def test_export_summary_line_reads_the_same_total(capsys, tmp_path):
    out = tmp_path / "body.json"
    code, _, err = run(capsys, "export", FIXTURE, *FIFO, "--at", "32", "--to", "anthropic", "-o", out)
    assert code == 0 and "(9,921 tokens by" in err and "119,562 before fifo" in err


def test_next_call_carries_the_latest_offset():
    analysis = inspector.analyze(inspector.load(FIXTURE), profile="anthropic")
    plan = inspector.plan(analysis, ("fifo",), settings=settings_of(None, {"budget": 8000}))
    total = plan_total(plan)
    assert (total.tokens_before, total.plan_tokens_after, total.agent_removed, total.tokens_after) == (122_414, -4_366, 17_371, 13_005)


def test_a_session_the_agent_removed_nothing_from_keeps_the_plans_own_figures(capsys):
    report = as_json(capsys, "plan", CC, *FIFO)
    assert report["agent_removed"] == 0 and report["agent_removed_note"] == ""
    assert report["tokens_after"] == report["plan_tokens_after"]
    code, out, _ = run(capsys, "plan", CC, *FIFO)
    assert code == 0 and "already removed" not in out


def test_html_report_head_shows_the_same_total_and_why(capsys, tmp_path):
    import html

    page = tmp_path / "page.html"
    code, _, err = run(capsys, "report", FIXTURE, *FIFO, "--at", "32", "--html", page)
    assert code == 0, err
    body = html.unescape(page.read_text())
    assert 'plan.tokens_after" data-value="9921">9,921<' in body and NOTE[:1].upper() + NOTE[1:] + "." in body
