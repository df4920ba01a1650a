"""A compare row's money (:class:`.money.MoneyTotals`) summed from columns, not a row per call.

``compare`` prices 16 pipelines of every call; a row shows only sums. The main chain under a
stateless pipeline is simulated as columns (:class:`.money.PricedChain`); its cost is summed
per rate instead of per call: a plain usage's price is each unit's count times the unit's rate
(the tier picked by the call's whole input, :class:`.prices.PlainRates`) over a million, so the
calls that pay the same four rates add their counts and are priced once. Decimal products and
sums of these sizes are exact, so the sum is the per-call prices' sum to the last digit; the
summation runs with inexact results trapped, and where one would round it falls back to the
per-call prices (:meth:`.money.PricedChain.rows`). Calls :func:`.prices.plain_rates` cannot
rate (overrides, one-hour writes, other priced units) are priced one by one, as
:func:`.money.session_money` prices them. Every other row (sidechains, summary calls, recorded
compactions) comes from :func:`.money.priced_session` as it is.

The per-call dollars :func:`.money.session_money` lists (``replay --json``, the viewer's chart)
stay where they are; the property test checks both give the same totals.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from decimal import Decimal, Inexact, localcontext

from ..strategies.base import Settings
from ..tokens import TokenTable
from ..units import SessionView
from .cache import ANTHROPIC_TTL_1H
from .money import MoneyOptions, MoneyTotals, PricedChain, money_totals, priced_session
from .replay import Replay


def session_money_totals(
    view: SessionView,
    table: TokenTable,
    pipeline: Sequence[str] | str = (),
    settings: Settings | None = None,
    options: MoneyOptions = MoneyOptions(),
    replay: Replay | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> MoneyTotals:
    """``money_totals(session_money(...))`` (same arguments), the main chain summed from its
    columns where the pipeline is stateless."""
    money, main = priced_session(view, table, pipeline, settings, options, replay=replay, cancelled=cancelled,
                                 main_rows=False)
    rest = money_totals(money)
    if main is None:
        return rest
    try:
        with localcontext() as ctx:
            ctx.traps[Inexact] = True
            return _add(rest, _chain_totals(main))
    except Inexact:  # a sum too long for the context: the per-call prices, rounded as they round
        money.calls.extend(main.rows())
        return money_totals(money)


def _chain_totals(chain: PricedChain) -> MoneyTotals:
    """:func:`.money.money_totals` of ``chain.rows()`` (the main chain: no summary call)."""
    base, splits = chain.base, chain.splits
    base_costs, base_splits, models, outputs, times = base.base_costs, base.base_splits, base.models, base.outputs, base.times
    one_hour = chain.policy.ttl_seconds == ANTHROPIC_TTL_1H
    rates_of = base.pricer.rates
    plains = base.plain  # per call, its PlainRates, looked up as asked (the same for every pipeline)
    if not plains:
        plains.extend([_UNSET] * len(splits))
    baseline_cost = cost = None
    base_tokens = tokens = read_tokens = write_tokens = 0
    # per rates (uncached, read, write, output): the counts of the calls that pay them
    counts: dict[tuple[Decimal, Decimal, Decimal, Decimal], list[int]] = {}
    for k, split in enumerate(splits):
        paid = base_costs[k]
        if paid is not None:
            baseline_cost = paid.total if baseline_cost is None else baseline_cost + paid.total
        model, same = models[k], base_splits[k]
        read, write, uncached = split.read_tokens, split.write_tokens, split.uncached_tokens
        base_tokens += same.read_tokens + same.write_tokens + same.uncached_tokens
        tokens += read + write + uncached
        read_tokens += read
        write_tokens += write
        if split is same or not model or (read == same.read_tokens and write == same.write_tokens
                                          and uncached == same.uncached_tokens):  # the baseline's split: its price
            if paid is not None:
                cost = paid.total if cost is None else cost + paid.total
            continue
        rates = None
        if not (one_hour and write):
            plain = plains[k]
            if plain is _UNSET:
                plain = plains[k] = rates_of(model, times[k])
            if plain is not None:
                rates = plain.rates(uncached, read, write, outputs[k])
        if rates is None:  # not plain: priced on its own, as the rows price it
            priced = chain.cost(k)
            if priced is not None:
                cost = priced.total if cost is None else cost + priced.total
            continue
        summed = counts.get(rates)
        if summed is None:
            counts[rates] = [uncached, read, write, outputs[k]]
        else:
            summed[0] += uncached
            summed[1] += read
            summed[2] += write
            summed[3] += outputs[k]
    for rates, (uncached, read, write, output) in counts.items():
        total = (rates[0] * uncached + rates[1] * read + rates[2] * write + rates[3] * output) / 1_000_000
        cost = total if cost is None else cost + total
    calls = chain.view.calls
    return MoneyTotals(
        base_tokens, tokens, baseline_cost, cost, tuple(c.number for c, lost in zip(calls, chain.rewritten) if lost > 0),
        read_tokens, write_tokens, 0, None,
    )


_UNSET = object()  # a call whose PlainRates was not looked up yet


def _add(a: MoneyTotals, b: MoneyTotals) -> MoneyTotals:
    """The totals of two disjoint sets of rows (``a``'s rows listed first)."""
    return MoneyTotals(
        a.baseline_tokens + b.baseline_tokens, a.tokens + b.tokens, _plus(a.baseline_cost, b.baseline_cost),
        _plus(a.cost, b.cost), b.cache_break_calls + a.cache_break_calls, a.read_tokens + b.read_tokens,
        a.write_tokens + b.write_tokens, a.summary_calls + b.summary_calls, _plus(a.summary_cost, b.summary_cost),
    )


def _plus(a: Decimal | None, b: Decimal | None) -> Decimal | None:
    return b if a is None else a if b is None else a + b


__all__ = ["session_money_totals"]
