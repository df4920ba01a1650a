"""The plain-usage price path (:func:`inspector.analysis.prices._plain_price`) against the price
library's own ``calc_price``: every bundled model and price period, and random usages across the
input tiers, give the same Cost to the last decimal; usages or prices it does not cover take the
library's path."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest
from genai_prices import data
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.analysis import prices
from inspector.analysis.prices import NO_OVERRIDES, TokenSplit, _library_price, _price

SPLITS = [
    TokenSplit(0, 0, 0, 0), TokenSplit(1200, 0, 0, 35), TokenSplit(3, 150_000, 9_000, 800),
    TokenSplit(50, 199_000, 1_000, 7), TokenSplit(5_000, 130_000, 80_000, 4_000), TokenSplit(300_000, 0, 0, 12_000),
    TokenSplit(0, 0, 1_000, 0), TokenSplit(10, 20, 30, 40, cache_write_1h=5),
    TokenSplit(1_000, 199_000, 0, 5), TokenSplit(1_000, 199_000, 1, 5), TokenSplit(2_000, 270_000, 0, 5),  # tier edges
]  # fmt: skip
WHENS = [datetime(2025, 6, 1, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 3, 1, 20, tzinfo=UTC)]  # 20:00: off-peak hours


@pytest.fixture
def plain_calls(monkeypatch):
    taken = []
    original = prices._plain_price

    def counting(*args):
        taken.append(args[2])
        return original(*args)

    monkeypatch.setattr(prices, "_plain_price", counting)
    _library_price.cache_clear()
    yield taken
    _library_price.cache_clear()


def library(tokens: TokenSplit, model: str, provider: str | None, when) -> prices.Cost | None:
    return _price(tokens, model, provider, when, None, NO_OVERRIDES)


def test_every_bundled_model_prices_as_the_library_does(plain_calls):
    checked = 0
    for provider in data.providers:
        for model in provider.models:
            for tokens, when in itertools.product(SPLITS, WHENS):
                _library_price.cache_clear()
                assert _library_price(tokens, model.id, provider.id, when) == library(tokens, model.id, provider.id, when), (
                    provider.id, model.id, tokens, when)
                checked += 1
    assert checked > 50_000
    assert len(plain_calls) > 20_000  # most of them through the plain path: the comparison is not vacuous


def test_which_usages_and_prices_take_the_plain_path(plain_calls):
    when = datetime(2026, 3, 1, tzinfo=UTC)
    _library_price(TokenSplit(3, 150_000, 9_000, 800), "claude-sonnet-4-5-20250929", None, when)
    _library_price(TokenSplit(3, 150_000, 0, 800), "gpt-5.1-codex", None, when)
    assert plain_calls == ["claude-sonnet-4-5", "gpt-5.1"]
    _library_price(TokenSplit(3, 150_000, 9_000, 800, cache_write_1h=9_000), "claude-sonnet-4-5", None, when)  # 1h writes
    _library_price(TokenSplit(3, 150_000, 9_000, 800), "gpt-5.1-codex", None, when)  # a write OpenAI has no price for
    _library_price(TokenSplit(3, 150_000, 0, 800), "gemini-2.5-flash", None, when)  # audio prices set
    assert _library_price(TokenSplit(3, 0, 0, 1), "no-such-model-xyz", None, when) is None
    assert plain_calls == ["claude-sonnet-4-5", "gpt-5.1"]


@settings(max_examples=300, deadline=None)
@given(
    model=st.sampled_from(["claude-sonnet-4-5", "claude-opus-4-5", "gpt-5.5", "gemini-2.5-pro", "gpt-4o", "deepseek-reasoner"]),
    uncached=st.integers(0, 400_000), read=st.integers(0, 400_000), write=st.integers(0, 100_000), output=st.integers(0, 64_000),
)
def test_random_usages_across_the_tiers(model, uncached, read, write, output):
    tokens = TokenSplit(uncached, read, write, output)
    when = datetime(2026, 3, 1, tzinfo=UTC)
    _library_price.cache_clear()
    assert _library_price(tokens, model, None, when) == library(tokens, model, None, when)


@pytest.mark.parametrize("model, found", [
    ("gpt-4o", ("gpt-4o", None)),  # as named
    ("openai/gpt-4o", ("gpt-4o", "openai")),  # LiteLLM's vendor/model: the vendor's price
    ("anthropic/claude-sonnet-4-20250514", ("claude-sonnet-4-20250514", "anthropic")),
    ("meta-llama/llama-4-maverick", ("meta-llama/llama-4-maverick", "openrouter")),  # OpenRouter's id (an OpenHands run)
    ("openrouter/meta-llama/llama-4-maverick", ("meta-llama/llama-4-maverick", "openrouter")),
    ("litellm_proxy/claude-sonnet-4-5-20250929", ("claude-sonnet-4-5-20250929", None)),  # a proxy's prefix
    ("nope/nothing", ("nope/nothing", None)),
])  # fmt: skip
def test_routed_model_names_are_priced_as_the_data_knows_them(model, found):
    assert prices.library_name(model) == found
    cost = prices.price(TokenSplit(1000, 0, 0, 100), model)
    assert (cost is None) == (model == "nope/nothing")
    if cost is not None:
        assert cost == prices.price(TokenSplit(1000, 0, 0, 100), found[0], found[1])


def test_model_lookups_are_memoised():
    assert prices._provider_model.cache_info and prices.library_name.cache_info
    assert not hasattr(prices.library_name.__wrapped__, "cache_info")  # memoised once, not twice
