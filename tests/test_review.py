"""Defects found reviewing the merged main as a user (one test per defect, each fixed beside it)."""

from __future__ import annotations

from inspector.analysis.cache import NO_CACHE, policy_for


def test_a_session_without_a_cache_says_so_not_a_minimum_of_2_to_the_62():
    # replay's money footnote on a session whose model no price table knows read
    # "Cache model: implicit (reads only), lifetime 0 min, minimum 4611686018427387904 tokens"
    assert policy_for(None, None) is NO_CACHE
    assert NO_CACHE.label == "none (nothing is read from a provider cache)"
    assert policy_for("anthropic", "claude-sonnet-4-5", breakpoints=False).label.startswith(NO_CACHE.label)


CODEX = "/work/shared/real_sessions/codex/agentcmd_rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl"


def _viewer_preset_settings(session, name):
    from inspector.tui.state import PipelineState, available_presets, fit_to_session

    preset = next(p for p in available_presets() if p.name == name)
    return PipelineState.initial().apply_preset(fit_to_session(preset, session)).settings


def test_the_viewer_gives_a_preset_the_window_the_commands_give_it():
    # compare --presets on a Codex rollout (recorded window 258,400) planned gemini-cli with its
    # compression at 50% of 258,400, the viewer's compare screen at 50% of the preset's own
    # 1,048,576: 22.1M vs 35.3M replayed tokens for the same preset on entiregraph_codex0.136.0
    # (the commands' rule is with_session_window)
    from inspector import load
    from inspector.analysis.window import strategy_window, with_session_window
    from inspector.presets import resolve

    session = load(CODEX)
    assert strategy_window(session) == 258_400
    for name in ("gemini-cli", "claude-code", "opencode", "codex"):
        _, _, settings = resolve(name)
        cli = with_session_window(settings, session, set(), None, name)
        assert _viewer_preset_settings(session, name).context_window == cli.context_window == 258_400, name


def test_a_preset_keeps_its_own_window_where_the_session_names_no_known_model():
    from inspector.model import Message, Session, TextBlock

    session = Session(format="jsonl", messages=[Message(index=0, role="user", content=[TextBlock(text="hi")])])
    assert _viewer_preset_settings(session, "gemini-cli").context_window == 1_048_576


def _fleet_text(savings) -> str:
    from rich.console import Console

    from inspector.cli.fleet import render_fleet

    report = {"sessions": 1, "messages": 2, "model_calls": 1, "tokens": 10, "dataset": "/tmp/ds",
              "run": {"processed": 1, "skipped": 0, "errors": []}, "context_distribution": {"sessions": 1},
              "top_tools": [], "unused_fields": [], "validity": {"sessions_invalid_openai": 0}, "savings": savings}
    out = Console(record=True, width=200)
    render_fleet(report, out)
    return out.export_text()


def test_fleet_says_money_columns_are_empty_only_when_they_are():
    # fleet on priced Claude Code and Codex sessions printed saving_usd figures and under them
    # "Money columns stay empty until prices are known."
    row = {"strategy": "fifo", "sessions": 1, "baseline_tokens": 10, "tokens": 8, "saving": 2, "saving_pct": 20.0}
    assert "Money columns stay empty" not in _fleet_text([{**row, "saving_usd": -0.3}])
    assert "Money columns stay empty until prices are known." in _fleet_text([{**row, "saving_usd": None}])


def test_a_flag_read_while_another_thread_scans_it_already_has_the_truncation_bit(monkeypatch):
    # the viewer's warm worker (tui merge) reads a big session's flags in the background while a
    # plan thread reads them too: _scan marked a message scanned before setting its bit, so a
    # read in between got the flag without TRUNCATED_IN_SOURCE
    import inspector.units as units
    from inspector.model import Message, ToolResultBlock

    message = Message(index=0, role="tool", content=[ToolResultBlock(tool_call_id="c1", content="[output truncated]")])
    lazy = units.LazyFlags([0], [0], [message])
    seen = []

    def marker(text: str) -> bool:  # another thread's read, in the middle of this scan
        if not seen:
            seen.append(None)
            seen.append(lazy[0])
        return True

    monkeypatch.setattr(units, "has_truncation_marker", marker)
    assert lazy[0] == units.TRUNCATED_IN_SOURCE
    assert seen[1] == units.TRUNCATED_IN_SOURCE
