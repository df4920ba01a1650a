"""``mask_tool_outputs`` before ``compact``, per call from the compaction state, in O(log n).

Gemini CLI, OpenCode and Claude Code's microcompact are ``mask_tool_outputs,compact``: between
two compactions every call's history is the state (what the last compaction kept and its
summary) plus the messages added since, masked afresh. Masking is the stateless fast path's
(:func:`inspector.strategies.incremental.mask_cut`) over the tool results the state keeps: the
newest results are protected while their running sum stays within ``mask_protect_tokens``, and
every older one its filters allow is masked. So per state the results it keeps and their prefix
sums are built once, and each call is a bisection:

- :meth:`MaskedStates.cut`: ``(last, freed)`` of a call (``last`` indexes every result slot of
  the session; -1 and 0: nothing masked), None where the stateful replay plans the call itself
  (masking reaches what the current turn protects). What the turn protects is the view's
  (:func:`~inspector.strategies.common.protected_in_turn`: its prompt, its latest exchange), so
  a turn that began before the compaction is masked the same way: over the results the state
  keeps, the guarded ones skipped.
- :meth:`MaskedStates.layout`: the call's request as a :mod:`~inspector.strategies.layouts`
  layout, the state's (folded messages dropped, the summary in the first one's place) over the
  masking's run; None where either has none.
- :meth:`MaskedStates.tokens`: each message's tokens in a call's history, as masked: what a
  compaction done from the state (:mod:`.compaction_step`) measures its kept tail with.
- :meth:`MaskedStates.left`: the request such a compaction leaves is the history masked before
  it, minus what it replaced, plus its summary (the masking is not done afresh on it):
  :meth:`MaskedStates.cut` and :meth:`MaskedStates.layout` answer for it from then on.

The step-by-step simulation (every call's history built and masked) is the definition: the
tests compare both with it (tests/test_compaction_stages.py).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import accumulate

from ..strategies.incremental import Facts, _derived, _guard_spans, _mask_values, _prefix, _ResultSlots, _turn_floor, facts
from ..strategies.layouts import Layout, mask_layout
from ..tokens import TokenTable
from ..units import SessionView
from .compaction_requests import state_layout

MASKED = ("mask_tool_outputs", "compact")


class _Kept:
    """The result slots a state keeps (result and call not folded), in slot order, with the
    prefix sums of their tokens and of what masking each frees. Every slot whose result is at
    or after the last folded message is kept where no call before it has its result there
    (``first_call``): those are a slice of the session's, and only the results in the gaps
    between the folded runs are looked at one by one (O(those + log n) in Python, not O(n))."""

    __slots__ = ("index", "messages", "seen", "freed")

    def __init__(self, f: Facts, slots: _ResultSlots, values: list[int], state, first_call: list[int]) -> None:
        messages, tokens = slots.messages, slots.tokens
        if state is None:
            self.index: list[int] = list(range(len(messages)))
            self.messages, self.seen, self.freed = messages, slots.seen, _prefix(values)
            return
        runs = state.folded
        end = runs[-1][1] if runs else 0  # nothing from here on is folded
        lo = bisect_left(messages, end)
        if first_call[lo] >= end:  # no result from there on answers a folded call
            starts, calls = [a for a, _ in runs], slots.calls
            head: list[int] = []
            at = 0
            for a, z in runs:  # the results in the gaps whose call is in a gap too
                head.extend(k for k in range(bisect_left(messages, at), bisect_left(messages, a))
                            if not _within(runs, starts, calls[k]))
                at = z
            index = head + list(range(lo, len(messages)))
            self.messages = [messages[k] for k in head] + messages[lo:]
            self.seen = _prefix([tokens[k] for k in head] + tokens[lo:])
            self.freed = _prefix([values[k] for k in head] + values[lo:])
        else:
            folded = [False] * f.n
            for a, z in state.folded:
                folded[a:z] = [True] * (z - a)
            index = [k for k, (r, c) in enumerate(zip(messages, slots.calls)) if not folded[r] and not folded[c]]
            self.messages = [messages[k] for k in index]
            self.seen = _prefix([tokens[k] for k in index])
            self.freed = _prefix([values[k] for k in index])
        self.index = index


def _within(runs: tuple[tuple[int, int], ...], starts: list[int], i: int) -> bool:
    """Whether message ``i`` is in one of the sorted disjoint ``runs`` (``starts``: their starts)."""
    j = bisect_right(starts, i) - 1
    return j >= 0 and i < runs[j][1]


class MaskedStates:
    """Each call's masking under ``settings`` from its compaction state (ask calls in order:
    one state's kept results are remembered until the next)."""

    def __init__(self, view: SessionView, table: TokenTable, settings) -> None:
        self.f = facts(view, table)
        self.s = settings
        self.slots = _derived(self.f, "result_slots", _ResultSlots)
        self.values = _mask_values(self.f, settings)
        #: per result slot k, the first call message of the slots from k on (the session's length past the last)
        self.first_call = list(accumulate(reversed(self.slots.calls), min, initial=self.f.n))[::-1]
        self._kept: tuple[object, _Kept | None] = (_NONE, None)
        self._base: tuple[object, Layout | None] = (_NONE, None)  # the state's own layout
        self._merged: tuple[object, int, Layout | None] = (_NONE, -1, None)  # (state, last masked, its layout)
        self._cut: tuple[object, object, tuple[int, int] | None] = (_NONE, _NONE, None)  # (call, state, cut) asked last
        self._left: tuple[object, object, object, object, tuple[int, int] | None] = (_NONE, _NONE, None, None, None)

    def cut(self, call, state) -> tuple[int, int] | None:
        left = self._left  # (call, the history a compaction left, the state before, why, its cut)
        if left[0] is call and left[1] is state:
            return left[4]
        last = self._cut  # the replay sizes a call, then lays it out: the same question twice
        if last[0] is call and last[1] is state:
            return last[2]
        found = self._cut_of(call, state)
        self._cut = (call, state, found)
        return found

    def _cut_of(self, call, state) -> tuple[int, int] | None:
        f, s = self.f, self.s
        stop, turn = call.message_index, call.turn
        floor = _turn_floor(f, stop, turn)
        kept = self._kept_of(state)
        turns = s.mask_protect_turns
        if turns <= 0:
            before = stop
        else:
            before = min(f.turn_start.get(max(turn - turns + 1, 0), 0), stop)
        count = bisect_left(kept.messages, before)
        if not count:
            return -1, 0
        seen = kept.seen
        protect, newest = s.mask_protect_tokens, count
        if kept.messages[count - 1] >= floor:  # the walk skips what protected_in_turn keeps
            count = bisect_left(kept.messages, floor, 0, count)
            walked, walked_tokens = self._unguarded(kept, count, newest, stop, turn)
            newest = count + walked
            protect -= walked_tokens
        last = bisect_left(seen, seen[count] - protect, 0, count + 1) - 1
        if s.mask_keep_results is not None:
            last = min(last, newest - s.mask_keep_results - 1)
        if last >= count:
            return None  # it masks among what protected_in_turn keeps: planned
        if last < 0:
            return -1, 0
        freed = kept.freed[last + 1]
        return (kept.index[last], freed) if freed and freed >= s.mask_min_tokens else (-1, 0)

    def tokens(self, call, state) -> list[int]:
        """Each message's tokens in ``call``'s history from ``state`` as masked (the table's
        totals less what masking its results frees); asked where :meth:`cut` has an answer."""
        totals = self.f.table.totals
        cut = self.cut(call, state)
        if cut is None or not cut[1]:
            return totals  # type: ignore[return-value]
        kept = self._kept_of(state)
        out = list(totals)
        values, messages = self.values, self.slots.messages
        for j in kept.index[: bisect_left(kept.index, cut[0]) + 1]:
            if values[j]:
                out[messages[j]] -= values[j]
        return out

    def left(self, call, request, before, why) -> None:
        """A compaction at ``call`` (fired for ``why``) done on its history from state ``before``
        left the history ``request``: masked as the history before it was (:meth:`cut` and
        :meth:`layout` of ``(call, request)`` say so until the next compaction)."""
        self._left = (call, request, before, why, self.cut(call, before))

    def compacted_from(self, call, state) -> tuple[object, object] | None:
        """``(the state before, why)`` where ``state`` is the history a compaction at ``call``
        left (:meth:`left`), else None: that request is built by building the history before
        it and compacting it."""
        left = self._left
        return (left[2], left[3]) if left[0] is call and left[1] is state else None

    def _unguarded(self, kept: _Kept, lo: int, hi: int, stop: int, turn: int) -> tuple[int, int]:
        """How many of the kept results ``[lo, hi)`` protected_in_turn does not keep, and their
        tokens: those in its spans (sorted, disjoint) taken out, each span by a bisection."""
        messages, seen = kept.messages, kept.seen
        count, tokens = hi - lo, seen[hi] - seen[lo]
        for a, b in _guard_spans(self.f, stop, turn):
            x = bisect_left(messages, a, lo, hi)
            y = bisect_left(messages, b, x, hi)
            count -= y - x
            tokens -= seen[y] - seen[x]
        return count, tokens

    def layout(self, call, state) -> Layout | None:
        """Call's request as a layout: the state's with the masking's runs in its gaps."""
        cut = self.cut(call, state)
        if self._base[0] is not state:
            self._base = (state, state_layout(state, self.f.view, self.f.table.totals))
        base = self._base[1]
        if cut is None or base is None:
            return None
        last = cut[0] if cut[1] else -1
        merged = self._merged  # calls of one state mostly mask the same results: the same layout
        if merged[0] is state and merged[1] == last:
            return merged[2]
        found = self._merge(base, mask_layout(self.f, self.s, last) if last >= 0 else ())
        self._merged = (state, last, found)
        return found

    @staticmethod
    def _merge(base: Layout, masked: Layout | None) -> Layout | None:
        """The state's layout ``base`` with the masking's runs ``masked`` in its gaps."""
        if masked is None:
            return None
        if not base or not masked:
            return base or masked
        out = list(base)
        for lo, hi, op in masked:  # the state's runs (folded, summary) win; masking fills the gaps
            at = lo
            for a, b, _ in base:
                if b <= at or a >= hi:
                    continue
                if a > at:
                    out.append((at, a, op))
                at = max(at, b)
            if at < hi:
                out.append((at, hi, op))
        out.sort(key=lambda seg: seg[0])
        return tuple(out)

    def _kept_of(self, state) -> _Kept:
        if self._kept[0] is not state:
            self._kept = (state, _Kept(self.f, self.slots, self.values, state, self.first_call))
        return self._kept[1]  # type: ignore[return-value]


_NONE = object()
