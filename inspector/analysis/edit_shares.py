"""Each call's shared prefix straight from the layouts' per-op arrays, without building pieces.

Where no reasoning is re-sent and a layout (:mod:`inspector.strategies.layouts`) has no
"point" (no summary or placeholder inserted, no message laid out on its own), a call's request
is one piece per message it sends, keyed by the message's index (and its edits), in index order.
Two such requests then match up to the first message whose form (its key, or dropped) differs
between the two calls, exactly: a later piece of either has a larger index, so it cannot match
the other's. :meth:`.requests.LayoutChain.shared` finds that by building both calls' runs and
walking their pieces; here it is one walk over the two layouts' runs reading each op pair's
"next message that differs" array, and the tokens come from the ops' prefix sums: no runs, no
pieces, no matching. Most calls of clear_tool_uses (alone or before fifo), last_n_observations,
mask_tool_outputs and summarize's calls before it summarizes go this way. The calls it does not
cover (a point, no layout, re-sent reasoning) are left to :class:`.requests.LayoutChain`; the
property test (tests/test_edit_shares.py) checks both against the per-call plans.
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

    def call(self, n: int, layout: Layout | None, previous: Layout | None) -> tuple[int, int] | None:
        """``(shared, sent)`` of call ``n`` under ``layout`` (``previous``: call n-1's layout,
        read only when this did not answer call n-1), or None (ask :class:`.requests.LayoutChain`)."""
        if layout is None or not self._direct(layout):
            self._last = None
            return None
        calls = self.calls
        stop = calls[n - 1].message_index
        last, self._last = self._last, None
        if n == 1:
            sent = self.sent_below(layout, stop)
            self._last = (n, layout, sent)
            return 0, sent
        if last is not None and last[0] == n - 1:
            previous, sent_p = last[1], last[2]
        elif previous is not None and self._direct(previous):
            sent_p = self.sent_below(previous, calls[n - 2].message_index)
        else:
            return None
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
    def _direct(layout: Layout) -> bool:
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
                d = differs(op_a or PLAIN, op_b or PLAIN)[lo]
                if d < hi:
                    return d
        return stop

    def _first_sent(self, layout: Layout, x: int) -> int:
        """The first message at or after ``x`` a request with ``layout`` sends (a message past
        its last run: ``x`` or the run's end)."""
        at = x
        for lo, hi, op in layout:
            if hi <= at:
                continue
            if lo > at:
                return at
            j = self.layouts.op(op).next_kept[at]
            if j < hi:
                return j
            at = hi
        return at


__all__ = ["EditShares"]
