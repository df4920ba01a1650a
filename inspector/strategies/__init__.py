"""Pruning strategies: pure functions from a session view and settings to a plan.

Importing this package registers every built-in strategy in ``STRATEGIES``, then the strategies
installed plugins provide (entry point group ``context_inspector.strategies``, see
:mod:`inspector.plugins`). ``Settings`` is looked up when read: it is built from the parameters
of every strategy registered so far (:mod:`.params`).
"""

from typing import Any

from .base import BlockEdit, Decision, Inserted, Plan, Reason, Status, Working
from .params import Param, ParamConflict
from .pipeline import STRATEGIES, StrategyDef, UnknownStrategy, owners, parse_pipeline, plan, register

from . import builtin  # noqa: E402,F401  (registers the built-in strategies)
from ..plugins import STRATEGIES_GROUP, load_group

load_group(STRATEGIES_GROUP, STRATEGIES)

__all__ = [
    "STRATEGIES",
    "BlockEdit",
    "Decision",
    "Inserted",
    "Param",
    "ParamConflict",
    "Plan",
    "Reason",
    "Settings",
    "Status",
    "StrategyDef",
    "UnknownStrategy",
    "Working",
    "owners",
    "parse_pipeline",
    "plan",
    "register",
]


def __getattr__(name: str) -> Any:
    if name == "Settings":
        from .params import settings_model

        return settings_model()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
