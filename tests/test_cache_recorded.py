"""The prompt-cache model follows what the file records: an Anthropic agent whose calls never
read or wrote the cache set no breakpoints (nothing is simulated as cached)."""

from __future__ import annotations

from pathlib import Path

from inspector import analyze, load
from inspector.analysis.cache import NO_BREAKPOINTS, marks_breakpoints, policy_for
from inspector.analysis.money import session_money

REAL = Path(__file__).parent / "fixtures" / "real"
OPENHANDS_CLAUDE = REAL / "openhands_completions" / "llm-logs"  # claude-sonnet-4, 0 cache reads and writes
CLAUDE_CODE = REAL / "money" / "agentcmd_full-session-four.jsonl"


def test_breakpoints_are_marked_unless_recorded_cache_usage_is_all_zero():
    assert marks_breakpoints([]) is True  # nothing recorded: the usual assumption stays
    assert marks_breakpoints([(None, None), (None, None)]) is True
    assert marks_breakpoints([(0, 0), (0, 0)]) is False
    assert marks_breakpoints([(0, 0), (0, 512)]) is True
    assert marks_breakpoints([(0, None), (7872, None)]) is True
    assert policy_for("anthropic", "claude-sonnet-4", breakpoints=False) is NO_BREAKPOINTS
    assert NO_BREAKPOINTS.label == (
        "none (nothing is read from a provider cache): no recorded call reads or writes the cache, "
        "so the agent marks no cache breakpoints")


def test_an_anthropic_agent_that_never_cached_is_simulated_without_a_cache():
    # OpenHands with LiteLLM sends no cache_control: each of its 2 calls records 0 read, 0 written
    a = analyze(load(OPENHANDS_CLAUDE))
    recorded = [a.view.messages[c.message_index].usage for c in a.view.calls]
    assert [(u.cache_read_input_tokens, u.cache_creation_input_tokens) for u in recorded] == [(0, 0), (0, 0)]
    money = session_money(a.view, a.table)
    assert money.cache_policy == NO_BREAKPOINTS.label
    assert [(c.baseline_cache.read_tokens, c.baseline_cache.write_tokens) for c in money.calls] == [(0, 0), (0, 0)]
    # the whole counted request is plain input (the claude estimate; the file records 4,812 and 5,002)
    assert [c.baseline_cache.uncached_tokens for c in money.calls] == [4576, 4931]


def test_an_agent_that_records_cache_reads_keeps_its_cache():
    a = analyze(load(CLAUDE_CODE), profile="anthropic")
    assert session_money(a.view, a.table).cache_policy == "read + write, lifetime 5 min, minimum 1024 tokens"
