"""fifo's in-turn cut searches the candidates' prefix sums by galloping out from the previous
call's cut (:func:`inspector.strategies.incremental._first_reaching`): whatever the hint, the
answer must be the bisection's (the first q in [1, m) whose prefix reaches the need, else m)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.strategies.incremental import _first_reaching


def _bisection(tokens, need: int, m: int) -> int:
    lo, hi = 1, m
    while lo < hi:
        mid = (lo + hi) // 2
        if tokens(mid) >= need:
            hi = mid
        else:
            lo = mid + 1
    return lo


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from([0, 0, 1, 2, 7, 300]), min_size=1, max_size=80), st.integers(-5, 2000),
       st.integers(-5, 90))
def test_galloping_from_any_hint_finds_the_bisections_cut(sizes, need, hint):
    prefix = [0]
    for size in sizes:
        prefix.append(prefix[-1] + size)
    m = len(sizes)
    read: list[int] = []

    def tokens(q: int) -> int:
        assert 1 <= q < m  # never past the candidates, nor the m-th prefix (the bisection reads neither)
        read.append(q)
        return prefix[q]

    assert _first_reaching(tokens, need, m, hint) == _bisection(prefix.__getitem__, need, m)


def test_a_hint_at_the_answer_reads_a_few_prefixes():
    prefix = list(range(0, 100_000, 2))
    read: list[int] = []

    def tokens(q: int) -> int:
        read.append(q)
        return prefix[q]

    assert _first_reaching(tokens, 60_000, len(prefix) - 1, 30_000) == 30_000
    assert len(read) <= 2 and _first_reaching(tokens, 60_010, len(prefix) - 1, 30_000) == 30_005
