"""A compare row's money (:class:`.money.MoneyTotals`) summed from columns, not a row per call.

``compare`` prices 16 pipelines of every call; a row shows only sums. The main chain under a
pipeline (a compacting one's summarisation calls priced as rows beside it) is kept as columns (:class:`.money.PricedChain`) and simulated here as counts; its cost is summed
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
from .cache import ANTHROPIC_TTL_1H, CacheSplit, split_counts
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
    columns (a compacting pipeline's summarisation calls as rows)."""
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
    """:func:`.money.money_totals` of ``chain.rows()`` (the main chain: no summary call), in one
    pass over its requests: a call whose request is the baseline's has the baseline's split and
    price; the others are split as :func:`.cache.resimulate` splits them, as counts."""
    base, requests = chain.base, chain.requests
    base_requests, base_costs, base_splits, models, outputs, times, speeds = (
        base.base_requests, base.base_costs, base.base_splits, base.models, base.outputs, base.times, base.speeds)
    lifetimes = base.lifetimes
    split_of, clock = split_counts(chain.policy, base.warm), base.clock
    rates_of = base.pricer.rates
    plains = base.plain  # per call, its PlainRates, looked up as asked (the same for every pipeline)
    if not plains:
        plains.extend([_UNSET] * len(requests))
    if not base.sums:  # the same for every pipeline priced on the chain
        base.sums.extend(_baseline_sums(base_costs, base_splits))
    baseline_cost, base_tokens = base.sums
    if not base.flat:  # the same for every pipeline priced on the chain
        base.flat.append(FlatRates(base))
    flat = base.flat[0]
    slots, has_read, has_write = flat.slots, flat.has_read, flat.has_write
    # per flat rates and the units a call pays (slot + 2 if it reads + 1 if it writes): its counts
    grouped: list[list[int] | None] = [None] * (4 * len(flat.rates))
    cost = None
    tokens = read_tokens = write_tokens = 0
    # per rates (uncached, read, write, output): the counts of the calls that pay them
    counts: dict[tuple[Decimal, Decimal, Decimal, Decimal], list[int]] = {}
    calls = chain.view.calls
    breaks: list[int] = []  # the calls that rewrote more of the previous request than no strategy did
    previous = base_previous = None
    for k, request in enumerate(requests):
        base_request = base_requests[k]
        if previous is not None and (previous[0] - request[1]) - (base_previous[0] - base_request[1]) > 0:
            breaks.append(calls[k].number)
        previous, base_previous = request, base_request
        paid, same = base_costs[k], base_splits[k]
        base_read, base_write, base_uncached = same.read_tokens, same.write_tokens, same.uncached_tokens
        if request == base_request:  # the baseline's split: its price
            tokens += base_read + base_write + base_uncached
            read_tokens += base_read
            write_tokens += base_write
            if paid is not None:
                cost = paid.total if cost is None else cost + paid.total
            continue
        total, shared = request
        read, write, uncached = split_of(total if total > 0 else 0, shared if shared > 0 else 0, *clock[k])
        tokens += read + write + uncached
        read_tokens += read
        write_tokens += write
        model = models[k]
        if not model or (read == base_read and write == base_write and uncached == base_uncached):  # the baseline's price
            if paid is not None:
                cost = paid.total if cost is None else cost + paid.total
            continue
        summed = None
        if not (write and lifetimes[k] == ANTHROPIC_TTL_1H):
            j = slots[k]
            if j >= 0 and outputs[k] >= 0 and (not read or has_read[j]) and (not write or has_write[j]):
                # flat rates: the counts added per rates slot, the rates read once at the end
                j += (2 if read else 0) + (1 if write else 0)
                summed = grouped[j]
                if summed is None:
                    summed = grouped[j] = [0, 0, 0, 0]
            else:
                plain = plains[k]
                if plain is _UNSET:
                    plain = plains[k] = rates_of(model, times[k], speeds[k])
                rates = plain.rates(uncached, read, write, outputs[k]) if plain is not None else None
                if rates is not None:
                    summed = counts.get(rates)
                    if summed is None:
                        summed = counts[rates] = [0, 0, 0, 0]
        if summed is None:  # not plain: priced on its own, as the rows price it
            priced = chain.split_cost(k, CacheSplit(read, write, uncached))
            if priced is not None:
                cost = priced.total if cost is None else cost + priced.total
            continue
        summed[0] += uncached
        summed[1] += read
        summed[2] += write
        summed[3] += outputs[k]
    for j, summed in enumerate(grouped):
        if summed is not None:  # its rates, as PlainRates.rates gives them to a call that pays those units
            rates = flat.rates[j // 4].rates(0, j & 2, j & 1, 0)
            known = counts.get(rates)
            if known is None:
                counts[rates] = summed
            else:
                for u in range(4):
                    known[u] += summed[u]
    for rates, (uncached, read, write, output) in counts.items():
        total = (rates[0] * uncached + rates[1] * read + rates[2] * write + rates[3] * output) / 1_000_000
        cost = total if cost is None else cost + total
    return MoneyTotals(base_tokens, tokens, baseline_cost, cost, tuple(breaks), read_tokens, write_tokens, 0, None)


class FlatRates:
    """A chain's calls whose model prices every unit at one rate (no tiers, :attr:`.prices.PlainRates.flat`),
    found once per chain: per call the slot of its rates (4 x their index in :attr:`rates`; -1:
    tiered, unpriced or no model, looked up per call), and per rates whether the model prices
    cache reads and writes (a call that pays an unpriced one is priced on its own, as
    :meth:`.prices.PlainRates.rates` says). A call of flat rates then adds its counts to its
    slot's, and each slot's rates are read once (the same tuple :meth:`~.prices.PlainRates.rates`
    gives each of its calls: every unit's rate, 0 for a read or a write it does not pay)."""

    __slots__ = ("slots", "rates", "has_read", "has_write")

    def __init__(self, base) -> None:
        rates_of, found = base.pricer.rates, {}
        self.rates: list = []
        self.slots: list[int] = []
        for model, when, speed in zip(base.models, base.times, base.speeds):
            plain = rates_of(model, when, speed) if model else None
            if plain is None or plain.flat is None:
                self.slots.append(-1)
                continue
            j = found.get(id(plain))
            if j is None:
                j = found[id(plain)] = 4 * len(self.rates)
                self.rates.append(plain)
            self.slots.append(j)
        self.has_read = [p.units.cache_read is not None for p in self.rates for _ in range(4)]
        self.has_write = [p.units.cache_write is not None for p in self.rates for _ in range(4)]


def _baseline_sums(costs: Sequence, splits: Sequence) -> tuple[Decimal | None, int]:
    """The baseline's cost (None: no call priced) and tokens over every call of a chain."""
    total = None
    for paid in costs:
        if paid is not None:
            total = paid.total if total is None else total + paid.total
    return total, sum(s.read_tokens + s.write_tokens + s.uncached_tokens for s in splits)


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
