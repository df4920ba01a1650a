"""Pipelines side by side: each one's plan at the last model call and its replay over every call,
both with what the file does not show (so savings are shares of the whole input).

Validity: a stateless pipeline's is its plan's at the last call (every call's request is the
same pipeline on a shorter history); a compacting pipeline's comes from every call of its
stateful replay (:func:`.compaction.compacting_validity`): each request as the agent would
send it after its compactions must be valid."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..strategies.params import SettingsBase as Settings
from .compaction import CompactingValidity, compacting
from .compare_forked import ForkedReplays, may_fork
from .planning import CheckedPlan, plan
from .replay import Replay, replay, replay_and_validity

if TYPE_CHECKING:  # pragma: no cover
    from .session import Analysis

#: ``progress_for(label, calls)``: the progress callback for one replay (or None).
ProgressFor = Callable[[str, int], Callable[[int, int], None] | None]
#: ``price(pipeline, settings, replay)``: what a row's replay costs (small and picklable: a forked
#: worker prices its own replays and sends this back), kept as the row's ``money``.
Price = Callable[[tuple[str, ...], Settings, Replay], Any]


class LastCallPlan:
    """A pipeline's plan at the last model call (the next call when there is none), planned when
    first read: a compacting row's report reads none of it (its validity covers every call of
    its replay, its last call's tokens are the replay's), so ``compare`` plans it only if asked."""

    __slots__ = ("_args", "_plan")

    def __init__(self, analysis: Analysis, names: tuple[str, ...], settings: Settings, at: int | None) -> None:
        self._args: tuple | None = (analysis, names, settings, at)
        self._plan: CheckedPlan | None = None

    @property
    def plan(self) -> CheckedPlan:
        if self._plan is None:
            assert self._args is not None
            self._plan, self._args = plan(*self._args), None
        return self._plan


@dataclass(frozen=True, slots=True)
class CompareRow:
    pipeline: tuple[str, ...]  # () is the baseline: no strategy
    last_call: LastCallPlan  # the plan at the last model call (:attr:`plan`)
    replay: Replay
    saving_pct: float  # replay total against the baseline's, rounded to 0.1
    preset: str | None = None  # the preset whose pipeline and settings this row runs
    #: Every call of a compacting pipeline's stateful replay checked (None: not compacting).
    every_call: CompactingValidity | None = None
    #: What ``compare``'s ``price`` made of this row's replay (None: not asked, or no pipeline).
    money: Any = None

    @property
    def plan(self) -> CheckedPlan:
        """The pipeline's plan at the last model call (the next call when there is none)."""
        return self.last_call.plan

    @property
    def name(self) -> str:
        return ",".join(self.pipeline) or "none"

    @property
    def validity_scope(self) -> str:
        """What the validity covers: ``"every call"`` or ``"last call"``."""
        return "every call" if self.every_call is not None else "last call"

    @property
    def valid(self) -> dict[str, bool]:
        return self.every_call.valid if self.every_call is not None else self.plan.valid

    @property
    def violations(self) -> dict[str, int]:
        """Violations per provider: summed over every call's request, or the last call's."""
        if self.every_call is not None:
            return self.every_call.violations
        return {provider: len(items) for provider, items in self.plan.violations.items()}

    @property
    def invalid_calls(self) -> dict[str, tuple[int, ...]]:
        """The calls whose request is invalid (every-call validity only; else empty)."""
        return self.every_call.invalid_calls if self.every_call is not None else {}

    @property
    def tokens_last_call(self) -> int:
        """The last call's input: the replay's where it replayed that call (a compacting
        pipeline's depends on the state its compactions left; every replayed call carries what the
        agent had removed, :mod:`.agent_removed`), else the plan at that call."""
        if (compacting(self.pipeline) or self.replay.complete) and self.replay.calls:
            return self.replay.calls[-1].tokens
        return self.plan.tokens_after


def compare(
    analysis: Analysis,
    pipelines: Sequence[tuple[str, ...]],
    settings: Settings,
    *,
    presets: Sequence[tuple[str, Settings]] = (),
    progress_for: ProgressFor | None = None,
    workers: int = 1,
    shared: bool = False,
    price: Price | None = None,
) -> list[CompareRow]:
    """One row for the baseline, then one per pipeline (``workers``, ``shared``: see
    :func:`.replay.replay`; ``shared`` when the rows are priced next, which then replays nothing;
    with ``workers > 1`` the stateless pipelines are replayed in forked workers meanwhile,
    :mod:`.compare_forked`).
    ``presets``: one ``(name, settings)`` per pipeline, which then runs with its preset's settings.
    ``price``: each row with a pipeline gets ``price(pipeline, settings, replay)`` as its ``money``
    (in the forked worker that replayed it, where one did)."""
    view, table = analysis.view, analysis.table
    calls = len(view.calls)
    at = calls or None
    each = [settings] + ([s for _, s in presets] if presets else [settings] * len(pipelines))
    labels = [None] + ([n for n, _ in presets] if presets else [None] * len(pipelines))
    stateless = [k for k, names in enumerate(pipelines, 1) if names and not compacting(tuple(names))]
    forked = None
    if may_fork(view, workers, len(stateless)):  # replayed in workers while this process does the rest
        forked = ForkedReplays(view, table, [(tuple(pipelines[k - 1]), each[k]) for k in stateless], workers, shared,
                               price)
    moneys: dict[int, Any] = {}
    try:
        results: list[Replay | None] = [replay(view, table, (), settings, workers=workers)]
        checked: dict[int, CompactingValidity] = {}  # a compacting row's every-call validity, from its replay's pass
        for k, (names, s) in enumerate(zip(pipelines, each[1:]), 1):
            if forked is not None and k in stateless:
                results.append(None)
                continue
            progress = progress_for(",".join(names), calls) if progress_for is not None else None
            if compacting(tuple(names)) and calls:
                result, checked[k] = replay_and_validity(view, table, tuple(names), s, shared)
                if progress is not None:
                    progress(calls, calls)
            else:
                result = replay(view, table, names, s, progress=progress, workers=workers, shared=shared)
            results.append(result)
            if price is not None and names:
                moneys[k] = price(tuple(names), s, result)
        all_names = [()] + list(pipelines)
        plans = [LastCallPlan(analysis, tuple(names), s, at) for names, s in zip(all_names, each)]
        for k, last_call in enumerate(plans):  # planned here, while forked workers replay, where the report reads it
            if k not in checked:
                last_call.plan  # noqa: B018
        if forked is not None:
            for j, result, money in forked:
                k = stateless[j]
                results[k] = result
                if price is not None:
                    moneys[k] = money
                if progress_for is not None and (progress := progress_for(",".join(pipelines[k - 1]), calls)) is not None:
                    progress(calls, calls)
    finally:
        if forked is not None:
            forked.close()
    baseline_total = results[0].predicted_total  # type: ignore[union-attr]  # the whole input, the part not in the file included
    rows = []
    for k, (names, result, s, label) in enumerate(zip(all_names, results, each, labels)):
        assert result is not None
        saving = round(100.0 * (baseline_total - result.total) / baseline_total, 1) if baseline_total else 0.0
        every_call = checked.get(k)
        rows.append(CompareRow(tuple(names), plans[k], result, saving, label, every_call, moneys.get(k)))
    return rows


__all__ = ["CompareRow", "LastCallPlan", "Price", "compare"]
