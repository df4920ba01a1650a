"""Incremental replay: every model call's input under a stateless strategy in about one pass.

Planning each call on its own (:func:`inspector.strategies.pipeline.run`) builds a working copy
of the whole history per call, so a replay of every call is O(calls x messages). Here the facts
a strategy's decision depends on are computed once per session (prefix sums of the non-system
tokens, the next plain user message after every index, the saving of a per-message transform)
and each call's total is found in O(log n) from its stop index and turn: monotone cut points
(fifo, windows, trim_messages), a per-turn sum (tool_pruning) or a prefix of per-message savings
(truncation, thinking, observations, masking and clearing of tool results).

Where a fast path's preconditions do not hold, :func:`replay_tokens` returns None and the caller
plans each call on its own, which is the definition: every fast path here is checked against it
by a property test on generated sessions (tests/test_incremental_replay.py) and must be kept
equal to it; a strategy changed without its fast path fails that test. Preconditions shared by
all fast paths: a single strategy or one of :data:`PIPELINES`, no compaction recorded in the session (every call sees
the history from message 0), and tool exchanges that are runs of consecutive messages within one
turn (:attr:`~inspector.strategies.common.ViewCache.units_simple`), so a cut between units is a
cut between index runs and no exchange crosses a turn.

Inside the current turn, what :func:`~inspector.strategies.common.protected_in_turn` keeps is
two index runs per call (:func:`_guard_spans`: the turn's opening and its latest exchange), so
the candidates fifo, summarize and clear_tool_uses work on are runs of non-system positions
(:class:`_Candidates`) and their decisions there are bisections too: fifo, summarize,
clear_tool_uses and ``clear_tool_uses,fifo`` never hand a call to the strategy's own code.
summarize replays its rounds on prefix sums; its summary (whose size depends on the text of what
it replaces) is counted, not built, for each replaced prefix a call asks, with the tool tally
carried from call to call (:meth:`~inspector.strategies.summarize._SummaryBuilder.tokens`). fifo's
cut, after clear_tool_uses too, is one bisection of prefix sums in the first run of candidates
(``first_reaching``).

Per-message transforms are derived, not re-implemented: their per-message effect is read off
one run of the strategy's own code over the whole session (:func:`_transform_savings`).

Stateful ``compact`` is sized in O(1) per call from its state in
:mod:`inspector.analysis.compaction`. tool_pruning changes nothing where no turn before the
last call's holds more than its prompt and final answer (a single-prompt session, or a chat whose
tools are all in its last turn), so there ``tool_pruning,X`` is X's fast path; elsewhere
``tool_pruning,fifo`` finds fifo's cut in two position spaces, what pruning leaves before the
current turn (:class:`_Survivors`: one prefix-sum array for the session) then the current turn's
candidates (:class:`_Candidates`), one bisection in either, and ``tool_pruning,strands_sliding_window``
its cut, the next plain user message in the survivors or the current turn. Not incremental
(planned call by call): other pipelines,
``fifo`` with ``pair_safe=False``, ``trim_messages`` with ``end_on``, ``clear_tool_uses`` with
``clear_tool_inputs``, ``tool_pruning,sliding_window`` in messages mode, and plugin strategies;
mask_tool_outputs hands a call whose masking reaches the current turn to its own code.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence
from functools import cached_property
from itertools import accumulate

from ..tokens import TokenTable
from ..units import SessionView
from .base import Status, Working
from .clear_tool_uses import PLACEHOLDER as CLEARED
from .common import count_text, view_cache
from .params import SettingsBase as Settings
from .pipeline import STRATEGIES

#: ``saving(facts, settings, stop, turn, total)``: the tokens a strategy removes from the history
#: ``messages[:stop]`` whose current turn is ``turn`` and whose whole request is ``total``; None
#: when the strategy would act inside the current turn (where what it may touch depends on the
#: turn's prompt and latest exchange, :func:`inspector.strategies.common.protected_in_turn`):
#: that call is planned exactly.
Saving = Callable[["Facts", Settings, int, int, int], "int | None"]


class Facts:
    """Per-session arrays the fast paths share, built once per (view, table)."""

    def __init__(self, view: SessionView, table: TokenTable, totals: list[int] | None = None) -> None:
        self.view, self.table = view, table
        self.n = n = len(view)
        #: Each message's tokens as the strategy sees them: the table's, or after an earlier
        #: stage's per-message transform (see :func:`_after_truncation`).
        self.totals = totals = table.totals if totals is None else totals
        self.prefix = table.prefix if totals is table.totals else _prefix(totals)
        roles = view.roles
        ns_prefix = [0] * (n + 1)
        ns_count = [0] * (n + 1)
        ns_index: list[int] = []
        running = count = 0
        for i in range(n):
            if roles[i] != "system":
                running += totals[i]
                count += 1
                ns_index.append(i)
            ns_prefix[i + 1] = running
            ns_count[i + 1] = count
        ns_index.append(n)  # position len: "past the end"
        # machine-integer arrays: 8 bytes an entry where a list holds an int object each (600k messages: ~55 MB less)
        self.ns_prefix, self.ns_count, self.ns_index = array("q", ns_prefix), array("q", ns_count), array("q", ns_index)
        cache = view_cache(view)
        self.turn_start = cache.turn_start
        self.stops = [c.message_index for c in view.calls]
        self.turns = [c.turn for c in view.calls]
        self._derived: dict = {}  # :func:`_derived`'s values

    @cached_property
    def eligible(self) -> bool:
        """The shared preconditions (see the module doc)."""
        view = self.view
        return view_cache(view).units_simple and all(c.context_start == 0 for c in view.calls)

    @cached_property
    def unit_bounds(self) -> tuple[Sequence[int], Sequence[int]]:
        """``(start, end)``: the first index and one past the last of each message's unit."""
        view = self.view
        start, end = [0] * self.n, [0] * self.n
        for u in view.units:
            a, b = u.indices[0], u.indices[-1] + 1
            for i in u.indices:
                start[i], end[i] = a, b
        return array("q", start), array("q", end)

    def next_where(self, flags: Sequence[int]) -> list[int]:
        """``out[j]``: the first index >= j whose flag is set (``n`` when none)."""
        out = [self.n] * (self.n + 1)
        nxt = self.n
        for j in range(self.n - 1, -1, -1):
            if flags[j]:
                nxt = j
            out[j] = nxt
        return out

    @cached_property
    def next_plain_user(self) -> list[int]:
        return self.next_where(view_cache(self.view).plain_user)


def facts(view: SessionView, table: TokenTable) -> Facts:
    """The :class:`Facts` of ``view`` counted with ``table``, kept on the view."""
    kept = view.__dict__.get("_incremental_facts")
    if kept is None or kept.table is not table:
        kept = view.__dict__["_incremental_facts"] = Facts(view, table)
    return kept


def _prefix(values: Sequence[int]) -> list[int]:
    return list(accumulate(values, initial=0))


# --- monotone cut points ---------------------------------------------------------------------


def _fifo_cut(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int | None:
    """How many non-system messages :mod:`.fifo` (pair_safe) drops, oldest first, before the
    current turn; None when dropping every one of them is not enough (fifo then goes on inside
    the current turn)."""
    budget = s.budget
    if budget is None or total <= budget:
        return 0
    limit = min(f.turn_start.get(turn, 0), stop)
    ns_prefix, ns_count, ns_index = f.ns_prefix, f.ns_count, f.ns_index
    if ns_prefix[limit] < total - budget and limit < stop:
        return None
    m = ns_count[limit]
    if not m:
        return 0
    j = bisect_left(ns_prefix, total - budget, 1, limit + 1)
    k = ns_count[j] if j <= limit else m
    u_start, u_end = f.unit_bounds
    if k < m:  # to the end of the last dropped message's unit
        k = ns_count[u_end[ns_index[k - 1]]]
    cap = ns_count[stop] - s.min_history_messages
    if k > cap:
        k = max(cap, 0)
        if 0 < k < m and u_start[ns_index[k]] == u_start[ns_index[k - 1]]:
            k = ns_count[u_start[ns_index[k]]]
    return k


def _fifo(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int | None:
    k = _fifo_cut(f, s, stop, turn, total)
    if k is None:
        return None
    return f.ns_prefix[f.ns_index[k - 1] + 1] if k > 0 else 0


def _window_turns_span(f: Facts, s: Settings, turn: int) -> tuple[int, int]:
    """The index run whose non-system messages the turns window drops (empty: ``lo >= hi``)."""
    if turn < 1 or 1 not in f.turn_start:
        return 0, 0
    oldest = max(turn - max(s.window_turns, 1) + 1, 1)
    return f.turn_start[1], f.turn_start.get(oldest, 0)


def _window_turns(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    first, limit = _window_turns_span(f, s, turn)
    return f.ns_prefix[limit] - f.ns_prefix[first] if limit > first else 0


def _window_messages_cut(f: Facts, s: Settings, stop: int, turn: int) -> int:
    """The messages window drops every non-system message before this index."""
    length = f.ns_count[stop]
    window = s.window_messages
    if length <= window:
        return 0
    p = length - window
    current = f.ns_count[f.turn_start.get(turn, 0)]
    if p >= current:
        p = current
    else:
        p = min(f.ns_count[f.next_plain_user[f.ns_index[p]]], current)
    return f.ns_index[p] if p < length else stop


def _window_messages(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    return f.ns_prefix[_window_messages_cut(f, s, stop, turn)]


def _sliding_window(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    return (_window_turns if s.window_mode == "turns" else _window_messages)(f, s, stop, turn, total)


class _StrandsFacts:
    def __init__(self, f: Facts) -> None:
        view = f.view
        roles, calls, results = view.roles, view.call_ids, view.result_ids
        user = [r in ("user", "tool") for r in roles]
        self.next_user = f.next_where([u and not results[i] for i, u in enumerate(user)])
        # a call message whose next non-system message is a user/tool message with results
        ns_index, ns_count = f.ns_index, f.ns_count
        flags = [0] * f.n
        for i in range(f.n):
            if calls[i] and roles[i] != "system":
                nxt = ns_index[ns_count[i] + 1]
                if nxt < f.n and user[nxt] and results[nxt]:
                    flags[i] = 1
        self.next_call = f.next_where(flags)
        #: the fast path reads a user/tool message as never making calls (the strategy checks)
        self.ok = not any(u and calls[i] for i, u in enumerate(user))


def _strands_cut(f: Facts, s: Settings, stop: int) -> int:
    """strands_sliding_window drops every non-system message before this index."""
    length = f.ns_count[stop]
    size = s.window_messages
    if length <= size:
        return 0
    if size == 0:
        return stop
    sf = _derived(f, "strands", _StrandsFacts)
    first = f.ns_index[length - size]
    j = sf.next_user[first]
    if j >= stop:
        j = sf.next_call[first]
        if j >= stop or f.ns_index[f.ns_count[j] + 1] >= stop:
            return 0
    return j


def _strands(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    return f.ns_prefix[_strands_cut(f, s, stop)]


def _trim_cut(f: Facts, s: Settings, stop: int) -> tuple[int, int, int] | None:
    """:mod:`.trim_messages` as three cut points ``(lo, start, kept_from)``: it drops
    ``[lo, start)`` to fit the budget, ``[start, kept_from)`` to start on the wanted type and, with
    ``strategy="first"``, everything from ``kept_from`` on (then ``lo == start == 0``)."""
    budget = s.budget
    if budget is None or not stop:
        return None
    prefix = f.prefix
    if s.trim_strategy == "first":
        if s.trim_start_on != "none" or s.trim_include_system:
            return None  # LangChain raises ValueError for these combinations
        return 0, 0, bisect_left(prefix, budget + 1, 0, stop + 1) - 1  # the longest prefix within budget
    lo = 0
    if s.trim_include_system and f.view.roles[0] == "system":
        lo = 1
        budget = max(0, budget - f.totals[0])
    start = bisect_left(prefix, prefix[stop] - budget, lo, stop + 1)
    kept_from = start
    if s.trim_start_on != "none":
        kept_from = min(_derived(f, f"trim:{s.trim_start_on}", _trim_types(s.trim_start_on))[start], stop)
    return lo, start, kept_from


def _trim_messages(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    cut = _trim_cut(f, s, stop)
    if cut is None:
        return 0
    lo, _, kept_from = cut
    prefix = f.prefix
    if s.trim_strategy == "first":
        return prefix[stop] - prefix[kept_from]
    return prefix[kept_from] - prefix[lo]


def _trim_types(wanted: str) -> Callable[[Facts], list[int]]:
    def make(f: Facts) -> list[int]:
        from ..strategies.trim_messages import _matches, message_type

        w = _full_working(f, Settings())
        return f.next_where([_matches(message_type(w, i), wanted) for i in range(f.n)])

    return make


# --- sums over turns and per-message transforms --------------------------------------------


def _tool_pruning_by_turn(f: Facts) -> list[int]:
    """``out[t]``: tokens tool_pruning removes from turns 1..t-1 (turns before turn ``t``)."""
    view = f.view
    roles, totals = view.roles, f.totals
    last = view.turns[-1].number if view.turns else 0
    per_turn = [0] * (last + 2)
    for t in view.turns:
        if t.number:
            per_turn[t.number + 1] = sum(
                totals[i] for i in range(t.start, t.stop)
                if i != t.user_index and i != t.final_index and roles[i] != "system"
            )
    return _prefix(per_turn)[1:]


def _tool_pruning(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    return _derived(f, "tool_pruning", _tool_pruning_by_turn)[turn]


def _full_working(f: Facts, s: Settings) -> Working:
    """The whole session as one history (every message live, the last turn current)."""
    n, view = f.n, f.view
    current = view.turn_of[-1] if n else 0
    return Working(view, f.table, s, None, n, current, list(range(n)), f.table.totals[:n], [Status.KEPT] * n,
                   [None] * n, [None] * n)


def transform_run(f: Facts, s: Settings, name: str, key: str) -> Working:
    """One run of strategy ``name``'s own code over the whole session, kept under ``key`` (which
    names the settings it reads): what a per-message transform does to each message."""

    def make(f: Facts) -> Working:
        w = _full_working(f, s)
        STRATEGIES[name].apply(w)
        return w

    return _derived(f, "run:" + key, make)


def _transform_savings(f: Facts, s: Settings, name: str, key: str) -> list[int]:
    """Prefix sums of what strategy ``name`` saves on each message, read off one run of its own
    code over the whole session (:func:`transform_run`): for strategies that edit each message
    on its own facts."""
    w = transform_run(f, s, name, key)
    totals = f.table.totals
    return _prefix([totals[i] - (w.tokens[i] if w.live[i] else 0) for i in range(f.n)])


def _truncation(f: Facts, s: Settings) -> list[int]:
    """Prefix sums of what truncate_results saves on each message (its own code, run once)."""
    key = truncation_key(s)
    return _derived(f, key, lambda f: _transform_savings(f, s, "truncate_results", key))


def truncation_key(s: Settings) -> str:
    return f"truncate:{s.max_result_tokens}:{s.truncate_unit}"


def _truncate_results(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    return _truncation(f, s)[stop]


def thinking_limit(f: Facts, s: Settings, stop: int, turn: int) -> int:
    """thinking_prune edits the messages before this index (the turns it keeps are after it)."""
    first_kept = max(turn - s.thinking_keep_turns + 1, 0)
    return min(f.turn_start.get(first_kept, 0), stop) if first_kept > 0 else 0


def _thinking_prune(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    key = f"thinking:{s.thinking_keep_turns}"
    # run at the last turn, the whole scope of any call (limit grows with the turn) is edited
    return _derived(f, key, lambda f: _transform_savings(f, s, "thinking_prune", key))[thinking_limit(f, s, stop, turn)]


class _Observations:
    """last_n_observations with every observation but the first elided, read off its own code."""

    def __init__(self, f: Facts, s: Settings) -> None:
        view = f.view
        first_user = next((i for i in range(f.n) if view_cache(view).plain_user[i]), None)
        self.first_user = first_user
        results = [i for i in range(f.n) if view.result_ids[i] and (first_user is None or i > first_user)]
        self.positions = results
        self.ok = first_user is None or not any(view.result_ids[i] for i in range(first_user))
        saved = _transform_savings(f, s.model_copy(update={"observations_keep": 0, "polling": 1}), "last_n_observations", "observations")
        self.savings = _prefix([saved[i + 1] - saved[i] for i in results])


def observations_elided(f: Facts, s: Settings, stop: int) -> tuple[_Observations, int, int]:
    """``(o, first, end)``: last_n_observations elides the result messages
    ``o.positions[first:end]`` of the history ``messages[:stop]``."""
    o = _derived(f, "observations", lambda f: _Observations(f, s))
    after = bisect_left(o.positions, stop)  # result messages before the call (after the first user)
    if o.first_user is not None and o.first_user < stop:
        count, first = 1 + after, 0  # observations[0] is the first user message
    else:
        count, first = after, 1  # observations[0] is the first result message, never elided
    last_removed = max(0, (count // s.polling) * s.polling - s.observations_keep)
    elided = max(0, last_removed - 1)  # observations[1:last_removed]
    return o, first, first + elided


def _last_n_observations(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    o, first, end = observations_elided(f, s, stop)
    return o.savings[end] - o.savings[first] if end > first else 0


class _ToolUses:
    """Every tool use in call order with its result: (call message, result message, block tokens, name)."""

    def __init__(self, f: Facts) -> None:
        view, cache = f.view, view_cache(f.view)
        counts = f.table.counts
        self.call_msg: list[int] = []
        self.result: list[int] = []
        self.tokens: list[int] = []
        self.names: list[str] = []
        for i in cache.call_messages:
            for n, where in enumerate(cache.call_results[i]):
                self.call_msg.append(i)
                self.names.append(view.tool_names[i][n])
                if where is None:
                    self.result.append(-1)
                    self.tokens.append(0)
                else:
                    self.result.append(where[0])
                    self.tokens.append(counts[where[0]].blocks[where[1]])
        per_message = [0] * f.n
        for i in self.call_msg:
            per_message[i] += 1
        self.uses_before = _prefix(per_message)  # uses in call messages before index j



class _ClearSizes:
    """What clear_tool_uses frees, per ``exclude_tools``: by tool use (prefix sums), by result
    message (prefix sums over message indices) and, as fifo after it sees the sizes, by
    non-system position (:func:`_cleared_ns_tokens`, made when first asked)."""

    def __init__(self, f: Facts, s: Settings) -> None:
        uses = _derived(f, "tool_uses", _ToolUses)
        placeholder = count_text(f.table.encoding, CLEARED)
        excluded = set(s.exclude_tools)
        self.f = f
        self.values = values = _prefix([
            t - placeholder if r >= 0 and name not in excluded and t > placeholder else 0
            for r, t, name in zip(uses.result, uses.tokens, uses.names)
        ])
        # by result message: what clearing every use whose result lies before index x frees
        self.by_message = _prefix(_per_message(f.n, [(r, values[u + 1] - values[u]) for u, r in enumerate(uses.result) if r >= 0]))

    @cached_property
    def cleared_ns(self) -> array:
        return _cleared_ns_tokens(self.f, self.by_message)


def _clear_sizes(f: Facts, s: Settings) -> _ClearSizes:
    sizes = f._derived.get(("clear", s.exclude_tools))  # (asked a few times a call)
    return sizes if sizes is not None else _derived(f, ("clear", s.exclude_tools), lambda f: _ClearSizes(f, s))


def _tool_uses(f: Facts) -> _ToolUses:
    uses = f._derived.get("tool_uses")  # (asked a few times a call)
    return uses if uses is not None else _derived(f, "tool_uses", _ToolUses)


def _clear_values(f: Facts, s: Settings) -> list[int]:
    """Prefix sums, over tool uses, of what clearing each use's result frees."""
    return _clear_sizes(f, s).values


def _clearing(f: Facts, s: Settings, stop: int, turn: int, total: int) -> tuple[int, int, list[tuple[int, int]]]:
    """``(freed, eligible, spans)``: clear_tool_uses at this call clears the results of the uses
    ``[0, eligible)`` but those in the message spans protected_in_turn keeps (``spans``),
    freeing ``freed`` tokens; ``freed == 0``: it does nothing. Every use counted has its result
    before ``stop`` (an exchange is a run of messages) and in its call's span."""
    if total <= s.trigger:
        return 0, 0, []
    before = _tool_uses(f).uses_before
    eligible = before[stop] - s.keep
    if eligible <= 0:
        return 0, 0, []
    values = _clear_sizes(f, s).values
    spans = _guard_spans(f, stop, turn)
    freed = values[eligible]
    for a, b in spans:
        freed -= values[min(eligible, before[b])] - values[min(eligible, before[a])]
    if not freed or freed < s.clear_at_least:
        return 0, 0, []
    return freed, eligible, spans


def _clear_tool_uses(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    return _clearing(f, s, stop, turn, total)[0]


class _ClearedCandidates:
    """:class:`_Candidates` with the sizes fifo sees after clear_tool_uses cleared the results of
    the uses ``[0, eligible)`` outside the protected message ``spans``."""

    def __init__(self, f: Facts, s: Settings, seq: _Candidates, eligible: int, spans: list[tuple[int, int]]) -> None:
        uses = _tool_uses(f)
        self.sizes = sizes = _clear_sizes(f, s)
        values = sizes.values
        self.seq, self.m, self.index = seq, seq.m, seq.index
        self.by_message = sizes.by_message
        # the uses before ``eligible`` have their results before the call message of use
        # ``eligible``, but for that message's own uses (they share its exchange)
        self.boundary = uses.call_msg[eligible] if eligible < len(uses.call_msg) else f.n
        first = uses.uses_before[self.boundary]
        self.partial = [(uses.result[u], values[u + 1] - values[u]) for u in range(first, eligible)]
        before = uses.uses_before
        self.protected = [(b, values[min(eligible, before[b])] - values[min(eligible, before[a])]) for a, b in spans]
        self.f = f

    def tokens(self, q: int) -> int:
        """The tokens of ``seq[:q]`` after clearing."""
        if q <= 0:
            return 0
        x = self.index(q - 1) + 1  # seq[:q] is every candidate before message x
        freed = self.by_message[min(x, self.boundary)]
        freed += sum(v for r, v in self.partial if 0 <= r < x)
        freed -= sum(v for end, v in self.protected if end <= x)  # protected results are not cleared
        return self.seq.tokens(q) - freed

    def first_reaching(self, need: int) -> int:
        """The first ``q >= 1`` with ``tokens(q) >= need``, else ``m``. Inside the first run of
        candidates and before the boundary message (and any result of its uses), ``tokens(q)`` is
        one entry of the cleared sizes' prefix sums (:func:`_cleared_ns_tokens`) less a constant:
        the protected spans it passes are those before the run (spans split runs)."""
        f, (x0, y0) = self.f, self.seq.runs[0]
        before = self.boundary  # seq[:length] ends before it and before any result of its uses
        for r, _ in self.partial:
            if 0 <= r < before:
                before = r
        length = min(y0, f.ns_count[before]) - x0  # tokens(q) = cleared[x0 + q] - base for q <= length
        if length >= 1:
            cleared = self.sizes.cleared_ns
            first = f.ns_index[x0] + 1
            base = self.seq.ns_tokens[x0]
            for end, v in self.protected:
                if end <= first:
                    base -= v
            if cleared[x0 + length] - base >= need:
                return bisect_left(cleared, need + base, x0 + 1, x0 + length + 1) - x0
        return _bisect_tokens(self, need, max(length, 0) + 1)


def _cleared_ns_tokens(f: Facts, by_message: Sequence[int]) -> array:
    """Per non-system position j: the tokens of the non-system messages before it, less what
    clearing every tool result in the messages up to the one before j frees (``by_message``,
    by message index): the prefix sums of the sizes fifo sees after clear_tool_uses."""
    ns_tokens, ns_index = _derived(f, "ns_tokens", _ns_tokens), f.ns_index
    return array("q", [0, *(ns_tokens[j] - by_message[ns_index[j - 1] + 1] for j in range(1, len(ns_index)))])


def _per_message(n: int, pairs: list[tuple[int, int]]) -> list[int]:
    out = [0] * n
    for i, v in pairs:
        out[i] += v
    return out


def _clear_then_fifo(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    freed, eligible, protected = _clearing(f, s, stop, turn, total)
    if not freed:
        return _fifo_exact(f, s, stop, turn, total)
    seq = fifo_candidates(f, stop, turn)
    return freed + _fifo_in_turn(f, s, stop, turn, total - freed, _ClearedCandidates(f, s, seq, eligible, protected))


class _ResultSlots:
    """Every tool result with a call, ordered as mask_tool_outputs walks them: (message, block)."""

    def __init__(self, f: Facts) -> None:
        view, cache = f.view, view_cache(f.view)
        counts = f.table.counts
        slots = []
        for i in cache.call_messages:
            for n, where in enumerate(cache.call_results[i]):
                if where is not None:
                    slots.append((where[0], where[1], view.tool_names[i][n], i))
        slots.sort()
        self.messages = [r for r, _, _, _ in slots]
        self.calls = [i for _, _, _, i in slots]
        self.names = [name for _, _, name, _ in slots]
        self.blocks = [k for _, k, _, _ in slots]
        self.tokens = [counts[r].blocks[k] for r, k, _, _ in slots]
        self.seen = _prefix(self.tokens)


def mask_cut(f: Facts, s: Settings, stop: int, turn: int) -> tuple[int, int] | None:
    """``(last, freed)``: mask_tool_outputs masks the result slots ``[0, last]`` that its tool
    filters and the placeholder's size let it (:func:`mask_key`), freeing ``freed`` tokens
    (0: it masks nothing); None when results protected_in_turn keeps are among them."""
    slots = _derived(f, "result_slots", _ResultSlots)
    turns = s.mask_protect_turns
    if turns <= 0:
        before = stop
    elif turns == 1:
        before = min(f.turn_start.get(turn, 0), stop)
    else:
        before = min(f.turn_start.get(max(turn - turns + 1, 0), 0), stop)
    count = bisect_left(slots.messages, before)
    if not count:
        return -1, 0
    if slots.messages[count - 1] >= _turn_floor(f, stop, turn):
        return None  # results protected_in_turn keeps are among them: plan this call exactly
    seen = slots.seen
    # the newest results are protected while their running sum stays within protect_tokens
    last = bisect_left(seen, seen[count] - s.mask_protect_tokens, 0, count + 1) - 1
    if s.mask_keep_results is not None:
        last = min(last, count - s.mask_keep_results - 1)
    if last < 0:
        return -1, 0
    freed = _derived(f, mask_key(s), lambda f: _prefix(_mask_values(f, s)))[last + 1]
    return (last, freed) if freed and freed >= s.mask_min_tokens else (-1, 0)


def mask_key(s: Settings) -> str:
    return f"mask:{s.mask_placeholder}:{','.join(s.mask_tools)}:{','.join(s.mask_protected_tools)}"


def _mask_values(f: Facts, s: Settings) -> list[int]:
    """Per result slot: what masking it frees (0: its tool or its size keeps it)."""

    def make(f: Facts) -> list[int]:
        slots = _derived(f, "result_slots", _ResultSlots)
        placeholder = count_text(f.table.encoding, s.mask_placeholder)
        wanted, never = set(s.mask_tools), set(s.mask_protected_tools)
        return [
            t - placeholder if not ((wanted and name not in wanted) or name in never or t <= placeholder) else 0
            for t, name in zip(slots.tokens, slots.names)
        ]

    return _derived(f, "values:" + mask_key(s), make)


def _mask_tool_outputs(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int | None:
    cut = mask_cut(f, s, stop, turn)
    return None if cut is None else cut[1]


# --- what protected_in_turn keeps, as index spans, and the candidates around it ---------------


class _Shape:
    """Per-session arrays that place :func:`~inspector.strategies.common.protected_in_turn` in
    O(1): the next assistant message at or after each index, the last one before it, and each
    message's unit as an index run (a message with no unit is a run of its own)."""

    def __init__(self, f: Facts) -> None:
        view, n = f.view, f.n
        roles = view.roles
        self.next_assistant = f.next_where([r == "assistant" for r in roles])
        before = [-1] * (n + 1)
        last = -1
        for j in range(n):
            before[j] = last
            if roles[j] == "assistant":
                last = j
        before[n] = last
        self.last_assistant_before = before
        ustart, uend = list(range(n)), list(range(1, n + 1))
        for u in view.units:
            a, b = u.indices[0], u.indices[-1] + 1
            for i in u.indices:
                ustart[i], uend[i] = a, b
        self.ustart, self.uend = ustart, uend
        self.opening = view_cache(view).opening_unit_before


def _guard_spans(f: Facts, stop: int, turn: int) -> list[tuple[int, int]]:
    """``protected_in_turn``'s members for the history ``messages[:stop]`` with current turn
    ``turn``, as sorted disjoint index runs (tool exchanges are runs: units_simple); computed
    once per call (several fast paths of a compare ask)."""
    memo = f._derived.get("guard_spans")
    if memo is None:
        memo = f._derived["guard_spans"] = {}
    spans = memo.get((stop, turn))
    if spans is None:
        spans = memo[(stop, turn)] = _spans(f, stop, turn)
    return spans


def _spans(f: Facts, stop: int, turn: int) -> list[tuple[int, int]]:
    sh = f._derived.get("shape") or _derived(f, "shape", _Shape)
    start = f.turn_start.get(turn, 0)
    if start > stop:
        start = stop
    first_reply = sh.next_assistant[start]
    if first_reply > stop:
        first_reply = stop
    tail = sh.last_assistant_before[stop]
    if tail < first_reply:
        tail = start
    raw = [(start, first_reply), (tail, stop)]
    opening = sh.opening.get(turn)
    if opening:
        opening = [i for i in opening if i < stop]
        if opening:
            raw.append((min(opening), max(opening) + 1))
    ustart, uend = sh.ustart, sh.uend
    spans = [(min(ustart[a], a), min(max(uend[b - 1], b), stop)) for a, b in raw if a < b]
    spans.sort()
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        if merged and a <= merged[-1][1]:
            if b > merged[-1][1]:
                merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return merged


class _Candidates:
    """``candidates(w, in_turn=True)`` of an untouched history, as runs of non-system positions:
    the non-system messages before ``stop`` outside what the turn protects. ``tokens`` is the
    prefix sum (over non-system positions) of the sizes the strategy sees."""

    __slots__ = ("f", "stop", "turn", "runs", "m", "ns_tokens")

    def __init__(self, f: Facts, stop: int, turn: int, ns_tokens: list[int]) -> None:
        self.stop, self.turn = stop, turn
        count = f.ns_count
        runs: list[tuple[int, int]] = []
        a = m = 0
        for lo, hi in _guard_spans(f, stop, turn):
            if lo > a and (x := count[a]) < (y := count[lo]):
                runs.append((x, y))
                m += y - x
            a = hi
        if stop > a and (x := count[a]) < (y := count[stop]):
            runs.append((x, y))
            m += y - x
        self.f, self.runs, self.ns_tokens, self.m = f, runs, ns_tokens, m

    def index(self, p: int) -> int:
        """The message index of ``seq[p]``."""
        for x, y in self.runs:
            if p < y - x:
                return self.f.ns_index[x + p]
            p -= y - x
        raise IndexError(p)

    def __getitem__(self, p: int | slice) -> int | list[int]:
        """``seq[p]``, or the message indices of ``seq[lo:hi]`` (a step-less slice) as a list."""
        if type(p) is not slice:
            return self.index(p)
        lo, hi, _ = p.indices(self.m)
        out: list[int] = []
        ns_index, offset = self.f.ns_index, 0
        for x, y in self.runs:
            if hi <= offset:
                break
            end = offset + y - x
            if lo < end:
                out += ns_index[x + max(lo - offset, 0) : x + min(hi, end) - offset]
            offset = end
        return out

    def __len__(self) -> int:
        return self.m

    def tokens(self, q: int) -> int:
        """The tokens of ``seq[:q]``."""
        t, out = self.ns_tokens, 0
        for x, y in self.runs:
            if q <= y - x:
                return out + t[x + q] - t[x]
            out += t[y] - t[x]
            q -= y - x
        return out

    def first_reaching(self, need: int) -> int:
        """The first ``q >= 1`` with ``tokens(q) >= need``, else ``m``: in the first run, a
        bisection of the prefix sums."""
        x, y = self.runs[0]
        t = self.ns_tokens
        if t[y] - t[x] >= need:
            return bisect_left(t, need + t[x], x + 1, y + 1) - x
        return _bisect_tokens(self, need, y - x + 1)

    def key(self, q: int) -> tuple:
        """What ``seq[:q]`` depends on: the runs it covers (the last one by its start)."""
        out = []
        for x, y in self.runs:
            if q <= y - x:
                out.append(x)
                break
            out.append((x, y))
            q -= y - x
        return tuple(out)


def _bisect_tokens(seq, need: int, lo: int) -> int:
    """The first ``q`` in ``[lo, m]`` with ``seq.tokens(q) >= need`` (non-decreasing in q), else
    ``m``; ``tokens(q) < need`` below ``lo``."""
    hi = seq.m
    while lo < hi:
        mid = (lo + hi) // 2
        if seq.tokens(mid) >= need:
            hi = mid
        else:
            lo = mid + 1
    return min(lo, hi)


def _ns_tokens(f: Facts) -> list[int]:
    """Prefix sums of the non-system messages' tokens, by non-system position."""
    totals = f.totals
    return _prefix([totals[i] for i in f.ns_index[:-1]])


def _same_unit(f: Facts, seq: _Candidates, p: int) -> bool:
    unit_of = f.view.unit_of
    return unit_of[seq.index(p)] == unit_of[seq.index(p - 1)]


def _past_unit(f: Facts, seq, p: int) -> int:
    """Where ``while p < m and _same_unit(f, seq, p): p += 1`` stops (``p >= 1``), found per run
    of ``seq`` from where each unit starts among the non-system positions, not per candidate."""
    starts = _derived(f, "unit_starts", _unit_starts)
    unit_of, ns_index = f.view.unit_of, f.ns_index
    offset, previous = 0, None  # the position of the run's first candidate; the last ns position before it
    for x, y in seq.seq.runs if isinstance(seq, _ClearedCandidates) else seq.runs:
        end = offset + y - x
        if p < end:
            if p == offset:  # a run's first candidate: against the last one of the run before
                if previous is None or unit_of[ns_index[x]] != unit_of[ns_index[previous]]:
                    return p
                p += 1
            if p < end:
                q = starts[x + p - offset]
                if q < y:
                    return offset + q - x
                p = end
        offset, previous = end, y - 1
    return p


def _unit_starts(f: Facts) -> list[int]:
    """Per non-system position q: the first position >= q whose message starts a unit (its unit
    is not the one of the non-system message before it); past the end: their count."""
    unit_of, ns_index = f.view.unit_of, f.ns_index
    n = len(ns_index) - 1
    out = [n] * (n + 1)
    nxt = n
    for q in range(n - 1, -1, -1):
        if q == 0 or unit_of[ns_index[q]] != unit_of[ns_index[q - 1]]:
            nxt = q
        out[q] = nxt
    return out


def _fifo_in_turn(f: Facts, s: Settings, stop: int, turn: int, total: int, seq: _Candidates) -> int:
    """What :func:`.fifo._drop_units_fast` removes from the candidates ``seq`` (its sizes), the
    current turn included."""
    k = fifo_in_turn_cut(f, s, stop, total, seq)
    return seq.tokens(k) if k > 0 else 0


def fifo_in_turn_cut(f: Facts, s: Settings, stop: int, total: int, seq: _Candidates) -> int:
    """How many of the candidates ``seq`` :func:`.fifo._drop_units_fast` drops, oldest first."""
    budget = s.budget
    if budget is None or total <= budget:
        return 0
    m = seq.m
    if not m:
        return 0
    k = _past_unit(f, seq, seq.first_reaching(total - budget))
    limit = f.ns_count[stop] - s.min_history_messages
    if k > limit:
        k = max(limit, 0)
        while 0 < k < m and _same_unit(f, seq, k):
            k -= 1
    return k


def fifo_candidates(f: Facts, stop: int, turn: int) -> _Candidates:
    """The candidates fifo drops from in the current turn, by their table sizes: made once per
    call and kept (not to be changed), as :func:`_guard_spans` is (a compare's summarize and
    clear_tool_uses,fifo ask at every call)."""
    memo = f._derived.get("candidates")
    if memo is None:
        memo = f._derived["candidates"] = {}
    seq = memo.get((stop, turn))
    if seq is None:
        seq = memo[(stop, turn)] = _Candidates(f, stop, turn, f._derived.get("ns_tokens") or _derived(f, "ns_tokens", _ns_tokens))
    return seq


def _fifo_exact(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    """fifo (pair_safe) at any call, the current turn included."""
    saved = _fifo(f, s, stop, turn, total)
    if saved is not None:
        return saved
    return _fifo_in_turn(f, s, stop, turn, total, fifo_candidates(f, stop, turn))


def _summarize(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    """What :mod:`.summarize` saves (replaced tokens minus its summary's), its rounds replayed on
    the candidates' prefix sums; each summary is built once per replaced prefix."""
    cut = summarize_cut(f, s, stop, turn, total)
    if cut is None:
        return 0
    seq, k, summaries = cut
    return seq.tokens(k) - summaries.tokens(seq, k)


def summarize_cut(f: Facts, s: Settings, stop: int, turn: int, total: int):
    """``(seq, cut, summaries)``: summarize replaces the candidates ``seq[:cut]`` by a summary
    of ``summaries.tokens(seq, cut)`` tokens; None when it does nothing."""
    budget = s.budget
    if budget is None or total <= budget:
        return None
    seq = fifo_candidates(f, stop, turn)
    m = seq.m
    if not m:
        return None
    summaries = _derived(f, f"summaries:{s.summary_tokens}", lambda f: _Summaries(f, s.summary_tokens, "system"))
    framing, ratio = summaries.framing, s.summary_ratio
    estimate = framing + s.summary_tokens
    history = f.ns_count[stop]
    # A cut inside the first run of candidates (a replay's usual case) is a non-system position:
    # its unit's end and its tokens are read off one array each, without _past_unit's walk.
    x0, first_end = seq.runs[0]
    first = first_end - x0
    ns_tokens, starts = seq.ns_tokens, _derived(f, "unit_starts", _unit_starts)
    base = ns_tokens[x0]
    # ns_tokens at the end of what is replaced when the rest fits with a summary of the cap
    # (it surely fits), and when it may fit with the actual summary (summarize's two checks)
    surely, maybe = base + total - budget + estimate, base + total - budget + framing
    cut, step = 0, max(1, int(history * ratio))
    while cut < m:  # summarize's own rounds (safe cuts: between units)
        p = cut + step
        if p > m:
            p = m
        q = starts[x0 + p] if p < first else first_end
        if q < first_end:  # _past_unit(f, seq, p) within the first run
            cut = q - x0
            replaced = ns_tokens[q]
        else:
            cut = _past_unit(f, seq, p)
            replaced = base + seq.tokens(cut)
        if replaced >= surely:
            break
        if replaced >= maybe and total - (replaced - base) + summaries.tokens(seq, cut) <= budget:
            break
        step = int((history - cut + 1) * ratio) - 1  # of the rest, the summary counting as one message
        if step < 1:
            step = 1
    return seq, cut, summaries


class _Summaries:
    """The summary tokens of each replaced prefix of candidates, one
    :class:`~inspector.strategies.summarize._SummaryBuilder` per prefix shape (the runs it
    covers), so successive calls move the same tally instead of starting over; a count builds no
    text (only a plan that inserts the summary builds it)."""

    def __init__(self, f: Facts, cap: int, role: str) -> None:
        from types import SimpleNamespace

        from ..tokens import get_counter, get_profile
        from .summarize import _SummaryBuilder

        self.f, self.cap, self.role = f, cap, role
        self.counter, self.profile = get_counter(f.table.encoding), get_profile(f.table.profile)
        self.make = lambda seq: _SummaryBuilder(SimpleNamespace(view=f.view), seq, self.counter, self.profile, cap, role)
        self.builders: dict[tuple, object] = {}
        self.framing = self.make([]).framing

    def tokens(self, seq: _Candidates, cut: int) -> int:
        key = seq.key(cut)
        builder = self.builders.get(key)
        if builder is None:
            builder = self.builders[key] = self.make(_open_prefix(self.f, key))
        return builder.tokens(cut)


def _open_prefix(f: Facts, key: tuple) -> _Candidates:
    """The candidates of prefix shape ``key``, the last run open to the end of the session."""
    seq = object.__new__(_Candidates)
    last = len(f.ns_index) - 1
    seq.f, seq.stop, seq.turn, seq.ns_tokens = f, None, None, None
    seq.runs = [*key[:-1], (key[-1], last)]
    seq.m = sum(y - x for x, y in seq.runs)
    return seq


def _turn_floor(f: Facts, stop: int, turn: int) -> int:
    """The first index protected_in_turn may protect in this call: the current turn's start, or
    the start of the exchange that opens it."""
    start = min(f.turn_start.get(turn, 0), stop)
    opening = view_cache(f.view).opening_unit_before.get(turn, ())
    return min(start, *opening) if opening else start


def _derived(f: Facts, key: str | tuple, make: Callable[[Facts], object]):
    """``make(f)``, computed once per Facts under ``key`` (keys name the settings they read)."""
    cache = f._derived
    value = cache.get(key)
    if value is None:
        value = cache[key] = make(f)
    return value


def _single(name: str, s: Settings) -> Saving | None:
    """The fast path of strategy ``name`` alone under ``s``, or None where it has none."""
    if name == "fifo":
        return _fifo_exact if s.pair_safe else None
    if name == "trim_messages":
        return _trim_messages if s.trim_end_on == "none" else None
    if name == "clear_tool_uses":
        return None if s.clear_tool_inputs else _clear_tool_uses
    if name == "summarize":
        return _summarize
    return _FAST.get(name)


# --- pipelines ---------------------------------------------------------------------------------
# A stage after truncate_results sees each message with its result cut: the same decision on
# the truncated sizes. tool_pruning leaves every earlier turn its question and answer, which
# carry no tool results (exchanges are runs inside a turn), so truncation after it saves only
# outside the pruned turns, and a window after it drops the questions and answers left in the
# turns it cuts.

#: Strategies whose fast path reads only message sizes (so works on truncated sizes).
_AFTER_TRUNCATION = ("fifo", "sliding_window", "strands_sliding_window", "tool_pruning", "trim_messages")


def truncated_facts(f: Facts, s: Settings) -> Facts:
    """The :class:`Facts` of the session as a stage after truncate_results sees it."""
    cut = _truncation(f, s)
    return _derived(f, "after-" + truncation_key(s),
                    lambda f: Facts(f.view, f.table, [t - (cut[i + 1] - cut[i]) for i, t in enumerate(f.totals)]))


def _truncated_then(then: Saving, s: Settings) -> Saving:
    def saving(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int | None:
        cut = _truncation(f, s)
        after = then(truncated_facts(f, s), s, stop, turn, total - cut[stop])
        return None if after is None else cut[stop] + after

    return saving


def _pruned_then_truncated(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    cut = _truncation(f, s)
    if turn < 1:
        return cut[stop]
    pruned = _derived(f, "tool_pruning", _tool_pruning_by_turn)
    return pruned[turn] + cut[stop] - (cut[f.turn_start[turn]] - cut[f.turn_start[1]])


def _pruned_then_window(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int:
    if turn < 1:
        return 0
    pruned = _derived(f, "tool_pruning", _tool_pruning_by_turn)
    oldest = max(turn - max(s.window_turns, 1) + 1, 1)
    return pruned[turn] + _window_turns(f, s, stop, turn, total) - pruned[oldest]


class _Survivors:
    """What tool_pruning leaves of the turns before any call's current one, as a position space
    of its own: the non-system messages it never drops (the complement of
    :func:`.tool_pruning._prunable`'s, which a call drops before its turn's start). Survivor
    ``p`` is message ``index[p]``; ``count[i]``: the survivors before message ``i``;
    ``tokens``: prefix sums of their sizes; ``starts``: as :func:`_unit_starts`, over survivors."""

    def __init__(self, f: Facts) -> None:
        from types import SimpleNamespace

        from .common import kept_on_view
        from .tool_pruning import _prunable

        pruned = bytearray(f.n)
        for a, b in kept_on_view(f.view, "_tool_pruning", _prunable).runs:
            pruned[a:b] = b"\x01" * (b - a)
        roles, totals = f.view.roles, f.totals
        index: list[int] = []
        count = [0] * (f.n + 1)
        for i in range(f.n):
            if roles[i] != "system" and not pruned[i]:
                index.append(i)
            count[i + 1] = len(index)
        self.index, self.count = array("q", index), array("q", count)
        self.tokens = array("q", _prefix([totals[i] for i in index]))
        self.starts = _unit_starts(SimpleNamespace(view=f.view, ns_index=[*index, f.n]))


def pruned_fifo_cut(f: Facts, s: Settings, stop: int, turn: int, total: int):
    """``(limit, survivors, seq, k)``: after tool_pruning dropped the prunable messages before
    ``limit`` (the current turn's start), fifo (pair_safe) drops the first ``k`` of its
    candidates: the survivors before ``limit`` (positions ``[0, survivors.count[limit])``), then
    the current turn's candidates ``seq`` (:class:`_Candidates` from ``limit`` on). None where
    what protected_in_turn keeps reaches before the turn (an exchange crossing into it)."""
    limit = min(f.turn_start.get(turn, 0), stop)
    sv = _derived(f, "survivors", _Survivors)
    a = sv.count[limit]
    spans = _guard_spans(f, stop, turn)
    if spans and spans[0][0] < limit:
        return None
    seq = _Candidates(f, stop, turn, _derived(f, "ns_tokens", _ns_tokens))  # its own: narrowed here
    c0 = f.ns_count[limit]  # the current turn's candidates: the runs from the turn's start on
    seq.runs = [(max(x, c0), y) for x, y in seq.runs if y > c0]
    seq.m = sum(y - x for x, y in seq.runs)
    budget, total = s.budget, total - (f.ns_prefix[limit] - sv.tokens[a])
    m = a + seq.m
    if budget is None or total <= budget or not m:
        return limit, sv, seq, 0
    unit_of, index = f.view.unit_of, sv.index

    def same_unit(p: int) -> bool:  # seq[p] and seq[p - 1] (0 < p < m) are of one unit
        if p < a:
            return unit_of[index[p]] == unit_of[index[p - 1]]
        if p == a:
            return unit_of[seq.index(0)] == unit_of[index[a - 1]]
        return _same_unit(f, seq, p - a)

    need = total - budget
    if sv.tokens[a] >= need:  # the first q >= 1 whose prefix reaches need
        k = bisect_left(sv.tokens, need, 1, a + 1)
    else:
        k = a + seq.first_reaching(need - sv.tokens[a]) if seq.m else m
    if k < a:  # to the end of the last dropped message's unit
        k = min(sv.starts[k], a)
    if k == a and 0 < a < m and same_unit(a):
        k += 1
    if k > a:
        k = a + _past_unit(f, seq, k - a)
    cap = a + f.ns_count[stop] - c0 - s.min_history_messages  # the live non-system messages, less min_history
    if k > cap:
        k = max(cap, 0)
        while 0 < k < m and same_unit(k):
            k -= 1
    return limit, sv, seq, k


def _pruned_then_fifo(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int | None:
    cut = pruned_fifo_cut(f, s, stop, turn, total)
    if cut is None:
        return None
    limit, sv, seq, k = cut
    a = sv.count[limit]
    pruned = f.ns_prefix[limit] - sv.tokens[a]
    return pruned + (sv.tokens[k] if k <= a else sv.tokens[a] + seq.tokens(k - a))


def _survivors_next_user(f: Facts) -> list[int]:
    """Per survivor position (:class:`_Survivors`): the first at or after it whose message is a
    user or tool message without results (where strands_sliding_window's cut may stand)."""
    from types import SimpleNamespace

    index = _derived(f, "survivors", _Survivors).index
    roles, results = f.view.roles, f.view.result_ids
    return Facts.next_where(SimpleNamespace(n=len(index)), [roles[i] in ("user", "tool") and not results[i] for i in index])


def pruned_strands_cut(f: Facts, s: Settings, stop: int, turn: int) -> tuple[int, _Survivors, int, int] | None:
    """``(limit, survivors, q, j)``: after tool_pruning dropped the prunable messages before
    ``limit`` (the current turn's start), strands_sliding_window drops the first ``q`` survivors
    (:class:`_Survivors`) and, when ``j > limit``, every survivor and the non-system messages
    from ``limit`` to ``j``: its cut found in the survivors, then in the current turn. None where its
    fallback (a call with its results) would be searched in the survivors: a turn that opens with
    no plain prompt, which units_simple sessions do not have (planned)."""
    limit = min(f.turn_start.get(turn, 0), stop)
    sv = _derived(f, "survivors", _Survivors)
    a, c0, c1 = sv.count[limit], f.ns_count[limit], f.ns_count[stop]
    length, size = a + c1 - c0, s.window_messages
    if length <= size:
        return limit, sv, 0, limit
    if size == 0:
        return limit, sv, a, stop
    trim = length - size
    if trim < a:
        q = _derived(f, "strands-survivors", _survivors_next_user)[trim]
        if q < a:
            return limit, sv, q, limit
    sf = _derived(f, "strands", _StrandsFacts)
    first = f.ns_index[c0 + max(trim - a, 0)]  # the first message of the current turn the search reads
    if sf.next_user[first] < stop:
        return limit, sv, a, sf.next_user[first]
    if trim < a:  # no plain message from the cut on, the turn's prompt neither: planned
        return None
    j = sf.next_call[first]
    if j >= stop or f.ns_index[f.ns_count[j] + 1] >= stop:
        return limit, sv, 0, limit
    return limit, sv, a, j


def _pruned_then_strands(f: Facts, s: Settings, stop: int, turn: int, total: int) -> int | None:
    cut = pruned_strands_cut(f, s, stop, turn)
    if cut is None:
        return None
    limit, sv, q, j = cut
    return f.ns_prefix[j] - sv.tokens[sv.count[limit]] + sv.tokens[q]  # what pruning drops before limit, and the window


def _fast_path(names: tuple[str, ...], s: Settings) -> Saving | None:
    """The fast path of pipeline ``names`` under ``s``, or None where it has none."""
    if len(names) == 1:
        return _single(names[0], s)
    if names == ("clear_tool_uses", "fifo"):
        return _clear_then_fifo if s.pair_safe and not s.clear_tool_inputs else None
    if names == ("tool_pruning", "truncate_results"):
        return _pruned_then_truncated
    if names == ("tool_pruning", "sliding_window"):
        return _pruned_then_window if s.window_mode == "turns" else None
    if names == ("tool_pruning", "fifo"):
        return _pruned_then_fifo if s.pair_safe else None
    if names == ("tool_pruning", "strands_sliding_window"):
        return _pruned_then_strands
    if len(names) == 2 and names[0] == "truncate_results" and names[1] in _AFTER_TRUNCATION:
        then = _single(names[1], s)
        return _truncated_then(then, s) if then is not None else None
    if len(names) == 2 and names[0] == "tool_pruning":  # where pruning removes nothing only (_prunes_nothing)
        return _single(names[1], s)
    return None


def _prunes_nothing(f: Facts, s: Settings) -> bool:
    """Whether tool_pruning removes nothing at any call: it prunes turns 1 to the one before the
    current, keeping each one's prompt, final answer and system messages, so it changes nothing
    where no turn before the last call's holds more than those (an agent loop on one prompt, or a
    chat whose only tool use is in its last turn). Read once per session (a viewer key asks)."""
    return _derived(f, "prunes_nothing", _no_prunable_message)


def _no_prunable_message(f: Facts) -> bool:
    view, roles = f.view, f.view.roles
    last = max(f.turns, default=0)
    for t in view.turns:
        if 1 <= t.number < last and any(
            i != t.user_index and i != t.final_index and roles[i] != "system" for i in range(t.start, t.stop)
        ):
            return False
    return True


_FAST: dict[str, Saving] = {
    "sliding_window": _sliding_window,
    "strands_sliding_window": _strands,
    "tool_pruning": _tool_pruning,
    "truncate_results": _truncate_results,
    "thinking_prune": _thinking_prune,
    "last_n_observations": _last_n_observations,
    "mask_tool_outputs": _mask_tool_outputs,
}


def _prepared(view: SessionView, table: TokenTable, names: tuple[str, ...], settings: Settings):
    """``(facts, saving)`` for pipeline ``names`` when it has a fast path, else None."""
    if not names or any(STRATEGIES.get(name) is None for name in names):
        return None
    saving = _fast_path(names, settings)
    if saving is None:
        return None
    f = facts(view, table)
    if not f.eligible:
        return None
    for name in names:
        guard = _GUARDS.get(name)
        if guard is not None and not guard(f, settings):
            return None
    if names[0] == "tool_pruning" and len(names) == 2 and names not in PIPELINES and not _prunes_nothing(f, settings):
        return None
    return f, saving


def replays_incrementally(view: SessionView, table: TokenTable, names: tuple[str, ...], settings: Settings) -> bool:
    """Whether a replay of ``names`` on this session costs about one pass (no strategy: always)."""
    return not names or compacts_in_one_pass(view, names) or _prepared(view, table, names, settings) is not None


def compacts_in_one_pass(view: SessionView, names: tuple[str, ...]) -> bool:
    """Whether the stateful replay of ``names`` sizes every call from its state
    (:mod:`inspector.analysis.compaction`): ``compact`` alone, and no compaction recorded in the
    file (every call's history starts at message 0)."""
    return names == ("compact",) and all(c.context_start == 0 for c in view.calls)


def replay_tokens(
    view: SessionView, table: TokenTable, names: tuple[str, ...], settings: Settings, hidden: Sequence[int],
    numbers: Sequence[int],
) -> list[int] | None:
    """Each call's whole input under pipeline ``names`` (call numbers ``numbers``, 1-based), as
    :func:`inspector.strategies.pipeline.run` computes it call by call; None when no fast path
    applies. ``hidden[k]``: call k+1's overhead beyond the table's (not in file, re-sent reasoning)."""
    prepared = _prepared(view, table, names, settings)
    if prepared is None:
        return None
    f, saving = prepared
    prefix, overhead = table.prefix, table.overhead
    out = []
    for n in numbers:
        stop = f.stops[n - 1]
        total = overhead + hidden[n - 1] + prefix[stop]
        saved = saving(f, settings, stop, f.turns[n - 1], total)
        if saved is None:
            from .pipeline import run

            w, _, _ = run(view, table, names, settings, n, hidden[n - 1])
            out.append(w.total())
        else:
            out.append(total - saved)
    return out


_GUARDS: dict[str, Callable[[Facts, Settings], bool]] = {
    "last_n_observations": lambda f, s: _derived(f, "observations", lambda f: _Observations(f, s)).ok,
    "strands_sliding_window": lambda f, s: _derived(f, "strands", _StrandsFacts).ok,
}

#: The strategies that replay incrementally (under the settings :func:`_single` names).
INCREMENTAL = ("fifo", "trim_messages", "clear_tool_uses", "summarize", *_FAST)
#: The pipelines of more than one strategy that do (and, where tool_pruning removes nothing
#: (:func:`_prunes_nothing`), tool_pruning followed by any strategy of :data:`INCREMENTAL`).
PIPELINES = (
    ("clear_tool_uses", "fifo"),
    ("tool_pruning", "truncate_results"),
    ("tool_pruning", "sliding_window"),
    ("tool_pruning", "fifo"),
    ("tool_pruning", "strands_sliding_window"),
    *(("truncate_results", name) for name in _AFTER_TRUNCATION),
)

__all__ = ["INCREMENTAL", "PIPELINES", "Facts", "compacts_in_one_pass", "facts", "replay_tokens", "replays_incrementally"]
