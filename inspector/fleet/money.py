"""Dollar figures for the fleet tables, from :mod:`inspector.analysis.money` (the same prices and
cache model as ``info``, ``replay`` and ``compare``): what each recorded call cost, the session's
recorded total (its sidechains' calls included, as ``info --json``'s ``recorded_cost_total``), and
what a strategy saves in dollars (no strategy against the pipeline, both through the same cache
model, as ``compare`` reports it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.money import Money
    from ..analysis.replay import Replay
    from ..analysis.session import Analysis


def recorded(analysis: Analysis) -> Money:
    """The recorded usage of every call priced (no strategy)."""
    from ..analysis.money import session_money

    return session_money(analysis.view, analysis.table)


def call_costs(money: Money) -> dict[int, float | None]:
    """Main-session call number -> dollars its recorded usage cost (None: no usage or no price)."""
    return {c.call: None if c.recorded_cost is None else float(c.recorded_cost.total)
            for c in money.calls if c.sidechain is None and c.kind == "call"}


def session_cost(money: Money) -> float | None:
    """The session's recorded cost, sidechains included; None when no call has a price."""
    total = money.total("recorded_cost")
    return None if total is None else float(total)


def saving_usd(analysis: Analysis, name: str, replay: Replay) -> float | None:
    """Dollars strategy ``name`` saves over the session (no strategy minus the pipeline)."""
    from ..analysis.money import session_money

    money = session_money(analysis.view, analysis.table, replay.pipeline, replay.settings, replay=replay)
    baseline, cost = money.total("baseline_cost"), money.total("cost")
    return None if baseline is None or cost is None else float(baseline - cost)
