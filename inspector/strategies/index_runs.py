"""What a ``compact`` summary stands for: increasing message indices stored as runs.

A compaction folds the earlier summary into the new one (:mod:`.compact`): the new summary
stands for every message forgotten so far, up to the whole session at a preset that compacts
at nearly every call (LangChain's summarization: 3,783 compactions at 10k messages). Kept as a
tuple, each compaction copied and sorted that growing list, and the summary's builder checked
that it started with the one it had built. :class:`IndexRuns` keeps the indices as runs
``[lo, hi)``: a union costs the runs, not the indices, and one that only adds indices after
the earlier ones names the runs it :attr:`~IndexRuns.extends`, so the builder reads only the
new messages (:meth:`.summarize.SharedCounts.builder`). It is a sequence of ints and equals the
tuple of the same indices: the plan's ``replaces`` reads as it did.
"""

from __future__ import annotations

import weakref
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from typing import overload


class IndexRuns(Sequence[int]):
    """Strictly increasing message indices as disjoint runs ``(lo, hi)``, in order, none touching
    the next. :attr:`extends`: the :class:`IndexRuns` whose indices are the first ones of these
    (held weakly: a summary's builder compares identity, nothing is kept alive for it)."""

    __slots__ = ("runs", "_len", "_starts", "_extends", "_hash", "__weakref__")

    def __init__(self, runs: tuple[tuple[int, int], ...], extends: IndexRuns | None = None, length: int | None = None) -> None:
        self.runs = runs
        self._len = sum(hi - lo for lo, hi in runs) if length is None else length  # (given: their count)
        self._starts: list[int] | None = None  # position of each run's first index, built when indexed
        self._extends = weakref.ref(extends) if extends is not None else None
        self._hash: int | None = None

    @property
    def extends(self) -> IndexRuns | None:
        return self._extends() if self._extends is not None else None

    def __len__(self) -> int:
        return self._len

    def span(self) -> tuple[int, int, int] | tuple[()]:
        """``(len(self), self[0], self[-1])``, ``()`` when empty (a summary's piece key reads it
        at every compaction of a replay)."""
        runs = self.runs
        return (self._len, runs[0][0], runs[-1][1] - 1) if runs else ()

    def __iter__(self) -> Iterator[int]:
        return chain.from_iterable(range(lo, hi) for lo, hi in self.runs)

    def since(self, position: int) -> Iterable[int]:
        """The indices from ``position`` on (read from the last run back: a folding summary's
        builder asks for the few it added, most often all in the last run: that run's range)."""
        need = self._len - max(position, 0)
        if need <= 0:
            return ()
        lo, hi = self.runs[-1]
        if hi - lo >= need:
            return range(hi - need, hi)
        tail: list[range] = []
        k = len(self.runs)
        while need > 0:
            k -= 1
            lo, hi = self.runs[k]
            if hi - lo >= need:
                tail.append(range(hi - need, hi))
                break
            tail.append(range(lo, hi))
            need -= hi - lo
        return chain.from_iterable(reversed(tail))

    @overload
    def __getitem__(self, k: int) -> int: ...
    @overload
    def __getitem__(self, k: slice) -> tuple[int, ...]: ...
    def __getitem__(self, k):
        if isinstance(k, slice):
            return tuple(self)[k]
        if k < 0:
            k += self._len
        if not 0 <= k < self._len:
            raise IndexError("IndexRuns index out of range")
        if k == 0:
            return self.runs[0][0]
        if k == self._len - 1:
            return self.runs[-1][1] - 1
        starts = self._run_starts()
        r = bisect_right(starts, k) - 1
        return self.runs[r][0] + k - starts[r]

    def _run_starts(self) -> list[int]:
        if self._starts is None:
            starts, at = [], 0
            for lo, hi in self.runs:
                starts.append(at)
                at += hi - lo
            self._starts = starts
        return self._starts

    def __contains__(self, x: object) -> bool:
        if type(x) is not int:
            return False
        k = bisect_right(self.runs, (x, float("inf"))) - 1
        return k >= 0 and x < self.runs[k][1]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, IndexRuns):
            return self.runs == other.runs
        if isinstance(other, tuple):
            return len(other) == self._len and all(a == b for a, b in zip(self, other))
        return NotImplemented

    def __hash__(self) -> int:  # equal to the tuple's, as equality is
        if self._hash is None:
            self._hash = hash(tuple(self))
        return self._hash

    def __repr__(self) -> str:
        return f"IndexRuns({self.runs!r})"

    def __reduce__(self):
        return IndexRuns, (self.runs,)

    def then(self, lo: int, hi: int) -> IndexRuns:
        """These indices, then ``lo`` to ``hi - 1`` (all after them; as :func:`union` finds it)."""
        return self._extended(((lo, hi),))

    def _extended(self, new: tuple[tuple[int, int], ...]) -> IndexRuns:
        """These indices, then the runs ``new`` (all after them): it :attr:`extends` this one."""
        runs = self.runs
        if runs and new and new[0][0] == runs[-1][1]:  # the first new run continues the last one
            runs = (*runs[:-1], (runs[-1][0], new[0][1]), *new[1:])
        else:
            runs = runs + new
        length = self._len
        for lo, hi in new:  # (a loop: a generator costs more, at every compaction of a replay)
            length += hi - lo
        return IndexRuns(runs, self, length)


def index_runs(indices: Sequence[int]) -> IndexRuns | tuple[int, ...]:
    """``indices`` as :class:`IndexRuns` where they increase, else as a tuple (in their order)."""
    if isinstance(indices, IndexRuns):
        return indices
    runs = _runs_of(indices)
    return IndexRuns(runs) if runs is not None else tuple(indices)


def union(parts: Iterable[Sequence[int]]) -> IndexRuns | tuple[int, ...]:
    """The indices of every part, in order: :class:`IndexRuns` where each part increases and no
    two share an index, else the sorted tuple of them all (as a sort of their concatenation)."""
    parts = list(parts)
    if len(parts) == 2 and isinstance(parts[0], IndexRuns):  # one earlier summary, what is replaced now
        earlier, new = parts[0], _runs_of(parts[1])
        if new is not None and (not earlier.runs or not new or new[0][0] >= earlier.runs[-1][1]):
            return earlier._extended(new)  # all after it: the builder reads only the new ones
    runs: list[tuple[int, int]] = []
    for part in parts:
        found = part.runs if isinstance(part, IndexRuns) else _runs_of(part)
        if found is None:
            return tuple(sorted(chain.from_iterable(parts)))
        runs.extend(found)
    runs.sort()
    merged: list[tuple[int, int]] = []
    for lo, hi in runs:
        if merged and lo < merged[-1][1]:  # an index in two parts
            return tuple(sorted(chain.from_iterable(parts)))
        if merged and lo == merged[-1][1]:
            merged[-1] = (merged[-1][0], hi)
        else:
            merged.append((lo, hi))
    return IndexRuns(tuple(merged))


def _runs_of(indices: Sequence[int]) -> tuple[tuple[int, int], ...] | None:
    """The runs of strictly increasing ``indices``, None where they do not increase."""
    runs: list[tuple[int, int]] = []
    it = iter(indices)
    first = next(it, None)
    if first is None:
        return ()
    lo = last = first
    for i in it:
        if i != last + 1:
            if i <= last:
                return None
            runs.append((lo, last + 1))
            lo = i
        last = i
    runs.append((lo, last + 1))
    return tuple(runs)
