"""The budget a viewer starts with when none is given."""

from __future__ import annotations

from ..tokens import TokenTable
from ..units import SessionView
from .context import next_call


def default_budget(view: SessionView, table: TokenTable) -> int:
    """Half of what the next call would send, rounded to 1,000 (at least 1,000), so fifo and
    summarize have something to do the moment they are switched on."""
    sent = next_call(view, table).tokens
    return max(1000, int(round(sent * 0.5 / 1000.0)) * 1000)


__all__ = ["default_budget"]
