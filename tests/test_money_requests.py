"""Money prices the request replay shows: under every strategy and preset, each call's priced
input (cache read + write + uncached) is exactly replay's tokens for that call, and the shared
prefix replay hands over is the same however replay planned the calls."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import inspector.analysis.replay as replay_module
from inspector import analyze, load
from inspector.analysis.money import session_money
from inspector.analysis.predict import predictions
from inspector.analysis.prices import TokenSplit, price
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


# -- the summary call of a compaction the file records ---------------------------------------


def test_a_recorded_compaction_without_its_summary_file_is_priced_and_said_so():
    session = load(COMPACTIONS / "entire_cc2.1.42_auto-compact.jsonl")
    a = analyze(session, profile=default_profile(session))
    money = session_money(a.view, a.table)
    rows = [c for c in money.calls if c.kind == "compaction"]
    assert [(c.call, c.sidechain, c.recorded_cost) for c in rows] == [(70, "compaction-after-call-69", None)]
    row, before = rows[0], money.calls[68]
    # input: call 69's request, read from the cache, plus its reply and results up to the compaction, written
    view, table = a.view, a.table
    tail = table.range_total(view.calls[68].message_index, view.calls[69].context_start)
    assert row.baseline_cache.read_tokens == before.baseline_cache.total
    assert row.baseline_cache.write_tokens == tail
    assert row.cache == row.baseline_cache and row.cost == row.baseline_cost  # the agent made it, with or without a pipeline
    assert row.baseline_cost.output > 0  # the summary's tokens out
    assert money.total("baseline_cost") - money.total("baseline_cost", sidechains=False) == row.baseline_cost.total
    assert money.notes == [
        f"The summary call of the compaction after call 69 is not in the file (Claude Code writes it to "
        f"subagents/agent-acompact-*.jsonl beside the session): priced from the recorded compaction "
        f"({row.baseline_cache.total:,} tokens in, the summary's {table.totals[view.calls[69].context_start]:,} out), "
        f"with no recorded cost."]


def _with_summary_file(tmp_path, usage: dict):
    """The spotter session beside a summary call's sub-agent file recording ``usage``."""
    sid = "4d5611e5-241a-462a-8d15-5122611a9569"
    main = tmp_path / f"{sid}.jsonl"
    main.write_bytes((COMPACTIONS / "spotter_cc2.1.39_4d5611e5.jsonl").read_bytes())
    sub = tmp_path / sid / "subagents"
    sub.mkdir(parents=True)
    common = {"isSidechain": True, "userType": "external", "sessionId": sid, "version": "2.1.39", "agentId": "acompact-test"}
    lines = [
        {**common, "parentUuid": None, "uuid": "u1", "type": "user", "timestamp": "2026-02-12T20:29:04.537Z",
         "message": {"role": "user", "content": "Your task is to create a detailed summary of the conversation so far"}},
        {**common, "parentUuid": "u1", "uuid": "a1", "type": "assistant", "timestamp": "2026-02-12T20:30:28.082Z",
         "message": {"id": "msg_1", "role": "assistant", "model": "claude-opus-4-6", "usage": usage,
                     "content": [{"type": "text", "text": "<analysis>summary</analysis>"}]}},
    ]
    (sub / "agent-acompact-test.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return load(main)


def test_a_recorded_compaction_with_its_summary_file_takes_the_recorded_usage(tmp_path):
    """The sub-agent file Claude Code writes for the summary call (agentId acompact-...) gives the
    recorded cost; the call is priced once, as the compaction's, not again as a sidechain."""
    usage = {"input_tokens": 3, "cache_creation_input_tokens": 8681, "cache_read_input_tokens": 164830, "output_tokens": 8}
    session = _with_summary_file(tmp_path, usage)
    assert "acompact-test" in session.sidechains
    a = analyze(session, profile=default_profile(session))
    money = session_money(a.view, a.table)
    rows = [c for c in money.calls if c.kind == "compaction"]
    assert [(c.call, c.sidechain) for c in rows] == [(62, "acompact-test")]
    assert [c for c in money.calls if c.sidechain == "acompact-test"] == rows  # not priced a second time
    assert rows[0].recorded_cost.total == price(
        TokenSplit(uncached=3, cache_read=164830, cache_write=8681, output=8), "claude-opus-4-6").total
    assert money.notes == []


@pytest.mark.parametrize("one_hour", [0, 8681])
def test_a_recorded_compactions_writes_last_as_long_as_its_own_say(tmp_path, one_hour):
    """The summary call's simulated writes are priced at the lifetime its recorded writes tell
    (five minutes, or an hour), not at the session's policy."""
    usage = {"input_tokens": 3, "cache_creation_input_tokens": 8681, "cache_read_input_tokens": 164830, "output_tokens": 8,
             "cache_creation": {"ephemeral_1h_input_tokens": one_hour, "ephemeral_5m_input_tokens": 8681 - one_hour}}
    session = _with_summary_file(tmp_path, usage)
    a = analyze(session, profile=default_profile(session))
    row = next(c for c in session_money(a.view, a.table).calls if c.kind == "compaction")
    s, out = row.baseline_cache, a.table.totals[row.message_index]  # the summary's tokens out
    assert s.write_tokens > 0
    expected = price(TokenSplit(s.uncached_tokens, s.read_tokens, s.write_tokens, out, s.write_tokens if one_hour else 0),
                     "claude-opus-4-6")
    assert row.baseline_cost.total == row.cost.total == expected.total


def test_only_claude_code_compactions_get_a_summary_call_of_their_own():
    """The bundled sample records a compaction (call 21 starts at the summary) but is no Claude
    Code file: which call summarised, and how, is not known, so no row and no note is added."""
    session = load(SAMPLES / "coding_agent.jsonl")
    a = analyze(session, profile=default_profile(session))
    assert any(c.context_start > 0 for c in a.view.calls)
    money = session_money(a.view, a.table)
    assert [c for c in money.calls if c.kind == "compaction"] == [] and money.notes == []


def test_a_session_that_ends_with_a_manual_compact_still_pays_for_its_summary_call():
    session = load(Path(__file__).parent / "fixtures" / "real" / "claude_code" / "fasthooks_sample_main_transcript.jsonl")
    a = analyze(session, profile=default_profile(session))
    money = session_money(a.view, a.table)
    rows = [c for c in money.calls if c.kind == "compaction"]
    assert [(c.call, c.sidechain, c.message_index) for c in rows] == [(13, "compaction-after-call-12", 24)]
    assert rows[0].baseline_cache.read_tokens == money.calls[11].baseline_cache.total
    assert len(money.notes) == 1 and money.notes[0].startswith("The summary call of the compaction after call 12 ")
