"""Pruning strategies: pure functions from a session view and settings to a plan.

Importing this package registers every built-in strategy in ``STRATEGIES``.
"""

from .base import BlockEdit, Decision, Inserted, Plan, Reason, Settings, Status, Working
from .pipeline import STRATEGIES, StrategyDef, UnknownStrategy, parse_pipeline, plan, register

from . import builtin  # noqa: E402,F401  (registers the built-in strategies)

__all__ = [
    "STRATEGIES",
    "BlockEdit",
    "Decision",
    "Inserted",
    "Plan",
    "Reason",
    "Settings",
    "Status",
    "StrategyDef",
    "UnknownStrategy",
    "Working",
    "parse_pipeline",
    "plan",
    "register",
]
