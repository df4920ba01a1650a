"""Long plan and replay tables (issue 11): above LONG rows, runs of one status are cut to their
ends and the table to SHOWN rows; --all shows every row, --json always writes every row."""

from __future__ import annotations

import json

import pytest

from cli_helpers import as_json, run
from inspector.cli.elide import EDGE, MIN_HIDDEN, SHOWN, Elided, hidden, rows_shown
from inspector.cli.elide import plan_rows_shown as _shown
from inspector.cli.longtable import LONG

PAIRS = 1_500  # 3,001 messages and 1,500 calls: a plan above LONG rows, a replay below


def _row(status: str, by: str | None = None) -> tuple[str, str | None]:
    return status, by


def plan_rows_shown(rows):
    return _shown(len(rows), rows.__getitem__)


def test_short_tables_show_every_row():
    assert plan_rows_shown([_row("dropped", "fifo")] * LONG) == list(range(LONG))
    assert rows_shown(LONG) == list(range(LONG))


def test_runs_are_cut_to_their_ends():
    rows = ([_row("kept")] + [_row("dropped", "fifo")] * 3_000 + [_row("kept")] * 15 + [_row("truncated", "x")] * 14
            + [_row("dropped", "fifo")])
    shown = plan_rows_shown(rows)
    assert shown == [
        0, 1, 2, 3, 4, 5, Elided(6, 2_996, ("dropped", "fifo")), 2_996, 2_997, 2_998, 2_999, 3_000,
        3_001, 3_002, 3_003, 3_004, 3_005, Elided(3_006, 3_011, ("kept", None)), 3_011, 3_012, 3_013, 3_014, 3_015,
        *range(3_016, 3_031),  # a run that would hide 4 rows (2 * EDGE + 4) is shown whole
    ]
    assert EDGE == 5 and MIN_HIDDEN == 5 and hidden(shown) == 2_990 + 5


def test_alternating_rows_are_cut_to_the_first_and_last_hundred():
    rows = [_row("kept"), _row("truncated", "truncate_results")] * 1_500
    shown = plan_rows_shown(rows)
    assert SHOWN == 201 and len(shown) == 201
    assert shown[:100] == list(range(100)) and shown[101:] == list(range(2_900, 3_000))
    assert shown[100] == Elided(100, 2_900, None)
    assert rows_shown(300_000) == [*range(100), Elided(100, 299_900, None), *range(299_900, 300_000)]


def test_a_mixed_cut_spans_the_runs_it_swallows():
    rows = ([_row("kept")] + [_row("dropped", "fifo")] * 20) * 200  # 4,200 rows, 200 runs cut
    shown = plan_rows_shown(rows)
    assert len(shown) == 201
    middle = shown[100]
    assert middle.key is None
    # the head ends inside the 8th group (13 rows each: 1 kept, 5 dropped, a cut, 5 dropped), the cut
    # spans every row up to where the tail starts; the two ends and the cut cover the rows once
    covered = sum(1 if isinstance(e, int) else e.count for e in shown)
    assert covered == len(rows)


@pytest.fixture
def long_session(tmp_path):
    session = tmp_path / "long.jsonl"
    lines = [{"role": "system", "content": "be brief"}]
    for i in range(PAIRS):
        lines += [{"role": "user", "content": f"question {i}"}, {"role": "assistant", "content": f"answer {i}"}]
    session.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return session


def test_plan_table_sums_the_cut_runs_up(capsys, long_session):
    args = ("plan", long_session, "--strategy", "fifo", "--budget", "100")
    report = as_json(capsys, *args)
    rows = report["messages"]
    assert len(rows) == 3_001  # --json: every row
    dropped = [r for r in rows if r["status"] == "dropped"]
    kept = [r["index"] for r in rows if r["status"] == "kept"]
    first_kept = kept[1]
    assert kept[0] == 0 and dropped[0]["index"] == 1 and dropped[-1]["index"] == first_kept - 1
    code, out, err = run(capsys, *args)
    assert code == 0, err
    lines = out.splitlines()
    cut = [line for line in lines if line.lstrip().startswith("…")]
    assert len(cut) == 1  # the kept run (fits in 100 tokens) is short
    hidden_rows = dropped[EDGE:-EDGE]
    tokens = sum(r["tokens"] for r in hidden_rows)
    assert cut[0].split()[:4] == ["…", f"{tokens:,}", "0", "dropped"]
    assert (f"… {len(hidden_rows):,} messages dropped by fifo (#{hidden_rows[0]['index']:,} to "
            f"#{hidden_rows[-1]['index']:,})") in cut[0]
    shown = [line.split()[0] for line in lines if line.split()[:1] and line.split()[0].isdigit() and "by fifo" in line]
    assert shown == [str(r["index"]) for r in dropped[:EDGE] + dropped[-EDGE:]]
    note = " ".join(lines[lines.index(next(line for line in lines if "are summed up" in line)):][:2])
    assert note.startswith(f"{len(hidden_rows):,} of 3,001 messages are summed up in the rows marked …; plan --all shows "
                           "every message, --json writes every message.")
    code, every, err = run(capsys, *args, "--all")
    assert "…" not in every and "summed up" not in every
    assert sum(1 for line in every.splitlines() if "dropped by fifo" in line) == len(dropped)


def test_replay_table_shows_its_first_and_last_hundred_calls(capsys, tmp_path):
    session = tmp_path / "calls.jsonl"
    lines = [{"role": "system", "content": "be brief"}]
    for i in range(LONG + 1):
        lines += [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}]
    session.write_text("".join(json.dumps(x) + "\n" for x in lines))
    args = ("replay", session, "--strategy", "fifo", "--budget", "200")
    calls = as_json(capsys, *args)["calls"]
    assert len(calls) == LONG + 1
    code, out, err = run(capsys, *args)
    assert code == 0, err
    rows = [line.split() for line in out.splitlines() if line.split()[:1] and line.split()[0].replace(",", "").isdigit()]
    numbers = [int(r[0].replace(",", "")) for r in rows if len(r) == 7]  # call msg turn baseline predicted with saved
    assert numbers == [*range(1, 101), *range(LONG + 1 - 99, LONG + 2)]
    cut = next(line.split() for line in out.splitlines() if line.lstrip().startswith("…"))
    middle = calls[100:-100]
    assert cut == ["…", f"{sum(c['baseline_tokens'] for c in middle):,}", f"{sum(c['predicted_tokens'] for c in middle):,}",
                   f"{sum(c['tokens'] for c in middle):,}", f"{sum(c['predicted_tokens'] - c['tokens'] for c in middle):,}"]
    assert f"{len(middle):,} of {LONG + 1:,} calls are summed up in the rows marked …; replay --all shows every call, " in out
    code, every, err = run(capsys, *args, "--all")
    assert code == 0 and "…" not in every
    assert sum(1 for line in every.splitlines() if line.split()[:1] and line.split()[0].replace(",", "").isdigit()
               and len(line.split()) == 7) == LONG + 1


def test_a_short_replay_is_unchanged(capsys, long_session):
    code, out, err = run(capsys, "replay", long_session, "--strategy", "fifo", "--budget", "100")
    assert code == 0 and "…" not in out and "summed up" not in out


@pytest.mark.parametrize("pipeline", ["summarize", "tool_pruning,fifo", "clear_tool_uses"])
def test_plan_rows_keys_and_sums_agree_with_the_rows(pipeline):
    import inspector
    from inspector.analysis.planning import plan as make_plan
    from inspector.cli.report import PlanRows
    from inspector.cli.samples import sample_path
    from inspector.strategies.params import settings_model

    analysis = inspector.analyze(inspector.load(sample_path()))
    checked = make_plan(analysis, pipeline, settings_model()(budget=2_000, trigger=1_000, keep=1))
    rows = PlanRows(analysis, checked)
    listed = list(rows)
    decisions = checked.decisions()
    assert [(r["index"], r["status"], r["tokens"], r["tokens_after"], r["by"], r["reason"]) for r in listed] == [
        (d.index, d.status.value, d.tokens, d.tokens_after, d.by, d.reason) for d in decisions]
    assert [rows.run_key(k) for k in range(len(rows))] == [(r["status"], r["by"]) for r in listed]
    indices = [r["index"] for r in listed if r["index"] is not None]
    assert rows.sums(0, len(rows)) == (sum(r["tokens"] for r in listed), sum(r["tokens_after"] for r in listed),
                                       indices[0], indices[-1])
    if pipeline == "summarize":
        assert any(r["index"] is None for r in listed)  # an inserted summary is among the rows


def test_replay_rows_sums_agree_with_the_rows():
    import inspector
    from inspector.cli.report import pipeline_report, replay_report
    from inspector.cli.samples import sample_paths
    from inspector.strategies.params import settings_model

    settings = settings_model()(budget=2_000)
    recorded_seen = False
    for path in sample_paths():
        analysis = inspector.analyze(inspector.load(path))
        result = inspector.replay(analysis, ("fifo",), settings=settings)
        report = replay_report(analysis, result, pipeline_report(("fifo",), settings))
        calls = report["calls"]
        listed = list(calls)
        assert len(listed) == len(result.calls)
        for a, b in [(0, len(listed)), (1, max(1, len(listed) - 1))]:
            sums = calls.sums(a, b)
            for key, value in sums.items():
                values = [c[key] for c in listed[a:b] if c[key] is not None]
                assert value == (sum(values) if values else None), (path, key)
        assert report["total"] == sum(c["tokens"] for c in listed)
        usage = [c for c in listed if c["recorded_tokens"] is not None]
        assert report["recorded_total"] == (sum(c["recorded_tokens"] for c in usage) if usage else None)
        recorded_seen |= bool(usage)
    assert recorded_seen  # some sample records usage, so the recorded sums are exercised
