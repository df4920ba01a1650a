"""Money prices the request replay shows: under every strategy and preset, each call's priced
input (cache read + write + uncached) is exactly replay's tokens for that call, and the shared
prefix replay hands over is the same however replay planned the calls."""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector.analysis.replay as replay_module
from inspector import analyze, load
from inspector.analysis.money import session_money
from inspector.analysis.predict import predictions
from inspector.analysis.replay import replay
from inspector.cli.main import COMPARE_PIPELINES
from inspector.cli.report import default_profile
from inspector.presets import load_presets, settings_for
from inspector.strategies import STRATEGIES
from inspector.strategies.params import settings_model

SAMPLES = Path(__file__).parent.parent / "inspector" / "sample_sessions"
REAL = Path(__file__).parent / "fixtures" / "real" / "money"
FILES = [SAMPLES / "coding_agent.jsonl", SAMPLES / "vendor_onboarding.json", REAL / "agentcmd_full-session-four.jsonl",
         REAL / "agentcmd_rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl"]


def _runs():
    default = settings_model()()
    # thresholds inside these sessions' sizes, so the budgeted and triggered strategies act; the
    # clear_tool_uses trigger sits where counting the re-sent reasoning decides whether it fires
    tight = settings_model()(trigger=8000, budget=12000, keep=2)
    for name in STRATEGIES:
        yield name, (name,), default
        yield name + " (tight)", (name,), tight
    for p in COMPARE_PIPELINES:
        yield p, tuple(p.split(",")), tight
    for name, preset in load_presets().items():
        yield "preset " + name, preset.pipeline, settings_for(preset, {})


@pytest.fixture(scope="module", params=FILES, ids=lambda p: p.name[:30])
def analysis(request):
    session = load(request.param)
    return analyze(session, profile=default_profile(session))


def test_every_call_is_priced_on_the_tokens_replay_shows(analysis):
    view, table = analysis.view, analysis.table
    checked = 0
    for label, names, settings in _runs():
        shown = replay(view, table, names, settings)  # as the views compute it (fast paths included)
        money = session_money(view, table, names, settings, replay=shown)
        priced = [c.cache.total for c in money.calls if c.sidechain is None and c.kind == "call"]
        tokens = [max(c.tokens, 0) for c in shown.calls if c.kind == "call"]
        assert priced == tokens, label
        summaries = [c.cache.total for c in money.calls if c.kind == "summary"]
        assert summaries == [max(c.tokens, 0) for c in shown.calls if c.kind == "summary"], label
        checked += 1
    assert checked == 2 * len(STRATEGIES) + len(COMPARE_PIPELINES) + len(load_presets())


def test_forked_replay_hands_money_the_same_shared_prefixes(analysis, monkeypatch):
    view, table = analysis.view, analysis.table
    settings = settings_model()(trigger=8000, keep=2)
    serial = replay(view, table, ("clear_tool_uses",), settings, shared=True)
    monkeypatch.setattr(replay_module, "_PARALLEL_MIN_CALLS", 1)
    monkeypatch.setattr(replay_module, "_CHUNK", 3)
    forked = replay(view, table, ("clear_tool_uses",), settings, shared=True, workers=2)
    assert [c.shared_tokens for c in forked.calls] == [c.shared_tokens for c in serial.calls]
    assert [c.tokens for c in forked.calls] == [c.tokens for c in serial.calls]
    assert serial.calls[0].shared_tokens == 0 and all(c.shared_tokens is not None for c in serial.calls)


def test_a_fast_replay_is_redone_with_plans_not_priced_apart():
    session = load(REAL / "agentcmd_full-session-four.jsonl")
    a = analyze(session, profile=default_profile(session))
    view, table = a.view, a.table
    fast = replay(view, table, ("tool_pruning",))
    assert all(c.shared_tokens is None for c in fast.calls)  # the fast path has no plans
    planned = replay(view, table, ("tool_pruning",), shared=True)
    assert [c.tokens for c in planned.calls] == [c.tokens for c in fast.calls]
    assert planned.calls[0].shared_tokens == 0 and all(c.shared_tokens is not None for c in planned.calls)
    a = session_money(view, table, ("tool_pruning",), replay=fast)
    b = session_money(view, table, ("tool_pruning",), replay=planned)
    assert [c.cache for c in a.calls] == [c.cache for c in b.calls]
    assert any(c.breaks_cache for c in b.calls)  # tool_pruning does rewrite history here


COMPACTIONS = Path(__file__).parent / "fixtures" / "real" / "compactions"
UNCHANGED = [COMPACTIONS / "entire_cc2.1.42_auto-compact.jsonl", COMPACTIONS / "entire_cc2.1.7_two-auto-compacts.jsonl",
             COMPACTIONS / "spotter_cc2.1.39_4d5611e5.jsonl",
             Path(__file__).parent / "fixtures" / "real" / "claude_code" / "fasthooks_sample_main_transcript.jsonl",
             Path(__file__).parent / "fixtures" / "real" / "codex" / "rollout-2026-02-11T14-05-00-0195a3c2-7b1e-7f40-9d2a-41c8e07b5a19.jsonl"]


@pytest.mark.parametrize("path", UNCHANGED, ids=lambda p: p.name[:30])
def test_the_same_requests_get_the_same_split_around_recorded_compactions(path):
    """fifo with no budget sends exactly the no-strategy requests (replay: not one token saved),
    so every call's split, the first one after each recorded compaction included, is the
    baseline's: the fixed prefix both calls sent is the smaller of the two calls' estimates, and
    the system messages every request starts with are read on across the compaction."""
    session = load(path)
    a = analyze(session, profile=default_profile(session))
    shown = replay(a.view, a.table, ("fifo",))
    assert shown.saving == 0
    money = session_money(a.view, a.table, ("fifo",), replay=shown)
    main = [c for c in money.calls if c.sidechain is None]
    assert [c.cache for c in main] == [c.baseline_cache for c in main]
    assert money.total("cost") == money.total("baseline_cost")
    assert not any(c.breaks_cache for c in main)


def test_cc2142_first_call_after_the_compaction_reads_the_fixed_prefix_with_and_without_a_pipeline():
    session = load(COMPACTIONS / "entire_cc2.1.42_auto-compact.jsonl")
    a = analyze(session, profile=default_profile(session))
    after = next(c.number for c in a.view.calls if c.context_start > 0)
    assert after == 70
    money = session_money(a.view, a.table, ("fifo",))
    call = money.calls[after - 1]
    assert call.baseline_cache == call.cache
    # the request after the compaction shares only the fixed prefix (no system message leads the
    # history): the smaller of the two calls' estimates of it (this trimmed copy of the file puts
    # 152,917 tokens it lacks in front of call 69, 45,109 in front of call 70)
    prefix = [p.not_in_file for p in predictions(a.view, a.table)]
    assert call.cache.read_tokens == min(prefix[after - 2], prefix[after - 1]) + a.table.overhead == 45112


def test_thinking_prune_of_blocks_counted_as_nothing_breaks_no_cache():
    """Claude Code 2.0.76 writes thinking blocks whose text we count as 0 tokens; thinking_prune
    removes them (replay: 0 tokens saved), which changes nothing money can price: no rewrite."""
    session = load(Path(__file__).parent / "fixtures" / "real" / "claude_code" / "fasthooks_sample_main_transcript.jsonl")
    a = analyze(session, profile=default_profile(session))
    shown = replay(a.view, a.table, ("thinking_prune",))
    assert shown.saving == 0
    money = session_money(a.view, a.table, ("thinking_prune",), replay=shown)
    assert [c.call for c in money.calls if c.breaks_cache] == []
    assert money.total("cost") == money.total("baseline_cost")
