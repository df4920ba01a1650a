"""What a ``compact`` summary stands for as runs of message indices
(:mod:`inspector.strategies.index_runs`): a sequence equal to the tuple of its indices, and a
union that extends the earlier summary's runs where what is replaced now comes after them. The
summaries of replays are checked in tests/test_compact_fold.py."""

from __future__ import annotations

import pickle

from inspector.strategies.index_runs import IndexRuns, index_runs, union


def test_runs_read_as_the_tuple_of_their_indices():
    r = index_runs([2, 3, 4, 7, 9, 10])
    assert type(r) is IndexRuns and r.runs == ((2, 5), (7, 8), (9, 11))
    assert r == (2, 3, 4, 7, 9, 10) and (2, 3, 4, 7, 9, 10) == r and r != (2, 3, 4, 7, 9)
    assert hash(r) == hash((2, 3, 4, 7, 9, 10))
    assert len(r) == 6 and list(r) == [2, 3, 4, 7, 9, 10]
    assert [r[k] for k in range(-6, 6)] == [2, 3, 4, 7, 9, 10] * 2
    assert r[1:4] == (3, 4, 7)
    assert [list(r.since(p)) for p in (0, 3, 4, 6)] == [[2, 3, 4, 7, 9, 10], [7, 9, 10], [9, 10], []]
    assert 7 in r and 5 not in r and 1 not in r and 11 not in r
    assert r.span() == (6, 2, 10) and IndexRuns(()).span() == () and index_runs([4]).span() == (1, 4, 4)
    assert pickle.loads(pickle.dumps(r)) == r
    # not increasing: the tuple, in its order
    assert index_runs([3, 1, 2]) == (3, 1, 2) and type(index_runs([3, 1, 2])) is tuple
    assert index_runs([]) == () and len(index_runs([])) == 0


def test_a_union_extends_the_earlier_runs_where_the_new_indices_follow_them():
    earlier = index_runs([1, 2, 3, 5])
    folded = union([earlier, [6, 7, 9]])
    assert folded.runs == ((1, 4), (5, 8), (9, 10)) and folded.extends is earlier
    assert len(folded) == 7 and list(folded) == [1, 2, 3, 5, 6, 7, 9] and folded.span() == (7, 1, 9)
    joined = union([folded, [10, 11]])  # the first new run continues the last one
    assert joined.runs == ((1, 4), (5, 8), (9, 12)) and len(joined) == 9 and joined.extends is folded
    # one run after them (the fold lane's): as the union finds it
    for lo, hi in ((10, 12), (11, 13)):
        then = folded.then(lo, hi)
        assert then.runs == union([folded, list(range(lo, hi))]).runs and then.extends is folded and len(then) == 9
    # indices before the earlier ones: merged in order, extending nothing
    merged = union([earlier, [0, 4]])
    assert merged.runs == ((0, 6),) and merged.extends is None
    # several earlier summaries, a tuple among them
    assert union([index_runs([8, 9]), (1, 2), [4]]).runs == ((1, 3), (4, 5), (8, 10))
    # an index in two parts, or a part out of order: the sorted concatenation, as a tuple
    assert union([earlier, [3, 4]]) == (1, 2, 3, 3, 4, 5) and type(union([earlier, [3, 4]])) is tuple
    assert union([earlier, [9, 6]]) == (1, 2, 3, 5, 6, 9)
