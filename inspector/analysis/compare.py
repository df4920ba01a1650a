"""Pipelines side by side: each one's plan at the last model call and its replay over every call,
both with what the file does not show (so savings are shares of the whole input)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..strategies.params import SettingsBase as Settings
from .planning import CheckedPlan, plan
from .replay import Replay, replay

if TYPE_CHECKING:  # pragma: no cover
    from .session import Analysis

#: ``progress_for(label, calls)``: the progress callback for one replay (or None).
ProgressFor = Callable[[str, int], Callable[[int, int], None] | None]


@dataclass(frozen=True, slots=True)
class CompareRow:
    pipeline: tuple[str, ...]  # () is the baseline: no strategy
    plan: CheckedPlan  # at the last model call (the next call when there is none)
    replay: Replay
    saving_pct: float  # replay total against the baseline's, rounded to 0.1

    @property
    def name(self) -> str:
        return ",".join(self.pipeline) or "none"


def compare(
    analysis: Analysis,
    pipelines: Sequence[tuple[str, ...]],
    settings: Settings,
    *,
    progress_for: ProgressFor | None = None,
    workers: int = 1,
) -> list[CompareRow]:
    """One row for the baseline, then one per pipeline (``workers``: see :func:`.replay.replay`)."""
    view, table = analysis.view, analysis.table
    calls = len(view.calls)
    at = calls or None
    results = [replay(view, table, (), settings, workers=workers)]
    for names in pipelines:
        progress = progress_for(",".join(names), calls) if progress_for is not None else None
        results.append(replay(view, table, names, settings, progress=progress, workers=workers))
    baseline_total = results[0].predicted_total  # the whole input, the part not in the file included
    rows = []
    for names, result in zip([()] + list(pipelines), results):
        saving = round(100.0 * (baseline_total - result.total) / baseline_total, 1) if baseline_total else 0.0
        rows.append(CompareRow(tuple(names), plan(analysis, names, settings, at), result, saving))
    return rows


__all__ = ["CompareRow", "compare"]
