"""The first stage of a plan built with its cut made: fifo and trim_messages from cut points.

A plan whose first strategy has a cut-point form (:mod:`.incremental` finds the cut in O(log n)
from per-session prefix sums) builds its history with the cut already made, each per-message
list written once as runs, instead of building the whole history and then dropping most of it:
re-planning fifo at 50,000 messages costs about a millisecond instead of 12. The reason of each
dropped message is a :class:`~.base.PerIndex`, rendered only when read. Same statuses, reasons,
order and totals as the strategies' own code (tests/test_incremental_replay.py).
"""

from __future__ import annotations

from collections.abc import Callable

from ..tokens import TokenTable
from ..units import SessionView
from .base import PerIndex, Reason, Status, Working
from .common import view_cache
from .incremental import Facts, _fifo_cut, _trim_cut, facts
from .params import SettingsBase as Settings
from .pipeline import FIRST_STAGE, _positions, history_of


Run = tuple[int, int, str, object]  # [a, b) dropped by strategy ``by`` for reason ``why``


def _fifo_runs(f: Facts, s: Settings, stop: int, turn: int, total: int) -> list[Run] | None:
    from .fifo import _UNIT, NAME

    if not s.pair_safe:
        return None
    k = _fifo_cut(f, s, stop, turn, total)
    if k is None:
        return None  # fifo goes on inside the current turn: the strategy's own code plans it
    if k <= 0:
        return []
    end, budget = f.ns_index[k - 1] + 1, s.budget
    ns_prefix, unit_start = f.ns_prefix, f.unit_bounds[0]
    why = PerIndex(_UNIT, lambda i: (total - ns_prefix[unit_start[i]], budget))
    runs: list[Run] = []
    a = 0
    for system in view_cache(f.view).system_indices:  # the runs of non-system messages before end
        if system >= end:
            break
        if a < system:
            runs.append((a, system, NAME, why))
        a = system + 1
    if a < end:
        runs.append((a, end, NAME, why))
    return runs


def _trim_runs(f: Facts, s: Settings, stop: int, turn: int, total: int) -> list[Run] | None:
    from .trim_messages import _BUDGET, _START, NAME

    if s.trim_end_on != "none":
        return None
    cut = _trim_cut(f, s, stop)
    if cut is None:
        return []
    lo, start, kept_from = cut
    if s.trim_strategy == "first":
        runs = [(kept_from, stop, NAME, Reason(_BUDGET, ("first", kept_from, s.budget)))]
    else:
        runs = [
            (lo, start, NAME, Reason(_BUDGET, ("last", stop - start, s.budget))),
            (start, kept_from, NAME, Reason(_START, (s.trim_start_on,))),
        ]
    return [r for r in runs if r[0] < r[1]]


_RUNS: dict[str, Callable[[Facts, Settings, int, int, int], list[Run] | None]] = {
    "fifo": _fifo_runs,
    "trim_messages": _trim_runs,
}


def _in_runs(stop: int, runs: list[Run], kept: object, value: Callable[[Run], object]) -> list:
    """A per-message list: ``value(run)`` inside each run, ``kept`` elsewhere."""
    out: list = []
    previous = 0
    for run in runs:
        a, b = run[0], run[1]
        if a > previous:
            out += [kept] * (a - previous)
        out += [value(run)] * (b - a)
        previous = b
    if previous < stop:
        out += [kept] * (stop - previous)
    return out


def first_stage(
    name: str, view: SessionView, table: TokenTable, settings: Settings, at_call: int | None, not_in_file: int
) -> Working | None:
    """The history of call ``at_call`` with strategy ``name`` already applied, built from its cut
    points, when it has that form and the call sees the history from message 0 with tool
    exchanges as runs (else None: start the history and apply the strategy as usual). Same
    statuses, reasons, order and totals as the strategy's own code (tests/test_incremental_replay.py)."""
    runs_of = _RUNS.get(name)
    if runs_of is None or not view_cache(view).units_simple:
        return None
    call, stop, turn, context_start = history_of(view, at_call)
    if context_start:
        return None
    prefix = table.prefix
    total = table.overhead + not_in_file + prefix[stop]
    runs = runs_of(facts(view, table), settings, stop, turn, total)
    if runs is None:
        return None
    live = bytearray(b"\x01") * stop
    dropped = 0
    order: list = []
    positions = _positions(view)
    previous = 0
    for a, b, _, _ in runs:
        order += positions[previous:a]
        live[a:b] = bytes(b - a)
        dropped += prefix[b] - prefix[a]
        previous = b
    order += positions[previous:stop]
    status = _in_runs(stop, runs, Status.KEPT, lambda r: Status.DROPPED)
    by = _in_runs(stop, runs, None, lambda r: r[2])
    reasons = _in_runs(stop, runs, None, lambda r: r[3])
    return Working(view, table, settings, call, stop, turn, order, table.totals[:stop], status, by, reasons,
                   live=live, running=total - dropped, not_in_file=not_in_file)


FIRST_STAGE.append(first_stage)

__all__ = ["first_stage"]
