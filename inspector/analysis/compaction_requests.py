"""The requests of ``compact``'s one-pass replay, checked and compared without building them.

Where :func:`.compaction.replay_compacting` sizes every call from its state (``compact`` alone,
no compaction recorded in the file), call k's request is the state's slots (what the last
compaction kept and its summary) followed by every source message from the state's boundary
to the call: between two compactions a request only grows by appended messages. Two things
``compare`` and money need of every request follow from that without building each one:

- :class:`CarriedValidity`: each request's violations per provider. A request is cut into
  segments at messages where the providers' checks start afresh (a message that answers no tool
  call, after one that is not an empty assistant message): the violations of a request are the
  sum of its segments' (see :func:`_starts_afresh`), so each segment is validated once and a
  call validates only the segment it is still growing. A session whose tool-call ids are not
  all distinct is validated whole per call (a duplicate id is a violation across segments).
- :class:`CompactShares`: each call's shared prefix with the previous call's request, from
  the state's layout (:mod:`inspector.strategies.layouts`: the folded messages dropped, each
  summary in the place of a folded one, :func:`state_layout`) through
  :class:`.requests.LayoutChain`; at a call where the trigger fired without building the
  history (:mod:`.compaction_step`), from the layout of the history the compaction left. A
  call whose request has no such layout (the history was built where the trigger fired, a
  summary with no folded message beside it, more summaries than a layout holds) is built and
  compared piece by piece (:class:`.requests.RequestChain`).

The per-call computation is the definition: the tests compare both with it on generated
sessions (tests/test_incremental_replay.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..providers.validate import count_violations, validate_plan, wire_facts
from ..strategies.base import Inserted, Working
from ..strategies.common import view_cache
from ..strategies.compact import CODEX_USER, codex_replaced, codex_user_kinds
from ..strategies.incremental import facts
from ..strategies.layouts import Layout
from ..tokens import TokenTable
from ..units import SessionView
from .requests import LayoutChain, RequestChain, inserted_key

_ALL = ("all", None)  # a layout op that drops every message of its run


class _Request:
    """What :func:`~inspector.providers.validate.validate_plan` reads of a plan."""

    __slots__ = ("view", "table", "sequence", "edits")

    def __init__(self, view: SessionView, table: TokenTable, sequence: Sequence) -> None:
        self.view, self.table, self.sequence, self.edits = view, table, sequence, {}


def request_slots(state, stop: int) -> list:
    """The request of a call at message ``stop`` under ``compact`` alone from ``state`` (None: no
    compaction yet): the state's slots, then every message since its boundary."""
    if state is None:
        return list(range(stop))
    return [*state.slots, *range(state.boundary, stop)]


def violation_counts(view: SessionView, table: TokenTable, sequence: Sequence) -> tuple[tuple[str, int], ...]:
    """``(provider, violations)`` of the request ``sequence`` sends, each provider in order."""
    return tuple((provider, len(items)) for provider, items in validate_plan(_Request(view, table, sequence)).items())


class CarriedValidity:
    """Violation counts of each call's request (:func:`request_slots`), carried from call to call
    of one state: ask :meth:`counts` with calls in order."""

    def __init__(self, view: SessionView, table: TokenTable) -> None:
        self.view, self.table = view, table
        ids = [i for calls in view.call_ids for i in calls]
        self.carried = len(set(ids)) == len(ids)  # else validate each request whole
        self.roles, self.results = view.roles, view.result_ids
        self.empty = wire_facts(view).empty if self.carried else frozenset()
        self.facts = wire_facts(view).facts() if self.carried else None  # what validate_plan reads of an unedited request
        self._state: object = _NONE

    def counts(self, state, stop: int) -> tuple[tuple[str, int], ...]:
        if not self.carried:
            return violation_counts(self.view, self.table, request_slots(state, stop))
        if state is not self._state:
            self._state = state
            self.seq = list(state.slots) if state is not None else []
            self.head = len(self.seq)
            self.next_source = self.start = state.boundary if state is not None else 0
            self.scanned = 0
            self.last_cut = 0
            self.last_message = None  # the last non-system slot scanned
            self.base: dict[str, int] = {}
            self.tail: tuple[tuple[int, int], tuple[tuple[str, int], ...]] = ((0, -1), ())
        seq = self.seq
        if stop > self.next_source:
            seq.extend(range(self.next_source, stop))
            self.next_source = stop
        end = self.head + stop - self.start
        for p in range(self.scanned, end):
            x = seq[p]
            if self.last_message is not None and _starts_afresh(self, x, self.last_message):
                closed = self.tail[1] if self.tail[0] == (self.last_cut, p) else self._counts(self.last_cut, p)
                for provider, n in closed:
                    self.base[provider] = self.base.get(provider, 0) + n
                self.last_cut = p
            if not self._is_system(x):
                self.last_message = x
        self.scanned = max(self.scanned, end)
        tail = self._counts(self.last_cut, end)
        self.tail = ((self.last_cut, end), tail)  # the segment the next call most often closes
        return tuple((provider, self.base.get(provider, 0) + n) for provider, n in tail)

    def _counts(self, lo: int, hi: int) -> tuple[tuple[str, int], ...]:
        return count_violations(self.seq[lo:hi], self.facts)

    def _is_system(self, x) -> bool:
        return (self.roles[x] if type(x) is int else x.role) == "system"


_NONE = object()  # no state seen yet (None is the state before the first compaction)


def _starts_afresh(c: CarriedValidity, x, last) -> bool:
    """Whether both providers' checks of a request start afresh at slot ``x`` after the message
    ``last`` (the last non-system slot before it): the violations of ``Q[:k]`` are then those of
    ``Q[:p]`` plus those of ``Q[p:k]`` for every ``k > p`` (``x = Q[p]``). So it is when ``x`` is a
    message of its own that answers no tool call (OpenAI: it closes the previous tool batch,
    whose missing results ``Q[:p]`` reports at its end alike; Anthropic: the previous message's
    tool uses are unanswered in both, and ``x`` has no result to be an orphan) and ``last`` is
    not an empty assistant message (Anthropic accepts one only as the final message)."""
    if type(x) is int:
        if c.roles[x] in ("system", "tool") or c.results[x]:
            return False
    elif x.role not in ("user", "assistant"):
        return False
    if type(last) is int:
        return not (c.roles[last] == "assistant" and not c.results[last] and last in c.empty)
    return not (last.role == "assistant" and not last.text)


#: The most inserted messages a state's layout has: the layout's runs are walked at every call,
#: which costs more than building such a request and comparing it piece by piece (the openhands
#: preset keeps every summary after the kept head: 1,335 of them at 10k messages).
_POINTS = 8


def state_layout(state, view: SessionView, totals: Sequence[int]) -> Layout | None:
    """The layout of the requests of ``state`` (:mod:`inspector.strategies.layouts`): the folded
    messages dropped, each inserted message (a summary) a point in the place of the first folded
    message after the slot before it, or, where the state's one summary stands after a kept
    message beyond the first folded one (Codex: the kept user messages, then the summary), a
    point that sends that message and the summary (:func:`_after_kept`); None when the source
    messages are not in order or no folded message stands between an inserted one and the
    slots around it, or when the state holds more than :data:`_POINTS` inserted messages.
    ``totals``: each source message's tokens."""
    if state is None:
        return ()
    slots = state.slots
    lone = state.lone  # (where known: its one inserted slot, its source messages in order)
    inserted = [lone] if lone >= 0 else [k for k, s in enumerate(slots) if type(s) is not int]
    if len(inserted) > _POINTS:
        return None
    if len(inserted) == 1 and state.folded:
        k, first = inserted[0], state.folded[0][0]
        if ((k and slots[k - 1] > first) or (k + 1 < len(slots) and slots[k + 1] < first)) and (lone >= 0 or _increasing(slots)):
            after = _after_kept(state, k, view, totals)
            if after is not None:
                return after
    return _in_folded_places(state) if lone < 0 else _points_layout(state.folded, [_lone_place(state, lone)])


def _increasing(slots) -> bool:
    """Whether the source messages among ``slots`` stand in order."""
    kept = [s for s in slots if type(s) is int]
    return all(a < b for a, b in zip(kept, kept[1:]))


def _lone_place(state, k: int) -> tuple[int, Inserted] | None:
    """:func:`_in_folded_places`' point for the state's one inserted slot, ``slots[k]``, its source
    messages known to stand in order: the first folded message after the slot before it (None:
    none, or the slot after it stands before that place)."""
    slots = state.slots
    last = slots[k - 1] if k else -1
    for lo, hi in state.folded:
        if hi > last + 1 and lo < hi:
            at = max(lo, last + 1)
            return (at, slots[k]) if k + 1 == len(slots) or slots[k + 1] > at else None
    return None


def _in_folded_places(state) -> Layout | None:
    """:func:`state_layout` with each inserted message a point in a folded message's place."""
    points: list[tuple[int, Inserted]] = []  # (the folded message whose place it takes, the inserted one)
    runs = iter(state.folded)
    lo, hi = next(runs, (0, 0))
    last = -1  # the source index of the slot before
    for s in state.slots:
        if type(s) is int:
            if s <= last:
                return None
            last = s
            continue
        while hi <= last + 1 or lo >= hi:  # the first folded run with a message after ``last``
            lo, hi = next(runs, (-1, -1))
            if lo < 0:
                return None
        last = max(lo, last + 1)
        points.append((last, s))
    return _points_layout(state.folded, points)


def _points_layout(folded, points: list) -> Layout | None:
    """The layout of the ``folded`` runs with each inserted message of ``points`` (in order: the
    folded message whose place it takes, the inserted one) a point; None where one has no place."""
    if None in points:
        return None
    out: list = []
    k = 0
    for lo, hi in folded:
        while k < len(points) and points[k][0] < hi:
            at, summary = points[k]
            if at > lo:
                out.append((lo, at, _ALL))
            out.append((at, at + 1, ("point", inserted_key(summary), summary.tokens)))
            lo = at + 1
            k += 1
        if hi > lo:
            out.append((lo, hi, _ALL))
    return tuple(out)


def _after_kept(state, k: int, view: SessionView, totals: Sequence[int]) -> Layout | None:
    """:func:`state_layout` where the summary (``slots[k]``) stands right after the kept source
    message before it, ``j``: a point at ``j`` sends ``j`` unedited, then the summary (its key
    names ``j``, so it counts as sent at ``j``); None where that message is not a plain user
    message. A call's requests from one state are compared with each other only
    (:class:`CompactShares` builds a call whose layout would be compared with another state's:
    :func:`_sends_kept`), so the two pieces are compared as one. Where the state
    folds what Codex folds (:func:`~inspector.strategies.compact.codex_replaced`: before its
    oldest kept user message everything but the system prompt and harness context, from there
    on everything but those and the user messages), its folded runs are two ops, however many."""
    slots = state.slots
    if not k or not view_cache(view).plain_user[slots[k - 1]]:
        return None  # only a plain user message is sure to be sent unedited (masking edits results)
    j: int = slots[k - 1]
    summary: Inserted = slots[k]
    point = ("point", (j, _THEN, inserted_key(summary)), totals[j] + summary.tokens)
    b = state.boundary
    oldest = _codex_oldest_kept(state, view, j)
    if oldest is not None:
        return tuple(run for run in ((0, oldest, _CODEX), (oldest, j, _CODEX_USERS), (j, j + 1, point), (j + 1, b, _CODEX_USERS))
                     if run[1] > run[0])
    out = [(lo, hi, _ALL) for lo, hi in state.folded if hi <= j]
    out.append((j, j + 1, point))
    out.extend((lo, hi, _ALL) for lo, hi in state.folded if lo > j)
    return tuple(out)


_CODEX, _CODEX_USERS = ("codex", None), ("codex_users", None)  # layout ops: what a Codex compaction folds
_THEN = "then"  # the key of :func:`_after_kept`'s point: ``(j, _THEN, the summary's key)``


def _sends_kept(layout: Layout) -> bool:
    """Whether ``layout`` holds :func:`_after_kept`'s point (a kept message and the summary as one
    piece): it is compared only with the layouts of its own state's requests."""
    for _, _, op in layout:  # (a loop, not any() over a generator: asked at each compaction of a replay)
        if op[0] == "point" and type(op[1]) is tuple and op[1][1:2] == (_THEN,):
            return True
    return False


def _codex_oldest_kept(state, view: SessionView, j: int) -> int | None:
    """The oldest user message ``state`` keeps where it folds exactly what Codex folds around it
    (``j``, the newest, kept too), else None: checked once per state, in bytes."""
    kinds = codex_user_kinds(view)
    if kinds[j] != CODEX_USER:
        return None
    oldest = next((s for s in state.slots if type(s) is int and kinds[s] == CODEX_USER), None)
    if oldest is None:
        return None
    b = state.boundary
    folded = bytearray(b)
    for lo, hi in state.folded:
        folded[lo:hi] = b"\x01" * (hi - lo)
    context, users = codex_replaced(view)
    return oldest if folded == context[:oldest] + users[oldest:b] else None


#: :meth:`CompactShares.put`'s batch: the calls whose layouts are compared in one loop.
_BATCH = 256


class CompactShares:
    """Each call's shared prefix with the previous call's request (``shared_tokens``, as
    :meth:`.requests.RequestChain.feed` finds it from the requests built): feed every call in
    order with its state and, where the replay built it, its working history (or :meth:`put`
    each, then read :meth:`shares`).
    ``build(n, state)``: call ``n``'s working history from its state (for calls without a layout).
    ``stages(call, state)``: where the pipeline masks before compacting, the call's whole layout
    (:meth:`.compaction_stages.MaskedStates.layout`) instead of the state's."""

    def __init__(self, view: SessionView, table: TokenTable, not_in_file: Sequence[int], build, stages=None) -> None:
        self.view, self.table, self.build, self.stages = view, table, build, stages
        self.chain = LayoutChain(view, table, facts(view, table), not_in_file)
        self.planned = RequestChain(view, table)
        self._last: tuple[int, object, Layout | None, Working | None] | None = None
        self._layout: tuple[object, Layout | None] = (_NONE, None)
        self._kept: tuple[tuple[object, bool], tuple[object, bool]] = ((_NONE, False), (_NONE, False))
        self._put: list[tuple[int, object, Working | None]] = []  # put, not fed yet
        self._shares: dict[int, int | None] = {}

    def put(self, n: int, state, w: Working | None) -> None:
        """:meth:`feed` call ``n``, its shared tokens kept for :meth:`shares`: in batches of
        :data:`_BATCH` calls, one loop over the replay's states then one over their layouts
        (alternating the two at each call cost LangChain's summarization ~15 % more CPU at 10k
        messages, the same work), or at once where the call's history was built (a batch would
        keep whole histories alive) or the masking's layouts are asked (they answer for its
        last states only)."""
        put = self._put
        put.append((n, state, w))
        if len(put) >= _BATCH or w is not None or self.stages is not None:
            self._flush()

    def shares(self) -> dict[int, int | None]:
        """Each call put so far: its shared tokens."""
        self._flush()
        return self._shares

    def _flush(self) -> None:
        shares, feed = self._shares, self.feed
        for n, state, w in self._put:
            shares[n] = feed(n, state, w)
        self._put.clear()

    def feed(self, n: int, state, w: Working | None) -> int:
        ahead = None  # the layout the next call is compared with, where this call's is not
        if w is not None:
            layout = None
            if self.stages is None and state is not None and state.call == n and not w.edits and w.order == list(state.slots):
                ahead = self._layout_of(state)  # the compaction's own request: its state's slots alone
        elif self.stages is not None:
            layout = self.stages(self.view.calls[n - 1], state)
        else:
            layout = self._layout_of(state)
        last, self._last = self._last, (n, state, layout if ahead is None else ahead, w)
        if n == 1:
            return 0
        assert last is not None and last[0] == n - 1, "calls are fed in order"
        _, last_state, last_layout, last_w = last
        if layout is not None and last_layout is not None and (
            last_state is state or not (self._sends_kept(last_layout) or self._sends_kept(layout))
        ):  # (a compaction done from the state: its request's layout beside the state's before)
            return self.chain.shared(n, last_layout, layout)
        if self.planned.last_call != n - 1:
            self.planned.feed(n - 1, last_w if last_w is not None else self.build(n - 1, last_state))
        return self.planned.feed(n, w if w is not None else self.build(n, state))  # type: ignore[return-value]

    def _sends_kept(self, layout: Layout) -> bool:
        """:func:`_sends_kept`, remembered for the last two layouts asked (a compaction's and the
        state's before it, each asked again at the next compaction)."""
        kept = self._kept
        for known, found in kept:
            if known is layout:
                return found
        found = _sends_kept(layout)
        self._kept = ((layout, found), kept[0])
        return found

    def _layout_of(self, state) -> Layout | None:
        if self._layout[0] is not state:
            self._layout = (state, state_layout(state, self.view, self.table.totals))
        return self._layout[1]


__all__ = ["CarriedValidity", "CompactShares", "request_slots", "state_layout", "violation_counts"]
