"""The viewer's compare screen in figures: every pipeline and preset the user can choose, run
through :func:`.compare.compare` (the same core as ``context-inspector compare --presets``), with
each one's plan at the call under the cursor (tokens, provider validity) and, where prices are
known, what it saves in dollars over the replay (:func:`.money.session_money`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..strategies.params import SettingsBase as Settings
from .compare import CompareRow, ProgressFor, compare
from .money import session_money
from .planning import CheckedPlan, plan

if TYPE_CHECKING:  # pragma: no cover
    from .session import Analysis


@dataclass(frozen=True, slots=True)
class Choice:
    """One thing the user can apply: a strategy or pipeline (with the current settings) or a
    preset (with its own)."""

    label: str
    pipeline: tuple[str, ...]
    settings: Settings
    preset: bool = False


@dataclass(frozen=True, slots=True)
class ChoiceRow:
    choice: Choice
    compared: CompareRow  # replay over every call, saving against the baseline
    at_cursor: CheckedPlan  # the plan at the call under the cursor
    dollars_saved: float | None  # None: a model the price data does not know

    @property
    def tokens_at_cursor(self) -> int:
        return self.at_cursor.tokens_after

    @property
    def replay_total(self) -> int:
        return self.compared.replay.total

    @property
    def tokens_saved(self) -> int:
        return self.compared.replay.saving


def compare_choices(
    analysis: Analysis,
    choices: Sequence[Choice],
    baseline_settings: Settings,
    at_call: int | None,
    *,
    progress_for: ProgressFor | None = None,
    priced: Callable[[], bool] = lambda: True,
) -> list[ChoiceRow]:
    """The baseline ("none") first, then one row per choice. ``at_call``: the cursor's call (None:
    the next call). ``priced()`` False skips the dollar figures."""
    rows = compare(analysis, [c.pipeline for c in choices], baseline_settings,
                   presets=[(c.label, c.settings) for c in choices], progress_for=progress_for)
    baseline = Choice("none", (), baseline_settings)
    view, table = analysis.view, analysis.table
    base_money = session_money(view, table, (), baseline_settings) if priced() else None
    base_cost = base_money.total("baseline_cost") if base_money is not None else None
    out = []
    for choice, row in zip([baseline, *choices], rows):
        saved = None
        if base_cost is not None:
            cost = session_money(view, table, choice.pipeline, choice.settings).total("cost") if choice.pipeline else base_cost
            saved = None if cost is None else float(base_cost - cost)
        out.append(ChoiceRow(choice, row, plan(analysis, choice.pipeline, choice.settings, at_call), saved))
    return out


__all__ = ["Choice", "ChoiceRow", "compare_choices"]
