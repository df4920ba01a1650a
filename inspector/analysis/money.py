"""Money: what every model call of a session cost, as recorded and as simulated with and without
a pipeline, through one prompt-cache model (:mod:`.cache`) and one price source (:mod:`.prices`).

Per call:

- ``recorded_cost``: the price of the usage the file recorded (None where it recorded none).
- ``baseline_cache`` / ``baseline_cost``: the call's input with no strategy, split by the cache
  model, priced. ``cache`` / ``cost``: the same under the pipeline. Both put in front the call's
  part the file does not show (system prompt, tool definitions: :func:`.predict.predictions`, so
  the baseline request is the ``predicted_tokens`` replay shows) and use the recorded output
  tokens, so savings compare like with like.

Under the pipeline, each call's request is :func:`.replay.replay`'s: its ``tokens`` and the
leading tokens it shares with the previous call's request (``shared_tokens``, from the very plan
whose tokens replay reports, :mod:`.requests`). Nothing is planned here: the request priced is
the one replay shows. A replay without shared prefixes gets them from its fast path's layouts
(:func:`.replay.with_shared_tokens`), or is redone with ``shared=True``. Sub-agent (sidechain) calls are priced the same way from their own
messages and listed apart (``sidechain`` set).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any

from ..model import SEPARATE_SESSIONS, Message, Session, Usage
from ..strategies.base import Settings
from ..strategies.pipeline import parse_pipeline
from ..tokens import TokenTable, count_session
from ..units import SessionView, build_view
from .cache import (ANTHROPIC_TTL_1H, CachePolicy, CacheSplit, call_clock, entry_lifetimes, marks_breakpoints, policy_for, resimulate,
                    simulate_on, split_call)
from .context import leading_system_tokens, system_prefix_at
from .session_facts import call_model as _message_model
from .session_facts import continues_context, session_model
from .predict import predictions
from .prices import NO_OVERRIDES, Cost, Overrides, PlainRates, TokenSplit, plain_rates, price, prices_as_of
from .replay import CallReplay, CallRows, Replay, ReplayCancelled, call_facts, with_shared_tokens
from .replay import replay as replay_calls



@dataclass(frozen=True, slots=True)
class CallMoney:
    call: int  # 1-based, within its chain (the main session or one sidechain)
    message_index: int
    model: str | None
    recorded_cost: Cost | None
    baseline_cache: CacheSplit
    baseline_cost: Cost | None
    cache: CacheSplit
    cost: Cost | None
    sidechain: str | None = None  # the sub-agent's id; None for the main session
    #: Tokens of the previous call's request this call re-sends changed because the pipeline
    #: rewrote them (beyond what changes with no strategy): the cache the pipeline breaks.
    rewritten_tokens: int = 0
    #: "call"; "summary": the summarisation call the pipeline adds before call ``call`` (no
    #: baseline counterpart: its ``baseline_cost`` is None, its baseline split all zero); or
    #: "compaction": the summary call of a compaction the file records before call ``call``
    #: (:func:`_price_recorded_compactions`, listed apart like a sidechain).
    kind: str = "call"

    @property
    def breaks_cache(self) -> bool:
        return self.rewritten_tokens > 0

    def as_json(self) -> dict[str, Any]:
        baseline_cost = _cost_json(self.baseline_cost)
        return {
            "model": self.model,
            "recorded_cost": _cost_json(self.recorded_cost),
            "baseline_cost": baseline_cost,
            # most calls a pipeline leaves alone pay the baseline's own Cost: its dict is written twice
            "cost": baseline_cost if self.cost is self.baseline_cost else _cost_json(self.cost),
            "baseline_cache": self.baseline_cache.as_json(),
            "cache": self.cache.as_json(),
            "breaks_cache": self.breaks_cache,
            "rewritten_tokens": self.rewritten_tokens,
            "kind": self.kind,
        }


@dataclass
class Money:
    calls: list[CallMoney] = field(default_factory=list)
    prices_as_of: str = ""
    cache_policy: str = ""
    #: What the file does not show, in front of the first simulated request (later calls carry
    #: their own :func:`.predict.predictions` part).
    prefix_tokens: int = 0
    #: Models the price data does not know (their calls have null costs).
    unknown_models: list[str] = field(default_factory=list)
    #: What the bill could not take from the file, said plainly (one sentence each).
    notes: list[str] = field(default_factory=list)

    def total(self, which: str, sidechains: bool = True) -> Decimal | None:
        """Sum of ``which`` ("recorded_cost", "baseline_cost", "cost") over calls that have one;
        None when no call has one."""
        costs = [getattr(c, which) for c in self.calls if sidechains or c.sidechain is None]
        known = [c.total for c in costs if c is not None]
        return sum(known, Decimal(0)) if known else None

    def summary_total(self, which: str = "cost") -> Decimal | None:
        """What the pipeline's summarisation calls cost (in :meth:`total` too)."""
        known = [getattr(c, which).total for c in self.calls if c.kind == "summary" and getattr(c, which) is not None]
        return sum(known, Decimal(0)) if known else None

    def sidechain_total(self, which: str) -> Decimal | None:
        known = [getattr(c, which).total for c in self.calls if c.sidechain is not None and getattr(c, which) is not None]
        return sum(known, Decimal(0)) if known else None

    def totals_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for which in ("recorded_cost", "baseline_cost", "cost"):
            out[f"{which}_total"] = _usd(self.total(which))
            out[f"{which}_sidechains"] = _usd(self.sidechain_total(which))
        out["summary_calls"] = sum(1 for c in self.calls if c.kind == "summary")
        out["summary_cost_total"] = _usd(self.summary_total())
        out["prices_as_of"] = self.prices_as_of
        out["cache_model"] = {"policy": self.cache_policy, "prefix_tokens": self.prefix_tokens}
        out["unknown_models"] = self.unknown_models
        out["notes"] = self.notes
        return out


@dataclass(frozen=True, slots=True)
class MoneyTotals:
    """What a compare row shows of a :class:`Money` (:func:`money_totals`): a few sums, small
    enough for a forked worker to send back instead of a row per call."""

    baseline_tokens: int  # every call's input with no strategy, as the cache model splits it
    tokens: int  # the same under the pipeline
    baseline_cost: Decimal | None  # Money.total("baseline_cost")
    cost: Decimal | None  # Money.total("cost")
    cache_break_calls: tuple[int, ...]  # main-session calls whose request the pipeline rewrote
    read_tokens: int
    write_tokens: int
    summary_calls: int
    summary_cost: Decimal | None  # Money.summary_total()


def money_totals(money: Money | MoneyTotals) -> MoneyTotals:
    """The :class:`MoneyTotals` of ``money`` (one already made is returned as it is)."""
    if isinstance(money, MoneyTotals):
        return money
    calls = money.calls
    return MoneyTotals(
        sum(c.baseline_cache.total for c in calls), sum(c.cache.total for c in calls),
        money.total("baseline_cost"), money.total("cost"),
        tuple(c.call for c in calls if c.breaks_cache and c.sidechain is None),
        sum(c.cache.read_tokens for c in calls), sum(c.cache.write_tokens for c in calls),
        sum(1 for c in calls if c.kind == "summary"), money.summary_total(),
    )


@dataclass(frozen=True, slots=True)
class CallDollars:
    """One main-session model call's money as the viewer draws it (USD; None: not priced)."""

    call: int
    baseline: float | None  # simulated with no strategy
    pipeline: float | None  # simulated under the pipeline (a summary call before it included)
    recorded: float | None  # the price of the usage the file recorded
    read_tokens: int  # under the pipeline, the summary call's included
    write_tokens: int
    breaks_cache: bool


def call_dollars(money: Money) -> dict[int, CallDollars]:
    """Per main-session call number its dollars for a chart or table: a summarisation call the
    pipeline adds is folded into the call it precedes (it is paid for that call)."""
    out: dict[int, CallDollars] = {}
    for c in money.calls:
        if c.sidechain is not None:
            continue
        before = out.get(c.call)
        pipeline = _usd(c.cost.total) if c.cost is not None else None
        if before is not None:  # the call after its summary: add the summary's share
            pipeline = None if pipeline is None or before.pipeline is None else before.pipeline + pipeline
        out[c.call] = CallDollars(
            c.call, _usd(c.baseline_cost.total) if c.baseline_cost is not None else None, pipeline,
            _usd(c.recorded_cost.total) if c.recorded_cost is not None else None,
            c.cache.read_tokens + (before.read_tokens if before else 0),
            c.cache.write_tokens + (before.write_tokens if before else 0),
            c.breaks_cache or bool(before and before.breaks_cache),
        )
    return out


def _usd(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


def _cost_json(cost: Cost | None) -> dict[str, float] | None:
    return None if cost is None else cost.as_json()


# -- facts from the file ---------------------------------------------------------------------


def call_model(session: Session, message: Message, override: str | None = None) -> str | None:
    """The model that served the call: ``override``, else what the file recorded for the call,
    else for the session (:mod:`.session_facts`)."""
    return override or _message_model(message) or session_model(session)


def call_time(message: Message) -> datetime | None:
    """When the file says the message was written, else None: ``timestamp`` as ISO 8601 text
    (Claude Code) or as seconds since the epoch, UTC (mini-swe-agent's ``extra.timestamp``)."""
    raw = message.extra.get("timestamp") or message.extra.get("ts")
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        try:
            return datetime.fromtimestamp(raw, timezone.utc)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(raw, str):
        return None
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None


def recorded_split(usage: Usage) -> TokenSplit:
    return TokenSplit(
        uncached=usage.input_tokens or 0,
        cache_read=usage.cache_read_input_tokens or 0,
        cache_write=usage.cache_creation_input_tokens or 0,
        output=usage.output_tokens or 0,
        cache_write_1h=usage.cache_creation_1h_input_tokens or 0,
        speed=usage.speed,
    )


def warm_prefix_tokens(view: SessionView, prefix: int) -> int:
    """Tokens of the fixed prefix already cached when the session started: the first call's
    recorded cache read (an earlier session of the same agent left its system prompt and tool
    definitions in the cache), at most the fixed prefix. 0 when the first call records none."""
    if not view.calls:
        return 0
    usage = view.messages[view.calls[0].message_index].usage
    return min(prefix, usage.cache_read_input_tokens or 0) if usage is not None else 0


# -- requests --------------------------------------------------------------------------------


def baseline_requests(
    view: SessionView,
    table: TokenTable,
    baselines: Sequence[int],
    not_in_file: Sequence[int],
    reasoning_dropped_at_turn: bool = False,
) -> list[tuple[int, int]]:
    """``(total, shared with the previous call)`` per call with no strategy, ``not_in_file[k]``
    (what call k sends that the file does not show, :func:`.predict.predictions`) in front of
    each. Each call re-sends the previous one's request and adds to it, except

    - across a recorded compaction, where only the fixed prefix and the leading system messages
      stay the same;
    - with ``reasoning_dropped_at_turn`` (Codex: the encrypted reasoning re-sent within a turn is
      left out once the next prompt comes), at a new turn, where the request changes from the
      previous turn's first model output on."""
    out: list[tuple[int, int]] = []
    previous_start = previous_turn = None
    turn_first_output = previous_prefix = 0
    for call, base, prefix in zip(view.calls, baselines, not_in_file):
        total = base + prefix
        start = min(call.context_start, call.message_index)
        # where the request breaks off, the fixed prefix both calls sent (its size is estimated per call)
        fixed = min(prefix, previous_prefix)
        if previous_start is None:
            shared = 0
        elif start != previous_start:  # both send the system messages the history starts with
            shared = fixed + table.overhead + _leading_system_tokens(view, table, max(start, previous_start))
        elif reasoning_dropped_at_turn and call.turn != previous_turn:
            # the previous turn may have begun before a compaction: its first output still sent is at start or later
            shared = fixed + baseline_until(view, table, start, max(start, turn_first_output))
        else:
            shared = out[-1][0]
        if call.turn != previous_turn:
            turn_first_output = call.message_index
        out.append((total, shared))
        previous_start, previous_turn, previous_prefix = start, call.turn, prefix
    return out


def baseline_until(view: SessionView, table: TokenTable, start: int, stop: int) -> int:
    """Tokens of a no-strategy request up to message ``stop`` (overhead, system messages before
    ``start``, then messages ``start:stop``)."""
    return table.overhead + _system_tokens_before(view, table, start) + table.range_total(start, stop)


def _system_tokens_before(view: SessionView, table: TokenTable, stop: int) -> int:
    return system_prefix_at(view, table, stop)


def _leading_system_tokens(view: SessionView, table: TokenTable, stop: int) -> int:
    return leading_system_tokens(view, table, stop)


# -- money -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MoneyOptions:
    model: str | None = None  # --model: price every call as this model
    overrides: Overrides = NO_OVERRIDES
    policy: CachePolicy | None = None  # default: from the provider, model and recorded writes


def session_money(
    view: SessionView,
    table: TokenTable,
    pipeline: Sequence[str] | str = (),
    settings: Settings | None = None,
    options: MoneyOptions = MoneyOptions(),
    baselines: Sequence[int] | None = None,
    replay: Replay | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Money:
    """Recorded, baseline and pipeline cost of every call of the session and its sidechains.
    ``replay``: the pipeline's :func:`.replay.replay`, whose requests are priced (one is made
    when it is missing or has no shared prefixes); its summarisation calls (``kind``
    "summary") are priced as calls of their own (:func:`_price_summaries`). ``cancelled()``
    is asked per call of that replay and before each chain is priced; True stops with
    :class:`~.replay.ReplayCancelled` (a viewer drops a superseded pipeline's pricing)."""
    return priced_session(view, table, pipeline, settings, options, baselines, replay, cancelled)[0]


def priced_session(
    view: SessionView,
    table: TokenTable,
    pipeline: Sequence[str] | str = (),
    settings: Settings | None = None,
    options: MoneyOptions = MoneyOptions(),
    baselines: Sequence[int] | None = None,
    replay: Replay | None = None,
    cancelled: Callable[[], bool] | None = None,
    main_rows: bool = True,
) -> tuple[Money, PricedChain | None]:
    """:func:`session_money` and, with ``main_rows`` False, the main chain under a pipeline
    left as its columns (a compacting one's summarisation calls stay rows) (:class:`PricedChain`; its rows not in the :class:`Money`,
    whose other rows are: :mod:`.money_sums` sums it without a row per call). The second item
    is None where every row is in the :class:`Money`."""
    stop = _stop_when(cancelled)
    money = Money(prices_as_of=prices_as_of())
    if baselines is None:  # the replay's own per-call figures, computed once per view
        facts = call_facts(view, table)
        base, hidden = facts.baselines, _not_in_file(view, facts)
    else:
        base = list(baselines)
        hidden = [p.not_in_file for p in predictions(view, table, base)]
    money.prefix_tokens = hidden[0] if hidden else 0
    policy = options.policy or _kept_policy(view, view.messages, options)
    money.cache_policy = policy.label
    names = parse_pipeline(pipeline)
    with_pipeline = None
    if names:
        if replay is None:
            replay = replay_calls(view, table, names, settings, shared=True, cancelled=cancelled)
        elif not _has_requests(replay, len(view.calls)):
            replay = with_shared_tokens(view, table, replay, cancelled)
        with_pipeline = replay_requests(replay)
    stop()
    main = _price_chain(money, view, table, base, hidden, with_pipeline, policy, options, None,
                        rows=main_rows or replay is None)
    # what the main chain's first row reads with no strategy (None: no main row)
    warm = money.calls[0].baseline_cache.read_tokens if money.calls else None
    if main is not None:  # its rows not built
        warm = main.base.base_splits[0].read_tokens if main.base.base_splits else None
    chain = _chain_base(view, table, base, hidden, policy, options, None)  # (kept on the view: as _price_chain made it)
    summaries = _price_summaries(money, view, replay, policy, options, replay.settings, warm or 0, chain) if replay is not None else ()
    # the first row's: a summary's (it reads nothing with no strategy) where one comes before call 1
    first_read = 0 if warm is None or any(c.call == 1 for c in summaries) else warm
    priced = _price_recorded_compactions(money, view, table, base, hidden, policy, options, first_read, chain.lifetimes)
    for chain_id, messages in _sidechains(view.session, priced):
        stop()
        side_view, side_table, side_base, side_hidden, side_policy = _side_inputs(view, table, options, chain_id, messages)
        _price_chain(money, side_view, side_table, side_base, side_hidden, None, side_policy, options, chain_id)
    return money, main


def _sidechains(session: Session, priced: set[str]) -> Iterator[tuple[str, list[Message]]]:
    """The sidechains of ``session`` priced as chains of their own: not those ``priced`` as
    recorded compactions, nor other sessions the file holds."""
    separate = session.extra.get(SEPARATE_SESSIONS, ())
    for chain_id, messages in session.sidechains.items():
        if chain_id not in priced and chain_id not in separate:  # else another session the file holds: not this one's cost
            yield chain_id, messages


def _side_inputs(
    view: SessionView, table: TokenTable, options: MoneyOptions, chain_id: str, messages: list[Message],
) -> tuple[SessionView, TokenTable, list[int], list[int], CachePolicy]:
    """A sidechain's view, table, baselines, parts not in the file and cache policy, as its chain is priced."""
    side_view, side_table = _side_chain(view, chain_id, messages, table)
    side = call_facts(side_view, side_table)
    return side_view, side_table, side.baselines, _not_in_file(side_view, side), options.policy or _kept_policy(view, messages, options)


#: What :func:`recorded_costs` passes per row: call number, sidechain, model, recorded cost.
RecordedRow = Callable[[int, "str | None", "str | None", "Cost | None"], None]


def recorded_costs(view: SessionView, table: TokenTable, options: MoneyOptions, add: RecordedRow) -> list[str]:
    """What ``info`` reads of :func:`session_money` with no pipeline, without it: each row's call
    number, chain, model and recorded cost passed to ``add`` in the rows' order; returns its
    ``unknown_models``. Nothing is kept per call, neither the rows nor a chain's costs with no
    strategy (only asked whether its model is priced): at 50,000 messages those were 44,000
    Costs, 27 MB held at ``info``'s peak."""
    facts = call_facts(view, table)
    base, hidden = facts.baselines, _not_in_file(view, facts)
    policy = options.policy or _kept_policy(view, view.messages, options)
    unknown: list[str] = []
    first_read, lifetimes = _recorded_chain(view, table, base, hidden, policy, options, None, add, unknown)
    compactions = Money()  # its few rows, as session_money lists them
    priced = _price_recorded_compactions(compactions, view, table, base, hidden, policy, options, first_read, lifetimes)
    for row in compactions.calls:
        add(row.call, row.sidechain, row.model, row.recorded_cost)
    for chain_id, messages in _sidechains(view.session, priced):
        _recorded_chain(*_side_inputs(view, table, options, chain_id, messages), options, chain_id, add, unknown)
    return unknown


def _recorded_chain(
    view: SessionView, table: TokenTable, baselines: Sequence[int], not_in_file: Sequence[int], policy: CachePolicy,
    options: MoneyOptions, chain_id: str | None, add: RecordedRow, unknown: list[str],
) -> tuple[int, list[float | None]]:
    """:func:`recorded_costs` of one chain (its unknown models added to ``unknown`` once each);
    returns the cache read of its first call with no strategy (0 without calls) and its calls'
    cache lifetimes (:func:`_lifetimes`)."""
    *_, base_splits, times, lifetimes = _simulated_baseline(view, table, baselines, not_in_file, policy)
    chain_unknown: list[str] = []
    prices = _call_prices(view, times, base_splits, lifetimes, options, _Pricer(options.overrides), chain_unknown)
    for call, (model, recorded, *_) in zip(view.calls, prices):
        add(call.number, chain_id, model, recorded)
    unknown.extend(m for m in chain_unknown if m not in unknown)
    return (base_splits[0].read_tokens if base_splits else 0), lifetimes


def _stop_when(cancelled: Callable[[], bool] | None) -> Callable[[], None]:
    """A check that raises :class:`~.replay.ReplayCancelled` once ``cancelled()`` is True."""

    def stop() -> None:
        if cancelled is not None and cancelled():
            raise ReplayCancelled("pricing cancelled")

    return stop


#: Claude Code writes the summary call of a compaction to ``<session>/subagents/agent-acompact-*.jsonl``
#: (agentId ``acompact-...``), not to the main transcript (checked on 2.1.39: the main file holds
#: the ``compact_boundary`` with ``preTokens`` and the summary, no usage of the call).
COMPACTION_AGENT = "acompact"


def _price_recorded_compactions(
    money: Money, view: SessionView, table: TokenTable, baselines: Sequence[int], not_in_file: Sequence[int],
    policy: CachePolicy, options: MoneyOptions, first_read: int, lifetimes: Sequence[float | None],
) -> set[str]:
    """Price the summary call of every compaction a Claude Code file records (a message that
    starts the context after a model call), the same with and without a pipeline (the agent
    made it).

    Its input is the conversation the agent summarised: the request of the call before it (no
    strategy) plus that call's reply and what came after it up to the compaction; that request
    is read from the cache, the rest written. Its output is the summary's tokens. Where the
    summary call's sub-agent file was loaded (``acompact``), its recorded usage is its
    ``recorded_cost`` (and that sidechain is priced here, not again); else the recorded cost is
    null and a note says so. Rows are listed apart (``sidechain``: the sub-agent's id, or
    ``compaction-after-call-N``; ``call``: the call after it, or N + 1 when the session ends
    with the compaction). ``first_read``: what the first priced row read with no strategy (the
    warm prefix a summary call can still read); ``lifetimes``: the chain's per call
    (:func:`_lifetimes`). Returns the sidechain ids priced here."""
    session, messages, calls = view.session, view.messages, view.calls
    if session.format != "claude_code":  # other agents' summary calls: not modelled (their replay shows none)
        return set()
    recorded = sorted(((_first_usage_time(m), cid, m) for cid, m in session.sidechains.items() if cid.startswith(COMPACTION_AGENT)),
                      key=lambda t: t[0] or 0.0)
    used: set[str] = set()
    stops = [c.message_index for c in calls]
    for start in (i for i, m in enumerate(messages) if m.starts_context and not continues_context(m)):  # a microcompact calls no model
        k = bisect_left(stops, start)  # calls[k - 1] is the last call before the summary, calls[k] the next
        if k == 0:
            continue
        before, after = calls[k - 1], calls[k] if k < len(calls) else None
        number = after.number if after is not None else before.number + 1
        total = baselines[k - 1] + not_in_file[k - 1] + table.range_total(before.message_index, start)
        shared = baselines[k - 1] + not_in_file[k - 1]
        summary = messages[start]
        when_before, when = call_time(messages[before.message_index]), call_time(summary)
        when_after = call_time(messages[after.message_index]) if after is not None else None
        match = next((r for r in recorded if r[1] not in used and _between(r[0], when_before, when_after)), None)
        usage = None
        if match is not None:
            used.add(match[1])
            answer = next(m for m in match[2] if m.usage is not None)
            usage, when = answer.usage, call_time(answer) or when
        gap = when.timestamp() - when_before.timestamp() if when is not None and when_before is not None else None
        split = split_call(total, shared, gap, policy, first_read)
        model = call_model(session, messages[before.message_index], options.model)
        output = table.totals[start]
        # its writes last as long as its own recorded writes say, else as the call before it left them
        lifetime = lifetimes[k - 1]
        if usage is not None and policy.writes:
            lifetime = entry_lifetimes([(usage.cache_creation_input_tokens, usage.cache_creation_1h_input_tokens)], lifetime)[0]
        one_hour = split.write_tokens if lifetime == ANTHROPIC_TTL_1H else 0
        speed = usage.speed if usage is not None else None
        cost = price(TokenSplit(split.uncached_tokens, split.read_tokens, split.write_tokens, output, one_hour, speed), model, None,
                     when, options.overrides)
        recorded_cost = None
        if usage is not None and usage.input_tokens is not None:
            recorded_cost = price(recorded_split(usage), call_model(session, answer, options.model), None, when, options.overrides)
        else:
            money.notes.append(
                f"The summary call of the compaction after call {before.number} is not in the file (Claude Code writes it "
                f"to subagents/agent-acompact-*.jsonl beside the session): priced from the recorded compaction "
                f"({total:,} tokens in, the summary's {output:,} out), with no recorded cost.")
        chain = match[1] if match is not None else f"compaction-after-call-{before.number}"
        money.calls.append(CallMoney(number, start, model, recorded_cost, split, cost, split, cost, chain, kind="compaction"))
    return used


def _first_usage_time(messages: Sequence[Message]) -> float | None:
    t = next((call_time(m) for m in messages if m.usage is not None), None)
    return t.timestamp() if t is not None else None


def _between(t: float | None, low: datetime | None, high: datetime | None) -> bool:
    """Whether time ``t`` falls between two calls (unknown times match)."""
    if t is None:
        return True
    return (low is None or t >= low.timestamp()) and (high is None or t <= high.timestamp())


def _has_requests(replay: Replay, calls: int) -> bool:
    """Whether ``replay`` covers every call and knows each one's shared prefix."""
    if type(replay.calls) is CallRows:  # its columns, no rows built
        return len(replay.calls) == calls and None not in replay.calls.shares
    main = [c for c in replay.calls if c.kind == "call"]
    return len(main) == calls and all(c.shared_tokens is not None for c in main)


def replay_requests(replay: Replay) -> list[tuple[int, int]]:
    """``(total, shared with the previous call)`` per call of a complete ``replay`` with
    shared prefixes: exactly the tokens it reports for each call (the cache model reads no
    more than a call's total; what is shared is left as the plan found it, as in
    :func:`baseline_requests`, so a strategy that changes nothing rewrites nothing)."""
    if type(replay.calls) is CallRows:  # its columns, no rows built (no max() per call: 15 pipelines of every call in compare)
        return [(t if t > 0 else 0, s or 0) for t, s in zip(replay.calls.tokens, replay.calls.shares)]
    return [(max(c.tokens, 0), c.shared_tokens or 0) for c in replay.calls if c.kind == "call"]


def _side_chain(view: SessionView, chain_id: str, messages: list[Message], table: TokenTable) -> tuple[SessionView, TokenTable]:
    """:func:`_chain_view` of a sidechain of ``view``, built and counted once per table (kept on the view)."""
    kept: dict = view.__dict__.setdefault("_money_side_chains", {})
    found = kept.get((chain_id, id(table)))
    if found is None or found[0] is not table:
        found = kept[(chain_id, id(table))] = (table, _chain_view(view.session, messages, table))
    return found[1]


def _chain_view(session: Session, messages: list[Message], table: TokenTable) -> tuple[SessionView, TokenTable]:
    chain = Session(format=session.format, messages=[m.model_copy(update={"index": i}) for i, m in enumerate(messages)],
                    agent=session.agent, agent_version=session.agent_version, model=session.model, extra=session.extra)
    return build_view(chain), count_session(chain.messages, encoding=table.encoding, profile=table.profile)


def _not_in_file(view: SessionView, facts) -> list[int]:
    """Per call of ``facts`` (:func:`.replay.call_facts` of ``view``) its part not in the file,
    kept on the view: compare prices 17 pipelines of 22,000 calls on one."""
    kept = view.__dict__.get("_money_not_in_file")
    if kept is None or kept[0] is not facts:
        kept = view.__dict__["_money_not_in_file"] = (facts, [p.not_in_file for p in facts.predicted])
    return kept[1]


def _kept_policy(view: SessionView, messages: Sequence[Message], options: MoneyOptions) -> CachePolicy:
    """:func:`_policy` of ``messages`` (the view's or a sidechain's), kept on the view per model
    override (it reads every message)."""
    kept: dict = view.__dict__.setdefault("_money_policies", {})
    found = kept.get((id(messages), options.model))
    if found is None or found[0] is not messages:
        found = kept[(id(messages), options.model)] = (messages, _policy(view.session, messages, options, view.messages))
    return found[1]


def _policy(session: Session, messages: Sequence[Message], options: MoneyOptions, main: Sequence[Message]) -> CachePolicy:
    """The cache policy of the chain ``messages``: its model's provider's, with one-hour entries
    where it wrote any, and without breakpoints where the main chain ``main`` records cache
    usage and never read or wrote the cache (:func:`.cache.marks_breakpoints`)."""
    first = next((m for m in messages if m.usage is not None), messages[0] if messages else None)
    model = call_model(session, first, options.model) if first is not None else options.model or session.model
    long_ttl = any((m.usage.cache_creation_1h_input_tokens or 0) > 0 for m in messages if m.usage is not None)
    provider = _provider_of(model)
    policy = policy_for(provider, model, long_ttl=long_ttl)
    recorded = ((u.cache_read_input_tokens, u.cache_creation_input_tokens, u.context_tokens) for u in (m.usage for m in main) if u is not None)
    return policy if marks_breakpoints(recorded, policy.min_tokens) else policy_for(provider, model, breakpoints=False)


def _provider_of(model: str | None) -> str | None:
    probe = price(TokenSplit(uncached=1), model)
    return probe.provider if probe is not None else None


@dataclass(frozen=True, slots=True)
class _ChainBase:
    """What pricing one chain needs whatever the pipeline, computed once per chain, policy and
    options (:func:`_chain_base`): compare and the viewer price a dozen pipelines on one session."""

    seconds: list[float | None]
    base_requests: list[tuple[int, int]]
    warm: int
    #: Per call (columns, not rows: a row per call and pipeline is built when priced): the model,
    #: the recorded cost, the split and cost with no pipeline, and the output tokens and time a
    #: simulated split is priced with.
    models: list[str | None]
    recorded: list[Cost | None]
    base_splits: list[CacheSplit]
    base_costs: list[Cost | None]
    outputs: list[int]
    times: list[datetime | None]
    speeds: list[str | None]
    #: Models the price data does not know, in the order their calls come.
    unknown: list[str]
    #: Prices the chain's calls (its rates kept for every pipeline priced on it).
    pricer: _Pricer
    #: What the cache model reads of the calls' times (:func:`.cache.call_clock`).
    clock: list[tuple[bool, int]]
    #: Per call, the lifetime of the cache entry it leaves (:func:`_lifetimes`): its writes are
    #: priced as one-hour ones where it is an hour.
    lifetimes: list[float | None]
    #: Per call, its model's :class:`.prices.PlainRates` at its time (``pricer.rates``), kept as
    #: :mod:`.money_sums` asks (empty until then): every pipeline priced on the chain reads it.
    plain: list = field(default_factory=list)
    #: ``[baseline cost, baseline tokens]`` of every call, summed once (:mod:`.money_sums`; empty until then).
    sums: list = field(default_factory=list)
    #: ``[the calls' flat rates]`` (:class:`.money_sums.FlatRates`), made once (:mod:`.money_sums`; empty until then).
    flat: list = field(default_factory=list)


_BASES = "_money_chain_bases"
_BASES_KEPT = 8


def _chain_base(
    view: SessionView, table: TokenTable, baselines: Sequence[int], not_in_file: Sequence[int], policy: CachePolicy,
    options: MoneyOptions, chain_id: str | None,
) -> _ChainBase:
    """The :class:`_ChainBase` of a chain, kept on its view for the same table, policy, options
    object and per-call figures (the last few kept)."""
    key = (id(table), chain_id, policy, id(options), tuple(baselines), tuple(not_in_file))
    kept: dict = view.__dict__.setdefault(_BASES, {})
    found = kept.get(key)
    if found is not None and found[0] is table and found[1] is options:
        return found[2]
    base = _make_chain_base(view, table, baselines, not_in_file, policy, options, chain_id)
    if len(kept) >= _BASES_KEPT:
        kept.pop(next(iter(kept)))
    kept[key] = (table, options, base)
    return base


def _make_chain_base(
    view: SessionView, table: TokenTable, baselines: Sequence[int], not_in_file: Sequence[int], policy: CachePolicy,
    options: MoneyOptions, chain_id: str | None,
) -> _ChainBase:
    seconds, base_requests, warm, clock, base_splits, times, lifetimes = _simulated_baseline(view, table, baselines, not_in_file, policy)
    models: list[str | None] = []
    recorded: list[Cost | None] = []
    base_costs: list[Cost | None] = []
    outputs: list[int] = []
    speeds: list[str | None] = []
    unknown: list[str] = []
    pricer = _Pricer(options.overrides)
    for model, recorded_cost, baseline_cost, output, speed in _call_prices(view, times, base_splits, lifetimes, options, pricer, unknown):
        models.append(model)
        recorded.append(recorded_cost)
        base_costs.append(baseline_cost)
        outputs.append(output)
        speeds.append(speed)
    return _ChainBase(seconds, base_requests, warm, models, recorded, base_splits, base_costs, outputs, times, speeds, unknown, pricer,
                      clock, lifetimes)


def _simulated_baseline(
    view: SessionView, table: TokenTable, baselines: Sequence[int], not_in_file: Sequence[int], policy: CachePolicy,
) -> tuple[list[float | None], list[tuple[int, int]], int, list[tuple[bool, int]], list[CacheSplit], list[datetime | None],
           list[float | None]]:
    """A chain's calls with no strategy: their times in seconds, ``(total, shared)`` requests,
    the warm prefix, the cache model's clock, the cache splits, the times, and the lifetime of
    the cache entry each call leaves (:func:`_lifetimes`)."""
    session, messages = view.session, view.messages
    times = [call_time(messages[c.message_index]) for c in view.calls]
    seconds = [t.timestamp() if t is not None else None for t in times]
    base_requests = baseline_requests(view, table, baselines, not_in_file, reasoning_dropped_at_turn=session.format == "codex")
    warm = warm_prefix_tokens(view, (not_in_file[0] if not_in_file else 0) + table.overhead)
    if base_requests:
        base_requests[0] = (base_requests[0][0], warm)
    lifetimes = _lifetimes(view, policy)
    clock = call_clock(seconds, policy, lifetimes)
    return seconds, base_requests, warm, clock, simulate_on(base_requests, clock, policy, warm), times, lifetimes


def _lifetimes(view: SessionView, policy: CachePolicy) -> list[float | None]:
    """Per call of a chain, the lifetime of the cache entry it leaves: where the provider charges
    writes (Anthropic), the one its recorded writes tell (:func:`.cache.entry_lifetimes`; a
    Claude Code session can change from one-hour entries to five-minute ones), else the policy's."""
    if not policy.writes:
        return [policy.ttl_seconds] * len(view.calls)
    messages = view.messages
    usages = (messages[c.message_index].usage for c in view.calls)
    return entry_lifetimes(((u.cache_creation_input_tokens, u.cache_creation_1h_input_tokens) if u is not None else (None, None)
                            for u in usages), policy.ttl_seconds)


def _call_prices(
    view: SessionView, times: Sequence[datetime | None], base_splits: Sequence[CacheSplit], lifetimes: Sequence[float | None],
    options: MoneyOptions, pricer: _Pricer, unknown: list[str],
) -> Iterator[tuple[str | None, Cost | None, Cost | None, int, str | None]]:
    """Per call of a chain, one at a time: its model, recorded cost, cost with no strategy
    (``base_splits``, its writes one-hour ones where ``lifetimes`` says an hour), recorded output
    tokens and speed; a model the price data does not know is added to ``unknown`` (once, in the
    order the calls come)."""
    messages = view.messages
    fallback = session_model(view.session)  # call_model's last resort, the same for every call
    for call, when, base_split, lifetime in zip(view.calls, times, base_splits, lifetimes):
        message = messages[call.message_index]
        usage = message.usage
        model = options.model or _message_model(message) or fallback
        output, speed = ((usage.output_tokens or 0), usage.speed) if usage is not None else (0, None)
        # usage without the input (an output count only) is not a bill we can price
        recorded = pricer.tokens(recorded_split(usage), model, when) if usage is not None and usage.input_tokens is not None \
            else None
        # the call's speed prices it with no strategy or under one too: the same request, made the same way
        baseline_cost = pricer.split(lifetime == ANTHROPIC_TTL_1H, base_split, output, model, when, speed) if model else None
        if model and baseline_cost is None and model not in unknown:
            unknown.append(model)
        yield model, recorded, baseline_cost, output, speed


class _Pricer:
    """:func:`.prices.price` of many calls of a chain: the plain rates of each model and time
    looked up once (:func:`.prices.plain_rates`, kept per price period) and each call priced from
    them (:meth:`.prices.PlainRates.cost`, exact or not used); the rest priced by ``price``."""

    __slots__ = ("overrides", "_rates")

    def __init__(self, overrides: Overrides) -> None:
        self.overrides = overrides
        self._rates: dict[tuple[str, datetime | None, str | None], PlainRates | None] = {}

    def tokens(self, tokens: TokenSplit, model: str | None, when: datetime | None) -> Cost | None:
        return self.parts(tokens.uncached, tokens.cache_read, tokens.cache_write, tokens.output, tokens.cache_write_1h,
                          model, when, tokens.speed)

    def split(self, one_hour: bool, s: CacheSplit, output: int, model: str | None, when: datetime | None,
              speed: str | None = None) -> Cost | None:
        """The price of a simulated split of a call (its model, time, recorded output and speed),
        its writes one-hour ones where ``one_hour``."""
        return self.parts(s.uncached_tokens, s.read_tokens, s.write_tokens, output, s.write_tokens if one_hour else 0, model, when,
                          speed)

    def rates(self, model: str, when: datetime | None, speed: str | None = None) -> PlainRates | None:
        """:func:`.prices.plain_rates` of ``model`` at ``when`` and ``speed``, kept."""
        key = (model, when, speed)
        rates = self._rates.get(key, self)
        if rates is self:
            rates = self._rates[key] = plain_rates(model, when, self.overrides, speed)
        return rates  # type: ignore[return-value]

    def parts(self, uncached: int, read: int, write: int, output: int, one_hour: int, model: str | None,
              when: datetime | None, speed: str | None = None) -> Cost | None:
        if not model:
            return None
        if not one_hour:
            rates = self.rates(model, when, speed)
            if rates is not None:
                cost = rates.cost(uncached, read, write, output)
                if cost is not None:
                    return cost
        return price(TokenSplit(uncached, read, write, output, one_hour, speed), model, None, when, self.overrides)


def _price_chain(
    money: Money,
    view: SessionView,
    table: TokenTable,
    baselines: Sequence[int],
    not_in_file: Sequence[int],
    with_pipeline: list[tuple[int, int]] | None,
    policy: CachePolicy,
    options: MoneyOptions,
    chain_id: str | None,
    rows: bool = True,
) -> PricedChain | None:
    """Price one chain into ``money``: its rows with no pipeline, or under ``with_pipeline``
    (each call's ``(total, shared)``). ``rows`` False: a chain under a pipeline is returned as
    its :class:`PricedChain`, no row of it added."""
    base = _chain_base(view, table, baselines, not_in_file, policy, options, chain_id)
    money.unknown_models.extend(m for m in base.unknown if m not in money.unknown_models)
    if with_pipeline is None:
        columns = zip(view.calls, base.models, base.recorded, base.base_splits, base.base_costs)
        money.calls.extend(CallMoney(call.number, call.message_index, model, recorded, split, cost, split, cost, chain_id, 0)
                           for call, model, recorded, split, cost in columns)
        return None
    if with_pipeline:
        with_pipeline[0] = (with_pipeline[0][0], base.warm)
    chain = PricedChain(view, base, with_pipeline, policy, options, chain_id)
    if not rows:
        return chain
    money.calls.extend(chain.rows())
    return None


@dataclass(frozen=True, slots=True)
class PricedChain:
    """One chain under a pipeline, as columns: each call's ``(total, shared)`` request
    (``requests``, the first one's shared the chain's warm prefix) beside its :class:`_ChainBase`.
    :meth:`rows` simulates and prices every call (what :func:`session_money` lists);
    :mod:`.money_sums` sums the same prices without a row or a split object per call."""

    view: SessionView
    base: _ChainBase
    requests: list[tuple[int, int]]
    policy: CachePolicy
    options: MoneyOptions
    chain_id: str | None

    def split_cost(self, k: int, split: CacheSplit) -> Cost | None:
        """Call k's (0-based) price under the pipeline, ``split`` its split: the same split is the
        same price (model, time and output are the call's); no model, no price."""
        base = self.base
        model = base.models[k]
        if split is base.base_splits[k] or split == base.base_splits[k] or not model:
            return base.base_costs[k]
        return base.pricer.split(base.lifetimes[k] == ANTHROPIC_TTL_1H, split, base.outputs[k], model, base.times[k], base.speeds[k])

    def rows(self) -> list[CallMoney]:
        base, chain_id, policy = self.base, self.chain_id, self.policy
        splits = resimulate(self.requests, base.base_requests, base.base_splits, base.clock, policy, base.warm)
        return [CallMoney(call.number, call.message_index, model, recorded, base_split, base_cost, split,
                          self.split_cost(k, split), chain_id, lost)
                for k, (call, model, recorded, base_split, base_cost, split, lost) in enumerate(zip(
                    self.view.calls, base.models, base.recorded, base.base_splits, base.base_costs, splits,
                    _rewritten(base.base_requests, self.requests)))]


def _price_summaries(money: Money, view: SessionView, replay: Replay, policy: CachePolicy, options: MoneyOptions,
                     settings: Settings, warm: int, chain: _ChainBase) -> list[CallReplay]:
    """Price each summarisation call of ``replay`` and put it before the call it precedes (at
    the end where the main chain has no rows in ``money``: :mod:`.money_sums` sums those from
    their columns). Its input is the history it summarises (the replay's ``tokens`` for it); it
    re-sends the request of the call before it and adds that call's results, so that request is
    read from the cache and the rest written or sent uncached, as for any call (``warm``: what
    the chain's first call reads with no strategy); its output is the summary the compact
    strategy asks for (``summary_tokens``), no more than its input; it is made as the call it goes
    before is (``chain``'s lifetime and speed of that call). Returns the summary calls."""
    if type(replay.calls) is CallRows:  # a stateless replay: model calls only
        return []
    summaries = [c for c in replay.calls if c.kind == "summary"]
    if not summaries:
        return summaries
    by_call = {c.call: c for c in replay.calls if c.kind == "call"}
    output_target = int(getattr(settings, "summary_tokens", 0) or 0)
    before: dict[int, list[CallMoney]] = {}  # call -> the summary rows that go before it, in order
    for s in summaries:
        previous = by_call.get(s.call - 1)
        shared = min(previous.tokens, s.tokens) if previous is not None else 0
        split = split_call(max(s.tokens, 0), shared, None, policy, warm)
        message = view.messages[s.message_index]
        model = call_model(view.session, message, options.model) if s.model is None or options.model else s.model
        # made the way the call it goes before is made: that call's cache lifetime and speed
        k = min(s.call, len(view.calls)) - 1
        lifetime, speed = (chain.lifetimes[k], chain.speeds[k]) if k >= 0 else (policy.ttl_seconds, None)
        one_hour = split.write_tokens if lifetime == ANTHROPIC_TTL_1H else 0
        tokens = TokenSplit(split.uncached_tokens, split.read_tokens, split.write_tokens, min(output_target, s.tokens), one_hour, speed)
        cost = price(tokens, model, None, call_time(message), options.overrides)
        before.setdefault(s.call, []).append(
            CallMoney(s.call, s.message_index, model, None, CacheSplit(0, 0, 0), None, split, cost, kind="summary"))
    rows: list[CallMoney] = []  # each summary row before the first main call of its number, in one pass
    for c in money.calls:
        if c.sidechain is None and c.kind == "call" and c.call in before:
            rows.extend(before.pop(c.call))
        rows.append(c)
    for left in before.values():  # no such call: at the end, in order
        rows.extend(left)
    money.calls[:] = rows
    return summaries


def _rewritten(baseline: list[tuple[int, int]], pipeline: list[tuple[int, int]]) -> list[int]:
    """Per call: how much more of the previous request the pipeline changed than no strategy did."""
    if not pipeline:
        return [0]
    return [0] + [max(0, (p0 - p1) - (b0 - b1))  # changed, less what changed anyway
                  for (p0, _), (_, p1), (b0, _), (_, b1) in zip(pipeline, pipeline[1:], baseline, baseline[1:])]


__all__ = [
    "CallDollars", "CallMoney", "Money", "MoneyOptions", "MoneyTotals", "PricedChain", "baseline_requests", "call_dollars", "call_model",
    "call_time", "money_totals", "priced_session", "recorded_costs", "recorded_split", "replay_requests", "session_money", "warm_prefix_tokens",
]
