"""The per-op index arrays of :mod:`inspector.strategies.layouts` (the next message sent, the
next key that differs) filled run by run, against the per-index definition."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from inspector.strategies.layouts import _first_at_or_after


def _flags(marked, n: int) -> bytes:
    return bytes(1 if j in set(marked) else 0 for j in range(n))


@given(st.integers(0, 60).flatmap(lambda n: st.tuples(st.just(n), st.sets(st.integers(0, max(n - 1, 0)), max_size=n))))
def test_first_marked_index_at_or_after_each_index(case):
    n, marked = case
    marked = sorted(m for m in marked if m < n)
    expected = [min((m for m in marked if m >= j), default=n) for j in range(n + 1)]
    assert list(_first_at_or_after(_flags(marked, n), n)) == expected


def test_first_marked_index_examples():
    assert list(_first_at_or_after(_flags([], 3), 3)) == [3, 3, 3, 3]
    assert list(_first_at_or_after(_flags([0, 1, 2], 3), 3)) == [0, 1, 2, 3]
    assert list(_first_at_or_after(_flags([2, 5], 7), 7)) == [2, 2, 2, 5, 5, 5, 7, 7]
    assert list(_first_at_or_after(b"", 0)) == [0]
