"""What each replayed model call sends, as the prompt-cache model needs it: the request's pieces
in order (:data:`.cache.Piece`) and how many of its leading tokens repeat the previous call's
request.

:func:`.replay.replay` feeds every plan whose tokens it reports through a :class:`RequestChain`
and keeps the result per call (``CallReplay.shared_tokens``); :mod:`.money` prices those calls
and never plans one itself, so the request money prices is the one replay shows.

A request is the fixed prefix (tool definitions, reply priming, what the file does not show),
then every kept message keyed by its content (an edited message keys on the edits that change
it), with the reasoning re-sent within the turn as a piece of its own before the message that
produced it. Two facts of the providers, as the no-strategy baseline has them
(:func:`.money.baseline_requests`):

- Claude: thinking of earlier turns the API leaves out does not break the cached prefix (the
  recorded cache reads of Claude Code show the prefix read on through it);
- Codex: the encrypted reasoning re-sent within a turn is left out once the next prompt comes,
  so the request changes from the previous turn's first model output on.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from collections.abc import Hashable, Iterable, Iterator, Sequence
from itertools import chain

from ..strategies.base import Inserted, Working
from ..strategies.index_runs import IndexRuns
from ..strategies.layouts import PLAIN, message_key
from ..tokens import TokenTable
from ..units import SessionView
from .baseline import produced_reasoning, reasoning_resets
from .cache import Piece


def request_pieces(w: Working, reasoning: dict[int, int]) -> list[Piece]:
    """The request of one planned call. ``w``'s overhead holds the re-sent ``reasoning`` (message
    index of the call that produced it -> tokens), which becomes a piece before that message;
    reasoning of a message the pipeline dropped is still sent (replay counts it), at the end.
    The pieces add up to ``w.total()``."""
    return list(_pieces(w, reasoning))


def _pieces(w: Working, reasoning: dict[int, int]) -> Iterator[Piece]:
    """:func:`request_pieces`, one at a time: a comparison reads only as far as it matches."""
    yield ("prefix", w.overhead - sum(reasoning.values()))
    edits, tokens = w.edits, w.tokens
    left = dict(reasoning)
    for s in w.order:
        if type(s) is int:
            if s in left:
                yield ("reasoning", s), left.pop(s)
            changed = edits.get(s)
            yield (message_key(s, changed) if changed else s), tokens[s]
        else:
            assert isinstance(s, Inserted)
            yield inserted_key(s), s.tokens
    yield from ((("reasoning", s), n) for s, n in left.items())


def inserted_key(s: Inserted) -> Hashable:
    """The request-piece key of an inserted message (a summary, a placeholder)."""
    r = s.replaces  # by its span and length: a folding summary replaces up to the whole session, hashed at every call
    return ("inserted", s.kind, s.text_key, r.span() if type(r) is IndexRuns else (len(r), r[0], r[-1]) if r else ())


def shared_tokens(previous: Iterable[Piece], current: Iterable[Piece], skip_dropped_reasoning: bool) -> int:
    """Tokens of ``previous`` that ``current`` repeats from the start. With
    ``skip_dropped_reasoning``, a reasoning piece of ``previous`` that ``current`` no longer
    sends is passed over (counted as read, as the baseline does) instead of ending the prefix.

    The fixed prefix is one piece whose size is estimated per call (what the file does not
    show, :func:`.predict.predictions`): a request that repeats all of the previous one shares
    the previous request whole; one that breaks off shares the smaller of the two calls' fixed
    prefixes and what matched after it, as :func:`.money.baseline_requests` counts it, so the
    same requests get the same split with or without a pipeline. Reads the pieces only as far
    as they match."""
    previous, current = iter(previous), iter(current)
    first_p, first_c = next(previous, None), next(current, None)
    if first_p is None:
        return 0
    total, broke, matched = matched_pieces(chain((first_p,), previous), chain(() if first_c is None else (first_c,), current),
                                           skip_dropped_reasoning)
    if broke and matched and first_c is not None and first_p[0] == first_c[0] == "prefix":
        total -= max(0, first_p[1] - first_c[1])
    return total


def matched_pieces(previous: Iterable[Piece], current: Iterator[Piece], skip_dropped_reasoning: bool) -> tuple[int, bool, int]:
    """``(tokens, broke, matched)``: the tokens of ``previous`` that ``current`` repeats from
    the start (see :func:`shared_tokens`), whether a piece of ``previous`` ended the match, and
    how many pieces of ``current`` matched. Reads only as far as the match goes."""
    total = matched = 0
    nxt = next(current, None)
    for key, n in previous:
        if nxt is not None and nxt[0] == key:
            total += n
            matched += 1
            nxt = next(current, None)
        elif skip_dropped_reasoning and _is_reasoning(key):
            total += n
        else:
            return total, True, matched
    return total, False, matched


def _is_reasoning(key: Hashable) -> bool:
    return isinstance(key, tuple) and len(key) == 2 and key[0] == "reasoning"


def tokens_before_source(pieces: Iterable[Piece], stop: int) -> int:
    """Tokens of the leading pieces that come before source message ``stop``, re-sent reasoning
    left out (what a new Codex prompt reads: :func:`.money.baseline_until`)."""
    total = 0
    for key, n in pieces:
        if _is_reasoning(key):
            continue
        source = key if type(key) is int else key[0] if isinstance(key, tuple) and type(key[0]) is int else None
        if source is not None and source >= stop:
            break
        total += n
    return total


class RequestChain:
    """Feed the plans of consecutive calls in order; each :meth:`feed` returns how many leading
    tokens the call's request shares with the previous call's (None when the previous call was
    not fed). Keeps only the last call's working history (not changed after it is fed), whose
    pieces are read only as far as the next request repeats them (where compact's summaries
    pile up, the requests differ after the kept head: 1,400 pieces a call at 10k, 6 read)."""

    def __init__(self, view: SessionView, table: TokenTable) -> None:
        self.view = view
        self.codex = view.session.format == "codex"
        self.produced = produced_reasoning(view, table)
        self.resets = reasoning_resets(view)
        self._last: tuple[int, Working, dict[int, int]] | None = None

    def resent_at(self, n: int) -> dict[int, int]:
        """Message index -> reasoning tokens call ``n`` (1-based) re-sends: those of the earlier
        calls since the last reset (:func:`.baseline.resent_reasoning`, by message)."""
        out: dict[int, int] = {}
        calls = self.view.calls
        for k in range(n - 1, 0, -1):  # call k (1-based) is before call n
            if self.resets[k]:  # call k+1 started afresh: nothing from call k or earlier
                break
            if self.produced[k - 1]:
                out[calls[k - 1].message_index] = self.produced[k - 1]
        return dict(sorted(out.items()))

    @property
    def last_call(self) -> int | None:
        """The call fed last (None: none yet)."""
        return self._last[0] if self._last is not None else None

    def feed(self, n: int, w: Working) -> int | None:
        reasoning = self.resent_at(n)
        last, self._last = self._last, (n, w, reasoning)
        if n == 1:
            return 0
        if last is None or last[0] != n - 1:
            return None
        _, w_p, reasoning_p = last
        shared = shared_tokens(_pieces(w_p, reasoning_p), _pieces(w, reasoning), skip_dropped_reasoning=not self.codex)
        calls = self.view.calls
        if self.codex and calls[n - 1].turn != calls[n - 2].turn:
            # the fixed prefix both sent: the smaller
            grown = max(0, (w.overhead - sum(reasoning.values())) - (w_p.overhead - sum(reasoning_p.values())))
            shared = min(shared, tokens_before_source(_pieces(w, reasoning), self._turn_first_output(n - 1)) - grown)
        return shared

    def _turn_first_output(self, n: int) -> int:
        """The message of the first call in call ``n``'s turn."""
        calls = self.view.calls
        k = n - 1
        while k > 0 and calls[k - 1].turn == calls[n - 1].turn:
            k -= 1
        return calls[k].message_index


@dataclass(frozen=True, slots=True)
class _ChainColumns:
    """What every :class:`LayoutChain` of a view needs per call or message, whatever the
    pipeline: built once per view, table and per-call fixed prefix (compare runs 15 chains)."""

    table: TokenTable
    not_in_file: tuple[int, ...]
    resets: list[bool]
    reasoning: list[int]  # per message: the reasoning its model call produced
    with_reasoning: list[int]  # the messages that have some, in order
    prefix: list[int]  # per call: the fixed prefix (overhead and what the file does not show)
    window_lo: list[int]  # per call: the first message whose reasoning it re-sends (RequestChain.resent_at)
    turn_first: list[int]  # per call: the message of the first call in its turn


def _chain_columns(view: SessionView, table: TokenTable, not_in_file: Sequence[int]) -> _ChainColumns:
    hidden = tuple(not_in_file)
    kept = view.__dict__.get("_layout_chain_columns")
    if kept is not None and kept.table is table and kept.not_in_file == hidden:
        return kept
    calls = view.calls
    produced = produced_reasoning(view, table)
    resets = reasoning_resets(view)
    reasoning = [0] * len(view)
    for c, r in zip(calls, produced):
        reasoning[c.message_index] = r
    window_lo: list[int] = []
    k = 0  # the last call before which the re-sent reasoning started afresh
    for n in range(1, len(calls) + 1):
        if n >= 2 and resets[n - 1]:
            k = n - 1
        window_lo.append(calls[k].message_index if k < n - 1 else calls[n - 1].message_index)
    turn_first: list[int] = []
    for n, c in enumerate(calls):
        same = n and calls[n - 1].turn == c.turn
        turn_first.append(turn_first[-1] if same else c.message_index)
    kept = view.__dict__["_layout_chain_columns"] = _ChainColumns(
        table, hidden, resets, reasoning, [c.message_index for c, r in zip(calls, produced) if r],
        [table.overhead + h for h in hidden], window_lo, turn_first)
    return kept


def appended_op(previous, current, stop_p: int, stop_c: int):
    """The op the messages ``[stop_p, stop_c)`` are sent under when a call whose history ends at
    ``stop_c`` with layout ``current`` sends what the previous call (history ending at ``stop_p``,
    layout ``previous``) sent, with those messages appended: the same layout wholly before
    ``stop_p`` (:data:`~inspector.strategies.layouts.PLAIN`), or its last run grown from
    ``stop_p`` to ``stop_c`` (an edit of every message, say: that run's op). None: the layouts
    differ otherwise. Most calls of a replay keep the previous decision: their shared prefix is
    then the previous request whole, in O(1) (re-sent reasoning and a new Codex turn aside: the
    caller's checks)."""
    if previous is current or previous == current:
        return None if current and current[-1][1] > stop_p else PLAIN
    if (
        previous and current and len(previous) == len(current) and previous[-1][1] == stop_p
        and current[-1][1] == stop_c and previous[-1][0] == current[-1][0] and previous[-1][2] == current[-1][2]
        and current[-1][2][0] != "point" and previous[:-1] == current[:-1]
    ):
        return current[-1][2]
    return None


class LayoutChain:
    """What :meth:`RequestChain.feed` returns for consecutive calls, from their layouts
    (:mod:`inspector.strategies.layouts`) instead of their plans: the two requests are the same
    up to the first message whose key differs, so only the pieces from there on are compared,
    and only as far as they match. ``not_in_file[k]``: call k+1's part the file does not show."""

    def __init__(self, view: SessionView, table: TokenTable, facts, not_in_file: Sequence[int]) -> None:
        from ..strategies.layouts import Layouts

        self.view, self.table = view, table
        self.codex = view.session.format == "codex"
        c = _chain_columns(view, table, not_in_file)
        self.resets, self.with_reasoning, self.prefix = c.resets, c.with_reasoning, c.prefix
        self.window_lo, self.turn_first = c.window_lo, c.turn_first
        self.layouts = Layouts(facts, c.reasoning)
        self._last_runs: tuple = (0, None, None)  # (call, its layout, its runs) of the last call asked
        self._last_sent: tuple[int, int] = (0, 0)  # (call, :meth:`sent`) of that call, its runs the ones kept

    def sent(self, n: int, layout) -> int:
        """Tokens of the messages call ``n``'s request sends under ``layout`` (edited as it
        edits them, a summary in its place): its total without the fixed prefix."""
        stop = self.view.calls[n - 1].message_index
        last = self._last_runs
        runs = last[2] if last[0] == n and last[1] is layout else self.layouts.runs(layout, stop)
        tokens = self.layouts.sent(runs, stop, stop)[0]
        self._last_sent = (n, tokens) if last[0] == n and last[1] is layout else (0, 0)
        return tokens

    def head_dropped(self, n: int, previous, current) -> tuple[int, int] | None:
        """``(shared, sent)`` of call ``n`` (n >= 2) when both calls' layouts drop a head of
        the history under one drop-only op (fifo's cut: ``()`` or ``((0, cut, op),)``) and the
        cut did not move back: the requests agree up to the first message the new cut drops
        that the old one kept, which is sent by call n-1 and not by call n, so the match ends
        there (as :meth:`shared` finds it, in O(1)). None otherwise (no reasoning re-sent, no
        Codex: ask :meth:`shared`)."""
        if self.codex or self.with_reasoning or len(previous) > 1 or len(current) > 1:
            return None
        op = current[0][2] if current else previous[0][2] if previous else None
        if op is None or op[1] is not None or op[0] == "point":
            return None
        if (previous and (previous[0][0] != 0 or previous[0][2] != op)) or (current and current[0][0] != 0):
            return None
        a = previous[0][1] if previous else 0
        b = current[0][1] if current else 0
        if b < a:
            return None
        L = self.layouts
        calls = self.view.calls
        stop_p, stop_c = calls[n - 2].message_index, calls[n - 1].message_index
        dropping, plain = L.op(op), L.op(PLAIN)
        a_p, b_p = min(a, stop_p), min(b, stop_p)
        d = stop_p  # the first message call n-1 sends and call n drops, or stop_p
        if b_p > a_p and (j := L._next_difference(op, PLAIN)[a_p]) < b_p:
            d = j
        prefix_p = self.prefix[n - 2]
        shared = prefix_p + dropping.sent[a_p] + plain.sent[d] - plain.sent[a_p]
        if d < stop_p:  # call n-1 sends message d, call n does not: the match ends there
            shared -= max(0, prefix_p - self.prefix[n - 1])
        b_c = min(b, stop_c)
        sent = dropping.sent[b_c] + plain.sent[stop_c] - plain.sent[b_c]
        self._last_sent = (n, sent)
        return shared, sent

    def shared(self, n: int, previous, current) -> int:
        """Call ``n``'s shared tokens (n >= 2) from the layouts of calls n-1 and n."""
        calls, L = self.view.calls, self.layouts
        stop_p, stop_c = calls[n - 2].message_index, calls[n - 1].message_index
        prefix_p, prefix_c = self.prefix[n - 2], self.prefix[n - 1]
        d = None if self.with_reasoning else _new_first_point(previous, current, stop_p, stop_c)
        if d is not None:  # what the walk below finds, in O(1): the messages before d, then the points differ
            self._last_runs = (0, None, None)
            plain = L.op(PLAIN).sent
            shared = prefix_p + plain[d] - plain[0] - max(0, prefix_p - prefix_c)
            if self.codex and calls[n - 1].turn != calls[n - 2].turn:
                grown = max(0, prefix_c - prefix_p)
                shared = min(shared, prefix_c + L.before_source(L.runs(current, stop_c), self.turn_first[n - 2]) - grown)
            return shared
        window_p = (self.window_lo[n - 2], stop_p)
        window_c = (self.window_lo[n - 1], stop_c)
        last = self._last_runs
        runs_p = last[2] if last[0] == n - 1 and last[1] is previous else L.runs(previous, stop_p)
        runs_c = L.runs(current, stop_c)
        self._last_runs = (n, current, runs_c)  # the next call's previous
        d = stop_p if previous == current else L.first_difference(runs_p, L.runs(current, stop_p), stop_p)
        if self.codex and self.resets[n - 1]:  # the reasoning previous re-sent is not matched
            k = bisect_left(self.with_reasoning, window_p[0])
            if k < len(self.with_reasoning) and self.with_reasoning[k] < d:
                d = self.with_reasoning[k]
        if d == stop_p and self._last_sent[0] == n - 1 and not self.with_reasoning:  # previous, all sent again
            tokens, reasoning = self._last_sent[1], 0
        else:
            tokens, reasoning = L.sent(runs_p, d, window_p[0])
        shared = prefix_p + tokens + reasoning
        if d < stop_p or self.with_reasoning:  # else previous is all sent again, in front
            total, broke, _ = matched_pieces(
                L.pieces(runs_p, d, window_p, self.with_reasoning),
                L.pieces(runs_c, d, window_c, self.with_reasoning),
                skip_dropped_reasoning=not self.codex,
            )
            shared += total
            if broke:
                shared -= max(0, prefix_p - prefix_c)
        if self.codex and calls[n - 1].turn != calls[n - 2].turn:
            grown = max(0, prefix_c - prefix_p)
            shared = min(shared, prefix_c + L.before_source(runs_c, self.turn_first[n - 2]) - grown)
        return shared


def _new_first_point(previous, current, stop_p: int, stop_c: int) -> int | None:
    """Where both layouts start with a point at the same message ``d``, below both stops, whose
    keys differ (a compaction that folds the earlier summary into a new one in its place: most
    calls of LangChain's summarization), ``d``: both requests send every message before it as
    it is and then different pieces, so :meth:`LayoutChain.shared` matches up to ``d`` and
    breaks there (no reasoning re-sent). None otherwise."""
    if not previous or not current:
        return None
    lo, hi, op_p = previous[0]
    lo_c, hi_c, op_c = current[0]
    if (lo != lo_c or hi != lo + 1 or hi_c != hi or lo >= stop_p or lo >= stop_c or op_p[0] != "point"
            or op_c[0] != "point" or op_p[1] == op_c[1] or _is_reasoning(op_p[1])):
        return None
    return lo


__all__ = ["LayoutChain", "RequestChain", "appended_op", "inserted_key", "request_pieces", "shared_tokens", "tokens_before_source"]
