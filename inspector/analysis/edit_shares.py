"""Each call's shared prefix straight from the layouts' per-op arrays, without building pieces.

Where no reasoning is re-sent, a call's request (:mod:`inspector.strategies.layouts`) is one
piece per message it sends, keyed by the message's index (and its edits), in index order; a
"point" (a summary in a dropped message's place, or a message laid out on its own) is one piece
at its message's position too, and its key names that position (a summary's names what it
replaces, whose first message it stands in for). Two such requests then match up to the first
message whose form (its key, or dropped) differs between the two calls, exactly: a later piece
of either stands at a larger index, so it cannot match the other's. :meth:`.requests.LayoutChain.shared`
finds that by building both calls' runs and walking their pieces; here it is one walk over the
two layouts' runs reading each op pair's "next message that differs" array (a point's run is its
one message), and the tokens come from the ops' prefix sums: no runs, no pieces, no matching.
Most calls of a replay whose layout changed go this way (summarize's and mask_tool_outputs'
points included). The calls it does not cover (no layout, re-sent reasoning, a point in the
first call of a Codex turn) are left to :class:`.requests.LayoutChain`; the property tests
(tests/test_edit_shares.py, tests/test_incremental_replay.py) check both against the per-call plans.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..strategies.layouts import PLAIN, Layout, Layouts, merged_runs


class EditShares:
    """``(shared, sent)`` per call from the calls' layouts, as :meth:`.requests.LayoutChain.shared`
    and :meth:`~.requests.LayoutChain.sent` give them. ``prefix[k]``: call k+1's fixed prefix;
    ``turn_first[k]``: the message of the first call in its turn (``LayoutChain``'s columns);
    ``calls``: the view's. Only for a replay that re-sends no reasoning."""

    def __init__(self, layouts: Layouts, prefix: Sequence[int], calls: Sequence, turn_first: Sequence[int], codex: bool) -> None:
        self.layouts, self.prefix, self.calls = layouts, prefix, calls
        self.turn_first, self.codex = turn_first, codex
        self.plain = layouts.op(PLAIN)
        self._last: tuple[int, Layout, int] | None = None  # (call, layout, sent) of the last call answered

    def call(self, n: int, layout: Layout | None, previous: Layout | None, sent_p: int | None = None) -> tuple[int, int] | None:
        """``(shared, sent)`` of call ``n`` under ``layout`` (``previous``: call n-1's layout,
        read only when this did not answer call n-1; ``sent_p``: what call n-1's request sends,
        when known), or None (ask :class:`.requests.LayoutChain`)."""
        calls = self.calls
        if layout is None or (self.codex and n > 1 and calls[n - 1].turn != calls[n - 2].turn and not self._pointless(layout)):
            self._last = None  # (a new Codex prompt's clamp below counts pieces by their source message: no point)
            return None
        stop = calls[n - 1].message_index
        last, self._last = self._last, None
        if n == 1:
            sent = self.sent_below(layout, stop)
            self._last = (n, layout, sent)
            return 0, sent
        if last is not None and last[0] == n - 1:
            previous, sent_p = last[1], last[2]
        elif previous is None:
            return None
        elif sent_p is None:
            sent_p = self.sent_below(previous, calls[n - 2].message_index)
        stop_p = calls[n - 2].message_index
        prefix_p, prefix_c = self.prefix[n - 2], self.prefix[n - 1]
        d = self._first_difference(previous, layout, stop_p)
        # below d both calls send the same: what each sends from d on is read off its last runs
        below = sent_p - self.sent_from(previous, d, stop_p) if d < stop_p else sent_p
        sent = below + self.sent_from(layout, d, stop)
        shared = prefix_p + below
        if d < stop_p and self._first_sent(previous, d) < stop_p:  # a piece of call n-1's request ended the match
            shared -= max(0, prefix_p - prefix_c)
        if self.codex and calls[n - 1].turn != calls[n - 2].turn:
            grown = max(0, prefix_c - prefix_p)
            shared = min(shared, prefix_c + self.sent_below(layout, self.turn_first[n - 2]) - grown)
        self._last = (n, layout, sent)
        return shared, sent

    @staticmethod
    def _pointless(layout: Layout) -> bool:
        """Whether ``layout`` sends one piece per message it keeps (no point in it)."""
        for _, _, op in layout:
            if op[0] == "point":
                return False
        return True

    def sent_below(self, layout: Layout, x: int) -> int:
        """Tokens of the messages below ``x`` a request with ``layout`` sends."""
        plain, op_arrays = self.plain.sent, self.layouts.op
        tokens = plain[x]
        for lo, hi, op in layout:
            if lo >= x:
                break
            if op[0] == "point":  # one message: the piece in its place
                tokens += op[2] - (plain[hi] - plain[lo])
                continue
            if hi > x:
                hi = x
            sent = op_arrays(op).sent
            tokens += (sent[hi] - sent[lo]) - (plain[hi] - plain[lo])
        return tokens

    def sent_from(self, layout: Layout, x: int, stop: int) -> int:
        """Tokens of the messages in ``[x, stop)`` a request with ``layout`` sends: its runs
        walked from the end (a call's first difference from the previous is mostly recent)."""
        plain, op_arrays = self.plain.sent, self.layouts.op
        tokens = plain[stop] - plain[x]
        for lo, hi, op in reversed(layout):
            if hi <= x:
                break
            if lo >= stop:
                continue
            if op[0] == "point":  # one message, in [x, stop): the piece in its place
                tokens += op[2] - (plain[hi] - plain[lo])
                continue
            a = lo if lo > x else x
            b = hi if hi < stop else stop
            sent = op_arrays(op).sent
            tokens += (sent[b] - sent[a]) - (plain[b] - plain[a])
        return tokens

    def _first_difference(self, a: Layout, b: Layout, stop: int) -> int:
        """The first message below ``stop`` whose form differs under layouts ``a`` and ``b``
        (``stop``: none): one walk over both layouts' runs from their first unequal one."""
        if a is b or a == b:
            return stop
        i = 0
        while i < len(a) and i < len(b) and a[i] == b[i]:
            i += 1
        differs = self.layouts._next_difference
        for lo, hi, op_a, op_b in merged_runs(a, b, stop, i, a[i - 1][1] if i else 0):  # the runs before are the same
            if op_a != op_b:
                if (op_a is not None and op_a[0] == "point") or (op_b is not None and op_b[0] == "point"):
                    if self._key(op_a, lo) != self._key(op_b, lo):  # a point's run is its one message
                        return lo
                    continue
                d = differs(op_a or PLAIN, op_b or PLAIN)[lo]
                if d < hi:
                    return d
        return stop

    def _key(self, op, i: int):
        """Message ``i``'s piece key under ``op`` (None: the message has no run; a point: its own)."""
        if op is not None and op[0] == "point":
            return op[1]
        return self.layouts.op(op or PLAIN).keys[i]

    def _first_sent(self, layout: Layout, x: int) -> int:
        """The first message at or after ``x`` a request with ``layout`` sends (a message past
        its last run: ``x`` or the run's end)."""
        at = x
        for lo, hi, op in layout:
            if hi <= at:
                continue
            if lo > at or op[0] == "point":  # a point is a piece at its message
                return at
            j = self.layouts.op(op).next_kept[at]
            if j < hi:
                return j
            at = hi
        return at


__all__ = ["EditShares"]
