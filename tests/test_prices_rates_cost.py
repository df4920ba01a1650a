"""A call priced from its model's plain rates (:meth:`inspector.analysis.prices.PlainRates.cost`,
what :mod:`inspector.analysis.money` prices every call with) against :func:`~inspector.analysis.prices.price`,
the per-call path: the same Cost, each Decimal written the same (value and exponent), for random
usages, models, price periods and times of day; None (the caller then asks ``price``) where a
figure would round or the usage is not a plain one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.analysis.money import _Pricer
from inspector.analysis.prices import NO_OVERRIDES, PlainRates, TokenSplit, load_overrides, plain_rates, price

MODELS = ["claude-sonnet-4-5", "claude-opus-4-5", "claude-haiku-4-5", "gpt-5.5", "gpt-5.1-codex", "gemini-2.5-pro",
          "gpt-4o", "deepseek-reasoner", "deepseek-chat", "gpt-4.1-mini", "no-such-model-xyz"]
#: Price periods and DeepSeek's off-peak hours (16:30-00:30 UTC) on both sides of their edges.
WHENS = [None, datetime(2024, 6, 1, tzinfo=UTC), datetime(2025, 6, 1, tzinfo=UTC), datetime(2026, 3, 1, 16, 29, tzinfo=UTC),
         datetime(2026, 3, 1, 16, 30, tzinfo=UTC), datetime(2026, 3, 2, 0, 29, tzinfo=UTC), datetime(2026, 3, 2, 0, 30, tzinfo=UTC)]

FIELDS = ("input", "cache_read", "cache_write", "output", "total", "model", "provider", "source")


def same(a, b) -> bool:
    """Equal, and every Decimal spelled the same (``str`` shows the exponent)."""
    if a is None or b is None:
        return a is b
    return all(str(getattr(a, f)) == str(getattr(b, f)) for f in FIELDS)


counts = st.integers(0, 1_200_000) | st.sampled_from([0, 1, 128_000, 128_001, 200_000, 200_001, 272_000, 272_001])


@settings(max_examples=600, deadline=None)
@given(model=st.sampled_from(MODELS), when=st.sampled_from(WHENS), uncached=counts, read=counts, write=counts,
       output=st.integers(0, 128_000))
def test_a_call_priced_from_its_rates_is_the_per_call_price(model, when, uncached, read, write, output):
    expected = price(TokenSplit(uncached, read, write, output), model, None, when)
    rates = plain_rates(model, when)
    fast = rates.cost(uncached, read, write, output) if rates is not None else None
    if fast is not None:
        assert same(fast, expected)
    assert same(_Pricer(NO_OVERRIDES).parts(uncached, read, write, output, 0, model, when), expected)


@settings(max_examples=200, deadline=None)
@given(model=st.sampled_from(MODELS), uncached=counts, read=counts, write=counts, output=st.integers(0, 128_000),
       one_hour=st.integers(0, 50_000), minutes=st.lists(st.integers(0, 3 * 24 * 60), min_size=1, max_size=6))
def test_a_chain_of_calls_prices_each_as_price_does(model, uncached, read, write, output, one_hour, minutes):
    """One pricer over many calls (its rates kept between them), one-hour writes included."""
    pricer = _Pricer(NO_OVERRIDES)
    start = datetime(2026, 3, 1, 12, tzinfo=UTC)
    for m in minutes:
        when = start + timedelta(minutes=m)
        hour = min(one_hour, write)
        expected = price(TokenSplit(uncached, read, write, output, hour), model, None, when)
        assert same(pricer.parts(uncached, read, write, output, hour, model, when), expected)


def test_the_plain_path_is_taken_and_exact():
    rates = plain_rates("claude-sonnet-4-5", datetime(2026, 3, 1, tzinfo=UTC))
    cost = rates.cost(1_234, 150_000, 9_000, 800)
    assert (cost.input, cost.cache_read, cost.cache_write, cost.output, cost.total) == (
        Decimal("0.003702"), Decimal("0.045"), Decimal("0.03375"), Decimal("0.012"), Decimal("0.094452"))
    assert plain_rates("claude-sonnet-4-5", datetime(2026, 3, 1, 5, tzinfo=UTC)) is rates  # one price period, one rates object
    assert rates.cost(-1, 0, 0, 0) is None  # not a usage: price() decides


def test_a_figure_that_would_round_is_left_to_price():
    """Rates whose products need more than the context's 28 digits: no Cost from the rates (it
    would be rounded), and the pricer's answer is price()'s own, rounded as the library rounds."""
    sonnet = plain_rates("claude-sonnet-4-5", datetime(2026, 3, 1, tzinfo=UTC))
    long_rate = Decimal("3.141592653589793238462643383")  # 28 digits
    rates = PlainRates(sonnet.units, sonnet.model, sonnet.provider, (long_rate, long_rate, long_rate, long_rate))
    assert rates.cost(1, 0, 0, 0) is not None  # 28 digits times 1: exact
    assert rates.cost(123_457, 0, 0, 0) is None  # 34 digits: would round


def test_override_models_are_priced_by_price(tmp_path):
    path = tmp_path / "prices.toml"
    path.write_text('[models."my-llama"]\ninput_mtok = 0.2\noutput_mtok = 0.6\n', encoding="utf-8")
    overrides = load_overrides(path)
    assert plain_rates("my-llama", None, overrides) is None
    pricer = _Pricer(overrides)
    cost = pricer.parts(1_000_000, 0, 0, 1_000_000, 0, "my-llama", None)
    assert (cost.total, cost.source) == (Decimal("0.8"), str(path))


#: Models with a fast-mode price variant in the bundled data (opus-4-8: $10 / $50, twice standard), and one without.
FAST_MODELS = ["claude-opus-4-8", "claude-fable-5-2", "claude-sonnet-4-5"]


@settings(max_examples=300, deadline=None)
@given(model=st.sampled_from(FAST_MODELS), speed=st.sampled_from([None, "standard", "fast"]), uncached=counts, read=counts,
       write=counts, output=st.integers(0, 128_000), one_hour=st.integers(0, 50_000),
       when=st.sampled_from([None, datetime(2026, 7, 1, tzinfo=UTC), datetime(2026, 12, 5, tzinfo=UTC)]))
def test_a_fast_call_is_priced_by_the_datas_fast_variant(model, speed, uncached, read, write, output, one_hour, when):
    """Claude Code records ``usage.speed: "fast"``: the call pays the data's fast-mode prices
    (genai-prices' own calculation with that price context), on the plain path and off it."""
    import genai_prices

    hour = min(one_hour, write)
    expected = genai_prices.calc_price(
        genai_prices.Usage(input_tokens=uncached + read + write, cache_read_tokens=read, cache_write_tokens=write,
                           output_tokens=output, **({"cache_write_1h_tokens": hour} if hour else {})),
        model, genai_request_timestamp=when or datetime.combine(datetime.now(UTC).date(), datetime.min.time(), UTC).replace(hour=12),
        price_context={"speed": speed} if speed else None).total_price
    got = _Pricer(NO_OVERRIDES).parts(uncached, read, write, output, hour, model, when, speed)
    assert got.total == expected
    assert same(got, price(TokenSplit(uncached, read, write, output, hour, speed), model, None, when))


def test_opus_4_8_fast_mode_pays_twice_the_standard_rates():
    when = datetime(2026, 7, 1, tzinfo=UTC)
    standard = price(TokenSplit(uncached=1_000_000, cache_read=1_000_000, output=1_000_000), "claude-opus-4-8", None, when)
    fast = price(TokenSplit(uncached=1_000_000, cache_read=1_000_000, output=1_000_000, speed="fast"), "claude-opus-4-8", None, when)
    assert (standard.input, standard.cache_read, standard.output, standard.total) == (5, Decimal("0.5"), 25, Decimal("30.5"))
    assert (fast.input, fast.cache_read, fast.output, fast.total) == (10, 1, 50, 61)
    assert plain_rates("claude-opus-4-8", when, speed="fast") is plain_rates("claude-opus-4-8", when, speed="fast")
