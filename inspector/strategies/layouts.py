"""Layouts: what a fast path's decision at one call does to each message, as a few index runs.

The incremental replay (:mod:`.incremental`) finds each call's total from cut points; the
prompt-cache model also needs how many leading tokens a call's request shares with the previous
call's (:mod:`inspector.analysis.requests`), which depends on where the two decisions first
differ. A :data:`Layout` says it in O(1) size: sorted disjoint runs ``(lo, hi, op)`` of message
indices, each treated by one :data:`Op` ``(drop, edit)``: the messages of the run that mask
``drop`` names are dropped ("ns": non-system, "all", "pruned": what tool_pruning drops in an
earlier turn, "codex" and "codex_users": what a Codex compaction folds before and after its
oldest kept user message), the rest are sent as the per-message transform ``edit`` leaves them
(read off one run of the strategy's own code, :func:`.incremental.transform_run`); messages outside every run
are sent as they are. Each message's request-piece key and tokens under an op are per-session
arrays (:class:`Layouts`), so two calls' first difference is found per run pair, not per message.

Fast paths without a layout (summaries; a clearing that splits one message's results;
masking that reaches what the current turn protects) give None: the caller plans those calls.
A masking that splits one message's results lays that message out as a "point": the one
message, keyed and sized as its edits leave it. The property test
(tests/test_incremental_replay.py) checks every layout's shared prefix against the plans.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from itertools import repeat
from operator import is_not as _is_not, ne
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Optional

from types import SimpleNamespace

from .base import BlockEdit
from .clear_tool_uses import PLACEHOLDER as CLEARED
from .common import count_text, view_cache
from .incremental import (
    Facts, _clear_sizes, _clearing, _prefix, _ClearedCandidates, _tool_uses, _derived, _mask_values, _ResultSlots, mask_cut, mask_key, summarize_cut, _fifo_cut, fifo_candidates, pruned_fifo_cut, pruned_strands_cut, fifo_in_turn_cut, observations_elided, _strands_cut, _trim_cut, _truncation, _window_messages_cut, _window_turns_span, thinking_limit,
    transform_run, truncated_facts, truncation_key,
)
from .params import SettingsBase as Settings

Op = tuple[Optional[str], Optional[str]]  # (drop mask, edit key)
Segment = tuple[int, int, Op]
Layout = tuple[Segment, ...]
#: ``layout(facts, settings, stop, turn, total)``: the call's layout, None when it has none.
LayoutFn = Callable[[Facts, Settings, int, int, int], "Layout | None"]

PLAIN: Op = (None, None)


def _drops(lo: int, hi: int, mask: str) -> Layout:
    return ((lo, hi, (mask, None)),) if hi > lo else ()


def _fifo(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout:
    k = _fifo_cut(f, s, stop, turn, total)
    if k is None:  # it goes on inside the current turn, around what protected_in_turn keeps
        seq = fifo_candidates(f, stop, turn)
        return _first_candidates(f, seq, fifo_in_turn_cut(f, s, stop, total, seq))
    return _drops(0, f.ns_index[k - 1] + 1, "ns") if k > 0 else ()


def _first_candidates(f: Facts, seq, k: int) -> Layout:
    """The drops of the first ``k`` candidates of ``seq`` (runs of non-system positions)."""
    out: list[Segment] = []
    for x, y in seq.runs:
        if k <= 0:
            break
        take = min(k, y - x)
        out.append((f.ns_index[x], f.ns_index[x + take - 1] + 1, ("ns", None)))
        k -= take
    return tuple(out)


def _sliding_window(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout:
    if s.window_mode == "turns":
        return _drops(*_window_turns_span(f, s, turn), "ns")
    return _drops(0, _window_messages_cut(f, s, stop, turn), "ns")


def _strands(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout:
    return _drops(0, _strands_cut(f, s, stop), "ns")


def _trim_messages(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout:
    cut = _trim_cut(f, s, stop)
    if cut is None:
        return ()
    lo, _, kept_from = cut
    return _drops(kept_from, stop, "all") if s.trim_strategy == "first" else _drops(lo, kept_from, "all")


def _pruned_turns(f: Facts, first: int, turn: int) -> Layout:
    """tool_pruning's drops in turns ``first .. turn - 1``."""
    if turn < 1 or first >= turn:
        return ()
    return _drops(f.turn_start[first], f.turn_start[turn], "pruned")


def _tool_pruning(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout:
    return _pruned_turns(f, 1, turn)


def _truncate_results(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout:
    key = truncation_key(s)
    transform_run(f, s, "truncate_results", key)
    return ((0, stop, (None, key)),) if stop else ()


def _thinking_prune(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout:
    key = f"thinking:{s.thinking_keep_turns}"
    transform_run(f, s, "thinking_prune", key)
    limit = thinking_limit(f, s, stop, turn)
    return ((0, limit, (None, key)),) if limit else ()


def _last_n_observations(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout:
    o, first, end = observations_elided(f, s, stop)  # its transform ran on the way ("run:observations")
    return ((o.positions[first], o.positions[end - 1] + 1, (None, "observations")),) if end > first else ()


def _pruned_then_window(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout:
    if turn < 1:
        return ()
    oldest = max(turn - max(s.window_turns, 1) + 1, 1)
    return _drops(*_window_turns_span(f, s, turn), "ns") + _pruned_turns(f, oldest, turn)


def _pruned_then_fifo(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout | None:
    cut = pruned_fifo_cut(f, s, stop, turn, total)
    if cut is None:
        return None
    limit, survivors, seq, k = cut
    a = survivors.count[limit]
    if k > a:  # every message before the turn, then the current turn's first candidates
        return _drops(0, limit, "ns") + _first_candidates(f, seq, k - a)
    return _survivors_dropped(f, limit, survivors, k)


def _survivors_dropped(f: Facts, limit: int, survivors, q: int) -> Layout:
    """tool_pruning's drops before ``limit`` and the first ``q`` messages it leaves there (where
    it prunes nothing after those, fifo's own one run: what LayoutChain.head_dropped prices)."""
    end = survivors.index[q - 1] + 1 if q else 0
    if f.ns_count[limit] - survivors.count[limit] == f.ns_count[end] - survivors.count[end]:
        return _drops(0, end, "ns")
    return _drops(0, end, "ns") + _drops(end, limit, "pruned")


def _pruned_then_strands(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout | None:
    cut = pruned_strands_cut(f, s, stop, turn)
    if cut is None:
        return None
    limit, survivors, q, j = cut
    if j > limit:  # every message before the turn, then the turn's up to j
        return _drops(0, j, "ns")
    return _survivors_dropped(f, limit, survivors, q)


def _under(edit: str, layout: Layout, stop: int) -> Layout:
    """``layout`` with every message it does not drop edited by ``edit`` (a transform applied
    first, to the whole history)."""
    out: list[Segment] = []
    at = 0
    for lo, hi, (drop, _) in layout:
        if lo > at:
            out.append((at, lo, (None, edit)))
        out.append((lo, hi, (drop, edit)))
        at = hi
    if stop > at:
        out.append((at, stop, (None, edit)))
    return tuple(out)


def _truncated_then(then: LayoutFn) -> LayoutFn:
    def layout(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout | None:
        key = truncation_key(s)
        transform_run(f, s, "truncate_results", key)
        cut = _truncation(f, s)
        inner = then(truncated_facts(f, s), s, stop, turn, total - cut[stop])
        return None if inner is None else _under(key, inner, stop)

    return layout


def _pruned_then_truncated(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout:
    key = truncation_key(s)
    transform_run(f, s, "truncate_results", key)
    return _under(key, _pruned_turns(f, 1, turn), stop)


def _overlay(drops: Layout, edits: Layout, stop: int) -> Layout:
    """One layout from a stage's drops (their ops' masks) over another's edits (their ops'
    transforms): a run ending wherever a run of either does, from one walk over both (in index
    order, ending with the last run of either: clear_tool_uses,fifo overlays at every call)."""
    out: list[Segment] = []
    i = j = at = 0
    len_d, len_e = len(drops), len(edits)
    while at < stop:
        while i < len_d and drops[i][1] <= at:
            i += 1
        while j < len_e and edits[j][1] <= at:
            j += 1
        if i == len_d and j == len_e:  # past every run: the rest is sent as it is
            break
        end, drop, edit = stop, None, None
        if i < len_d:
            lo, hi, op = drops[i]
            if lo <= at:
                drop, end = op[0], hi if hi < end else end
            elif lo < end:
                end = lo
        if j < len_e:
            lo, hi, op = edits[j]
            if lo <= at:
                edit = op[1]
                if hi < end:
                    end = hi
            elif lo < end:
                end = lo
        if drop is not None or edit is not None:
            out.append((at, end, (drop, edit)))
        at = end
    return tuple(out)


def _cleared(f: Facts, s: Settings, eligible: int, spans: list[tuple[int, int]], stop: int) -> Layout | None:
    """clear_tool_uses clearing the results of the uses ``[0, eligible)`` outside the message
    ``spans``; None when a message keeps some of its results and loses others (planned)."""
    op = (None, _clear_all(f, s))
    uses = _tool_uses(f)
    cover = [(0, stop)]
    if eligible < len(uses.call_msg):
        values = _clear_sizes(f, s).values
        b = uses.call_msg[eligible]
        cover = [(0, b)]
        cleared: dict[int, bool] = {}  # result message -> whether its results are cleared
        for u in range(uses.uses_before[b], uses.uses_before[b + 1]):
            r = uses.result[u]
            if r >= 0 and values[u + 1] > values[u]:
                if cleared.setdefault(r, u < eligible) != (u < eligible):
                    return None
        cover += [(r, r + 1) for r, yes in sorted(cleared.items()) if yes]
    out: list[Segment] = []
    for lo, hi in cover:
        for a, z in spans:  # what protected_in_turn keeps is not cleared (spans: sorted, disjoint)
            if a >= hi:
                break
            if a > lo:
                out.append((lo, a, op))
            if z > lo:
                lo = z
        if hi > lo:
            out.append((lo, hi, op))
    return tuple(out)


def _clear_all(f: Facts, s: Settings) -> str:
    """The transform key of clear_tool_uses clearing every result it may (its edits made as
    :func:`.clear_tool_uses.clear_tool_uses` makes them), registered for :class:`_OpArrays`."""
    known = f._derived.get(("clear_all", s.exclude_tools))  # (asked once a call)
    if known is not None:
        return known
    key = f"clear:{','.join(sorted(s.exclude_tools))}"

    def make(f: Facts) -> SimpleNamespace:
        view, cache = f.view, view_cache(f.view)
        placeholder = count_text(f.table.encoding, CLEARED)
        excluded = set(s.exclude_tools)
        counts, cleared = f.table.counts, []
        for i in cache.call_messages:
            for n, where in enumerate(cache.call_results[i]):
                if where is None or view.tool_names[i][n] in excluded:
                    continue
                r, rk = where
                before = counts[r].blocks[rk]
                if before > placeholder:
                    cleared.append((r, rk, before, before - placeholder))
        return _edited(f, cleared, CLEARED, "clear_tool_uses")

    _derived(f, "run:" + key, make)
    f._derived[("clear_all", s.exclude_tools)] = key
    return key


def _clearing_layout(f: Facts, s: Settings, stop: int, turn: int, total: int) -> tuple[int, int, list, Layout | None]:
    """``(freed, eligible, spans, cleared)``: :func:`.incremental._clearing` at this call and the
    layout of its clearing (:func:`_cleared`; ``()`` where it frees nothing), made once per call
    and kept: a compare lays out clear_tool_uses and clear_tool_uses,fifo, whose first stage is the same."""
    key = ("clearing_layouts", s.trigger, s.keep, s.clear_at_least, s.exclude_tools)
    memo = f._derived.get(key)
    if memo is None:
        memo = f._derived[key] = {}
    got = memo.get((stop, turn, total))
    if got is None:
        freed, eligible, spans = _clearing(f, s, stop, turn, total)
        got = memo[(stop, turn, total)] = (freed, eligible, spans, _cleared(f, s, eligible, spans, stop) if freed else ())
    return got


def _clear_tool_uses(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout | None:
    return _clearing_layout(f, s, stop, turn, total)[3]


def _clear_then_fifo(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout | None:
    freed, eligible, spans, cleared = _clearing_layout(f, s, stop, turn, total)
    if not freed:
        return _fifo(f, s, stop, turn, total)
    if cleared is None:
        return None
    seq = fifo_candidates(f, stop, turn)
    k = fifo_in_turn_cut(f, s, stop, total - freed, _ClearedCandidates(f, s, seq, eligible, spans))
    return _overlay(_first_candidates(f, seq, k), cleared, stop)


def _summarize(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout:
    """The replaced candidates dropped, the first one's place taken by the summary (a "point"
    op: its key names what it replaces, which fixes its text)."""
    cut = summarize_cut(f, s, stop, turn, total)
    if cut is None:
        return ()
    seq, k, summaries = cut
    drops = _first_candidates(f, seq, k)
    first, hi, op = drops[0]
    replaced = []  # the replaced non-system positions, as merged runs: what the summary's text depends on
    for x, y in seq.runs:
        take = min(k, y - x)
        if take <= 0:
            break
        if replaced and replaced[-1][1] == x:
            replaced[-1] = (replaced[-1][0], x + take)
        else:
            replaced.append((x, x + take))
        k -= take
    point: Segment = (first, first + 1, ("point", ("summary", tuple(replaced)), summaries.tokens(seq, cut[1])))
    return (point, (first + 1, hi, op), *drops[1:]) if hi > first + 1 else (point, *drops[1:])


def _mask_tool_outputs(f: Facts, s: Settings, stop: int, turn: int, total: int) -> Layout | None:
    cut = mask_cut(f, s, stop, turn)
    if cut is None:
        return None
    last, freed = cut
    return mask_layout(f, s, last) if freed else ()


def _mask_reach(f: Facts, s: Settings, last: int) -> tuple[int, bool]:
    """``(r, whole)``: a masking of the result slots ``[0, last]`` reaches message ``r`` (the last
    one's), which it masks whole or not (some of its results kept, others masked); its transform's
    run registered (for :class:`_OpArrays`)."""
    slots = _derived(f, "result_slots", _ResultSlots)
    values = _mask_values(f, s)
    messages = slots.messages
    r = messages[last]
    j = last + 1
    while j < len(messages) and messages[j] == r and not values[j]:
        j += 1
    _mask_run(f, s)
    return r, j == len(messages) or messages[j] != r


def _mask_run(f: Facts, s: Settings) -> str:
    """The transform key of mask_tool_outputs masking every result it may (its edits made as the
    strategy makes them), registered for :class:`_OpArrays`."""
    key = mask_key(s)

    def make(f: Facts) -> SimpleNamespace:
        slots, values = _derived(f, "result_slots", _ResultSlots), _mask_values(f, s)
        return _edited(f, [(m, k, t, v) for (m, k, t, v) in zip(slots.messages, slots.blocks, slots.tokens, values) if v],
                       s.mask_placeholder, "mask_tool_outputs")

    _derived(f, "run:" + key, make)
    return key


def mask_layout(f: Facts, s: Settings, last: int) -> Layout | None:
    """The layout of a masking of the result slots ``[0, last]`` (what :func:`.incremental.mask_cut`
    finds); None where the message of the last one would be a point that may re-send reasoning."""
    r, whole = _mask_reach(f, s, last)
    if whole:
        return ((0, r + 1, (None, mask_key(s))),)
    slots, values = _derived(f, "result_slots", _ResultSlots), _mask_values(f, s)
    # message r keeps some of its results and loses others (a Claude Code user message answers
    # every call of one assistant message): the messages before it under the run's edit, r
    # itself as the one message it becomes
    if f.view.roles[r] == "assistant":
        return None  # (a message that may re-send reasoning is never a point: planned)
    first = bisect_left(slots.messages, r)
    edits = [BlockEdit(slots.blocks[k], "clear", s.mask_placeholder, slots.tokens[k], slots.tokens[k] - values[k], by="mask_tool_outputs")
             for k in range(first, last + 1) if values[k]]
    point: Segment = (r, r + 1, ("point", message_key(r, edits), f.table.totals[r] - sum(values[first : last + 1])))
    return ((0, r, (None, mask_key(s))), point) if r else (point,)


def _edited(f: Facts, cleared: list[tuple[int, int, int, int]], text: str, by: str) -> SimpleNamespace:
    """A transform's result (edits, tokens, live) that replaces each listed result block
    ``(message, block, tokens, freed)`` by ``text``, as clear_tool_uses and mask_tool_outputs do."""
    edits: dict[int, list[BlockEdit]] = {}
    tokens = list(f.table.totals[: f.n])
    for r, k, before, freed in cleared:
        edits.setdefault(r, []).append(BlockEdit(k, "clear", text, before, before - freed, by=by))
        tokens[r] -= freed
    return SimpleNamespace(edits=edits, tokens=tokens, live=[1] * f.n)


_SINGLE: dict[str, LayoutFn] = {
    "fifo": _fifo,
    "sliding_window": _sliding_window,
    "strands_sliding_window": _strands,
    "trim_messages": _trim_messages,
    "tool_pruning": _tool_pruning,
    "truncate_results": _truncate_results,
    "thinking_prune": _thinking_prune,
    "last_n_observations": _last_n_observations,
    "clear_tool_uses": _clear_tool_uses,
    "mask_tool_outputs": _mask_tool_outputs,
    "summarize": _summarize,
}


def layout_fn(names: tuple[str, ...]) -> LayoutFn | None:
    """The layout of pipeline ``names``' fast path (whose preconditions the caller checked), or
    None where its decisions have none."""
    if len(names) == 1:
        return _SINGLE.get(names[0])
    if names == ("clear_tool_uses", "fifo"):
        return _clear_then_fifo
    if names == ("tool_pruning", "truncate_results"):
        return _pruned_then_truncated
    if names == ("tool_pruning", "sliding_window"):
        return _pruned_then_window
    if names == ("tool_pruning", "fifo"):
        return _pruned_then_fifo
    if names == ("tool_pruning", "strands_sliding_window"):
        return _pruned_then_strands
    if len(names) == 2 and names[0] == "truncate_results" and names[1] in _SINGLE:
        return _truncated_then(_SINGLE[names[1]])
    if len(names) == 2 and names[0] == "tool_pruning":  # where pruning removes nothing (incremental._prunes_nothing)
        return _SINGLE.get(names[1])
    return None


class _OpArrays:
    """One op's per-message facts: request-piece key (None: dropped), prefix sums of the tokens
    sent and of the reasoning of the messages sent, and the next message sent at or after j."""

    __slots__ = ("keys", "sent", "reasoning", "next_kept")

    def key(self, i: int) -> Hashable | None:
        return self.keys[i]

    def __init__(self, f: Facts, op: Op, reasoning: list[int]) -> None:
        n = f.n
        drop, edit = op
        mask = _mask(f, drop)
        w = f.__dict__["_derived"]["run:" + edit] if edit is not None else None
        totals = f.table.totals
        keys: Any = range(n)  # a message is its own key until an edit or a drop says otherwise (a list then)
        if w is not None or mask is not None:
            keys = list(keys)
        tokens = list(totals[:n])
        if w is not None:
            for i, edits in w.edits.items():
                keys[i] = message_key(i, edits)
            tokens = [t if live else 0 for t, live in zip(w.tokens, w.live)]
            for i in [i for i, live in enumerate(w.live[:n]) if not live]:
                keys[i] = None
        if mask is not None:
            for i in [i for i, m in enumerate(mask[:n]) if m]:
                keys[i] = None
                tokens[i] = 0
        self.keys = keys
        # machine-integer arrays: kept per session, 8 bytes an entry (a list holds an int object each)
        self.sent = array("q", _prefix(tokens))
        if any(reasoning):
            self.reasoning = array("q", _prefix([r if k is not None else 0 for r, k in zip(reasoning, keys)]))
        else:  # no reasoning re-sent (most sessions): its prefix sums are zeros
            self.reasoning = array("q", bytes(8 * (n + 1)))
        if type(keys) is range:  # every message sent: each is the next one sent from itself
            self.next_kept = array("q", range(n + 1))
        else:  # (one byte per message from the C loop of map: the per-message comprehension took ~1 ms an op at 10,000 messages)
            self.next_kept = _first_at_or_after(bytes(map(_is_not, keys, repeat(None))), n)


def _first_at_or_after(flags: bytes, n: int) -> array:
    """Per index j in ``[0, n]``: the first index at or after j whose flag is set (``flags``: one
    byte, 0 or 1, per index below ``n``), n where none is. A set index is its own answer; each run
    of unset ones is found by two byte searches and filled in one slice, so the loop runs once per
    run, not per index (a loop over the set indices took ~1.5 ms an op at 10,000 messages; the
    per-index loop ~0.1 s at 50,000)."""
    out = array("q", range(n + 1))
    lo = flags.find(0)  # the first unset index
    while lo != -1:
        hi = flags.find(1, lo)  # the next set one
        if hi == -1:
            hi = n
        out[lo:hi] = array("q", [hi]) * (hi - lo)
        lo = flags.find(0, hi) if hi < n else -1
    return out


def message_key(i: int, edits) -> Hashable:
    """The request-piece key of kept message ``i`` with block ``edits``: the index, with the
    edits that change what is sent as we count it. Removing a block we count as 0 tokens (Claude
    Code writes a thinking block's signature only) leaves the request as replay counts it, and so
    leaves its cached prefix. (One comprehension: an op's keys make one per edited message.)"""
    changes = tuple([(e.block, e.kind, e.tokens_after) for e in edits
                     if e.tokens_before != e.tokens_after or (e.text is not None and e.kind != "remove")])
    return (i, changes) if changes else i


def _mask(f: Facts, drop: str | None) -> list[bool] | None:
    if drop is None:
        return None
    view = f.view
    if drop == "all":
        return [True] * f.n
    if drop == "ns":
        return [r != "system" for r in view.roles]
    if drop in ("codex", "codex_users"):  # what a Codex compaction folds (:func:`.compact.codex_replaced`)
        from .compact import codex_replaced

        return [bool(x) for x in codex_replaced(view)[drop == "codex_users"]]
    assert drop == "pruned"
    from .common import kept_on_view
    from .tool_pruning import _prunable

    out = [False] * f.n
    for a, b in kept_on_view(view, "_tool_pruning", _prunable).runs:  # the strategy's own (it keeps summaries)
        out[a:b] = [True] * (b - a)
    return out


class Layouts:
    """The per-session arrays of every op the layouts of one replay use, built on first use.
    ``reasoning[i]``: the reasoning tokens re-sent before message ``i`` when it is in a call's
    re-sent window (the reasoning its model call produced; 0 for other messages)."""

    def __init__(self, f: Facts, reasoning: list[int]) -> None:
        self.f, self.n, self.reasoning = f, f.n, reasoning
        self._ops: dict[Op, _OpArrays] = {}
        # keys depend on the op alone (not on the reasoning): kept for every replay of the session
        self._pairs: dict[tuple[Op, Op], Sequence[int]] = f.__dict__.setdefault("_op_pairs", {})

    def op(self, op: Op) -> _OpArrays:
        arrays = self._ops.get(op)  # first: ~200,000 calls a compare at 10k, all but a few found
        if arrays is None:
            if op[0] == "point":
                return _Point(self.n, op)  # type: ignore[return-value]
            arrays = self._ops[op] = self._shared_op(op)
        return arrays

    def _shared_op(self, op: Op) -> _OpArrays:
        """The op's arrays, kept on the facts for every replay of the session that re-sends the
        same reasoning (compare replays a dozen pipelines, most of them with the plain op)."""
        kept = self.f.__dict__.setdefault("_op_arrays", {})
        found = kept.get(op)
        if found is not None and (found[0] is self.reasoning or found[0] == self.reasoning):
            return found[1]
        arrays = _OpArrays(self.f, op, self.reasoning)
        kept[op] = (self.reasoning, arrays)
        return arrays

    def runs(self, layout: Layout, stop: int) -> list[Segment]:
        """``layout``'s runs within ``[0, stop)`` with the plain gaps between them: the form
        the methods below read."""
        out: list[Segment] = []
        at = 0
        for lo, hi, op in layout:
            if lo >= stop:
                break
            if lo > at:
                out.append((at, lo, PLAIN))
            if hi > stop:
                hi = stop
            if hi > lo:
                out.append((lo, hi, op))
            if hi > at:
                at = hi
        if stop > at:
            out.append((at, stop, PLAIN))
        return out

    def first_difference(self, ra: list[Segment], rb: list[Segment], stop: int) -> int:
        """The first message index below ``stop`` whose key differs under runs ``ra`` and
        ``rb`` (both cover ``[0, stop)``; ``stop`` when none does)."""
        if ra == rb:
            return stop
        i = j = 0
        at = 0
        while i < len(ra) and j < len(rb):
            _, hi_a, op_a = ra[i]
            _, hi_b, op_b = rb[j]
            end = min(hi_a, hi_b)
            if op_a != op_b:
                if op_a[0] == "point" or op_b[0] == "point":  # a run of one message
                    d = at if self.op(op_a).key(at) != self.op(op_b).key(at) else end
                else:
                    d = self._next_difference(op_a, op_b)[at]
                if d < end:
                    return d
            at = end
            if hi_a == end:
                i += 1
            if hi_b == end:
                j += 1
        return stop

    def _next_difference(self, a: Op, b: Op) -> Sequence[int]:
        """Per message index j: the first index at or after j whose key differs under ops
        ``a`` and ``b`` (n: none)."""
        out = self._pairs.get((a, b))
        if out is None:
            ka, kb = self.op(a).keys, self.op(b).keys
            n = self.n
            out = _first_at_or_after(bytes(map(ne, ka, kb)), n)
            self._pairs[(a, b)] = self._pairs[(b, a)] = out
        return out

    def sent(self, runs: list[Segment], stop: int, lo_reasoning: int) -> tuple[int, int]:
        """``(tokens, reasoning)``: the tokens of the messages ``runs`` sends below ``stop`` and
        the reasoning re-sent before those at or after ``lo_reasoning``."""
        tokens = reasoning = 0
        ops = self._ops
        for lo, hi, op in runs:
            if lo >= stop:
                break
            if hi > stop:
                hi = stop
            arrays = ops.get(op)
            if arrays is None:
                if op[0] == "point":
                    tokens += op[2]
                    continue
                arrays = self.op(op)
            sent = arrays.sent
            tokens += sent[hi] - sent[lo]
            a = lo if lo > lo_reasoning else lo_reasoning
            if hi > a:
                reasoning += arrays.reasoning[hi] - arrays.reasoning[a]
        return tokens, reasoning

    def before_source(self, runs: list[Segment], stop: int) -> int:
        """Tokens of the leading pieces up to the first message sent at or after ``stop``, as
        :func:`inspector.analysis.requests.tokens_before_source` counts them: an inserted piece
        (a point whose key is not a message's) has no source, so it counts wherever it stands
        before that message."""
        tokens = 0
        for lo, hi, op in runs:
            if op[0] == "point":
                if lo >= stop and type(op[1]) is tuple and type(op[1][0]) is int:
                    return tokens  # an edited message (its key names it): sent at or after stop
                tokens += op[2]
                continue
            arrays = self.op(op)
            if hi > stop:
                first = arrays.next_kept[max(lo, stop)]
                tokens += arrays.sent[min(hi, stop)] - arrays.sent[lo] if lo < stop else 0
                if first < hi:
                    return tokens
            else:
                tokens += arrays.sent[hi] - arrays.sent[lo]
        return tokens

    def pieces(self, runs: list[Segment], start: int, window: tuple[int, int], with_reasoning: Sequence[int]):
        """The request pieces (:func:`inspector.analysis.requests.request_pieces`) of the
        messages from ``start`` on, then the reasoning of the dropped messages of the re-sent
        ``window`` (a message index run); ``with_reasoning``: the sorted indices of the messages
        whose reasoning is re-sent. Lazy: a comparison reads only as far as it matches."""
        reasoning = self.reasoning
        w_lo, w_hi = window
        for lo, hi, op in runs:
            if hi <= start:
                continue
            if op[0] == "point":  # a dropped message whose place an inserted one takes
                if lo >= start:
                    yield op[1], op[2]
                continue
            arrays = self.op(op)
            keys, sent, nxt = arrays.keys, arrays.sent, arrays.next_kept
            i = nxt[max(lo, start)]
            while i < hi:
                if reasoning[i] and w_lo <= i < w_hi:
                    yield ("reasoning", i), reasoning[i]
                yield keys[i], sent[i + 1] - sent[i]
                i = nxt[i + 1]
        for k in range(bisect_left(with_reasoning, w_lo), bisect_left(with_reasoning, w_hi)):
            i = with_reasoning[k]
            if self._key(runs, i) is None:
                yield ("reasoning", i), reasoning[i]

    def _key(self, runs: list[Segment], i: int) -> Hashable | None:
        """Message ``i``'s key (None: not sent as itself)."""
        for lo, hi, op in runs:
            if lo <= i < hi:
                return None if op[0] == "point" else self.op(op).keys[i]
        return i


class _Point:
    """A "point" op ``("point", key, tokens)``: its one message dropped and an inserted piece
    sent in its place, or the message sent as its edits leave it (its key then names it); no
    reasoning before it. Only its key is read here; the runs' walks
    (:meth:`Layouts.sent`, :meth:`Layouts.pieces`) read its tokens off the op."""

    def __init__(self, n: int, op) -> None:
        self._key = op[1]

    def key(self, i: int) -> Hashable:
        return self._key


#: The span lane: the run ``(lo, hi)`` a call's layout treats by the stage's op (``hi <= lo``:
#: none), or None where its layout is not one such run (see :func:`span_cuts`).
_SpanOf = Callable[[Facts, Settings, int, int, int], "tuple[int, int] | None"]


def _fifo_span(f: Facts, s: Settings, stop: int, turn: int, total: int) -> tuple[int, int] | None:
    k = _fifo_cut(f, s, stop, turn, total)
    return None if k is None else (0, f.ns_index[k - 1] + 1 if k > 0 else 0)


def _trim_span(f: Facts, s: Settings, stop: int, turn: int, total: int) -> tuple[int, int]:
    cut = _trim_cut(f, s, stop)
    if cut is None:
        return 0, 0
    return (cut[2], stop) if s.trim_strategy == "first" else (cut[0], cut[2])


def _observations_span(f: Facts, s: Settings, stop: int, turn: int, total: int) -> tuple[int, int]:
    o, first, end = observations_elided(f, s, stop)  # its transform ran on the way ("run:observations")
    return (o.positions[first], o.positions[end - 1] + 1) if end > first else (0, 0)


def _mask_span(f: Facts, s: Settings, stop: int, turn: int, total: int) -> tuple[int, int] | None:
    cut = mask_cut(f, s, stop, turn)
    if cut is None:
        return None
    last, freed = cut
    if not freed:
        return 0, 0
    r, whole = _mask_reach(f, s, last)
    return (0, r + 1) if whole else None  # (a message masked in part: a point, or planned)


def _span_lane(f: Facts, names: tuple[str, ...], s: Settings) -> tuple[Op, _SpanOf] | None:
    """``(op, span)`` of a stage whose layout is ``((lo, hi, op),)`` or ``()`` at every call
    (see :func:`span_cuts`; its transform run, as the layout function runs it), or None."""
    name = names[0] if len(names) == 1 else None
    if name == "fifo":
        return ("ns", None), _fifo_span
    if name == "strands_sliding_window":
        return ("ns", None), lambda f, s, stop, turn, total: (0, _strands_cut(f, s, stop))
    if name == "sliding_window" and s.window_mode == "turns":
        return ("ns", None), lambda f, s, stop, turn, total: _window_turns_span(f, s, turn)
    if name == "sliding_window":
        return ("ns", None), lambda f, s, stop, turn, total: (0, _window_messages_cut(f, s, stop, turn))
    if name == "trim_messages":
        return ("all", None), _trim_span
    if name == "tool_pruning":  # _pruned_turns(f, 1, turn)
        return ("pruned", None), lambda f, s, stop, turn, total: (f.turn_start[1], f.turn_start[turn]) if turn > 1 else (0, 0)
    if name == "last_n_observations":
        return (None, "observations"), _observations_span
    if name == "truncate_results":
        key = truncation_key(s)
        transform_run(f, s, "truncate_results", key)
        return (None, key), lambda f, s, stop, turn, total: (0, stop)
    if name == "mask_tool_outputs":
        return (None, _mask_run(f, s)), _mask_span
    if name == "thinking_prune":
        key = f"thinking:{s.thinking_keep_turns}"
        transform_run(f, s, "thinking_prune", key)
        return (None, key), lambda f, s, stop, turn, total: (0, thinking_limit(f, s, stop, turn))
    return None


#: The stages of :func:`_span_lane` that only drop (their op edits nothing).
_DROPPING = ("fifo", "sliding_window", "strands_sliding_window", "trim_messages", "tool_pruning")


def span_cuts(f: Facts, names: tuple[str, ...], settings: Settings, hidden: Sequence[int]) -> tuple[Op, Op, list] | None:
    """``(drop, edit, spans)`` where pipeline ``names``' layout at every call treats one run of
    the history by one op (fifo, sliding_window, strands_sliding_window, trim_messages,
    tool_pruning, last_n_observations, truncate_results, thinking_prune; those :func:`layout_fn`
    runs after truncate_results too, and tool_pruning before it; mask_tool_outputs where it
    masks every result of the messages it reaches): call k+1's layout sends the
    messages ``[lo, hi)`` of ``spans[k] == (lo, hi)`` under op ``drop`` (``(0, 0)``: none) and
    the rest of its history under op ``edit`` (what :func:`layout_fn`'s layout says, without
    building it: ``_drops(lo, hi)``, a transform's run, or its :func:`_under` the truncation).
    ``spans[k]`` None: that call's layout is not of that form (fifo inside the current turn:
    ask :func:`layout_fn`'s). None: not such a pipeline. ``f`` and ``hidden``: as
    :func:`replay_layouts` has and takes them."""
    edit_key = None
    if len(names) == 2 and names[0] == "truncate_results" and names[1] in _DROPPING:  # _truncated_then
        edit_key, names = truncation_key(settings), names[1:]
    elif names == ("tool_pruning", "truncate_results"):  # _pruned_then_truncated
        edit_key, names = truncation_key(settings), names[:1]
    elif len(names) != 1:
        return None
    if edit_key is not None:  # the truncation's run first, as the layout functions run it
        transform_run(f, settings, "truncate_results", edit_key)
    lane = _span_lane(f, names, settings)
    if lane is None:
        return None
    drop, span_of = lane
    table = f.table
    prefix, overhead, stops, turns = table.prefix, table.overhead, f.stops, f.turns
    g, saved = f, None
    if edit_key is not None and names != ("tool_pruning",):  # the stage sees the truncated session
        g, saved = truncated_facts(f, settings), _truncation(f, settings)
    spans: list[tuple[int, int] | None] = []
    for k, stop in enumerate(stops):
        total = overhead + hidden[k] + prefix[stop]
        span = span_of(g, settings, stop, turns[k], total if saved is None else total - saved[stop])
        if span is not None:
            lo, hi = span
            if hi > stop:
                hi = stop
            span = (lo, hi) if hi > lo else (0, 0)
        spans.append(span)
    if edit_key is not None:
        return (drop[0], edit_key), (None, edit_key), spans
    return drop, PLAIN, spans


def replay_layouts(view, table, names: tuple[str, ...], settings: Settings, hidden: Sequence[int]):
    """``(facts, layout)`` where ``layout(call)`` is the layout (or None) of that call (1-based)
    under pipeline ``names``' fast path (``hidden``: as :func:`.incremental.replay_tokens` takes
    it), computed when asked (a replay walks the calls in order and keeps none it passed); None
    when the pipeline has no fast path or no layouts."""
    from .incremental import _prepared

    make = layout_fn(names)
    prepared = _prepared(view, table, names, settings) if make is not None else None
    if prepared is None:
        return None
    f, _ = prepared
    prefix, overhead, stops, turns = table.prefix, table.overhead, f.stops, f.turns

    def layout(n: int) -> Layout | None:
        stop = stops[n - 1]
        return make(f, settings, stop, turns[n - 1], overhead + hidden[n - 1] + prefix[stop])

    return f, layout


__all__ = ["Layout", "Layouts", "Op", "layout_fn", "span_cuts", "message_key"]
