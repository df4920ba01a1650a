"""Presets as data: listing, --preset on every command, --set overrides, user presets, --as-config."""

from __future__ import annotations

import json

import pytest

from inspector.presets import PresetError, get_preset, load_presets, resolve, save_user_preset
from inspector.presets.config import as_config
from inspector.strategies import Settings, plan

from cli_helpers import as_json, run
from strategy_builders import SessionBuilder, text_of

SAMPLE = "inspector/sample_sessions/coding_agent.jsonl"
REQUIRED = {
    "claude-code", "claude-code-microcompact", "codex", "gemini-cli", "opencode", "cline", "aider", "swe-agent",
    "mini-swe-agent", "langchain-trim-last", "langchain-trim-last-bare", "langchain-trim-first",
    "langchain-summarization", "strands-sliding-window", "strands-summarizing", "openhands", "ms-agent-framework",
    "anthropic-clear-tool-uses", "anthropic-compact", "openai-responses-compact",
}


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CONTEXT_INSPECTOR_CONFIG_DIR", str(tmp_path / "config"))


def test_presets_json_lists_every_preset_with_its_source_params_and_pipeline(capsys):
    report = as_json(capsys, "presets")
    assert isinstance(report, list)  # a bare list, not a {schema_version, presets} report
    by_name = {p["name"]: p for p in report}
    assert REQUIRED <= set(by_name) and len(by_name) == len(report)
    for p in report:
        assert set(p) >= {"name", "agent", "version", "source", "params", "pipeline"}
        assert p["source"]["sure"] in ("source", "docs", "second-hand", "approximation") and p["source"]["where"]
    # 272,000 x 95 % reported, compacting at 9/10 of 272,000 = 244,800
    assert by_name["codex"]["params"] == {
        "context_window": 258400, "compact_share": 0.9473684210526315, "compact_count": "codex", "keep_user_tokens": 20000, "summary_tokens": 2000}
    assert by_name["swe-agent"]["pipeline"] == ["last_n_observations"]
    assert by_name["mini-swe-agent"]["pipeline"] == []


def test_claude_code_fires_at_window_minus_reserved_output_minus_buffer():
    _, _, s = resolve("claude-code")
    b = SessionBuilder()
    b.user("go")
    b.exchange("Read", "{}", text_of(500))
    b.answer("ok")
    a = b.analyze()
    total = a.table.overhead + a.table.prefix[-1]
    at = Settings(**{**s.model_dump(), "context_window": total + 33_000})  # trigger == total
    below = Settings(**{**s.model_dump(), "context_window": total + 33_001})
    assert plan(a.view, a.table, ("compact",), at).saving > 0
    assert plan(a.view, a.table, ("compact",), below).saving == 0


@pytest.mark.parametrize("name", sorted(REQUIRED))
def test_every_preset_plans_replays_and_exports(capsys, name, tmp_path):
    preset = get_preset(name)
    report = as_json(capsys, "plan", SAMPLE, "--preset", name)
    assert [stage["strategy"] for stage in report["pipeline"]] == list(preset.pipeline)
    for stage in report["pipeline"]:
        for key, value in preset.params.items():
            if key == "context_window" and key in stage["params"]:
                # the window of the model the file names (claude-sonnet-4-5 in the sample's header)
                # replaces the preset's default unless --set gives one
                assert stage["params"][key] == 200_000
            elif key in stage["params"]:
                assert stage["params"][key] == (list(value) if isinstance(value, tuple) else value)
    replay = as_json(capsys, "replay", SAMPLE, "--preset", name)
    assert sum(1 for c in replay["calls"] if c["kind"] == "call") == 35
    summaries = [c for c in replay["calls"] if c["kind"] == "summary"]
    assert len(summaries) == sum(1 for c in replay["calls"] if c["compacted_by"])
    code, _, err = run(capsys, "export", SAMPLE, "--preset", name, "--to", "anthropic", "-o", tmp_path / "out.json")
    assert code == 0, err
    compare = as_json(capsys, "compare", SAMPLE, "--preset", name)
    assert [(r.get("preset"), r["pipeline"]) for r in compare["rows"]] == [(None, "none"), (name, ",".join(preset.pipeline) or "none")]
    code, out, err = run(capsys, "compare", SAMPLE, "--preset", name)
    assert code == 0, err
    assert any(line.split()[:1] == [name] for line in out.splitlines())  # a row named by the preset


def test_set_overrides_a_preset_parameter_and_bad_values_are_one_paragraph(capsys):
    base = as_json(capsys, "plan", SAMPLE, "--preset", "claude-code")
    assert base["saving"] == 0  # 3,855 tokens are far from 167,000
    small = as_json(capsys, "plan", SAMPLE, "--preset", "claude-code", "--set", "context_window=35000")
    assert small["pipeline"][0]["params"]["context_window"] == 35000 and small["saving"] > 0
    code, _, err = run(capsys, "plan", SAMPLE, "--preset", "claude-code", "--strategy", "fifo")
    assert code == 2 and "--preset and --strategy cannot be used together" in err
    code, _, err = run(capsys, "plan", SAMPLE, "--preset", "nope")
    assert code == 2 and "unknown preset 'nope'; choose from: claude-code," in err
    code, _, err = run(capsys, "plan", SAMPLE, "--preset", "codex", "--set", "compact_share=lots")
    assert code == 2 and "--set compact_share=lots: could not convert string to float: 'lots'." in err
    code, _, err = run(capsys, "plan", SAMPLE, "--preset", "codex", "--set", "no_such=1")
    assert code == 2 and "--set no_such=1: no parameter 'no_such'" in err


def test_the_html_report_with_a_preset_compares_that_preset_by_name(capsys, tmp_path):
    page = tmp_path / "page.html"
    code, _, err = run(capsys, "report", SAMPLE, "--preset", "swe-agent", "--html", page)
    assert code == 0, err
    table = page.read_text(encoding="utf-8").split('<table id="compare-table">')[1].split("</table>")[0]
    assert "<th>preset (pipeline)</th>" in table
    assert [cell.split("<")[0] for cell in table.split('<tr class="compare-row"><td>')[1:]] == ["none", "swe-agent (last_n_observations)"]


def test_compare_presets_runs_each_with_its_own_settings(capsys):
    report = as_json(capsys, "compare", SAMPLE, "--presets")
    rows = report["rows"]
    assert rows[0]["pipeline"] == "none" and "preset" not in rows[0]
    assert [r["preset"] for r in rows[1:]] == list(load_presets())
    by = {r["preset"]: r for r in rows[1:]}
    assert by["mini-swe-agent"]["saving_pct"] == 0.0
    assert by["langchain-trim-last-bare"]["pipeline"] == "trim_messages"
    assert by["swe-agent"]["saving_pct"] > 0


def test_as_config_prints_the_agents_own_settings(capsys):
    # a 400,000 catalog window: Codex reports 95 % of it, 380,000, and compacts at 90 % of it
    code, out, _ = run(capsys, "presets", "show", "codex", "--as-config", "--set", "context_window=380000")
    assert code == 0
    assert out == (
        "# ~/.codex/config.toml (the limit can only lower 90 % of the catalog window; the catalog\n"
        "# window is 380000 / 0.95)\nmodel_auto_compact_token_limit = 360000\n"
    )
    preset, _, s = resolve("langchain-trim-last", {"budget": 500})
    assert "max_tokens=500" in as_config(preset, s) and "end_on=('human', 'tool')" in as_config(preset, s)
    code, out, _ = run(capsys, "presets", "show", "mini-swe-agent", "--as-config")
    assert code == 0 and out.startswith("# mini-swe-agent sends the whole linear history at every step: no setting")
    code, _, err = run(capsys, "presets", "show", "cline", "--as-config")
    assert code == 2 and "preset 'cline' (Cline) has no configuration of its own to print." in err


def test_gemini_cli_as_config_carries_its_tool_output_masking_settings(capsys):
    code, out, _ = run(capsys, "presets", "show", "gemini-cli", "--as-config", "--set", "mask_min_tokens=12000")
    assert code == 0
    comment, _, body = out.partition("\n")
    assert comment.startswith("// ~/.gemini/settings.json")
    assert json.loads(body) == {
        "model": {"compressionThreshold": 0.5},
        "experimental": {"toolOutputMasking": {
            "enabled": True, "toolProtectionThreshold": 50000, "minPrunableTokensThreshold": 12000, "protectLatestTurn": True,
        }},
    }
    code, out, _ = run(capsys, "presets", "show", "gemini-cli", "--as-config", "--set", "mask_protect_turns=0")
    assert json.loads(out.partition("\n")[2])["experimental"]["toolOutputMasking"]["protectLatestTurn"] is False


def test_user_presets_are_saved_and_loaded_from_the_config_dir(capsys, tmp_path):
    preset, pipeline, s = resolve("opencode", {"mask_min_tokens": 5000})
    path = save_user_preset("my-opencode", pipeline, s, based_on=preset)
    assert path == tmp_path / "config" / "presets" / "my-opencode.toml"
    mine = get_preset("my-opencode")
    assert mine.pipeline == preset.pipeline and mine.params["mask_min_tokens"] == 5000
    assert mine.params["mask_protected_tools"] == ("skill",)
    report = as_json(capsys, "plan", SAMPLE, "--preset", "my-opencode")
    assert report["pipeline"][0]["params"]["mask_min_tokens"] == 5000
    path.write_text("[[preset]]\nname = 'broken'\n", encoding="utf-8")
    with pytest.raises(PresetError, match="missing field 'sure'"):
        load_presets()
    code, _, err = run(capsys, "presets")
    assert code == 2 and err == f"context-inspector presets: error: {path} preset 'broken': missing field 'sure'.\n"


def test_polling_changes_the_replayed_history_only_every_n_calls():
    # SWE-agent's LastNObservations with polling: between two polling points every call sends
    # the previous call's request plus the new messages (the prompt cache stays valid)
    from inspector import analyze
    from inspector.analysis.replay import replay

    b = SessionBuilder()
    b.user("fix the bug")
    for _ in range(9):
        b.exchange("bash", "{}", text_of(100))
    b.answer("done")
    a = analyze(b.build(), "approx", "openai")
    calls = a.view.calls

    def shrinking_calls(polling: int) -> list[int]:
        _, names, settings = resolve("swe-agent", {"observations_keep": 2, "polling": polling})
        tokens = [c.tokens for c in replay(a.view, a.table, names, settings).calls]
        added = [sum(a.table.totals[calls[n - 1].message_index - 2 : calls[n - 1].message_index]) for n in range(2, len(calls) + 1)]
        return [n for n, grew, new in zip(range(2, len(calls) + 1), (t - s for s, t in zip(tokens, tokens[1:])), added) if grew != new]

    # observations at call n: the task and n - 1 results; elided up to (n // polling) * polling - 2
    assert shrinking_calls(1) == [4, 5, 6, 7, 8, 9, 10]
    assert shrinking_calls(3) == [6, 9]
    assert shrinking_calls(5) == [5, 10]


def test_saving_a_user_preset_checks_its_name_and_never_replaces_a_builtin(tmp_path):
    preset, pipeline, s = resolve("opencode")
    with pytest.raises(PresetError, match=r"^preset name 'codex' is a built-in preset; choose another name\.$"):
        save_user_preset("codex", pipeline, s)
    for bad in ("", "../evil", "a b", "-x", "x" * 65, "é"):
        with pytest.raises(PresetError, match="use 1 to 64 letters, digits"):
            save_user_preset(bad, pipeline, s)
    path = save_user_preset("mine", ("fifo",), Settings(budget=9000))
    assert get_preset("codex").origin == "builtin" and get_preset("mine").does == "Saved pipeline: fifo, with budget=9000."
    with pytest.raises(PresetError, match="preset 'mine' already exists"):
        save_user_preset("mine", ("fifo",), Settings(budget=1))
    save_user_preset("mine", ("fifo",), Settings(budget=1), overwrite=True)
    assert get_preset("mine").params == {"budget": 1}
    assert sorted(p.name for p in (tmp_path / "config" / "presets").iterdir()) == ["mine.toml"] and path.name == "mine.toml"


def test_a_preset_gives_older_agent_versions_their_own_parameters(tmp_path, monkeypatch):
    claude = get_preset("claude-code")
    assert [claude.for_agent("claude_code", v)["reserved_output"] for v in ("2.0.76", "2.1.20", "2.1.20-beta", "2.1.25", "10.0")] == [
        32_000, 32_000, 32_000, 20_000, 20_000]
    # another agent, or no recorded version: the preset's own figures
    assert claude.for_agent("codex", "2.1.7")["reserved_output"] == 20_000
    assert claude.for_agent("claude_code", None)["reserved_output"] == 20_000
    assert claude.report()["by_version"] == [{"agent": "claude_code", "through": "2.1.20", "params": {"reserved_output": 32_000}}]
    # a broken rule in a user preset is one paragraph naming the preset
    folder = tmp_path / "config" / "presets"
    folder.mkdir(parents=True)
    (folder / "mine.toml").write_text(
        '[[preset]]\nname = "mine"\nagent = "x"\nversion = "1"\nsource = "me"\nsure = "approximation"\ndoes = "d"\n'
        'pipeline = ["compact"]\n[[preset.by_version]]\nagent = "claude_code"\nthrough = "soon"\nparams = {}\n', encoding="utf-8")
    with pytest.raises(PresetError, match=r"preset 'mine': each by_version needs agent, through \(a version such as 2.1.20\) and params\."):
        load_presets()


@pytest.mark.parametrize("columns", ["80", "120"])
def test_presets_list_prints_every_name_and_pipeline_whole(capsys, monkeypatch, columns):
    """'presets' prints its table whole, as compare and fleet do: at 120 columns the pipelines
    'mask_tool_outputs,compact' read 'mask_tool_outputs,com…' and an agent
    'SummarizationMiddlewa…'; at 80 the preset names were cut too."""
    monkeypatch.setenv("COLUMNS", columns)
    listed = as_json(capsys, "presets")
    code, out, _ = run(capsys, "presets")
    assert code == 0
    assert "…" not in out
    words = set(out.split())
    for preset in listed:
        assert preset["name"] in words
        assert (",".join(preset["pipeline"]) or "none") in words
