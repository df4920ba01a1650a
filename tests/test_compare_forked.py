"""``compare(..., workers=2)`` replays its stateless pipelines in forked workers: every row must
be the serial one, call for call (tokens and shared prefixes), in the caller's order."""

from __future__ import annotations

import sys

import inspector
from inspector.strategies import Settings

PIPELINES = [("fifo",), ("compact",), ("tool_pruning", "fifo"), ("truncate_results",), ("clear_tool_uses", "fifo"),
             ("summarize",)]


def _rows(analysis, workers: int, shared: bool):
    return inspector.compare(analysis, PIPELINES, settings=Settings(budget=1500), workers=workers, shared=shared)


def test_forked_compare_equals_the_serial_one(monkeypatch):
    a = inspector.analyze(inspector.load("sample_sessions/coding_agent.jsonl"), "approx")
    serial = {shared: _rows(a, 1, shared) for shared in (False, True)}
    forks: list[int] = []
    module = sys.modules["inspector.analysis.compare_forked"]
    monkeypatch.setattr(module, "MIN_CALLS", 2)  # force the forked path on a small session
    started = module.ForkedReplays.__init__

    def counted(self, view, table, jobs, workers, shared, price=None):
        started(self, view, table, jobs, workers, shared, price)
        forks.append((len(jobs), self._pool._processes))

    monkeypatch.setattr(module.ForkedReplays, "__init__", counted)
    for shared in (False, True):
        forked = _rows(a, 2, shared)
        assert [r.pipeline for r in forked] == [()] + PIPELINES
        for f, s in zip(forked, serial[shared]):
            assert f.replay.calls == s.replay.calls
            assert (f.saving_pct, f.tokens_last_call, f.valid, f.violations) == (s.saving_pct, s.tokens_last_call, s.valid,
                                                                                   s.violations)
    # every pipeline but compact (stateful: replayed in the caller), in one worker: the caller takes
    # the batches the worker has not taken once its own work is done (two processes on two cores)
    assert forks == [(5, 1), (5, 1)]


def test_forked_workers_price_their_replays_as_the_caller_would(monkeypatch):
    """``price`` runs in the worker that replayed a row: each row's money is the serial one, and
    what a worker sends back is only what ``price`` returned (the CLI's money totals)."""
    from inspector.analysis.money import MoneyOptions, MoneyTotals, money_totals, session_money

    a = inspector.analyze(inspector.load("sample_sessions/coding_agent.jsonl"), "approx")
    view, table = a.view, a.table

    def price(names, settings, replay):
        import gc
        import os

        return os.getpid(), money_totals(session_money(view, table, names, settings, MoneyOptions(model="gpt-4.1"),
                                                       replay=replay)), gc.isenabled()

    def rows(workers):
        return inspector.compare(a, PIPELINES, settings=Settings(budget=1500), workers=workers, shared=True, price=price)

    serial = rows(1)
    monkeypatch.setattr(sys.modules["inspector.analysis.compare_forked"], "MIN_CALLS", 2)
    forked = rows(2)
    assert serial[0].money is None and forked[0].money is None  # the baseline: priced by the caller
    for f, s in zip(forked[1:], serial[1:]):
        assert isinstance(f.money[1], MoneyTotals) and f.money[1] == s.money[1]
    assert sum(s.money[1].cost for s in serial[1:]) > 0  # priced: a known model
    import os

    pids = {f.money[0] for f in forked[1:]}
    # compact priced by the caller; the rest where they were replayed: in the worker, or in the caller
    # where it took a batch first (the two claim batches in turn: on a busy machine the caller may take all)
    assert os.getpid() in pids and len(pids) <= 2
    import gc

    # the workers collect no garbage; the caller's collector is left as it was
    assert {f.money[2] for f in forked[1:] if f.money[0] == os.getpid()} == {True}
    assert {f.money[2] for f in forked[1:] if f.money[0] != os.getpid()} <= {False}
    assert gc.isenabled()


def test_small_sessions_and_one_worker_do_not_fork():
    from inspector.analysis.compare_forked import MIN_CALLS, may_fork

    a = inspector.analyze(inspector.load("sample_sessions/coding_agent.jsonl"), "approx")
    assert len(a.view.calls) < MIN_CALLS and not may_fork(a.view, 2, 5)
    assert not may_fork(a.view, 1, 5)


def test_a_failing_replay_in_the_caller_stops_the_workers(monkeypatch):
    """An error while the workers run (here the stateful replay) stops them and is raised."""
    import multiprocessing

    import pytest

    a = inspector.analyze(inspector.load("sample_sessions/coding_agent.jsonl"), "approx")
    module = sys.modules["inspector.analysis.compare_forked"]
    monkeypatch.setattr(module, "MIN_CALLS", 2)

    def broken(*args, **kwargs):
        raise RuntimeError("stateful replay failed")

    monkeypatch.setattr(sys.modules["inspector.analysis.compare"], "replay_and_validity", broken)
    with pytest.raises(RuntimeError, match="stateful replay failed"):
        _rows(a, 2, True)
    assert multiprocessing.active_children() == []


def test_batches_keep_pipelines_with_one_first_stage_together_longest_first():
    from inspector.analysis.compare_forked import batches

    jobs = [(tuple(p.split(",")), None) for p in (
        "fifo", "clear_tool_uses", "summarize", "tool_pruning", "clear_tool_uses,fifo", "tool_pruning,sliding_window",
        "tool_pruning,truncate_results", "tool_pruning,fifo", "truncate_results")]
    assert batches(jobs) == [[3, 5, 6], [1, 4], [7], [0], [2], [8]]  # at most 3 a batch; 5, 3, 2 stages, then one each
    assert sorted(k for b in batches(jobs) for k in b) == list(range(len(jobs)))
