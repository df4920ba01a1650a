"""Which rows a long ``plan`` or ``replay`` table shows (issue 11: a terminal table of 600,000
rows took minutes to draw and is read by nobody).

Up to :data:`~inspector.cli.longtable.LONG` rows a table shows every row, as it always did. Above
that, a plan's table cuts every run of at least ``2 * EDGE + MIN_HIDDEN`` consecutive messages
with the same status from the same stage (299,990 messages dropped by fifo) to its first and last
:data:`EDGE` rows around one row that says how many it stands for; if the table is still longer
than :data:`SHOWN` rows (statuses that alternate), and for replay's calls, which have no such
runs, it shows its first and last ``SHOWN // 2`` rows around one such row. ``--all`` shows
every row and ``--json`` always writes every row. Pure functions of a row count and a key per
row: nothing here prints.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass

from .longtable import LONG

#: Rows kept at each end of a run that is cut.
EDGE = 5
#: Rows a cut must stand for at least: a row saying "2 messages kept" reads worse than the two rows.
MIN_HIDDEN = 5
#: Rows a cut table shows at most: its first and last 100 around one row for the rest (a Rich
#: table draws about 2 ms a row on the development machine: 2,000 rows would be 4 s).
SHOWN = 201


@dataclass(frozen=True, slots=True)
class Elided:
    """Rows ``start`` to ``stop - 1`` of the report, not shown: one row of the table says so.
    ``key``: what the rows share (a plan's status and stage), None for a cut of mixed rows."""

    start: int
    stop: int
    key: Hashable | None

    @property
    def count(self) -> int:
        return self.stop - self.start


Shown = list[int | Elided]  # indices into the report's rows, and the cuts between them


def _runs(n: int, key: Callable[[int], Hashable], edge: int) -> Shown:
    shown: Shown = []
    start = 0
    while start < n:
        k = key(start)
        stop = start + 1
        while stop < n and key(stop) == k:
            stop += 1
        if stop - start - 2 * edge >= MIN_HIDDEN:
            shown.extend(range(start, start + edge))
            shown.append(Elided(start + edge, stop - edge, k))
            shown.extend(range(stop - edge, stop))
        else:
            shown.extend(range(start, stop))
        start = stop
    return shown


def _cap(shown: Shown, cap: int) -> Shown:
    """``shown`` cut to its first and last ``(cap - 1) // 2`` entries around one mixed cut (at
    most ``cap`` rows in all)."""
    if len(shown) <= cap:
        return shown
    half = (cap - 1) // 2
    head, tail = shown[:half], shown[-half:]

    def bounds(entry: int | Elided) -> tuple[int, int]:
        return (entry.start, entry.stop) if isinstance(entry, Elided) else (entry, entry + 1)

    return [*head, Elided(bounds(shown[half])[0], bounds(shown[-half - 1])[1], None), *tail]


def plan_rows_shown(count: int, key: Callable[[int], Hashable], limit: int = LONG, edge: int = EDGE,
                    cap: int = SHOWN) -> Shown:
    """Which of a plan's ``count`` rows a table shows: all of them up to ``limit``, else runs of
    rows with one ``key(k)`` (status and stage) cut to their ends, then the whole cut to ``cap``."""
    if count <= limit:
        return list(range(count))
    return _cap(_runs(count, key, edge), cap)


def rows_shown(count: int, limit: int = LONG, cap: int = SHOWN) -> Shown:
    """The rows of a table without runs (replay's calls): all up to ``limit``, else the first
    and last ``(cap - 1) // 2``."""
    if count <= limit:
        return list(range(count))
    half = (cap - 1) // 2
    return [*range(half), Elided(half, count - half, None), *range(count - half, count)]


def hidden(shown: Shown) -> int:
    """How many rows the cuts of ``shown`` stand for."""
    return sum(e.count for e in shown if isinstance(e, Elided))


__all__ = ["EDGE", "SHOWN", "Elided", "Shown", "hidden", "plan_rows_shown", "rows_shown"]
