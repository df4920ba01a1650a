"""Two plans of the same call side by side: the messages they treat differently (a different
status or a different number of tokens sent), each with both statuses, tokens and reasons. The
viewer's compare screen draws it; nothing here formats for a terminal."""

from __future__ import annotations

from typing import NamedTuple

from ..strategies import Plan, Status


class DiffRow(NamedTuple):
    index: int
    status_a: Status
    tokens_a: int  # tokens sent under plan a (0 when it drops the message)
    reason_a: str
    status_b: Status
    tokens_b: int
    reason_b: str


def plan_diff(a: Plan, b: Plan) -> list[DiffRow]:
    """Every source message both plans saw whose status or tokens sent differ, in order. Plans
    of different calls are compared over the messages both saw."""
    rows = []
    for i in range(min(a.stop, b.stop)):
        if a.status[i] is not b.status[i] or a.tokens_after_of[i] != b.tokens_after_of[i]:
            rows.append(DiffRow(i, a.status[i], a.tokens_after_of[i], a.reason(i),
                                b.status[i], b.tokens_after_of[i], b.reason(i)))
    return rows


__all__ = ["DiffRow", "plan_diff"]
