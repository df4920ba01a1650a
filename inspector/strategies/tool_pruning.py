"""``tool_pruning`` (the seeds' proposal): prior turns keep only the question and the answer.

For every turn before the current one, keep the user message that opened it and the turn's
final assistant reply (its last assistant message without tool calls); drop every other message
of the turn: assistant messages with tool calls (with any text they carry, as Anthropic-style
messages often do), all tool results, and intermediate replies. A turn the user interrupted
(no final reply) keeps its user message only. The current turn is kept whole, so a single-turn
session is unchanged; system messages and the preamble are never dropped.

Tool exchanges are dropped whole, so the result is valid for both providers; the exception, an
exchange whose result arrived after the user spoke again, is kept whole instead of split.
"""

from __future__ import annotations

from .base import Reason, Status, Working
from .common import keep_units_whole
from .pipeline import register

NAME = "tool_pruning"
_CALL = "dropped by tool_pruning: tool call in prior turn {} (only its question and final answer are kept)"
_RESULT = "dropped by tool_pruning: tool result in prior turn {} (only its question and final answer are kept)"
_OTHER = "dropped by tool_pruning: intermediate message in prior turn {} (only its question and final answer are kept)"


@register(
    NAME,
    (),
    "For every earlier turn keeps only the user's question and the final answer, dropping the "
    "tool calls and results in between; the current turn stays whole. Removes the bulk of "
    "re-sent tool output, but the model can no longer look back at what its tools returned.",
)
def tool_pruning(w: Working) -> None:
    view = w.view
    roles, turn_of, call_ids, result_ids = view.roles, view.turn_of, view.call_ids, view.result_ids
    live = w.live
    current = w.current_turn
    keep: set[int] = set()
    for turn in view.turns:
        if turn.number == 0 or turn.number >= current:
            continue
        if turn.user_index is not None:
            keep.add(turn.user_index)
        if turn.final_index is not None:
            keep.add(turn.final_index)
    drop = {
        i
        for i in w.order
        if type(i) is int and 0 < turn_of[i] < current and live[i] and roles[i] != "system" and i not in keep
    }
    if not drop:
        return
    keep_units_whole(w, drop)
    reasons: dict[tuple[str, int], Reason] = {}
    for i in drop:
        kind = _CALL if call_ids[i] else _RESULT if result_ids[i] else _OTHER
        t = turn_of[i]
        reason = reasons.get((kind, t))
        if reason is None:
            reason = reasons[(kind, t)] = Reason(kind, (t,))
        w.mark(i, Status.DROPPED, NAME, reason)
    w.compact()
