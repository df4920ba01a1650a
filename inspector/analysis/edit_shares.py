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
points included, in the first call of a Codex turn too where the point stands before the
previous turn's first output). The calls it does not cover (no layout, re-sent reasoning, a
point after that output in the first call of a Codex turn) are left to :class:`.requests.LayoutChain`; the property tests
(tests/test_edit_shares.py, tests/test_incremental_replay.py) check both against the per-call plans.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..strategies.layouts import PLAIN, Layout, Layouts, Op


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
        if layout is None:
            self._last = None
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
            # a new prompt reads the previous request up to the first message sent at or after the
            # turn's first output (tokens_before_source): where no point stands there, its pieces below
            if self._point_from(layout, self.turn_first[n - 2]):  # an inserted piece has no source: LayoutChain
                return None
            grown = max(0, prefix_c - prefix_p)
            shared = min(shared, prefix_c + self.sent_below(layout, self.turn_first[n - 2]) - grown)
        self._last = (n, layout, sent)
        return shared, sent

    def span_lane(self, drop: Op, edit: Op, spans: Sequence[tuple[int, int] | None], turns: Sequence[int]) -> tuple[list, list]:
        """The span lane (:func:`~inspector.strategies.layouts.span_cuts`): ``(shared, sent)``
        columns, per call, of every call whose layout and whose previous call's send one run
        ``spans[k] == (lo, hi)`` under ``drop`` and the rest under ``edit`` (None: not that), as
        :meth:`call` gives them, in one pass with no layout built: below the previous call's
        history the two layouts differ only where the two runs do not overlap, at most two
        index runs where one sends under ``drop`` and the other under ``edit``, so the first
        difference is a read or two of that op pair's array, and every sum a difference of
        prefix sums. None in both columns where a call is not answered (``turns``: each call's turn)."""
        calls, prefix, codex, turn_first = self.calls, self.prefix, self.codex, self.turn_first
        d_arrays, e_arrays = self.layouts.op(drop), self.layouts.op(edit)
        dsent, esent, dnext, enext = d_arrays.sent, e_arrays.sent, d_arrays.next_kept, e_arrays.next_kept

        def below(lo: int, hi: int, x: int) -> int:  # what a request with the run [lo, hi) sends below message x
            if x <= lo:
                return esent[x]
            m = x if x < hi else hi
            return dsent[m] - dsent[lo] + esent[lo] + esent[x] - esent[m]

        def first_sent(lo: int, hi: int, x: int, stop: int) -> int:  # :meth:`_first_sent` of that request
            if x < lo:
                if enext[x] < lo:
                    return enext[x]
                x = lo
            if x < hi:
                if dnext[x] < hi:
                    return dnext[x]
                x = hi
            return enext[x] if x < stop else x

        differs: Sequence[int] | None = None  # the op pair's array, read where a run moves
        shares: list[int | None] = [None] * len(spans)
        sents: list[int | None] = [None] * len(spans)
        # the previous call's run (None: not of the lane's form), its history's end and the tokens it sends
        previous, stop_p, sent_p = None, 0, 0
        for k, span in enumerate(spans):
            stop = calls[k].message_index
            if span is None:
                previous = None
                continue
            lb, hb = span
            sent = below(lb, hb, stop)  # (where two requests' keys agree, so do their tokens)
            if k == 0:
                shares[0], sents[0] = 0, sent
            elif previous is not None:
                d = stop_p  # the first message below stop_p the two calls send differently (stop_p: none)
                if previous != span:
                    la, ha = previous
                    if (la if la > lb else lb) < (ha if ha < hb else hb):  # the runs overlap: they differ at their two ends
                        parts = ((la, lb) if la < lb else (lb, la), (ha, hb) if ha < hb else (hb, ha))
                    else:  # apart: each run is sent by one call only
                        parts = (previous, span) if la < lb else (span, previous)
                    if differs is None:
                        differs = self.layouts._next_difference(drop, edit)
                    for x, y in parts:
                        if y > stop_p:
                            y = stop_p
                        if x < y and differs[x] < y:
                            d = differs[x]
                            break
                prefix_p, prefix_c = prefix[k - 1], prefix[k]
                if d == stop_p:  # call k's request all sent again, in front
                    shared = prefix_p + sent_p
                else:
                    shared = prefix_p + below(lb, hb, d)  # what both calls send below d
                    if prefix_p > prefix_c and first_sent(*previous, d, stop_p) < stop_p:  # a piece of call k's ended the match
                        shared -= prefix_p - prefix_c
                if codex and turns[k] != turns[k - 1]:  # as :meth:`call`: what the new prompt reads
                    head = prefix_c + below(lb, hb, turn_first[k - 1]) - (prefix_c - prefix_p if prefix_c > prefix_p else 0)
                    if head < shared:
                        shared = head
                shares[k], sents[k] = shared, sent
            previous, stop_p, sent_p = span, stop, sent
        return shares, sents

    @staticmethod
    def _point_from(layout: Layout, x: int) -> bool:
        """Whether a point of ``layout`` stands at or after message ``x``."""
        for lo, _, op in reversed(layout):
            if lo < x:
                return False
            if op[0] == "point":
                return True
        return False

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
        if i == len(a) - 1 == len(b) - 1:  # one run each left, the same start and op, only its end moved
            lo, hi_a, op = a[i]
            lo_b, hi_b, op_b = b[i]
            if lo == lo_b and op == op_b and op[0] != "point":
                # (a cut or a transform's reach moved) between the two ends one sends under op, the other plain
                x, y = (hi_a, hi_b) if hi_a < hi_b else (hi_b, hi_a)
                if y > stop:
                    y = stop
                if x >= y:
                    return stop
                d = differs(op, PLAIN)[x]
                return d if d < y else stop
        # the runs before i are the same: walk both from there, a piece per run end of either
        # (inline: ~27,000 calls a compare at 10k)
        j, at, len_a, len_b = i, a[i - 1][1] if i else 0, len(a), len(b)
        while at < stop:
            while i < len_a and a[i][1] <= at:
                i += 1
            while j < len_b and b[j][1] <= at:
                j += 1
            end = stop
            op_a = op_b = None
            if i < len_a:
                run = a[i]
                if run[0] <= at:
                    op_a = run[2]
                    if run[1] < end:
                        end = run[1]
                elif run[0] < end:
                    end = run[0]
            if j < len_b:
                run = b[j]
                if run[0] <= at:
                    op_b = run[2]
                    if run[1] < end:
                        end = run[1]
                elif run[0] < end:
                    end = run[0]
            if op_a != op_b:
                if (op_a is not None and op_a[0] == "point") or (op_b is not None and op_b[0] == "point"):
                    if self._key(op_a, at) != self._key(op_b, at):  # a point's run is its one message
                        return at
                else:
                    d = differs(op_a or PLAIN, op_b or PLAIN)[at]
                    if d < end:
                        return d
            at = end
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
