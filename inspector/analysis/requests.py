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

from collections.abc import Hashable, Sequence

from ..strategies.base import Inserted, Working
from ..tokens import TokenTable
from ..units import SessionView
from .baseline import produced_reasoning, reasoning_resets
from .cache import Piece


def request_pieces(w: Working, reasoning: dict[int, int]) -> list[Piece]:
    """The request of one planned call. ``w``'s overhead holds the re-sent ``reasoning`` (message
    index of the call that produced it -> tokens), which becomes a piece before that message;
    reasoning of a message the pipeline dropped is still sent (replay counts it), at the end.
    The pieces add up to ``w.total()``."""
    resent = sum(reasoning.values())
    out: list[Piece] = [("prefix", w.overhead - resent)]
    edits = w.edits
    left = dict(reasoning)
    for s in w.order:
        if type(s) is int:
            if s in left:
                out.append((("reasoning", s), left.pop(s)))
            changes = tuple((e.block, e.kind, e.tokens_after) for e in edits.get(s, ()) if _changes(e))
            key: Hashable = (s, changes) if changes else s
            out.append((key, w.tokens[s]))
        else:
            assert isinstance(s, Inserted)
            out.append((("inserted", s.kind, s.text, s.replaces), s.tokens))
    out.extend((("reasoning", s), n) for s, n in left.items())
    return out


def _changes(edit) -> bool:
    """Whether an edit changes what is sent as we count it: removing a block we count as 0
    tokens (Claude Code writes a thinking block's signature only) leaves the request as replay
    counts it, and so leaves its cached prefix."""
    return edit.tokens_before != edit.tokens_after or (edit.text is not None and edit.kind != "remove")


def shared_tokens(previous: Sequence[Piece], current: Sequence[Piece], skip_dropped_reasoning: bool) -> int:
    """Tokens of ``previous`` that ``current`` repeats from the start. With
    ``skip_dropped_reasoning``, a reasoning piece of ``previous`` that ``current`` no longer
    sends is passed over (counted as read, as the baseline does) instead of ending the prefix.

    The fixed prefix is one piece whose size is estimated per call (what the file does not
    show, :func:`.predict.predictions`): a request that repeats all of the previous one shares
    the previous request whole; one that breaks off shares the smaller of the two calls' fixed
    prefixes and what matched after it, as :func:`.money.baseline_requests` counts it, so the
    same requests get the same split with or without a pipeline."""
    total = 0
    j = 0
    for key, n in previous:
        if j < len(current) and current[j][0] == key:
            total += n
            j += 1
        elif skip_dropped_reasoning and _is_reasoning(key):
            total += n
        else:
            if j and previous[0][0] == current[0][0] == "prefix":
                total -= max(0, previous[0][1] - current[0][1])
            break
    return total


def _is_reasoning(key: Hashable) -> bool:
    return isinstance(key, tuple) and len(key) == 2 and key[0] == "reasoning"


def tokens_before_source(pieces: Sequence[Piece], stop: int) -> int:
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
    not fed). Keeps only the last request's pieces."""

    def __init__(self, view: SessionView, table: TokenTable) -> None:
        self.view = view
        self.codex = view.session.format == "codex"
        self.produced = produced_reasoning(view, table)
        self.resets = reasoning_resets(view)
        self._last: tuple[int, list[Piece]] | None = None

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

    def feed(self, n: int, w: Working) -> int | None:
        pieces = request_pieces(w, self.resent_at(n))
        last, self._last = self._last, (n, pieces)
        if n == 1:
            return 0
        if last is None or last[0] != n - 1:
            return None
        shared = shared_tokens(last[1], pieces, skip_dropped_reasoning=not self.codex)
        calls = self.view.calls
        if self.codex and calls[n - 1].turn != calls[n - 2].turn:
            grown = max(0, pieces[0][1] - last[1][0][1])  # the fixed prefix both sent: the smaller
            shared = min(shared, tokens_before_source(pieces, self._turn_first_output(n - 1)) - grown)
        return shared

    def _turn_first_output(self, n: int) -> int:
        """The message of the first call in call ``n``'s turn."""
        calls = self.view.calls
        k = n - 1
        while k > 0 and calls[k - 1].turn == calls[n - 1].turn:
            k -= 1
        return calls[k].message_index


__all__ = ["RequestChain", "request_pieces", "shared_tokens", "tokens_before_source"]
