"""Stateful compaction: replay a session the way an agent that compacts lives with the result.

Per-call planning decides every call afresh from the whole recorded history; an agent that
auto-compacts at call k instead sends, from call k on, the summary plus what it kept plus the
messages added since, until it compacts again. :func:`replay_compacting` keeps that state:

- Before each call the trigger of the ``compact`` strategy is asked with the input the agent
  itself would measure: the input the file recorded for the previous call plus our count of
  the messages added since (the previous call's reply and the tool results), as Claude Code
  does; our own count of the history where nothing was recorded or after a simulated
  compaction (the recorded figures then describe another history). With
  ``compact_count="codex"`` the figure is Codex's own (:func:`.codex_count.codex_count`).
- When it fires, the summarisation is a model call of its own (``kind="summary"``, its input
  is the history being summarised), and the call after it is marked ``compacted_by="compact"``.
- The pipeline's other strategies (masking, clearing...) are applied to the compacted history
  at every call, statelessly.
- A compaction the file records resets the simulation to what the agent really sent.

With ``validate``, every call's request (the state plus the other strategies, as sent) is
checked against each provider's wire rules: a compacting pipeline is valid only if every
request is (:func:`compacting_validity`; a plan at one call cannot say).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import NamedTuple

from ..strategies.base import Inserted, Reason, Status, Working
from ..strategies.compact import NAME as COMPACT, compact_now, fires
from ..strategies.common import kept_on_view
from ..strategies.incremental import compacts_in_one_pass, replays_incrementally
from ..strategies.index_runs import IndexRuns, index_runs, union
from ..providers.validate import validate_plan, wire_facts
from ..strategies.pipeline import STRATEGIES, freeze, start
from ..strategies.summarize import SharedCounts
from ..tokens import TokenTable
from ..units import SessionView
from .baseline import baseline_tokens
from .codex_count import codex_count
from .compaction_fold import FoldLane, folds
from .compaction_requests import CarriedValidity, request_slots
from .compaction_step import Compaction, compacted, kept_slots, steps
from .compaction_stages import MASKED, MaskedStates

_FOLDED = "summarized by compact: folded into the summary of the compaction before call {}"


def compacting(names: tuple[str, ...]) -> bool:
    """Whether a pipeline compacts (and so needs the stateful replay)."""
    return COMPACT in names


class _State(NamedTuple):
    """The history after the last simulated compaction: the slots it kept (source messages and
    the summary) and where it happened (messages from ``boundary`` on are new). (A named tuple:
    cheaper to make than a frozen dataclass, one or two at each compaction; states are told
    apart by identity.)"""

    slots: tuple[int | Inserted, ...]
    boundary: int
    call: int  # the call it happened before
    after: int  # the message of the call before it (-1: none): a compaction recorded after it wins
    #: The source messages before ``boundary`` it folded into the summary, as index runs.
    folded: tuple[tuple[int, int], ...] = ()
    #: Tokens and non-system messages of ``slots`` (source messages as counted, unedited).
    kept_tokens: int = 0
    kept_messages: int = 0
    #: Where ``slots`` hold one inserted slot (the summary) and their source messages stand in
    #: order, known by construction (:func:`state_after`): its position; -1 where not known
    #: (:func:`.compaction_requests.state_layout` then looks).
    lone: int = -1


def _state(view: SessionView, table: TokenTable, slots: list, boundary: int, call: int, after: int) -> _State:
    sources = [s for s in slots if type(s) is int]
    inserted = [s for s in slots if type(s) is not int]
    runs: list[tuple[int, int]] = []  # the complement of the kept messages in [0, boundary), from the slots alone
    at = 0
    for k in sorted({s for s in sources if s < boundary}):
        if k > at:
            runs.append((at, k))
        at = k + 1
    if boundary > at:
        runs.append((at, boundary))
    roles = view.roles
    tokens = sum(map(table.totals.__getitem__, sources)) + sum(s.tokens for s in inserted)
    messages = len(slots) - sum(1 for s in sources if roles[s] == "system")
    return _State(tuple(slots), boundary, call, after, tuple(runs), tokens, messages)


def state_after(view: SessionView, table: TokenTable, state: _State | None, done: Compaction, stop: int, call: int,
                after: int) -> _State:
    """What :func:`_state` finds for the history ``done.order`` a compaction left at message
    ``stop`` (the request of ``state``, :func:`.compaction_requests.request_slots`, compacted by
    :func:`.compaction_step.compacted`), from the state and what the compaction took out, in
    O(those) instead of O(the slots): the request's source messages are the state's and every
    message from its boundary to ``stop``, so the folded ones are the state's and those replaced
    now; its tokens and non-system messages are the request's less what went, plus the summary."""
    if state is None:
        folded: tuple[tuple[int, int], ...] = ()
        b = tokens = messages = 0
    else:
        folded, b, tokens, messages = state.folded, state.boundary, state.kept_tokens, state.kept_messages
    replaced, earlier, summary = done.replaced, done.earlier, done.summary
    covered = summary.replaces  # (:func:`.compact.covers`) the earlier summaries' and the replaced ones
    if type(covered) is IndexRuns and (
        (not folded and not earlier) or (len(earlier) == 1 and type(earlier[0].replaces) is IndexRuns and earlier[0].replaces.runs is folded)
    ):
        folded = covered.runs  # the one summary stands for every folded message: its runs are the folded ones
    else:
        merged = union([IndexRuns(folded), replaced])  # disjoint: a sorted tuple where they do not increase
        folded = (merged if type(merged) is IndexRuns else index_runs(sorted(merged))).runs
    totals = table.totals
    tokens += table.prefix[stop] - table.prefix[b] - sum(map(totals.__getitem__, replaced)) + summary.tokens
    tokens -= sum(x.tokens for x in earlier)
    counts = non_system_before(view)
    messages += counts[stop] - counts[b] - len(replaced) - len(earlier) + 1
    # its one inserted slot is the summary where the state's one was folded into it (or it had none)
    lone = done.at if state is None or (state.lone >= 0 and len(earlier) == 1) else -1
    return _State(tuple(done.order), stop, call, after, folded, tokens, messages, lone)


def non_system_before(view: SessionView) -> list[int]:
    """Per message index ``i`` (0 to ``len(view)``): the non-system messages before it."""
    return kept_on_view(view, "_non_system_before", _non_system_before)


def _non_system_before(view: SessionView) -> list[int]:
    return [0, *accumulate(role != "system" for role in view.roles)]


def _kept_state(request: _State, order: list, at: int) -> _State:
    """The state a compaction keeps from the history it left, ``request`` (its slots ``order``,
    the summary at ``at``): without the inserted messages before the summary
    (:func:`.compaction_step.kept_slots`), the same source messages and so the same folded runs."""
    dropped = [s for s in order[:at] if type(s) is not int]
    if not dropped:
        return request
    return _State(tuple(kept_slots(order, at)), request.boundary, request.call, request.after, request.folded,
                  request.kept_tokens - sum(s.tokens for s in dropped), request.kept_messages - len(dropped))


class CompactingCall(NamedTuple):
    """One call of the stateful replay (a named tuple: a replay makes two at each of its
    thousands of compactions, and a frozen dataclass costs twice as much to make)."""

    call: int
    message_index: int
    turn: int
    #: ``"call"``: a model call of the session; ``"summary"``: the summarisation call a
    #: compaction adds before call ``call``.
    kind: str
    baseline_tokens: int
    recorded_tokens: int | None
    tokens: int
    #: The strategy whose compaction took effect just before this call, or None.
    compacted_by: str | None = None
    #: ``(provider, violations)`` of this call's request (``validate=True``, calls only).
    violations: tuple[tuple[str, int], ...] = ()


def _working(view: SessionView, table: TokenTable, settings, n: int, state: _State | None, not_in_file: int) -> Working:
    w = start(view, table, settings, n, not_in_file)
    if state is None:
        return w
    why, summarized = Reason(_FOLDED, (state.call,)), Status.SUMMARIZED
    live, tokens, status, by, reasons = w.live, w.tokens, w.status, w.by, w.reasons
    removed = 0
    for a, b in state.folded:  # what :meth:`Working.drop_many` does, with ``order`` rebuilt once below
        b = min(b, w.stop)
        if a >= b:
            continue
        if live.find(0, a, b) < 0:  # a run of live messages: slice writes
            k = b - a
            status[a:b], by[a:b], reasons[a:b] = [summarized] * k, [COMPACT] * k, [why] * k
            live[a:b] = bytes(k)
            removed += sum(tokens[a:b])
            continue
        for i in range(a, b):
            if live[i]:
                status[i], by[i], reasons[i] = summarized, COMPACT, why
                live[i] = 0
                removed += tokens[i]
    # the live messages before the boundary are the state's (the rest is folded): its slots in
    # order, then every live message since
    w.order = [s for s in state.slots if type(s) is not int or live[s]]
    w.order.extend(i for i in range(state.boundary, w.stop) if live[i])
    w.inserted = [s for s in state.slots if type(s) is not int]
    w.running += sum(s.tokens for s in w.inserted) - removed
    return w


def _kept_slots(order: list, summary: Inserted) -> list:
    """The slots a compaction keeps: every source message, the summary, and the inserted
    messages that stand after it (an inserted message stands where the first one equal to it
    does, as ``order.index`` finds it, in one pass instead of one scan each)."""
    first: dict[int, int] = {}  # id of each inserted slot -> where the first one equal to it stands
    seen: dict[tuple[str, str], list[tuple[int, Inserted]]] = {}  # (text, reason): the distinct ones, in order
    for k, s in enumerate(order):
        if type(s) is int:
            continue
        alike = seen.get((s.text_key, s.reason))  # equal ones share both (hashing ``replaces`` would cost)
        if alike is None:
            seen[(s.text_key, s.reason)] = [(k, s)]
            first[id(s)] = k
            continue
        for j, x in alike:
            if x is s or x == s:
                first[id(s)] = j
                break
        else:
            alike.append((k, s))
            first[id(s)] = k
    at = first[id(summary)]
    return [s for s in order if type(s) is int or s is summary or first[id(s)] > at]


def sizes_from_state(view: SessionView, names: tuple[str, ...]) -> bool:
    """Whether :func:`replay_compacting` sizes each call of ``names`` from its state (and hands
    ``on_state`` no working history but where it built one): ``compact`` alone, or after
    ``mask_tool_outputs`` (:mod:`.compaction_stages`), no compaction recorded in the file."""
    return compacts_in_one_pass(view, names) or (names == MASKED and compacts_in_one_pass(view, (COMPACT,)))


def build_history(view: SessionView, table: TokenTable, names: tuple[str, ...], settings, n: int, state: _State | None,
                  not_in_file: int) -> Working:
    """Call ``n``'s history from ``state`` with the pipeline's other strategies applied: the
    step-by-step simulation's request."""
    w = _working(view, table, settings, n, state, not_in_file)
    for name in names:
        if name != COMPACT:
            STRATEGIES[name].apply(w)
    return w


def request_history(view: SessionView, table: TokenTable, names: tuple[str, ...], settings, n: int, state: _State | None,
                    not_in_file: int, masked: MaskedStates | None = None, counts: SharedCounts | None = None) -> Working:
    """Call ``n``'s request from ``state`` as the step-by-step simulation sends it:
    :func:`build_history`'s, or where ``state`` is the history a compaction at call ``n`` left
    without building it (:meth:`.compaction_stages.MaskedStates.left`: masked as before it), that
    compaction done on the history built from the state before it (``counts``: the replay's
    :class:`~inspector.strategies.summarize.SharedCounts`, whose summary builder has read it)."""
    left = masked.compacted_from(view.calls[n - 1], state) if masked is not None else None
    if left is None:
        return build_history(view, table, names, settings, n, state, not_in_file)
    before, why = left
    w = build_history(view, table, names, settings, n, before, not_in_file)  # type: ignore[arg-type]
    compact_now(w, why, counts)  # type: ignore[arg-type]
    return w


def _sizes(view: SessionView, table: TokenTable, names: tuple[str, ...], settings=None, validate: bool = False,
           masked: MaskedStates | None = None):
    """``sizes(call, state, not_in_file) -> (tokens, non-system messages)`` of a call's history
    in O(log n), where that is the whole story: ``compact`` alone or after ``mask_tool_outputs``
    (``masked``, or one made here: :class:`.compaction_stages.MaskedStates`; None for a call it
    cannot size), no compaction recorded in the file (every call's history starts at message 0).
    None elsewhere (build each history), for masking where its own fast path does not hold (the
    stateless replay plans those sessions too), and for masking validated where a result holds
    images (masking one changes its request's validity)."""
    if not sizes_from_state(view, names):
        return None
    if names == MASKED and not replays_incrementally(view, table, names[:1], settings):
        return None  # masking's own fast path does not hold here (a tool exchange split across turns...)
    if names != MASKED:
        masked = None
    elif masked is None:
        masked = MaskedStates(view, table, settings)
    if masked is not None and validate and wire_facts(view).result_images:
        return None
    prefix, overhead = table.prefix, table.overhead
    ns_count = non_system_before(view)

    def sizes(call, state: _State | None, not_in_file: int) -> tuple[int, int] | None:
        freed = 0
        if masked is not None:
            cut = masked.cut(call, state)
            if cut is None:
                return None
            freed = cut[1]
        stop = call.message_index
        if state is None:
            return overhead + not_in_file + prefix[stop] - freed, ns_count[stop]
        b = state.boundary
        return (overhead + not_in_file + state.kept_tokens + prefix[stop] - prefix[b] - freed,
                state.kept_messages + ns_count[stop] - ns_count[b])

    return sizes


def replay_compacting(
    view: SessionView, table: TokenTable, names: tuple[str, ...], settings, not_in_file: Sequence[int], validate: bool = False,
    on_request: Callable[[int, Working], None] | None = None,
    on_state: Callable[[int, _State | None, Working | None], None] | None = None, masked: MaskedStates | None = None,
    counts: SharedCounts | None = None,
) -> list[CompactingCall]:
    """Every model call of the session under ``names`` with compaction state kept across calls
    (summary calls included, in order). ``not_in_file[k]``: what call k+1's plan adds to its
    overhead (:func:`.predict.hidden_per_call`: the part the file does not show and the re-sent
    reasoning), in every total like the tool definitions. ``validate``: fill each call's
    ``violations``. ``on_request(call, working)``: each call's request as sent (replay keeps
    what the prompt cache needs of it); asking for it builds every call's history.
    ``on_state(call, state, working)``: each call's state instead, with its working history
    where one was built (None: the request is :func:`.compaction_requests.request_slots`'s;
    only where the history is sized from the state, see :func:`sizes_from_state`). ``masked``:
    where ``names`` masks before compacting, the masking's states for ``settings`` to share with
    ``on_state``'s caller (its layouts ask what the sizes asked; one is made here if not given).
    ``counts``: what the summaries of the replay count alike, shared with ``on_state``'s caller
    (:func:`request_history`), where given. At a call where a compaction was done without
    building the history (:mod:`.compaction_step`), that state is the history the compaction
    left (its boundary the call's message), not the state it keeps: the two differ by the
    earlier summaries the new one stands after (those between the head and the tail are folded
    into it, so only one in the kept head would); after masking, that history is masked as the
    one before the compaction was (:meth:`.compaction_stages.MaskedStates.left`). Where the
    history was built and compacted, the state is the one the compaction kept.

    Where the history is sized from the state, every call's validity is carried from the
    previous call's (:class:`.compaction_requests.CarriedValidity`) instead of validating each
    request whole."""
    baselines = baseline_tokens(view, table)
    messages = view.messages
    if masked is None and names == MASKED and sizes_from_state(view, names):
        masked = MaskedStates(view, table, settings)
    sizes = _sizes(view, table, names, settings, validate, masked)
    carried = CarriedValidity(view, table) if validate and sizes is not None else None
    stepped = sizes is not None and on_request is None and steps(view, names, settings)
    shared = counts if counts is not None else SharedCounts()
    lane = FoldLane(view, table, settings, shared, _State) if stepped and folds(view, names, settings) else None
    out: list[CompactingCall] = []
    state: _State | None = None
    previous = None  # (call, its recorded input) of the previous call when it describes our history
    for call in view.calls:
        n = call.number
        if state is not None and call.context_start > state.after:
            state = None  # the file records a compaction since ours: follow what was really sent
        found = sizes(call, state, not_in_file[n - 1]) if sizes is not None and on_request is None else None
        if found is not None:  # the history's size without building it (validated from the state)
            total, non_system = found
            w = None
        else:
            w = build_history(view, table, names, settings, n, state, not_in_file[n - 1])
            total = w.total()
            non_system = sum(1 for s in w.order if type(s) is not int or view.roles[s] != "system")
        measured = total
        if state is None and previous is not None and previous[1] is not None:
            prev_call, prev_recorded = previous
            measured = prev_recorded + table.prefix[call.message_index] - table.prefix[prev_call.message_index]
            if settings.compact_count == "codex":
                measured = codex_count(view, prev_call, call) or measured
        why = fires(settings, measured, non_system) if COMPACT in names else None
        compacted_by = None
        request = state  # the call's request as a state: the state's, or what the compaction here left or kept
        if why is not None and w is None and stepped:  # compacted without building the history
            fired, why = why, None
            stop = call.message_index
            after = view.calls[n - 2].message_index if n > 1 else -1
            done = left = None
            if lane is not None and lane.knows(state):  # the history it left, from counts alone
                left = lane.compacted(state, stop, n, after)
            else:
                tokens = masked.tokens(call, state) if masked is not None else table.totals
                done = compacted(view, table, settings, request_slots(state, stop), shared, tokens)
                if done is not None:
                    left = state_after(view, table, state, done, stop, n, after)
            if left is not None:
                request = left
                # the history left: its slots (the earlier summaries folded in are gone) and nothing since
                compacted_total = table.overhead + not_in_file[n - 1] + left.kept_tokens
                if masked is not None and done is not None:  # masked as the history before it was
                    masked.left(call, left, state, fired)
                    if tokens is not table.totals:
                        totals = table.totals
                        compacted_total -= sum(totals[s] - tokens[s] for s in done.order if type(s) is int)
                if compacted_total < total:
                    out.append(CompactingCall(n, stop, call.turn, "summary", 0, None, total))
                    # (the lane's history keeps every slot: no inserted one stands before its summary)
                    state = left if done is None else _kept_state(left, done.order, done.at)
                    compacted_by = COMPACT
                total = compacted_total
        if why is not None and w is None:
            w = build_history(view, table, names, settings, n, state, not_in_file[n - 1])
        if why is not None:
            before = w.total()
            compact_now(w, why, shared)
            summary = next((s for s in reversed(w.inserted) if s.by == COMPACT), None)
            if summary is not None and w.total() < before:
                out.append(CompactingCall(n, call.message_index, call.turn, "summary", 0, None, before))
                slots = _kept_slots(w.order, summary)
                after = view.calls[n - 2].message_index if n > 1 else -1
                state = request = _state(view, table, slots, call.message_index, n, after)
                compacted_by = COMPACT
        if on_request is not None:
            on_request(n, w)
        if on_state is not None:
            on_state(n, request, w)
        usage = messages[call.message_index].usage
        recorded = usage.context_tokens if usage is not None else None
        violations = ()
        if validate and w is None and carried is not None:
            violations = carried.counts(request, call.message_index)
        elif validate:
            found = validate_plan(freeze(w, names, w.total(), []))
            violations = tuple((provider, len(items)) for provider, items in found.items())
        tokens = w.total() if w is not None else total
        out.append(CompactingCall(n, call.message_index, call.turn, "call", baselines[n - 1], recorded, tokens, compacted_by, violations))
        previous = (call, recorded) if state is None else None
    return out


@dataclass(frozen=True, slots=True)
class CompactingValidity:
    """Whether every request of a compacting replay is valid, for each provider."""

    #: Violations summed over every call's request.
    violations: dict[str, int]
    #: The calls whose request breaks the provider's rules, in order.
    invalid_calls: dict[str, tuple[int, ...]]

    @property
    def valid(self) -> dict[str, bool]:
        return {provider: not calls for provider, calls in self.invalid_calls.items()}


def compacting_validity(
    view: SessionView, table: TokenTable, names: tuple[str, ...], settings, not_in_file: Sequence[int]
) -> CompactingValidity:
    """Every call of the stateful replay checked: valid only where every request is."""
    return validity_of(replay_compacting(view, table, names, settings, not_in_file, validate=True))


def validity_of(calls: Sequence[CompactingCall]) -> CompactingValidity:
    """The validity of a stateful replay from its calls validated (``validate=True``)."""
    violations: dict[str, int] = {}
    invalid: dict[str, list[int]] = {}
    for c in calls:
        for provider, count in c.violations:
            violations[provider] = violations.get(provider, 0) + count
            calls = invalid.setdefault(provider, [])
            if count:
                calls.append(c.call)
    return CompactingValidity(violations, {p: tuple(calls) for p, calls in invalid.items()})
