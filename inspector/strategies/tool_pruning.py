"""``tool_pruning`` (the seeds' proposal): prior turns keep only the question and the answer.

For every turn before the current one, keep the user message that opened it and the turn's
final assistant reply (its last assistant message without tool calls); drop every other message
of the turn: assistant messages with tool calls (with any text they carry, as Anthropic-style
messages often do), all tool results, and intermediate replies. A turn the user interrupted
(no final reply) keeps its user message only. The current turn is kept whole, so a single-turn
session (an autonomous agent's run on one prompt) is unchanged; system messages, the preamble
and recorded summaries (a compaction inside an earlier turn) are never dropped. Turns are the
prompts a person gave (:mod:`inspector.units`): what the harness injected inside a prior turn
(an observation, an interruption notice, hook output) is an intermediate message and goes.

Tool exchanges are dropped whole, so the result is valid for both providers; the exception, an
exchange whose result arrived after the user spoke again, is kept whole instead of split. A
turn opened by a message that carries tool results as well as what the person typed (an
interjection during a tool loop) keeps that message, and with it its whole exchange: the call
in the turn before and any sibling results (the reason says so), so no result is orphaned and
no typed text is lost.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from ..units import SUMMARY, LazyFlags, SessionView
from .base import PerIndex, Reason, Status, Working, reason
from .common import current_turn_start, keep_units_whole, kept_on_view, view_cache
from .pipeline import register

NAME = "tool_pruning"
_DROPPED = "dropped by tool_pruning: {} in prior turn {} (only its question and final answer are kept)"
_OPENING = "kept by tool_pruning: opens turn {} and also carries tool results, so their call (message {}) is kept with it"
_OPENING_CALL = "kept by tool_pruning: its results are in message {}, which opens turn {} with the user's text; kept with it"


@dataclass(frozen=True, slots=True)
class Prunable:
    """What tool_pruning drops from a whole view, computed once per view: every message of a
    turn after turn 0 that is not its question or final answer, a system message, a recorded
    summary, or a member of an exchange whose results open a turn. A plan drops the ones before
    its current turn that are still live (a prefix of :attr:`indices`, cut by bisection)."""

    #: The messages, ascending.
    indices: list[int]
    #: The same messages as maximal runs ``[a, b)``, and each run's end (for bisection).
    runs: list[tuple[int, int]]
    ends: list[int]


def _prunable(view: SessionView) -> Prunable:
    cache = view_cache(view)
    flags = view.flags  # SUMMARY is set when the view is built: no need to scan for markers
    bits = flags.known_bits() if isinstance(flags, LazyFlags) else flags
    # what is never dropped wherever it stands (few messages): the runs go between them
    never = {i for number, before in cache.opening_unit_before.items() for i in (cache.turn_start[number], *before)}
    never.update(cache.system_indices)
    never.update(i for i, f in enumerate(bits) if f & SUMMARY)
    fixed = sorted(never)
    indices: list[int] = []
    runs: list[tuple[int, int]] = []
    for turn in view.turns:
        if turn.number == 0:
            continue
        start, stop = turn.start, turn.stop
        cuts = {turn.user_index, turn.final_index}
        cuts.update(fixed[bisect_left(fixed, start) : bisect_left(fixed, stop)])
        cuts.discard(None)
        a = start
        for cut in sorted(cuts):
            if a < cut:
                runs.append((a, cut))
            a = cut + 1
        if a < stop:
            runs.append((a, stop))
    merged: list[tuple[int, int]] = []
    for a, b in runs:  # turns touch: a run may go on into the next turn
        if merged and merged[-1][1] == a:
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
        indices.extend(range(a, b))
    return Prunable(indices, merged, [b for _, b in merged])


def _why(view: SessionView) -> PerIndex:
    """The reason of every message tool_pruning drops, rendered when read."""
    call_ids, result_ids, turn_of = view.call_ids, view.result_ids, view.turn_of

    def args_of(i: int) -> tuple[str, int]:
        kind = "tool call" if call_ids[i] else "tool result" if result_ids[i] else "intermediate message"
        return kind, turn_of[i]

    return PerIndex(_DROPPED, args_of)


@register(
    NAME,
    (),
    "For every earlier turn keeps only the user's question and the final answer, dropping the "
    "tool calls and results in between; the current turn stays whole (a single-prompt run is "
    "unchanged). Removes the bulk of "
    "re-sent tool output, but the model can no longer look back at what its tools returned.",
)
def tool_pruning(w: Working) -> None:
    view = w.view
    live = w.live
    limit = current_turn_start(w)
    # Exchanges whose results message opens a turn stay with it: index -> why it is kept.
    kept_with: dict[int, Reason] = {}
    cache = view_cache(view)
    for number, before in cache.opening_unit_before.items():
        opening = cache.turn_start[number]
        if opening >= limit:
            continue  # the current turn's opening exchange is protected with it
        kept_with[opening] = reason(_OPENING, (number, before[0]))
        for j in before:
            kept_with[j] = reason(_OPENING_CALL, (opening, number))
    facts = kept_on_view(view, "_tool_pruning", _prunable)
    why = kept_on_view(view, "_tool_pruning_why", _why)
    all_live = not w.inserted and len(w.order) == w.stop
    if all_live and not cache.cross_turn_units:  # the runs before the current turn, as they are
        k = bisect_left(facts.ends, limit)
        runs = facts.runs[:k]
        if k < len(facts.runs) and facts.runs[k][0] < limit:
            runs.append((facts.runs[k][0], limit))
        _drop_runs(w, runs, why)
    else:
        drop = facts.indices[: bisect_left(facts.indices, limit)]
        if not all_live:
            drop = [i for i in drop if live[i]]
        w.drop_many(keep_units_whole(w, drop), NAME, why)
    for i, why_kept in kept_with.items():  # say why they stay, unless an earlier stage edited them
        if i < w.stop and live[i] and w.reasons[i] is None:
            w.by[i] = NAME
            w.reasons[i] = why_kept


def _drop_runs(w: Working, runs: list[tuple[int, int]], why: PerIndex) -> None:
    """Drop the live messages of ``runs`` (ascending ``[a, b)``), a slice assignment per run."""
    if not runs:
        return
    status, by, reasons, live, tokens = w.status, w.by, w.reasons, w.live, w.tokens
    dropped = Status.DROPPED
    removed = 0
    for a, b in runs:
        n = b - a
        status[a:b] = [dropped] * n
        by[a:b] = [NAME] * n
        reasons[a:b] = [why] * n
        live[a:b] = bytes(n)
        removed += sum(tokens[a:b])
    w.running -= removed
    w.compact()
