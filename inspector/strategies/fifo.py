"""``fifo``: drop the oldest removable unit until the history fits the token budget.

A unit is what :mod:`inspector.units` groups: a user message, a final answer, a summary, or a
whole tool exchange (the assistant message with its calls plus every result). System messages
and the current turn are never removable, and the history never shrinks below
``min_history_messages`` non-system messages. The total compared with the budget is the whole
request (tool definitions and reply priming included).

``pair_safe=False`` reproduces the naive loop proposed in the seeds instead: while over budget,
remove the first non-system message, then the next one too if it is an assistant message. It
does not know about tool exchanges, so it leaves orphaned tool results behind (the validator
reports them); it still keeps system messages, the current turn and ``min_history_messages``.
"""

from __future__ import annotations

from .base import Reason, Status, Working
from .common import non_system_count
from .pipeline import register

NAME = "fifo"
_UNIT = "dropped by fifo: oldest removable unit while {} > budget {}"
_NAIVE_FIRST = "dropped by fifo (pair_safe=false): first message while {} > budget {}"
_NAIVE_NEXT = "dropped by fifo (pair_safe=false): assistant message right after the first one, dropped with it while {} > budget {}"


@register(
    NAME,
    ("budget", "min_history_messages", "pair_safe"),
    "Drops the oldest whole units (a message, or a tool call with all its results) until the "
    "request fits the token budget, never touching system messages or the current turn. "
    "Cheap and predictable, but everything it drops is forgotten outright, however important.",
)
def fifo(w: Working) -> None:
    budget = w.settings.budget
    if budget is None or w.running <= budget:
        return
    if w.settings.pair_safe:
        _drop_units(w, budget)
    else:
        _drop_naive(w, budget)


def _drop_units(w: Working, budget: int) -> None:
    view = w.view
    roles, turn_of, unit_of, units = view.roles, view.turn_of, view.unit_of, view.units
    live, tokens, status, by, reasons = w.live, w.tokens, w.status, w.by, w.reasons
    stop, current = w.stop, w.current_turn
    min_history = w.settings.min_history_messages
    remaining = non_system_count(w)
    total = w.running
    dropped = Status.DROPPED
    kept_units: set[int] = set()  # multi-message units found protected
    changed = False
    for i in w.order:
        if type(i) is not int or not live[i]:
            continue
        if turn_of[i] == current:
            break  # the current turn runs to the end of the history
        if roles[i] == "system":
            continue
        u = unit_of[i]
        members = units[u].indices
        if len(members) == 1:
            if remaining <= min_history:
                break
            reasons[i] = Reason(_UNIT, (total, budget))
            status[i] = dropped
            by[i] = NAME
            live[i] = 0
            total -= tokens[i]
            remaining -= 1
        else:
            if u in kept_units:
                continue
            group = [j for j in members if j < stop and live[j]]
            if any(turn_of[j] == current or roles[j] == "system" for j in group):
                kept_units.add(u)
                continue
            if remaining - len(group) < min_history:
                break
            reason = Reason(_UNIT, (total, budget))
            for j in group:
                reasons[j] = reason
                status[j] = dropped
                by[j] = NAME
                live[j] = 0
                total -= tokens[j]
            remaining -= len(group)
        changed = True
        if total <= budget:
            break
    w.running = total
    if changed:
        w.compact()


def _drop_naive(w: Working, budget: int) -> None:
    roles, turn_of = w.view.roles, w.view.turn_of
    live = w.live
    current = w.current_turn
    min_history = w.settings.min_history_messages
    remaining = non_system_count(w)
    candidates = [s for s in w.order if type(s) is int and roles[s] != "system"]
    k = 0
    changed = False
    while w.running > budget and k < len(candidates) and remaining > min_history:
        first = candidates[k]
        if turn_of[first] == current:
            break
        before = w.running
        w.mark(first, Status.DROPPED, NAME, Reason(_NAIVE_FIRST, (before, budget)))
        remaining -= 1
        changed = True
        k += 1
        if k < len(candidates) and remaining > min_history:
            nxt = candidates[k]
            if roles[nxt] == "assistant" and turn_of[nxt] != current and live[nxt]:
                w.mark(nxt, Status.DROPPED, NAME, Reason(_NAIVE_NEXT, (before, budget)))
                remaining -= 1
                k += 1
    if changed:
        w.compact()
