"""Money: prices from genai-prices, the prompt-cache model, per-call cost with and without a
pipeline, the override file, and the CLI's money fields."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import genai_prices
import pytest

from inspector import analyze, load
from inspector.analysis.cache import (
    ANTHROPIC_TTL, CachePolicy, CacheSplit, NO_CACHE, common_prefix_tokens, policy_for, simulate, split_call,
)
from inspector.analysis.money import MoneyOptions, call_time, session_money
from inspector.analysis.predict import predictions
from inspector.analysis.prices import ENV_OVERRIDE, PriceError, TokenSplit, load_overrides, price, prices_as_of
from inspector.model import Message, Session, TextBlock, ToolCallBlock, ToolResultBlock, Usage

from cli_helpers import as_json, run

REAL = Path(__file__).parent / "fixtures" / "real" / "money"
CLAUDE = REAL / "agentcmd_full-session-four.jsonl"
CODEX = REAL / "agentcmd_rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl"
ANTHROPIC_5M = CachePolicy(writes=True, ttl_seconds=ANTHROPIC_TTL, min_tokens=1024)


# -- prices ----------------------------------------------------------------------------------


def test_price_parts_add_up_to_the_librarys_total():
    cost = price(TokenSplit(uncached=5000, cache_read=90000, cache_write=5000, output=2000), "claude-sonnet-4-6", "anthropic")
    assert (cost.input, cost.cache_read, cost.cache_write, cost.output, cost.total) == (
        Decimal("0.015"), Decimal("0.027"), Decimal("0.01875"), Decimal("0.03"), Decimal("0.09075"))
    assert (cost.model, cost.provider, cost.source) == ("claude-sonnet-4-6", "anthropic", "genai-prices")
    # the library's own figure for the same usage (its input_tokens is the whole input)
    own = genai_prices.calc_price(genai_prices.Usage(input_tokens=100000, cache_read_tokens=90000, cache_write_tokens=5000,
                                                     output_tokens=2000), "claude-sonnet-4-6", provider_id="anthropic")
    assert own.total_price == cost.total


def test_one_hour_cache_writes_cost_twice_the_input_price():
    cost = price(TokenSplit(uncached=5000, cache_read=90000, cache_write=5000, output=2000, cache_write_1h=5000),
                 "claude-sonnet-4-6", "anthropic")
    assert (cost.cache_write, cost.total) == (Decimal("0.03"), Decimal("0.102"))


def test_unknown_model_has_no_price():
    assert price(TokenSplit(uncached=1000, output=10), "my-private-model-7") is None
    assert price(TokenSplit(uncached=1000), None) is None


def test_prices_as_of_is_a_date_and_the_package_version():
    as_of = prices_as_of()
    day, rest = as_of.split(" ", 1)
    assert datetime.strptime(day, "%Y-%m-%d").date() <= datetime.now().date()
    assert rest == f"(genai-prices {genai_prices.__version__})"


def test_override_file_toml_json_and_env(tmp_path, monkeypatch):
    toml = tmp_path / "prices.toml"
    toml.write_text('[models."my-llama"]\ninput_mtok = 0.2\noutput_mtok = 0.6\ncache_read_mtok = 0.02\n')
    overrides = load_overrides(toml)
    cost = price(TokenSplit(uncached=1_000_000, cache_read=500_000, output=100_000), "my-llama", overrides=overrides)
    assert (cost.input, cost.cache_read, cost.output, cost.total) == (Decimal("0.2"), Decimal("0.01"), Decimal("0.06"), Decimal("0.27"))
    assert cost.source == str(toml)
    as_json_file = tmp_path / "prices.json"
    as_json_file.write_text(json.dumps({"models": {"my-llama": {"input_mtok": 1, "output_mtok": 2}}}))
    monkeypatch.setenv(ENV_OVERRIDE, str(as_json_file))
    assert price(TokenSplit(uncached=1_000_000), "my-llama", overrides=load_overrides()).total == Decimal(1)
    # models the file does not name still come from genai-prices
    assert price(TokenSplit(uncached=1_000_000), "claude-sonnet-4-6", overrides=load_overrides()).total == Decimal(3)


def test_override_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "prices.toml"
    bad.write_text('[models."x"]\ninput_mtok = 1\n')
    with pytest.raises(PriceError) as e:
        load_overrides(bad)
    assert str(e.value).startswith(f"{bad}: models.x.output_mtok: Field required")
    bad.write_text("[models\n")
    with pytest.raises(PriceError, match=r"prices.toml: not valid TOML"):
        load_overrides(bad)
    with pytest.raises(PriceError, match=r"cannot read the price override file"):
        load_overrides(tmp_path / "missing.json")


# -- the cache model -------------------------------------------------------------------------


def test_split_reads_the_common_prefix_and_writes_the_rest():
    assert split_call(5000, 4000, 10.0, ANTHROPIC_5M) == CacheSplit(4000, 1000, 0)
    # past the lifetime nothing is read, unless part of it stays warm
    assert split_call(5000, 4000, 301.0, ANTHROPIC_5M) == CacheSplit(0, 5000, 0)
    assert split_call(5000, 4000, 301.0, ANTHROPIC_5M, warm=3000) == CacheSplit(3000, 2000, 0)
    # below the minimum cacheable length: no read; a request too short to cache is plain input
    assert split_call(5000, 1000, 10.0, ANTHROPIC_5M) == CacheSplit(0, 5000, 0)
    assert split_call(900, 800, 10.0, ANTHROPIC_5M) == CacheSplit(0, 0, 900)
    # OpenAI: reads only, in 128-token steps
    openai = policy_for("openai", "gpt-5-codex")
    assert split_call(5000, 4000, None, openai) == CacheSplit(3968, 0, 1032)
    assert split_call(5000, 4000, None, NO_CACHE) == CacheSplit(0, 0, 5000)


def test_policies_by_provider_and_model():
    assert policy_for("anthropic", "claude-sonnet-4-5") == ANTHROPIC_5M
    assert policy_for("anthropic", "claude-opus-4-5-20251101", long_ttl=True) == CachePolicy(True, 3600.0, 4096)
    assert policy_for("anthropic", "claude-sonnet-4-5", breakpoints=False).min_tokens == NO_CACHE.min_tokens
    assert policy_for("google", "gemini-2.5-pro") == CachePolicy(False, None, 4096)
    assert policy_for(None, "some-local-model") is NO_CACHE


def test_simulate_uses_gaps_between_calls():
    requests = [(3000, 0), (4000, 3000), (4500, 4000), (5000, 4500)]
    splits = simulate(requests, [0.0, 60.0, 1000.0, None], ANTHROPIC_5M)
    assert splits == [CacheSplit(0, 3000, 0), CacheSplit(3000, 1000, 0), CacheSplit(0, 4500, 0), CacheSplit(4500, 500, 0)]


def test_openai_requests_beyond_15_a_minute_overflow_to_machines_that_hold_only_the_fixed_prefix():
    openai = policy_for("openai", "gpt-5-codex")
    assert openai.overflow_rpm == 15
    # 20 requests in the minute: 5 of 20 overflow, so a quarter of the request reads only the warm 2,560
    assert split_call(14000, 13900, 3.0, openai, warm=2560, per_minute=20) == CacheSplit(
        round(0.75 * 13824 + 0.25 * 2560), 0, 14000 - round(0.75 * 13824 + 0.25 * 2560))
    assert split_call(14000, 13900, 3.0, openai, warm=2560, per_minute=15) == CacheSplit(13824, 0, 176)
    # simulate counts the requests of the last minute, the current one included
    times = [float(t) for t in range(0, 48, 3)]  # 16 requests 3 s apart: the 16th is the 16th in 60 s
    splits = simulate([(5000, 4096)] * 16, times, openai, warm=1024)
    assert [s.read_tokens for s in splits[:15]] == [4096] * 15
    assert splits[15].read_tokens == round(15 / 16 * 4096 + 1 / 16 * 1024)


def test_common_prefix_stops_at_the_first_changed_piece():
    assert common_prefix_tokens([("p", 100), (1, 10), (2, 20)], [("p", 100), (1, 10), ((2, "cleared"), 3), (3, 7)]) == 110
    assert common_prefix_tokens([], [("p", 100)]) == 0


# -- per-call money on built sessions --------------------------------------------------------

WORDS = "lorem ipsum dolor sit amet consectetur " * 60  # 2,400 characters


def _built(times: list[str], model: str = "claude-sonnet-4-5") -> Session:
    """A system prompt, then one turn per time: a user prompt, a tool call (model call 1 of the
    turn, at that time), its long result, and an answer (call 2, ten seconds later)."""
    messages = [Message(index=0, role="system", content=[TextBlock(text=WORDS * 2)])]

    def add(role: str, content: list, **kw) -> None:
        messages.append(Message(index=len(messages), role=role, content=content, **kw))

    for k, ts in enumerate(times):
        later = ts.replace(":00Z", ":10Z")
        add("user", [TextBlock(text=f"question {k}")])
        add("assistant", [ToolCallBlock(id=f"c{k}", name="read", arguments="{}")], extra={"timestamp": ts})
        add("tool", [ToolResultBlock(tool_call_id=f"c{k}", content=WORDS)])
        add("assistant", [TextBlock(text=f"answer {k}")], usage=Usage(output_tokens=50), extra={"timestamp": later})
    return Session(format="inspector", messages=messages, model=model)


TIMES = ["2026-01-01T10:00:00Z", "2026-01-01T10:01:00Z", "2026-01-01T10:30:00Z"]


def test_baseline_splits_on_a_built_session():
    a = analyze(_built(TIMES), encoding="approx")
    money = session_money(a.view, a.table)
    base = [a.table.overhead + a.table.prefix[c.message_index] for c in a.view.calls]
    assert [c.message_index for c in a.view.calls] == [2, 4, 6, 8, 10, 12]
    assert [c.baseline_cache for c in money.calls] == [
        CacheSplit(0, base[0], 0),  # first call: everything written
        CacheSplit(base[0], base[1] - base[0], 0),  # the previous request is read, the new part written
        CacheSplit(base[1], base[2] - base[1], 0),
        CacheSplit(base[2], base[3] - base[2], 0),
        CacheSplit(0, base[4], 0),  # 29 minutes later: the cache has expired
        CacheSplit(base[4], base[5] - base[4], 0),
    ]
    assert (base[0], base[1] - base[0]) == (1185, 600)  # system prompt + prompt; the call and its result
    # output-only usage is no bill: no recorded cost, and no fixed prefix inferred
    assert money.prefix_tokens == 0 and {c.recorded_cost for c in money.calls} == {None}
    # priced as claude-sonnet-4-5: reads at $0.30, 5-minute writes at $3.75, output at $15 per million
    c = money.calls[1]
    assert c.baseline_cost.total == (Decimal(1185) * Decimal("0.30") + Decimal(600) * Decimal("3.75")
                                     + 50 * Decimal(15)) / 1_000_000


def test_a_strategy_that_changes_early_history_breaks_the_cache():
    a = analyze(_built(TIMES[:2]), encoding="approx")
    money = session_money(a.view, a.table, "tool_pruning")
    totals, overhead, prefix = a.table.totals, a.table.overhead, a.table.prefix
    calls = money.calls
    # turn 1: nothing to prune yet
    assert [(c.cache, c.breaks_cache) for c in calls[:2]] == [(c.baseline_cache, False) for c in calls[:2]]
    # call 3 opens turn 2 and no longer re-sends turn 1's call and result (messages 2 and 3): call 2
    # sent them, so only messages 0-1 are read and everything after is written again
    third = calls[2]
    assert third.cache == CacheSplit(overhead + prefix[2], totals[4] + totals[5], 0)
    assert third.baseline_cache == CacheSplit(overhead + prefix[4], totals[4] + totals[5], 0)
    assert third.rewritten_tokens == totals[2] + totals[3] == 600 and third.breaks_cache
    # call 4 only appends again
    assert calls[3].cache.read_tokens == third.cache.total and not calls[3].breaks_cache


def test_unknown_model_gives_null_costs_and_is_named():
    a = analyze(_built(TIMES[:2], model="my-private-model-7"), encoding="approx")
    money = session_money(a.view, a.table)
    assert {c.baseline_cost for c in money.calls} == {None}
    assert money.unknown_models == ["my-private-model-7"] and money.total("baseline_cost") is None
    priced = session_money(a.view, a.table, options=MoneyOptions(model="claude-sonnet-4-5"))
    assert priced.unknown_models == [] and priced.total("baseline_cost") > 0


def test_sidechain_calls_are_on_the_bill_and_listed_apart():
    session = _built(TIMES[:2])
    side = _built(TIMES[:1]).messages
    side[4] = side[4].model_copy(update={"usage": Usage(input_tokens=10, cache_read_input_tokens=2000, output_tokens=40)})
    session.sidechains["agent-1"] = side
    a = analyze(session, encoding="approx")
    money = session_money(a.view, a.table)
    assert [(c.sidechain, c.call) for c in money.calls] == [(None, 1), (None, 2), (None, 3), (None, 4), ("agent-1", 1), ("agent-1", 2)]
    side_cost = money.calls[5].recorded_cost.total
    assert side_cost == (10 * Decimal(3) + 2000 * Decimal("0.3") + 40 * Decimal(15)) / 1_000_000
    assert money.sidechain_total("recorded_cost") == side_cost == money.total("recorded_cost")
    assert money.total("recorded_cost", sidechains=False) is None
    side_base = money.calls[4].baseline_cost.total + money.calls[5].baseline_cost.total
    assert money.total("baseline_cost") == money.total("baseline_cost", sidechains=False) + side_base


# -- real sessions ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", [CLAUDE, CODEX], ids=["claude_code", "codex"])
def test_recorded_cost_is_the_librarys_price_of_the_recorded_usage(path):
    session = load(path)
    a = analyze(session)
    money = session_money(a.view, a.table)
    checked = 0
    for c in money.calls:
        m = a.view.messages[c.message_index]
        if m.usage is None:
            assert c.recorded_cost is None
            continue
        u = m.usage
        own = genai_prices.calc_price(
            genai_prices.Usage(input_tokens=u.context_tokens, cache_read_tokens=u.cache_read_input_tokens or 0,
                               cache_write_tokens=u.cache_creation_input_tokens or 0, output_tokens=u.output_tokens or 0),
            c.model, genai_request_timestamp=call_time(m))
        assert round(c.recorded_cost.total, 2) == round(own.total_price, 2)
        assert c.recorded_cost.total == own.total_price
        parts = c.recorded_cost
        assert parts.input + parts.cache_read + parts.cache_write + parts.output == parts.total
        checked += 1
    assert checked == (30 if path == CLAUDE else 35)  # Codex usage is pinned to its call: the first call has its own


def test_claude_code_session_simulated_cache_share_matches_the_recording():
    a = analyze(load(CLAUDE), profile="anthropic")
    money = session_money(a.view, a.table)
    assert money.cache_policy == "read + write, lifetime 5 min, minimum 1024 tokens"
    recorded = [a.view.messages[c.message_index].usage for c in money.calls]
    recorded_share = sum(u.cache_read_input_tokens for u in recorded) / sum(u.context_tokens for u in recorded)
    simulated_share = sum(c.baseline_cache.read_tokens for c in money.calls) / sum(c.baseline_cache.total for c in money.calls)
    # the request starts with each call's not-in-file part, fitted on earlier calls (predict)
    assert round(100 * recorded_share, 1) == 94.8 and round(100 * simulated_share, 1) == 95.1
    # call 15 comes 5.5 minutes after call 14: the cache has expired, only the prefix that was warm
    # when the session started (call 1 read 17,055) is read; the recording read 13,168
    assert money.calls[14].baseline_cache.read_tokens == recorded[0].cache_read_input_tokens == 17055
    assert recorded[14].cache_read_input_tokens == 13168


def test_compare_on_a_real_claude_code_session_shows_tokens_vs_dollars(capsys):
    # triggers and budgets hold against the whole input, the part not in the file (17,000-30,000
    # here) included: the trigger passes 8,000 from call 4 on (32,318 predicted), and fifo's budget
    # is set above that part so it cuts some history, not all of it
    d = as_json(capsys, "compare", CLAUDE, "--trigger", "8000", "--budget", "40000", "--keep", "2")
    rows = {r["pipeline"]: r for r in d["rows"]}
    assert d["prices_as_of"] == prices_as_of()
    clear = rows["clear_tool_uses"]
    # clear_tool_uses saves a larger share of tokens than of dollars: each new clearing rewrites cached history
    assert clear["tokens_saved_pct"] > clear["dollars_saved_pct"] > 0
    assert clear["cache_breaks"] > 0 and clear["cache_break_calls"][0] == 4
    # fifo saves tokens and costs more: its cut moves every call
    assert rows["fifo"]["tokens_saved_pct"] > 0 > rows["fifo"]["dollars_saved_pct"]
    code, out, _ = run(capsys, "compare", CLAUDE, "--trigger", "8000", "--keep", "2")
    assert "Tokens saved vs dollars saved" in out
    replay = as_json(capsys, "replay", CLAUDE, "--strategy", "clear_tool_uses", "--trigger", "8000", "--keep", "2")
    call4 = replay["calls"][3]
    assert call4["breaks_cache"] and call4["cache"]["read_tokens"] < call4["baseline_cache"]["read_tokens"]
    assert call4["cache"]["write_tokens"] > call4["baseline_cache"]["write_tokens"]
    assert call4["cost"]["total"] > call4["baseline_cost"]["total"]


def test_replay_json_money_fields(capsys):
    d = as_json(capsys, "replay", CLAUDE)
    call = d["calls"][0]
    assert call["model"] == "claude-sonnet-4-5-20250929"
    assert set(call["recorded_cost"]) == set(call["baseline_cost"]) == {"input", "cache_read", "cache_write", "output", "total"}
    assert set(call["cache"]) == {"read_tokens", "write_tokens", "uncached_tokens"}
    assert call["cost"] == call["baseline_cost"]
    totals = (d["recorded_cost_total"], d["baseline_cost_total"], d["cost_total"])
    assert round(totals[0], 4) == round(sum(c["recorded_cost"]["total"] for c in d["calls"]), 4)
    assert totals[1] == totals[2] and d["prices_as_of"] == prices_as_of() and d["sidechain_calls"] == []
    code, out, _ = run(capsys, "info", CLAUDE)
    assert f"Recorded cost: ${totals[0]:,.4f} over 30 calls" in " ".join(out.split())


def test_bad_prices_file_exits_2(capsys, tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text("{")
    code, out, err = run(capsys, "replay", CLAUDE, "--prices", bad)
    assert code == 2 and out == ""
    assert err.startswith(f"context-inspector replay: error: {bad}: not valid JSON")


@pytest.mark.parametrize("path", [CLAUDE, CODEX], ids=["claude_code", "codex"])
def test_a_pipeline_that_changes_nothing_costs_the_baseline(path):
    a = analyze(load(path))
    money = session_money(a.view, a.table, "fifo")  # no budget: fifo keeps everything
    assert [c.cache for c in money.calls] == [c.baseline_cache for c in money.calls]
    assert money.total("cost") == money.total("baseline_cost") and not any(c.breaks_cache for c in money.calls)


def test_codex_session_simulated_cache_share_matches_the_recording():
    a = analyze(load(CODEX))
    money = session_money(a.view, a.table)
    recorded = [a.view.messages[c.message_index].usage for c in money.calls]
    recorded_share = sum(u.cache_read_input_tokens for u in recorded) / sum(u.context_tokens for u in recorded)
    simulated_share = sum(c.baseline_cache.read_tokens for c in money.calls) / sum(c.baseline_cache.total for c in money.calls)
    assert round(100 * recorded_share, 1) == 88.0 and round(100 * simulated_share, 1) == 85.0
    # the reader keeps each call's time: calls 1-15 fall within 40 s, so call 15 is the 15th
    # request of its minute (no overflow) and call 16 the 16th: 1 in 16 reads only the warm 2,560
    assert a.view.messages[money.calls[15].message_index].extra["timestamp"] == "2025-09-25T21:13:00.323Z"
    assert money.calls[14].baseline_cache.read_tokens == 13056
    assert money.calls[15].baseline_cache.read_tokens == round(15 / 16 * 14080 + 1 / 16 * 2560) == 13360
    # the recording: call 15 overflowed (read 2,560), call 16 hit again
    assert [recorded[k].cache_read_input_tokens for k in (14, 15)] == [2560, 13440]


def test_codex_reads_only_up_to_the_previous_turns_first_output_at_a_new_prompt():
    session = _built(TIMES[:2], model="gpt-5-codex").model_copy(update={"format": "codex"})
    a = analyze(session, encoding="approx")
    overhead, prefix = a.table.overhead, a.table.prefix
    # nothing recorded: every request starts with the typical Codex part not in the file
    hidden = [p.not_in_file for p in predictions(a.view, a.table)]
    assert hidden == [6200] * 4
    front = hidden[0] + overhead
    for money in (session_money(a.view, a.table), session_money(a.view, a.table, "fifo")):
        # call 3 opens turn 2: turn 1's reasoning (after message 1) is no longer sent, so only
        # messages 0-1 are read, in OpenAI's 128-token steps; call 4 reads all of call 3's request
        assert [c.baseline_cache.read_tokens for c in money.calls] == [
            0, (front + prefix[2]) // 128 * 128, (front + prefix[2]) // 128 * 128, (front + prefix[6]) // 128 * 128]
        assert [c.cache for c in money.calls] == [c.baseline_cache for c in money.calls]


def test_summary_calls_a_compaction_adds_are_priced_and_on_the_bill(capsys):
    d = as_json(capsys, "replay", CLAUDE, "--strategy", "compact", "--compact-tokens", "40000")
    calls = d["calls"]
    summaries = [k for k, c in enumerate(calls) if c["kind"] == "summary"]
    assert [calls[k]["call"] for k in summaries] == [11, 25] and d["summary_calls"] == 2
    for k in summaries:
        s, before, after = calls[k], calls[k - 1], calls[k + 1]
        assert after["call"] == s["call"] and after["kind"] == "call" and after["compacted_by"] == "compact"
        # its input is the history it summarises: the call before's request is read, the rest written
        assert s["cache"]["read_tokens"] == before["tokens"]
        assert s["cache"]["read_tokens"] + s["cache"]["write_tokens"] == s["tokens"]
        # its output is the summary compact asks for (300 tokens at Sonnet 4.5's $15/M)
        assert s["cost"]["output"] == 300 * 15 / 1e6
        assert s["baseline_cost"] is None and s["recorded_cost"] is None
        assert s["cost"]["total"] != after["cost"]["total"]  # each row has its own money
    per_call = sum(c["cost"]["total"] for c in calls)
    assert round(d["cost_total"], 8) == round(per_call, 8)
    assert round(d["summary_cost_total"], 8) == round(sum(calls[k]["cost"]["total"] for k in summaries), 8)
    c = as_json(capsys, "compare", CLAUDE, "--strategy", "compact", "--compact-tokens", "40000")
    row = c["rows"][1]
    assert row["pipeline"] == "compact" and row["summary_calls"] == 2
    assert round(row["summary_cost"], 8) == round(d["summary_cost_total"], 8)
    assert round(row["cost_total"], 8) == round(d["cost_total"], 8)


def test_compare_shows_what_cache_aware_settings_are_worth(capsys):
    args = ("compare", CLAUDE, "--strategy", "clear_tool_uses", "--trigger", "8000", "--keep", "2", "--clear-at-least", "5000")
    d = as_json(capsys, *args)
    at_least, off = d["rows"][1], d["cache_aware"][0]
    assert (off["pipeline"], off["setting"], off["instead_of"]) == ("clear_tool_uses", "clear_at_least=0", "clear_at_least=5000")
    # clearing only when it frees 5,000 tokens saves fewer tokens but more dollars: fewer rewrites
    # of cached history, so fewer cache writes
    assert (at_least["tokens_saved_pct"], at_least["dollars_saved_pct"]) == (15.2, 3.8)
    assert (off["tokens_saved_pct"], off["dollars_saved_pct"]) == (16.6, 1.6)
    assert (at_least["cache_breaks"], off["cache_breaks"]) == (18, 25)
    assert (at_least["cache_write_tokens"], off["cache_write_tokens"]) == (70397, 75488)
    code, out, _ = run(capsys, *args)
    assert "(clear_at_least=0)" in out and "cache writes" in out
    # polling: last_n_observations changes the history only every 5 calls
    p = as_json(capsys, "compare", CLAUDE, "--strategy", "last_n_observations", "--polling", "5")
    polled, every_call = p["rows"][1], p["cache_aware"][0]
    assert every_call["setting"] == "polling=1"
    # eliding at every call saves 12.8% of tokens and costs 32.6% more; every 5 calls: 11.0% and 1.3% more
    assert (every_call["tokens_saved_pct"], every_call["dollars_saved_pct"], every_call["cache_breaks"]) == (12.8, -32.6, 22)
    assert (polled["tokens_saved_pct"], polled["dollars_saved_pct"], polled["cache_breaks"]) == (11.0, -1.3, 4)
    assert (polled["cache_write_tokens"], every_call["cache_write_tokens"]) == (74407, 129195)
    # nothing set away from its off value: no extra rows
    assert as_json(capsys, "compare", CLAUDE, "--strategy", "clear_tool_uses")["cache_aware"] == []


def test_compact_is_priced_from_its_stateful_replay():
    from inspector.analysis.replay import replay
    from inspector.strategies.params import settings_model

    a = analyze(load(CLAUDE))
    settings = settings_model()(compact_tokens=40000)
    result = replay(a.view, a.table, ("compact",), settings)
    money = session_money(a.view, a.table, ("compact",), settings, replay=result)
    calls = [c for c in money.calls if c.kind == "call"]
    replayed = [c for c in result.calls if c.kind == "call"]
    # the simulated requests are the replay's: same totals call by call
    assert [c.cache.total for c in calls] == [c.tokens for c in replayed]
    after = [k for k, c in enumerate(replayed) if c.compacted_by]
    assert after and all(calls[k].breaks_cache for k in after)
    # between compactions the agent appends: each call reads the whole previous request
    k = after[0] + 1
    assert calls[k].cache.read_tokens == calls[k - 1].cache.total and not calls[k].breaks_cache
