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

from ..units import SUMMARY
from .base import Reason, Working, reason
from .common import current_opening_unit, current_turn_start, keep_units_whole, view_cache
from .pipeline import register

NAME = "tool_pruning"
_CALL = "dropped by tool_pruning: tool call in prior turn {} (only its question and final answer are kept)"
_RESULT = "dropped by tool_pruning: tool result in prior turn {} (only its question and final answer are kept)"
_OTHER = "dropped by tool_pruning: intermediate message in prior turn {} (only its question and final answer are kept)"
_OPENING = "kept by tool_pruning: opens turn {} and also carries tool results, so their call (message {}) is kept with it"
_OPENING_CALL = "kept by tool_pruning: its results are in message {}, which opens turn {} with the user's text; kept with it"


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
    roles, call_ids, result_ids, flags = view.roles, view.call_ids, view.result_ids, view.flags
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
    protected = set(current_opening_unit(w))
    drop: list[int] = []
    reasons: list[Reason] = []
    for turn in view.turns:
        if turn.number == 0:
            continue
        if turn.start >= limit:
            break
        question, answer = turn.user_index, turn.final_index
        call = result = other = None  # this turn's reasons, made when first needed
        for i in range(turn.start, min(turn.stop, limit)):
            if i == question or i == answer or not live[i] or roles[i] == "system" or flags[i] & SUMMARY:
                continue
            if i in kept_with or i in protected:
                continue
            drop.append(i)
            if call_ids[i]:
                if call is None:
                    call = reason(_CALL, (turn.number,))
                reasons.append(call)
            elif result_ids[i]:
                if result is None:
                    result = reason(_RESULT, (turn.number,))
                reasons.append(result)
            else:
                if other is None:
                    other = reason(_OTHER, (turn.number,))
                reasons.append(other)
    if drop:
        kept = keep_units_whole(w, drop)
        if len(kept) != len(drop):
            keep = set(kept)
            reasons = [r for i, r in zip(drop, reasons) if i in keep]
        w.drop_many(kept, NAME, reasons)
    for i, why in kept_with.items():  # say why they stay, unless an earlier stage edited them
        if i < w.stop and live[i] and w.reasons[i] is None:
            w.by[i] = NAME
            w.reasons[i] = why
