"""``fifo``: drop the oldest removable unit until the history fits the token budget.

A unit is what :mod:`inspector.units` groups: a user message, a final answer, a summary, or a
whole tool exchange (the assistant message with its calls plus every result). Older turns go
first, then the current turn's own older exchanges (an autonomous agent runs hundreds of calls
on one prompt); never removable are system messages, the current turn's prompt and its latest
exchange (:func:`~inspector.strategies.common.protected_in_turn`), and the history never shrinks
below ``min_history_messages`` non-system messages. The total compared with the budget is the
whole request (tool definitions and reply priming included).

``pair_safe=False`` reproduces the naive loop proposed in the seeds instead: while over budget,
remove the first non-system message, then the next one too if it is an assistant message. It
does not know about tool exchanges, so it leaves orphaned tool results behind (the validator
reports them); it still keeps system messages, the current turn's prompt and latest exchange,
and ``min_history_messages``.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate

from .base import Reason, Working, reason
from .common import candidates, non_system_count, protected_in_turn, view_cache
from .params import Param
from .pipeline import register

_new_tuple = tuple.__new__

NAME = "fifo"
_UNIT = "dropped by fifo: oldest removable unit while {} > budget {}"
_NAIVE_FIRST = "dropped by fifo (pair_safe=false): first message while {} > budget {}"
_NAIVE_NEXT = "dropped by fifo (pair_safe=false): assistant message right after the first one, dropped with it while {} > budget {}"


@register(
    NAME,
    (
        "budget",
        Param(
            "min_history_messages", int, 2, "never drop below this many non-system messages",
            label="min history msgs", unit="messages", ge=0,
        ),
        Param(
            "pair_safe", bool, True,
            "drop a tool call only with all its results; off is the naive loop that orphans tool results",
        ),
    ),
    "Drops the oldest whole units (a message, or a tool call with all its results) until the "
    "request fits the token budget, older turns first, then the current turn's older exchanges; "
    "never the system prompt, the current prompt or the latest exchange. "
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
    if view_cache(w.view).units_simple:
        _drop_units_fast(w, budget)
    else:
        _drop_units_general(w, budget)


def _drop_units_fast(w: Working, budget: int) -> None:
    """Units are runs of consecutive messages: find the cut with prefix sums and a bisection
    instead of walking unit by unit (same result as the general loop, which tests check)."""
    seq = candidates(w, in_turn=True)
    if not seq:
        return
    tokens, unit_of = w.tokens, w.view.unit_of
    total = w.running
    cum = list(accumulate([tokens[i] for i in seq]))
    m = len(seq)
    # The fewest messages whose tokens bring the total within budget, moved to a unit boundary.
    k = min(bisect_left(cum, total - budget) + 1, m)
    while k < m and unit_of[seq[k]] == unit_of[seq[k - 1]]:
        k += 1
    limit = non_system_count(w) - w.settings.min_history_messages
    if k > limit:  # stop at the last unit boundary that keeps min_history_messages
        k = max(limit, 0)
        while 0 < k < m and unit_of[seq[k]] == unit_of[seq[k - 1]]:
            k -= 1
    if k <= 0:
        return
    reasons: list = []
    append = reasons.append
    last_unit = -1
    r = None
    for p in range(k):
        u = unit_of[seq[p]]
        if u != last_unit:
            last_unit = u
            r = reason(_UNIT, (total - (cum[p - 1] if p else 0), budget))
        append(r)
    w.drop_many(seq[:k], NAME, reasons)


def _drop_units_general(w: Working, budget: int) -> None:
    """Unit by unit, for sessions with units that are not runs (a result arriving late)."""
    view = w.view
    roles, unit_of, units = view.roles, view.unit_of, view.units
    live, tokens = w.live, w.tokens
    stop, guard = w.stop, protected_in_turn(w)
    min_history = w.settings.min_history_messages
    remaining = non_system_count(w)
    total = w.running
    kept_units: set[int] = set()  # units found protected
    dropped: list[int] = []
    reasons: list = []
    gone = bytearray(stop)
    for i in w.order:
        if type(i) is not int or gone[i]:
            continue
        if roles[i] == "system" or i in guard:
            continue
        u = unit_of[i]
        if u in kept_units:
            continue
        group = [j for j in units[u].indices if j < stop and live[j]]
        if any(j in guard or roles[j] == "system" for j in group):
            kept_units.add(u)
            continue
        if remaining - len(group) < min_history:
            break
        r = reason(_UNIT, (total, budget))
        for j in group:
            gone[j] = 1
            dropped.append(j)
            reasons.append(r)
            total -= tokens[j]
        remaining -= len(group)
        if total <= budget:
            break
    if dropped:
        pairs = sorted(zip(dropped, reasons))
        w.drop_many([p[0] for p in pairs], NAME, [p[1] for p in pairs])


def _drop_naive(w: Working, budget: int) -> None:
    roles = w.view.roles
    min_history = w.settings.min_history_messages
    remaining = non_system_count(w)
    seq = candidates(w, in_turn=True)  # never a system message or what the current turn needs
    tokens = w.tokens
    total = w.running
    dropped: list[int] = []
    reasons: list = []
    k, m = 0, len(seq)
    while total > budget and k < m and remaining > min_history:
        first = seq[k]
        why = _new_tuple(Reason, (_NAIVE_FIRST, (total, budget)))
        dropped.append(first)
        reasons.append(why)
        remaining -= 1
        k += 1
        if k < m and remaining > min_history and roles[seq[k]] == "assistant":
            nxt = seq[k]
            dropped.append(nxt)
            reasons.append(_new_tuple(Reason, (_NAIVE_NEXT, why.args)))
            total -= tokens[nxt]
            remaining -= 1
            k += 1
        total -= tokens[first]
    w.drop_many(dropped, NAME, reasons)
