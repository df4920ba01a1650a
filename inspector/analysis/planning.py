"""The one planning entry point: a pipeline applied to an :class:`~inspector.analysis.session.Analysis`
at one model call, with the providers' verdict on the history it sends.

Strategies know nothing of providers; a :class:`CheckedPlan` is their Plan plus
``violations``/``valid``, validated on first use (cheaply, from the view's facts) and kept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ..providers.validate import Violation, validate_plan, validity
from ..strategies import Plan
from ..strategies.params import SettingsBase as Settings
from ..strategies.params import settings_model
from ..strategies import plan as run_plan

if TYPE_CHECKING:  # pragma: no cover
    from .session import Analysis

Pipeline = str | Sequence[str]


class CheckedPlan(Plan):
    """A Plan that also says which providers accept the history it sends."""

    @classmethod
    def of(cls, plan: Plan) -> CheckedPlan:
        """``plan`` with validity (its fields shared, not copied)."""
        if isinstance(plan, CheckedPlan):
            return plan
        return cls(**{f.name: getattr(plan, f.name) for f in fields(Plan)})

    @cached_property
    def violations(self) -> dict[str, list[Violation]]:
        """Provider rule violations of the history this plan sends, by provider."""
        return validate_plan(self)

    @property
    def valid(self) -> dict[str, bool]:
        return validity(self.violations)


def settings_of(settings: Settings | None, params: dict[str, Any]) -> Settings:
    """``settings`` (default: the defaults) with the fields in ``params`` replaced."""
    if not params:
        return settings if settings is not None else settings_model()()
    base = settings.model_dump() if settings is not None else {}
    return settings_model()(**{**base, **params})


def plan(
    analysis: Analysis,
    pipeline: Pipeline = (),
    settings: Settings | None = None,
    at_call: int | None = None,
) -> CheckedPlan:
    """Apply ``pipeline`` at model call ``at_call`` (1-based; None: the next call). The plan's
    totals include what the call sent that the file does not show (:func:`.predict.not_in_file_at`)."""
    from .predict import not_in_file_at
    from .replay import call_facts

    view, table = analysis.view, analysis.table
    call = view.call_for(at_call) if at_call is not None else None
    hidden = call_facts(view, table).hidden[call.number - 1] if call is not None else not_in_file_at(view, table, at_call)
    return CheckedPlan.of(run_plan(view, table, pipeline, settings or settings_model()(), at_call, hidden))


__all__ = ["CheckedPlan", "Pipeline", "plan", "settings_of"]
