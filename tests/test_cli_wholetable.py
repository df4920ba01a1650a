"""Tables never cut a figure or a name short on a narrow terminal (inspector.cli.wholetable).

At 80 columns ``compare`` printed "15,498,0…" for 15,498,028 billed tokens and "tool_pruni…" for
three different pipelines; ``fleet`` cut "truncate_re…" and "trim_messag…"."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.table import Table

from inspector.cli.wholetable import fit_columns, print_whole

from cli_helpers import as_json, run

SAMPLE = Path(__file__).resolve().parents[1] / "inspector" / "sample_sessions" / "coding_agent.jsonl"


def test_compare_at_80_columns_prints_every_name_and_figure_whole(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    report = as_json(capsys, "compare", SAMPLE, "--presets")
    code, out, _ = run(capsys, "compare", SAMPLE, "--presets")
    assert code == 0
    assert "…" not in out
    words = set(out.split())
    for row in report["rows"]:
        assert f"{row['replay_total']:,}" in words
        assert (row.get("preset") or row["pipeline"]) in words
        if row.get("input_tokens_billed") is not None:
            assert f"{row['input_tokens_billed']:,}" in words
    table = out[:out.index("Validity:")].splitlines()
    assert max(map(len, table)) == 80  # the blank edges went first, then the words fit


def test_compare_money_rows_keep_dollars_and_share_on_one_line_at_120_columns(capsys, monkeypatch):
    """"$0.0168 (37.6%)" is one figure: at 120 columns the money table wrapped it onto two lines
    (a header may wrap instead)."""
    monkeypatch.setenv("COLUMNS", "120")
    three = SAMPLE.parent / "three_questions.json"
    code, out, _ = run(capsys, "compare", three, "--budget", "4000")
    assert code == 0
    money = out[out.index("Tokens saved vs dollars saved"):out.index("input billed =")].splitlines()
    rows = [line for line in money if line.strip().startswith(("none", "fifo", "summarize"))]
    assert [line.split()[-3:-1] for line in rows] == [["(0.0%)", "0"], ["(37.6%)", "3"], ["(35.5%)", "3"]]


def test_a_table_wider_than_the_terminal_keeps_its_cells_and_overflows():
    out = Console(width=30, record=True, color_system=None)
    table = Table()
    table.add_column("pipeline")
    table.add_column("replay total", justify="right")
    table.add_row("tool_pruning,truncate_results", "15,498,028")
    print_whole(out, table)
    text = out.export_text()
    assert "tool_pruning,truncate_results" in text and "15,498,028" in text and "…" not in text
    assert out.width == 30  # restored


def test_room_left_goes_to_the_columns_that_wrap():
    table = Table()
    table.add_column("name")
    table.add_column("reason")
    table.add_row("fifo", "oldest removable unit while over budget")
    console = Console(width=40)
    width = fit_columns(table, console, 40)
    assert width == 40
    assert [c.width for c in table.columns] == [4, 29]  # 4 + 29 + padding 4 + edges 3


def test_info_recorded_usage_at_80_columns_prints_every_figure_whole(capsys, monkeypatch):
    """info's per-call usage table cut every figure at 80 columns ("20,…", "$0.…" on a real
    Claude Code file): it is printed whole too."""
    monkeypatch.setenv("COLUMNS", "80")
    report = as_json(capsys, "info", SAMPLE)
    code, out, _ = run(capsys, "info", SAMPLE)
    assert code == 0
    usage = out[out.index("Recorded usage per model call"):out.index("recorded usage; recorded =")]
    assert "…" not in usage
    words = set(usage.split())
    for row in report["usage"]["calls"][:60]:
        assert {f"{row['recorded']:,}", f"{row['estimate']:,}", f"{row['predicted']:,}"} <= words


def test_replay_at_80_columns_prints_every_figure_whole(capsys, monkeypatch):
    """replay's call table and its cost table cut every figure at 80 columns ("32,…", "$0.2…")."""
    monkeypatch.setenv("COLUMNS", "80")
    args = ("replay", SAMPLE, "--strategy", "fifo", "--budget", "4000", "--model", "claude-sonnet-4-5")
    report = as_json(capsys, *args)
    code, out, _ = run(capsys, *args)
    assert code == 0
    words = set(out.split())
    for row in report["calls"]:
        assert {f"{row['baseline_tokens']:,}", f"{row['tokens']:,}"} <= words
        assert f"${row['cost']['total']:.4f}" in words
    assert "…" not in out
