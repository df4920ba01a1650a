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

    def counted(self, view, table, jobs, workers, shared):
        forks.append(len(jobs))
        started(self, view, table, jobs, workers, shared)

    monkeypatch.setattr(module.ForkedReplays, "__init__", counted)
    for shared in (False, True):
        forked = _rows(a, 2, shared)
        assert [r.pipeline for r in forked] == [()] + PIPELINES
        for f, s in zip(forked, serial[shared]):
            assert f.replay.calls == s.replay.calls
            assert (f.saving_pct, f.tokens_last_call, f.valid, f.violations) == (s.saving_pct, s.tokens_last_call, s.valid,
                                                                                   s.violations)
    assert forks == [5, 5]  # every pipeline but compact (stateful: replayed in the caller)


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
