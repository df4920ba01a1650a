"""The prompt-cache model follows what the file records: an Anthropic agent whose calls never
read or wrote the cache set no breakpoints (nothing is simulated as cached)."""

from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path

from inspector import analyze, load
from inspector.analysis.cache import NO_BREAKPOINTS, CachePolicy, CacheSplit, marks_breakpoints, policy_for, split_call
from inspector.analysis.money import call_time, session_money
from inspector.analysis.prices import TokenSplit, price
from inspector.model import Message

REAL = Path(__file__).parent / "fixtures" / "real"
OPENHANDS_CLAUDE = REAL / "openhands_completions" / "llm-logs"  # claude-sonnet-4, 0 cache reads and writes
CLAUDE_CODE = REAL / "money" / "agentcmd_full-session-four.jsonl"


def test_breakpoints_are_marked_unless_recorded_cache_usage_is_all_zero():
    assert marks_breakpoints([], 1024) is True  # nothing recorded: the usual assumption stays
    assert marks_breakpoints([(None, None, 5000), (None, None, 6000)], 1024) is True
    assert marks_breakpoints([(0, 0, 4812), (0, 0, 5002)], 1024) is False
    assert marks_breakpoints([(0, 0, 4812), (0, 512, 5002)], 1024) is True
    assert marks_breakpoints([(0, None, 2000), (7872, None, 7911)], 1024) is True
    # a call too short to be cached shows no write whatever the agent marks (Claude Code's
    # 728-token haiku "Warmup" sidechain, fasthooks_sample_agent_sidechain.jsonl)
    assert marks_breakpoints([(0, 0, 728)], 4096) is True
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


DEEPSEEK_LOG = REAL / "openhands_completions" / "litellm_proxy__deepseek__deepseek-chat-1757015054.055.json"


def test_deepseek_caches_prefixes_automatically_in_64_token_units():
    deepseek = policy_for("deepseek", "deepseek-chat")
    assert deepseek == CachePolicy(False, None, 64, step=64)
    assert policy_for(None, "deepseek-reasoner") == deepseek
    assert deepseek.label == "implicit (reads only), lifetime no expiry, minimum 64 tokens"
    # reads only, in whole 64-token units; a prefix under 64 tokens is not cached; no expiry
    assert split_call(5000, 4000, 86400.0, deepseek) == CacheSplit(3968, 0, 1032)
    assert split_call(5000, 63, None, deepseek) == CacheSplit(0, 0, 5000)


def test_a_deepseek_call_is_simulated_with_its_cache():
    # one OpenHands call to deepseek-chat that recorded 7,872 cache-hit tokens and 39 missed
    a = analyze(load(DEEPSEEK_LOG))
    money = session_money(a.view, a.table)
    assert money.cache_policy == "implicit (reads only), lifetime no expiry, minimum 64 tokens"
    assert [c.baseline_cache for c in money.calls] == [CacheSplit(1792, 0, 5699)]


SWE_MINI = REAL / "swe_agent" / "minisweagent2.2.7_submit_trimmed.traj.json"


def test_mini_swe_agent_calls_keep_their_unix_times_and_are_priced_at_them():
    session = load(SWE_MINI)
    calls = [m for m in session.messages if m.usage is not None]
    # the file's extra.timestamp, as it has it (seconds since the epoch)
    assert [m.extra["timestamp"] for m in calls] == [1775786846.900814, 1775786850.8885896]
    assert call_time(calls[0]) == datetime(2026, 4, 10, 2, 7, 26, 900814, tzinfo=timezone.utc)
    assert call_time(Message(index=0, role="assistant", extra={"timestamp": 86400})) == datetime(1970, 1, 2, tzinfo=timezone.utc)
    assert call_time(Message(index=0, role="assistant", extra={"timestamp": True})) is None
    assert call_time(Message(index=0, role="assistant", extra={"timestamp": 1e30})) is None
    # DeepSeek's price depends on the hour (genai-prices: half price 16:30-00:30 UTC): a call
    # stamped at 18:00 UTC is priced at half what one stamped at 02:07 UTC is
    usage = TokenSplit(uncached=1_000_000, cache_read=1_000_000, output=1_000_000)
    night = call_time(Message(index=0, role="assistant", extra={"timestamp": 1775844000.0}))  # 2026-04-10 18:00 UTC
    assert price(usage, "deepseek-chat", None, call_time(calls[0])).total == Decimal("1.44")
    assert price(usage, "deepseek-chat", None, night).total == Decimal("0.720")
