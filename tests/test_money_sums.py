"""Compare's money totals summed per rate (:mod:`inspector.analysis.money_sums`) against the sums
of the per-call prices (:func:`inspector.analysis.money.session_money`): the same totals to the
last decimal on generated sessions, under every kind of price (flat, tiered, overrides, one-hour
writes, unknown models), and the unit rates against the library's own price of every bundled
model."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from decimal import Decimal, localcontext
from pathlib import Path

from genai_prices import data
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import analyze
from inspector.analysis.cache import ANTHROPIC_TTL_1H, CachePolicy
from inspector.analysis.money import MoneyOptions, money_totals, session_money
from inspector.analysis.money_sums import session_money_totals
from inspector.analysis.prices import Overrides, TokenSplit, _library_price, _ModelPrices, plain_rates, price
from inspector.analysis.replay import replay
from inspector.model import Session
from inspector.strategies import Settings

from test_incremental_replay import sessions

SPLITS = [
    TokenSplit(0, 0, 0, 0), TokenSplit(1200, 0, 0, 35), TokenSplit(3, 150_000, 9_000, 800),
    TokenSplit(50, 199_000, 1_000, 7), TokenSplit(5_000, 130_000, 80_000, 4_000), TokenSplit(300_000, 0, 0, 12_000),
    TokenSplit(0, 0, 1_000, 0), TokenSplit(1_000, 199_000, 0, 5), TokenSplit(1_000, 199_000, 1, 5),
    TokenSplit(2_000, 270_000, 0, 5), TokenSplit(128_000, 72_000, 0, 1), TokenSplit(128_001, 72_000, 0, 1),
]  # fmt: skip
WHENS = [None, datetime(2025, 6, 1, tzinfo=UTC)]


def test_unit_rates_price_every_bundled_model_as_price_does():
    checked = tiered = 0
    for provider in data.providers:
        for model in provider.models:
            for tokens, when in itertools.product(SPLITS, WHENS):
                plain = plain_rates(model.id, when)
                rates = plain.rates(tokens.uncached, tokens.cache_read, tokens.cache_write, tokens.output) if plain else None
                if rates is None:
                    continue
                summed = sum(r * n for r, n in zip(rates, (tokens.uncached, tokens.cache_read, tokens.cache_write,
                                                           tokens.output))) / 1_000_000
                cost = price(tokens, model.id, None, when)
                assert (summed, plain.model, plain.provider) == (cost.total, cost.model, cost.provider), (model.id, tokens, when)
                checked += 1
                tiered += plain.flat is None
    assert checked > 5_000 and tiered > 200  # the plain models' rates, tiers included, not a vacuous loop


def test_unit_rates_refuse_what_the_plain_path_does_not_price():
    plain = plain_rates("gpt-4o", None)
    assert plain.rates(10, 0, 0, 5) == (Decimal("2.5"), 0, 0, Decimal("10"))
    assert plain.rates(-1, 0, 0, 5) is None  # not a usage
    assert plain.rates(10, 0, 5, 5) is None  # OpenAI prices no cache write
    assert plain_rates(None, None) is None and plain_rates("no-such-model-xyz", None) is None
    own = Overrides("prices.toml", {"gpt-4o": _ModelPrices(input_mtok=Decimal(1), output_mtok=Decimal(2))})
    assert plain_rates("gpt-4o", None, own) is None  # an override: priced by price() itself


def test_tiered_rates_follow_the_whole_input():
    plain = plain_rates("gemini-2.5-pro", datetime(2025, 8, 1, tzinfo=UTC))
    assert plain.flat is None
    below, above = plain.rates(200_000, 0, 0, 1), plain.rates(200_001, 0, 0, 1)
    assert (below[0], above[0]) == (Decimal("1.25"), Decimal("2.5"))


MODELS = ["claude-sonnet-4-5", "gpt-4o", "gemini-2.5-pro", "no-such-model-xyz", None]
PIPELINES = [("fifo",), ("truncate_results", "fifo"), ("clear_tool_uses", "fifo"), ("summarize",), ("compact",),
             ("mask_tool_outputs",), ("tool_pruning", "fifo")]
OVERRIDE = Overrides("prices.toml", {"gpt-4o": _ModelPrices(input_mtok=Decimal("1.1"), output_mtok=Decimal("3.3"),
                                                            cache_read_mtok=Decimal("0.11"))})


def _options(kind: int) -> MoneyOptions:
    if kind == 1:
        return MoneyOptions(overrides=OVERRIDE)
    if kind == 2:  # one-hour writes: the library's whole calculation, call by call
        return MoneyOptions(policy=CachePolicy(True, ANTHROPIC_TTL_1H, 100))
    if kind == 3:  # everything cached from 100 tokens on: most calls' splits change under a pipeline
        return MoneyOptions(policy=CachePolicy(True, None, 100))
    return MoneyOptions()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions(), st.sampled_from(MODELS), st.sampled_from(PIPELINES), st.sampled_from([150, 600, 2000]),
       st.integers(0, 3))
def test_totals_summed_per_rate_equal_the_sums_of_the_per_call_prices(session, model, names, budget, kind):
    session = Session(format=session.format, messages=session.messages, model=model)
    a = analyze(session)
    s = Settings(budget=budget, summary_tokens=50, context_window=budget * 2, reserved_output=0)
    options = _options(kind)
    expected = money_totals(session_money(a.view, a.table, names, s, options))
    assert session_money_totals(a.view, a.table, names, s, options) == expected
    given_replay = replay(a.view, a.table, names, s)  # without shared prefixes: made where priced
    assert session_money_totals(a.view, a.table, names, s, options, replay=given_replay) == expected


def test_every_pipeline_priced_on_one_chain_base_gets_its_own_rows_totals():
    """compare prices every row on the same chain base, whose baseline sums are kept after the
    first row: each row's totals are still its own rows' (and the baseline's the same in each)."""
    from inspector import load
    from inspector.analysis.money import _BASES

    a = analyze(load(Path(__file__).parent.parent / "sample_sessions" / "coding_agent.jsonl"))
    s = Settings(budget=3000)
    options = MoneyOptions(model="claude-sonnet-4-5")
    baselines = set()
    for names in PIPELINES:
        totals = session_money_totals(a.view, a.table, names, s, options)
        assert totals == money_totals(session_money(a.view, a.table, names, s, options))
        baselines.add((totals.baseline_tokens, totals.baseline_cost))
    (kept,) = [base for _, _, base in a.view.__dict__[_BASES].values()]  # the main chain's: no sidechain
    assert baselines == {(kept.sums[1], kept.sums[0])}


def test_a_sum_the_decimal_context_cannot_hold_falls_back_to_the_per_call_prices():
    from test_incremental_replay import Message, TextBlock, Usage

    messages = []
    for k in range(12):
        messages.append(Message(index=len(messages), role="user", content=[TextBlock(text="ask " + "w " * (300 + 97 * k))]))
        messages.append(Message(index=len(messages), role="assistant", content=[TextBlock(text="ok " * (k + 1))],
                                usage=Usage(input_tokens=1000 + k, output_tokens=7 * k + 3)))
    a = analyze(Session(format="inspector", messages=messages, model="claude-sonnet-4-5"))
    s = Settings(budget=2000)
    options = MoneyOptions(policy=CachePolicy(True, None, 100))
    with localcontext() as ctx:
        ctx.prec = 4  # every sum of these prices rounds here
        rounded = money_totals(session_money(a.view, a.table, ("fifo",), s, options))
        assert session_money_totals(a.view, a.table, ("fifo",), s, options) == rounded
    _library_price.cache_clear()  # it memoised the prices rounded above
    exact = session_money_totals(a.view, a.table, ("fifo",), s, options)
    assert exact == money_totals(session_money(a.view, a.table, ("fifo",), s, options))
    assert exact.cost != rounded.cost and exact.cache_break_calls  # the fallback ran on a pipeline that bites


def _split_call(total, shared, gap_seconds, policy, warm, per_minute):
    """split_call as it was before :func:`inspector.analysis.cache._splitter` (the reference)."""
    from inspector.analysis.cache import CacheSplit

    def cached(n):
        return 0 if n < policy.min_tokens else n - n % policy.step

    shared = min(shared, total)
    if gap_seconds is not None and policy.ttl_seconds is not None and gap_seconds > policy.ttl_seconds:
        shared = min(shared, warm)
    read = cached(shared)
    if policy.overflow_rpm is not None and per_minute > policy.overflow_rpm:
        overflow = (per_minute - policy.overflow_rpm) / per_minute
        read = round((1 - overflow) * read + overflow * cached(min(shared, warm)))
    rest = total - read
    return CacheSplit(read, rest, 0) if policy.writes and total >= policy.min_tokens else CacheSplit(read, 0, rest)


def _simulate_call_by_call(requests, times, policy, warm):
    """simulate as it was before its policy was read once: a split per call (the reference)."""
    from collections import deque

    split_call = _split_call
    out, previous_time, recent = [], None, deque()
    for k, ((total, shared), t) in enumerate(zip(requests, times)):
        gap = None if k == 0 or t is None or previous_time is None else t - previous_time
        total = max(total, 0)
        if t is not None:
            recent.append(t)
            while recent[0] <= t - 60.0:
                recent.popleft()
        per_minute = len(recent) if t is not None else 1
        out.append(split_call(total, min(max(shared, 0), total), gap, policy, warm, per_minute))
        previous_time = t if t is not None else previous_time
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(-50, 6000), st.integers(-50, 6000), st.one_of(st.none(), st.floats(0, 400))),
                max_size=40),
       st.sampled_from([CachePolicy(True, 300.0, 1024), CachePolicy(False, 600.0, 1024, step=128, overflow_rpm=15),
                        CachePolicy(False, None, 4096), CachePolicy(True, 3600.0, 100)]),
       st.integers(0, 3000))
def test_simulate_equals_splitting_each_call_on_its_own(calls, policy, warm):
    from inspector.analysis.cache import simulate

    requests = [(total, shared) for total, shared, _ in calls]
    times, at = [], 0.0
    for _, _, step in calls:  # increasing times, some unknown
        at += step if step is not None else 0.0
        times.append(None if step is None else at)
    assert simulate(requests, times, policy, warm) == _simulate_call_by_call(requests, times, policy, warm)
    from inspector.analysis.cache import split_call

    for (total, shared), t in zip(requests, times):
        gap = None if t is None else t / 2
        assert split_call(max(total, 0), shared, gap, policy, warm, 17) == _split_call(max(total, 0), shared, gap, policy, warm, 17)
    for shared in (warm - 1, warm, warm + 1, warm + 128):  # past the lifetime: only the warm prefix is read
        assert split_call(9000, shared, 4000.0, policy, warm) == _split_call(9000, shared, 4000.0, policy, warm, 1)


def test_a_compacting_pipelines_calls_are_summed_from_columns_beside_its_summary_rows():
    """compact's main chain is summed per rate too (its summarisation calls priced as rows beside
    it): the totals are its rows', summary calls and the calls whose cache it breaks included."""
    from inspector import load
    from inspector.analysis.money import priced_session

    a = analyze(load(Path(__file__).parent.parent / "sample_sessions" / "coding_agent.jsonl"))
    s = Settings(budget=3000, summary_tokens=50)
    options = MoneyOptions(model="claude-sonnet-4-5")
    money, main = priced_session(a.view, a.table, ("compact",), s, options, main_rows=False)
    assert main is not None and [c.kind for c in money.calls] == ["summary"] * 4  # the calls: columns, not rows
    totals = session_money_totals(a.view, a.table, ("compact",), s, options)
    assert totals == money_totals(session_money(a.view, a.table, ("compact",), s, options))
    assert (totals.summary_calls, totals.cache_break_calls) == (4, (3, 10, 18, 32))
