"""``context-inspector info``: exact figures on the samples, tables that add up, text shown as data."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import run
from inspector.cli.report import preview

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions"



def info_json(capsys, *args) -> dict:
    code, out, err = run(capsys, "info", *args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_info_json_three_questions(capsys):
    path = SAMPLES / "three_questions.json"
    d = info_json(capsys, path, "--encoding", "cl100k_base")  # the seed's figures (gpt-4.1's default: o200k_base)
    assert d["session"] == {"path": str(path), "format": "openai", "messages": 23, "turns": 3, "model_calls": 11}
    assert (d["encoding"], d["profile"], d["exact"]) == ("cl100k_base", "openai", False)  # an estimate for gpt-4.1
    default = info_json(capsys, path)
    assert (default["encoding"], default["exact"], default["tokens"]["total"]) == ("o200k_base", True, 9468)
    tokens = d["tokens"]
    # nothing recorded, no known agent: nothing "not in file"
    assert tokens["by_unit_kind"] == {"system": 64, "user": 60, "assistant": 365, "tool_exchange": 8899, "summary": 0,
                                      "not_in_file": 0}
    assert tokens["units_by_kind"] == {"system": 1, "user": 3, "assistant": 3, "tool_exchange": 8, "summary": 0,
                                       "not_in_file": 0}
    assert (tokens["messages"], tokens["tool_definitions"], tokens["reply_priming"], tokens["total"]) == (9388, 116, 3, 9507)
    # the numbers add up: every kind, plus what each request adds once, is the total
    assert sum(tokens["by_unit_kind"].values()) == tokens["messages"]
    assert tokens["messages"] + tokens["tool_definitions"] + tokens["reply_priming"] == tokens["total"]
    assert d["context_next_call"] == {"tokens": 9507, "predicted_tokens": 9507, "compaction_at": None}
    assert d["tokens"]["not_in_file_how"] == "nothing recorded and no typical size known for this agent"
    assert [(m["index"], m["tokens"], m["tools"]) for m in d["largest_messages"][:3]] == [
        (7, 3668, ["run_sql"]),
        (15, 2381, ["run_sql"]),
        (19, 1323, ["run_sql"]),
    ]
    assert len(d["largest_messages"]) == 10
    assert d["tools"][0] == {
        "tool": "run_sql", "calls": 4, "results": 4, "call_tokens": 537, "result_tokens": 7408, "tokens": 7945
    }
    assert [t["tool"] for t in d["tools"]] == ["run_sql", "describe_table", "get_metric_definition"]
    assert d["usage"] is None
    assert d["skipped"] == {"ignored": {}, "ignored_at": {}, "errors": []}
    assert d["sidechains"] == {}
    assert d["flags"]["final_answer"] == 3 and d["flags"]["orphan_result"] == 0


def test_info_json_recorded_usage_and_compaction(capsys):
    d = info_json(capsys, SAMPLES / "coding_agent.jsonl")
    assert d["session"]["messages"] == 80 and d["session"]["model_calls"] == 35
    # the last call recorded 4,260 against 3,713 counted: 547 the file does not show
    assert (d["tokens"]["total"], d["tokens"]["not_in_file"]) == (12567 + 547, 547)
    assert d["tokens"]["by_unit_kind"]["summary"] == 176
    assert d["context_next_call"] == {"tokens": 3855, "predicted_tokens": 3855 + 547, "compaction_at": 45}
    usage = d["usage"]
    assert usage["calls_with_usage"] == 35
    assert (usage["recorded_input_total"], usage["estimate_total"]) == (160047, 139418)
    first = usage["calls"][0]
    assert first == {
        "call": 1, "message_index": 2, "turn": 1, "input_tokens": 3, "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 839, "output_tokens": 82, "recorded": 842, "estimate": 378,
        "ratio": 2.228, "predicted": 378,
    }
    assert usage["ratio"] == round(160047 / 139418, 3) == 1.148
    # after the recorded compaction the estimate starts again from the summary
    assert [c["estimate"] for c in usage["calls"][19:21]] == [8988, 514]
    assert d["flags"]["summary"] == 1


def test_info_profile_defaults_to_the_provider_and_can_be_forced(capsys):
    hr = SAMPLES / "hr_leave_balance.json"
    anthropic = info_json(capsys, hr, "--encoding", "cl100k_base")
    openai = info_json(capsys, hr, "--profile", "openai", "--encoding", "cl100k_base")  # one counter, two framings
    assert anthropic["profile"] == "anthropic" and openai["profile"] == "openai"
    assert anthropic["tokens"]["tool_definitions"] == 610  # includes Anthropic's 346-token tool-use prompt
    assert openai["tokens"]["tool_definitions"] == 264
    assert anthropic["tokens"]["total"] == 9263
    assert anthropic["largest_messages"][0]["index"] == 9
    assert anthropic["largest_messages"][0]["preview"].startswith('{ "columns": [ "request_id"')


def test_info_approx_encoding(capsys):
    d = info_json(capsys, SAMPLES / "vendor_onboarding.json", "--encoding", "approx")
    assert (d["encoding"], d["exact"]) == ("approx", False)
    assert d["session"]["model_calls"] == 12


def test_info_rich_output(capsys):
    code, out, err = run(capsys, "info", SAMPLES / "three_questions.json", "--encoding", "cl100k_base")
    assert code == 0 and err == ""
    assert "format openai: 23 messages, 3 turns, 11 model calls" in out
    assert "Tokens counted with cl100k_base (estimate for gpt-4.1-2025-04-14), openai message framing." in out
    words = " ".join(out.split())
    for row in ("tool_exchange 8 8,899 93.6%", "reply priming 3 0.0%", "total 9,507 100.0%",
                "tool definitions 3 tools 116 1.2%", "run_sql 4 4 537 7,408 7,945 83.6%"):
        assert row in words
    assert "10 largest messages" in out


def test_info_rich_shows_recorded_usage(capsys):
    code, out, _ = run(capsys, "info", SAMPLES / "coding_agent.jsonl")
    assert code == 0
    assert "Recorded usage per model call, beside our estimate" in out
    assert "total 160,047 139,418" in " ".join(out.split())
    text = " ".join(out.split())
    assert "The file records a compaction at message 45: the next call is sent 3,855 tokens" in text
    assert "plus what each request adds once: the part not in the file at the next call (547), the tool definitions (248)" in text


def write_markup_session(tmp_path: Path) -> Path:
    path = tmp_path / "markup.jsonl"
    lines = [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "[bold]Deploy[/bold] the [red]fix[/red]\x1b[31m now\x07"},
        "this line is not JSON",
        {"role": "assistant", "content": "Done: [link=http://x]ok[/link]"},
    ]
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return path


def test_rich_never_interprets_session_text_as_markup(capsys, tmp_path):
    code, out, _ = run(capsys, "info", write_markup_session(tmp_path))
    assert code == 0
    assert "[bold]Deploy[/bold] the [red]fix[/red]" in out
    assert "Done: [link=http://x]ok[/link]" in out
    assert "\x1b" not in out and "\x07" not in out


REASON_LINE_3 = "not valid JSON (invalid literal, expected 'true' at column 1)."


def test_info_reports_bad_lines(capsys, tmp_path):
    path = write_markup_session(tmp_path)
    d = info_json(capsys, path)
    assert d["session"]["messages"] == 3
    assert d["skipped"] == {
        "ignored": {},
        "ignored_at": {},
        "errors": [{"where": "line 3", "reason": REASON_LINE_3}],
    }
    code, out, _ = run(capsys, "info", path)
    assert "Skipped 1 record (1 error)" in out
    assert f"error {REASON_LINE_3} 1 line 3" in " ".join(out.split())


def test_preview_strips_control_characters():
    assert preview("a\tb\nc\x1b[1m\x07d\u200b e") == "a b c[1md e"
    assert preview("x" * 100, width=10) == "xxxxxxxxx…"


def test_skipped_report_counts_per_reason_and_keeps_the_first_three_places(capsys):
    from inspector.cli.render import console, render_skipped
    from inspector.cli.report import skipped_report
    from inspector.model import Skipped

    items = [Skipped(where=f"line {n}", reason="progress", kind="ignored") for n in (2, 5, 9, 11, 14)]
    items.insert(1, Skipped(where="line 3", reason="turn_context", kind="ignored"))
    items.append(Skipped(where="line 20", reason="not valid JSON", kind="error"))
    report = skipped_report(items)
    assert report == {
        "ignored": {"progress": 5, "turn_context": 1},
        "ignored_at": {"progress": ["line 2", "line 5", "line 9"], "turn_context": ["line 3"]},
        "errors": [{"where": "line 20", "reason": "not valid JSON"}],
    }
    render_skipped(report, console())
    text = " ".join(capsys.readouterr().out.split())
    assert "Skipped 7 records (6 ignored, 1 error)" in text
    assert "ignored progress 5 line 2, line 5, line 9, …" in text
    assert "ignored turn_context 1 line 3" in text and "error not valid JSON 1 line 20" in text
