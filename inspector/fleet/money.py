"""Dollar figures for the fleet tables: the one seam where prices come in.

Until the money module (``inspector.analysis.money``) lands, every cost is None and the dataset's
money columns stay NULL. Point :func:`call_cost` at it then: it receives a call row (model and the
recorded token parts) and returns dollars or None when the price is unknown.
"""

from __future__ import annotations

from typing import Any


def call_cost(row: dict[str, Any]) -> float | None:
    """Dollars for one model call row of the ``calls`` table; None while no price is known."""
    return None


def session_cost(call_costs: list[float | None]) -> float | None:
    """The sum of a session's call costs; None unless every call has a price."""
    if not call_costs or any(c is None for c in call_costs):
        return None
    return float(sum(call_costs))  # type: ignore[arg-type]
