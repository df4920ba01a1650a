"""``context-inspector fleet``, ``fleet query`` and ``tools``: totals equal the per-session
``info --json`` figures, re-runs skip unchanged sessions, the tool-result diet, the Ray engine.
The sessions are the bundled samples and the real transcripts copied in tests/fixtures/real
(provenance there); nothing is written next to them."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from cli_helpers import as_json, run
from diet_helpers import SECRET, diet_session
from inspector import fleet
from inspector.fleet import dataset as ds

pytest.importorskip("duckdb")

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_sessions"
REAL = ROOT / "tests" / "fixtures" / "real"


def _info_sums(capsys, paths) -> dict[str, int]:
    sums = {"sessions": 0, "messages": 0, "model_calls": 0, "tokens": 0}
    for path in paths:
        info = as_json(capsys, "info", path)
        sums["sessions"] += 1
        sums["messages"] += info["session"]["messages"]
        sums["model_calls"] += info["session"]["model_calls"]
        sums["tokens"] += info["tokens"]["total"]
    return sums


def test_totals_equal_the_sum_of_info_json(capsys, tmp_path):
    report = as_json(capsys, "fleet", SAMPLES, REAL, "--dataset", tmp_path / "ds", "--workers", "2", "--strategies", "none")
    paths = [s.path for s in fleet.expand([str(SAMPLES), str(REAL)])]
    assert report["run"]["errors"] == []
    assert report["run"]["processed"] == len(paths) >= 17  # every bundled sample and copied real transcript
    assert not any("agent-" in p for p in paths)  # Claude Code sub-agent files belong to their session
    expected = _info_sums(capsys, paths)
    assert {k: report[k] for k in expected} == expected
    assert report["dataset"] == str(tmp_path / "ds")
    assert report["schema_version"] == 1
    assert report["savings"] == []  # --strategies none


def _copy_samples(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    shutil.copytree(SAMPLES, folder, ignore=shutil.ignore_patterns("*.py", "__pycache__", "measured_*"))
    return folder


def test_rerun_processes_only_new_or_changed_sessions(capsys, tmp_path):
    folder = _copy_samples(tmp_path)
    dataset = tmp_path / "ds"
    args = ("fleet", folder, "--dataset", dataset, "--workers", "1", "--strategies", "tool_pruning")
    first = as_json(capsys, *args)
    assert first["run"] == {"found": 4, "processed": 4, "skipped": 0, "errors": []}
    again = as_json(capsys, *args)
    assert again["run"] == {"found": 4, "processed": 0, "skipped": 4, "errors": []}
    assert {k: again[k] for k in ("sessions", "messages", "model_calls", "tokens")} == {
        k: first[k] for k in ("sessions", "messages", "model_calls", "tokens")
    }

    # Change one session (drop its last line), remove another: one processed, the removed one gone.
    changed = folder / "coding_agent.jsonl"
    changed.write_text("".join(changed.read_text().splitlines(keepends=True)[:-1]))
    (folder / "three_questions.json").unlink()
    third = as_json(capsys, *args)
    assert third["run"] == {"found": 3, "processed": 1, "skipped": 2, "errors": []}
    expected = _info_sums(capsys, sorted(str(p) for p in folder.iterdir()))
    assert {k: third[k] for k in expected} == expected
    # The old version's rows are not visible (only the 3 current sessions' rows are).
    code, out, err = run(capsys, "fleet", "query", "SELECT count(*), count(DISTINCT session_id) FROM strategies", "--dataset", dataset, "--json")
    assert code == 0, err
    assert json.loads(out)["rows"] == [[3, 3]]

    # Other options make rows that cannot be reused: everything is processed again.
    fourth = as_json(capsys, "fleet", folder, "--dataset", dataset, "--workers", "1", "--strategies", "none")
    assert fourth["run"]["processed"] == 3


def test_query_runs_user_sql_over_the_tables(capsys, tmp_path):
    dataset = tmp_path / "ds"
    as_json(capsys, "fleet", SAMPLES / "coding_agent.jsonl", "--dataset", dataset, "--strategies", "none")
    code, out, err = run(
        capsys, "fleet", "query",
        "SELECT tool, count(*) AS results FROM tools GROUP BY tool ORDER BY results DESC, tool LIMIT 2",
        "--dataset", dataset, "--json",
    )
    assert code == 0, err
    report = json.loads(out)
    assert report["columns"] == ["tool", "results"]
    info = as_json(capsys, "info", SAMPLES / "coding_agent.jsonl")
    by_results = sorted(((t["tool"], t["results"]) for t in info["tools"]), key=lambda r: (-r[1], r[0]))
    assert report["rows"] == [list(r) for r in by_results[:2]] == [["edit_file", 10], ["read_file", 8]]
    code, out, err = run(capsys, "fleet", "query", "SELECT count(*) FROM calls", "--dataset", dataset)
    assert code == 0 and "35" in out
    code, out, err = run(capsys, "fleet", "query", "--dataset", dataset, "SELECT count(*) FROM calls")
    assert code == 0 and "35" in out, err  # options before the SQL work too

    code, out, err = run(capsys, "fleet", "query", "SELECT nope FROM sessions", "--dataset", dataset)
    assert code == 2
    assert err.startswith("context-inspector fleet: error: fleet query: Binder Error: Referenced column \"nope\" not found")
    code, out, err = run(capsys, "fleet", "query", "SELECT 1", "--dataset", tmp_path / "missing")
    assert code == 2 and "not a fleet dataset (no manifest.jsonl)" in err


def test_unreadable_session_is_an_error_row_not_a_crash(capsys, tmp_path):
    folder = _copy_samples(tmp_path)
    (folder / "broken.json").write_text('{"foo": 1}\n')
    report = as_json(capsys, "fleet", folder, "--dataset", tmp_path / "ds", "--workers", "1", "--strategies", "none")
    assert report["sessions"] == 4
    assert [e["path"] for e in report["run"]["errors"]] == [str(folder / "broken.json")]
    assert "this is not a session format the inspector recognises" in report["run"]["errors"][0]["error"]
    assert sorted(os.listdir(folder)) == ["broken.json", "coding_agent.jsonl", "hr_leave_balance.json",
                                          "three_questions.json", "vendor_onboarding.json"]


# ------------------------------------------------------------------------------------------
# tool-result diet

def test_tools_report_flags_unused_fields_errors_and_secrets(capsys, tmp_path):
    session = diet_session(tmp_path / "diet.jsonl")
    code, out, err = run(capsys, "tools", session, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert SECRET not in out and "jane.doe" not in out
    lookup = next(t for t in report["tools"] if t["tool"] == "lookup_user")
    assert lookup["fields"] == ["api_key", "email", "internal_note", "user_id"]
    assert lookup["unused_fields"] == ["api_key", "email", "internal_note"]  # user_id's value is quoted later
    assert lookup["secrets"] == 2 and lookup["results"] == 1 and lookup["largest_message_index"] == 3
    run_tool = next(t for t in report["tools"] if t["tool"] == "run")
    assert run_tool["unstructured_errors"] == 1 and run_tool["fields"] == []
    assert report["unstructured_errors"] == [
        {"tool": "run", "message_index": 5, "block_index": 0, "source": "line 6", "tokens": run_tool["result_tokens"]}
    ]
    assert report["secrets"] == [
        {"tool": "lookup_user", "kind": "email", "message_index": 3, "block_index": 0, "line": 1, "column": 34,
         "source": "line 4", "redacted": "j***@example.com"},
        {"tool": "lookup_user", "kind": "openai_key", "message_index": 3, "block_index": 0, "line": 1, "column": 69,
         "source": "line 4", "redacted": "sk-p…[36 chars]"},
    ]
    assert json.dumps({"a": 1}) and report["heuristic"].startswith("a JSON field is 'used' when")

    code, out, err = run(capsys, "tools", session)
    assert code == 0 and "sk-p…[36 chars]" in out and SECRET not in out and "api_key" in out


def test_dataset_holds_no_text_unless_asked(capsys, tmp_path):
    session = diet_session(tmp_path / "diet.jsonl")
    for flag, expected in (((), [[None], [None]]), (("--with-text",), None)):
        dataset = tmp_path / ("ds" + "".join(flag))
        as_json(capsys, "fleet", session, "--dataset", dataset, "--strategies", "none", *flag)
        code, out, err = run(capsys, "fleet", "query", "SELECT text FROM tools ORDER BY message_index", "--dataset", dataset, "--json")
        rows = json.loads(out)["rows"]
        if expected is not None:
            assert rows == expected
        else:
            assert rows[1] == ["Error: ls: cannot access '/nope': No such file or directory"]
    code, out, err = run(capsys, "fleet", "query", "SELECT secret_places FROM tools WHERE secrets > 0", "--dataset", tmp_path / "ds", "--json")
    assert json.loads(out)["rows"] == [[["email at line 4, result line 1 column 34: j***@example.com",
                                         "openai_key at line 4, result line 1 column 69: sk-p…[36 chars]"]]]
    # Without text the secret is nowhere in the dataset's files.
    for path in (tmp_path / "ds").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes()


# ------------------------------------------------------------------------------------------
# engines


def _table_rows(dataset: Path) -> dict[str, list[tuple]]:
    con = ds.connect(dataset)
    try:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in fleet.TABLE_NAMES}
    finally:
        con.close()


def test_process_pool_and_single_worker_write_the_same_dataset(tmp_path):
    sources = fleet.expand([str(SAMPLES)])
    fleet.build(sources, tmp_path / "one", workers=1, strategies=("tool_pruning",))
    fleet.build(sources, tmp_path / "two", workers=2, strategies=("tool_pruning",), batch=1)
    one, two = _table_rows(tmp_path / "one"), _table_rows(tmp_path / "two")
    assert one == two
    assert len(one["sessions"]) == 5 and len(one["strategies"]) == 5  # the bundled samples


def test_ray_engine_writes_the_identical_dataset(tmp_path):
    ray = pytest.importorskip("ray")
    sources = fleet.expand([str(SAMPLES), str(REAL / "codex")])
    fleet.build(sources, tmp_path / "process", workers=2, strategies=("tool_pruning",))
    try:
        run_ = fleet.build(sources, tmp_path / "ray", engine="ray", workers=2, strategies=("tool_pruning",))
    finally:
        if ray.is_initialized():
            ray.shutdown()
    assert run_.processed == 8 and run_.errors == []  # 5 samples and 3 real Codex rollouts
    assert not ray.is_initialized()
    process_rows, ray_rows = _table_rows(tmp_path / "process"), _table_rows(tmp_path / "ray")
    assert ray_rows == process_rows
    assert [len(ray_rows[t]) for t in ("sessions", "strategies")] == [8, 8]


@pytest.mark.parametrize(
    "text, kind, redacted, column",
    [
        ("creds AKIAABCDEFGHIJKLMNOP here", "aws_access_key", "AKIA…[20 chars]", 7),
        ("token: ghp_" + "a" * 36, "github_token", "ghp_…[40 chars]", 8),
        ("x\n-----BEGIN RSA PRIVATE KEY-----", "private_key", "----…[31 chars]", 1),
        ('{"password": "hunter2hunter2"}', "assigned_secret", "hunt…[14 chars]", 15),
        ("auth eyJhbGciOiJI.eyJzdWIiOiIx.SflKxwRJSMeK", "jwt", "eyJh…[38 chars]", 6),
    ],
)
def test_secret_patterns_give_the_place_and_a_redacted_form(text, kind, redacted, column):
    from inspector.fleet.diet import find_secrets

    [hit] = find_secrets(text, 7, 1, "line 9")
    assert (hit.kind, hit.redacted, hit.column, hit.message_index, hit.block_index, hit.source) == (
        kind, redacted, column, 7, 1, "line 9")
    assert hit.line == text[: text.index(redacted[:4])].count("\n") + 1


def test_plain_results_have_no_secrets_or_fields():
    from inspector.fleet.diet import find_secrets, json_fields

    assert find_secrets("all 12 tests passed in 0.4s; see the key results above", 0, 0, "") == []
    assert json_fields("PASS tests/test_x.py") is None
    assert json_fields('{"a": {"b": [{"c": "value1"}]}, "n": 12345}') == {
        "a": set(), "a.b": set(), "a.b[].c": {"value1"}, "n": {"12345"}}


def test_without_paths_fleet_reads_the_agents_usual_places(capsys, tmp_path, monkeypatch):
    claude, codex = tmp_path / "claude", tmp_path / "codex"
    project = claude / "projects" / "-work-app"
    project.mkdir(parents=True)
    shutil.copy(REAL / "claude_code" / "rewind.jsonl", project / "rewind.jsonl")
    day = codex / "sessions" / "2026" / "02" / "11"
    day.mkdir(parents=True)
    rollout = next((REAL / "codex").glob("rollout-*.jsonl"))
    shutil.copy(rollout, day / rollout.name)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("CONTEXT_INSPECTOR_DATA_DIR", str(tmp_path / "data"))

    both = as_json(capsys, "fleet", "--strategies", "none", "--workers", "1")
    assert both["dataset"] == str(tmp_path / "data" / "fleet")
    assert both == {**both, **_info_sums(capsys, [project / "rewind.jsonl", day / rollout.name])}
    only_codex = as_json(capsys, "fleet", "--agent", "codex", "--strategies", "none", "--workers", "1")
    assert only_codex["run"]["found"] == 1
    assert only_codex["tokens"] == _info_sums(capsys, [day / rollout.name])["tokens"]


def test_an_empty_fleet_still_has_every_table(capsys, tmp_path):
    (tmp_path / "empty").mkdir()
    report = as_json(capsys, "fleet", tmp_path / "empty", "--dataset", tmp_path / "ds")
    assert {k: report[k] for k in ("sessions", "messages", "model_calls", "tokens")} == {
        "sessions": 0, "messages": 0, "model_calls": 0, "tokens": 0}
    code, out, err = run(capsys, "fleet", "query", "SELECT count(*), DATE '2026-11-23', 1.5::DECIMAL(4,2) FROM units",
                         "--dataset", tmp_path / "ds", "--json")
    assert code == 0, err
    assert json.loads(out)["rows"] == [[0, "2026-11-23", "1.50"]]


def test_the_fleet_worker_runs_without_any_view_module(tmp_path):
    """The fleet is core: building a dataset loads neither the CLI, the TUI, Rich nor Textual
    (the import-linter contract ``fleet-without-views`` says the same statically)."""
    import subprocess
    import sys

    code = (
        "import sys; from inspector import fleet; "
        f"fleet.build(fleet.expand([{str(SAMPLES)!r}]), {str(tmp_path / 'ds')!r}, workers=1, strategies=('tool_pruning',)); "
        "from inspector.fleet.diet import tools_report; from inspector.fleet.worker import analyse; "
        f"tools_report(analyse({str(SAMPLES / 'coding_agent.jsonl')!r})); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'textual') "
        "or m.startswith(('inspector.cli', 'inspector.tui'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_money_and_savings_use_the_same_figures_as_info_and_compare(capsys, tmp_path):
    """Review finding: cost_usd was always null and a strategy's saving was set against the
    messages-only baseline (doubling its share). Now a session's cost is info's recorded cost and
    a strategy's baseline, saving and dollars are compare's."""
    session = REAL / "compactions" / "entire_cc2.1.42_auto-compact.jsonl"
    dataset = tmp_path / "ds"
    as_json(capsys, "fleet", session, "--dataset", dataset, "--strategies", "tool_pruning")
    info = as_json(capsys, "info", session)
    code, out, err = run(capsys, "fleet", "query", "SELECT cost_usd FROM sessions", "--dataset", dataset, "--json")
    assert code == 0, err
    assert json.loads(out)["rows"][0][0] == pytest.approx(info["money"]["recorded_cost_total"])
    code, out, err = run(capsys, "fleet", "query", "SELECT sum(cost_usd) FROM calls", "--dataset", dataset, "--json")
    main_calls = sum(c["recorded_cost"]["total"] for c in info["money"]["calls"]
                     if c["recorded_cost"] is not None and c["sidechain"] is None)
    assert json.loads(out)["rows"][0][0] == pytest.approx(main_calls)
    code, out, err = run(capsys, "fleet", "query", "SELECT baseline_total, total, saving, saving_usd FROM strategies",
                         "--dataset", dataset, "--json")
    baseline, total, saving, saving_usd = json.loads(out)["rows"][0]
    compare = as_json(capsys, "compare", session)
    row = next(r for r in compare["rows"] if r["pipeline"] == "tool_pruning")
    none = next(r for r in compare["rows"] if r["pipeline"] == "none")
    assert (baseline, total) == (none["replay_total"], row["replay_total"]) == (8734161, 8557912)
    assert saving == baseline - total
    assert saving_usd == pytest.approx(row["dollars_saved"], abs=1e-4)


def test_the_fleet_summary_counts_one_session_in_the_singular(capsys, tmp_path):
    folder = tmp_path / "one"
    folder.mkdir()
    shutil.copy(SAMPLES / "coding_agent.jsonl", folder)
    code, out, _ = run(capsys, "fleet", folder, "--dataset", tmp_path / "ds", "--workers", "1")
    assert code == 0
    assert " ".join(out.split()).startswith("1 session, ")


def test_query_prints_every_cell_whole_at_80_columns(capsys, tmp_path, monkeypatch):
    """Your own SQL's table is printed whole, as fleet's report is: 'SELECT * FROM sessions' at 80
    columns showed nothing but '…' in every cell (30 columns squeezed to one character each)."""
    dataset = tmp_path / "ds"
    as_json(capsys, "fleet", SAMPLES / "coding_agent.jsonl", "--dataset", dataset, "--strategies", "none")
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = run(capsys, "fleet", "query", "SELECT * FROM sessions", "--dataset", dataset)
    assert code == 0, err
    row = as_json(capsys, "fleet", "query", "SELECT * FROM sessions", "--dataset", dataset)["rows"][0]
    assert "…" not in out
    for value in row:
        if isinstance(value, int) and not isinstance(value, bool):
            assert f"{value:,}" in out or str(value) in out, value
    assert "coding_agent.jsonl" in out


def test_peak_and_next_call_context_are_the_whole_input_the_viewer_shows(capsys, tmp_path):
    """sessions.peak_context is the largest whole input of any call, with what the file does not
    show (the agent's system prompt and tools): as recorded, or as predicted for a call that
    recorded none; context_next_call is info's predicted next call (the viewer's 'before'). They
    were the messages alone: on a public Claude Code session whose call read 306,269 tokens,
    fleet's peak said 243,462 and its next call 194,517 (the viewer: 306,617)."""
    path = REAL / "claude_code" / "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13.jsonl"
    dataset = tmp_path / "ds"
    as_json(capsys, "fleet", path, "--dataset", dataset, "--strategies", "none")
    row = as_json(capsys, "fleet", "query", "SELECT peak_context, context_next_call FROM sessions", "--dataset", dataset)["rows"][0]
    replay = as_json(capsys, "replay", path)
    info = as_json(capsys, "info", path)
    peak = max(c["predicted_tokens"] if c["recorded_tokens"] is None else c["recorded_tokens"] for c in replay["calls"])
    assert peak > max(c["baseline_tokens"] for c in replay["calls"])  # the file does not hold everything sent
    assert row == [peak, info["context_next_call"]["predicted_tokens"]]


def test_a_dataset_of_older_rows_is_processed_again(capsys, tmp_path):
    """Rows whose meaning changed since (ROWS_VERSION) are not kept for unchanged sessions."""
    from inspector.fleet.build import ROWS_VERSION

    dataset = tmp_path / "ds"
    args = ("fleet", SAMPLES / "coding_agent.jsonl", "--dataset", dataset, "--strategies", "none")
    assert as_json(capsys, *args)["run"]["processed"] == 1
    options = json.loads((dataset / ds.OPTIONS).read_text())
    assert options["rows"] == ROWS_VERSION
    assert as_json(capsys, *args)["run"]["skipped"] == 1
    del options["rows"]  # as a dataset written before rows had a version
    (dataset / ds.OPTIONS).write_text(json.dumps(options))
    assert as_json(capsys, *args)["run"]["processed"] == 1


def test_a_session_that_ends_on_its_running_tool_call_is_not_an_invalid_history(capsys, tmp_path):
    """A file written while the agent runs a tool ends on a call with no result yet: the viewer says
    "awaiting a tool result", and no request was ever sent with it. Fleet counted such sessions as
    histories a provider rejects (7 of 9 such on public Claude Code sessions); a real break still counts."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    lines = (SAMPLES / "coding_agent.jsonl").read_text().splitlines()
    call = '{"role":"assistant","content":"","tool_calls":[{"id":"call_running","name":"bash","arguments":"{}"}]}'
    (folder / "running.jsonl").write_text("\n".join([*lines, call]) + "\n")
    orphan = '{"role":"tool","tool_call_id":"call_nobody","name":"bash","content":"x"}'
    (folder / "broken.jsonl").write_text("\n".join([*lines[:5], orphan, *lines[5:]]) + "\n")
    report = as_json(capsys, "fleet", folder, "--dataset", tmp_path / "ds", "--strategies", "none")
    assert report["validity"] == {"sessions_invalid_openai": 1, "sessions_invalid_anthropic": 1,
                                  "sessions_ending_on_a_tool_call": 1, "orphan_results": 1, "orphan_calls": 1}
    rows = as_json(capsys, "fleet", "query", "SELECT path, openai_violations > 0, openai_ends_on_tool_call, "
                   "anthropic_ends_on_tool_call FROM sessions ORDER BY path", "--dataset", tmp_path / "ds")["rows"]
    assert rows == [[str(folder / "broken.jsonl"), True, False, False], [str(folder / "running.jsonl"), True, True, True]]


def test_a_break_only_one_provider_sees_keeps_the_session_invalid_for_it(capsys, tmp_path):
    """Each provider's count takes its own rule: an empty user message breaks Anthropic's rules, not
    OpenAI's; with an unanswered last call the session is awaiting a result for OpenAI and invalid
    for Anthropic (one flag for both hid the Anthropic break; the lead's final review found it)."""
    folder = tmp_path / "sessions"
    folder.mkdir()
    lines = (SAMPLES / "coding_agent.jsonl").read_text().splitlines()
    call = '{"role":"assistant","content":"","tool_calls":[{"id":"call_running","name":"bash","arguments":"{}"}]}'
    (folder / "both.jsonl").write_text("\n".join([*lines[:3], '{"role":"user","content":""}', *lines[3:], call]) + "\n")
    report = as_json(capsys, "fleet", folder, "--dataset", tmp_path / "ds", "--strategies", "none")
    assert {k: report["validity"][k] for k in ("sessions_invalid_openai", "sessions_invalid_anthropic",
                                               "sessions_ending_on_a_tool_call")} == \
        {"sessions_invalid_openai": 0, "sessions_invalid_anthropic": 1, "sessions_ending_on_a_tool_call": 1}
