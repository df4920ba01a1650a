"""A compare's stateless replays in forked worker processes, while the caller goes on with the
rest (the stateful replays, the plans at the last call) and then takes the replays no worker has
taken yet: one worker fewer than the cores, the batches claimed in turn from one shared counter
(three processes on two cores cost ~10 % more CPU, the workers' copied pages, for no wall time).

``compare`` at 50,000 messages replays 15 pipelines over 22,000 calls each: Python work per call
and pipeline that one core does in ~8 s, independent from pipeline to pipeline. Forked after the
session is loaded and counted, the workers inherit the view, the table and the per-view facts
(nothing is pickled on the way in) and send back two columns per pipeline (each call's tokens and
shared prefix, :func:`.replay.replay_columns`); the caller builds the rows
(:func:`.replay.assemble`), so the result is the serial one, call for call. Given a ``price``
(:data:`.compare.Price`), a worker also prices its replay and sends back what that returns (the
CLI's money totals: pricing 15 pipelines of 22,000 calls took ~1.5 s in the caller after them).

A worker collects no garbage (it lives for one compare, and replays make no cycles): a
collection walks the objects made since the caller froze the loaded session (the counted view,
the per-view facts), and in a forked worker it writes to the pages it walks, so the pages shared
with the caller get copied (a compare with money at 50k: 11.2-11.6 -> 10.2-10.5 s CPU).

Only for callers without threads of their own (the CLI passes ``workers``; the viewer does not),
on Linux, outside another pool's worker, and for sessions with enough calls to pay for the fork.
"""

from __future__ import annotations

import gc
import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..strategies.params import SettingsBase as Settings
from ..tokens import TokenTable
from ..units import SessionView
from .replay import Replay, assemble, replay_columns

#: Fewer calls than this: the fork and the pool's start cost more than they save.
MIN_CALLS = 1000

_job: tuple | None = None  # (view, table, jobs, shared, price), inherited by the forked workers


#: At most this many pipelines in one batch (:func:`batches`): a dozen presets that all start with
#: the same stage still spread over the workers.
BATCH = 3


def batches(jobs: Sequence[tuple[tuple[str, ...], Settings]]) -> list[list[int]]:
    """The indices of ``jobs`` in the batches one worker replays in turn: the pipelines that
    start with the same stage together (that stage works on the untouched history, so what it
    derives per session, e.g. the cleared or truncated history's arrays, is made once in one
    worker: ~0.3 s of clear_tool_uses,fifo at 50,000 messages after clear_tool_uses), at most
    :data:`BATCH` to a batch; the batches with the most stages first (the longest first, so the
    last ones the workers take are short)."""
    groups: dict[str, list[int]] = {}
    for k, (names, _) in enumerate(jobs):
        groups.setdefault(names[0], []).append(k)
    out = [g[i : i + BATCH] for g in groups.values() for i in range(0, len(g), BATCH)]
    return sorted(out, key=lambda batch: -sum(len(jobs[k][0]) for k in batch))


def _replay_batch(job: tuple, batch: list[int]) -> list[tuple[int, Sequence[int], Sequence[int | None], Any]]:
    view, table, jobs, shared, price, _, _ = job
    numbers = range(1, len(view.calls) + 1)
    out = []
    for k in batch:
        names, settings = jobs[k]
        tokens, shares = replay_columns(view, table, names, settings, numbers, shared=shared)
        money = price(names, settings, assemble(view, table, names, settings, numbers, tokens, shares)) if price else None
        out.append((k, tokens, shares, money))
    return out


def _claim(job: tuple) -> list[int] | None:
    """The next batch no process has taken (the workers and the caller take them in turn)."""
    order, taken = job[5], job[6]
    with taken.get_lock():
        i = taken.value
        if i >= len(order):
            return None
        taken.value = i + 1
    return order[i]


def _worker(_: int) -> list[tuple[int, Sequence[int], Sequence[int | None], Any]]:
    from ..tokens import pool

    pool._mark_worker()  # nothing nests pools
    gc.disable()  # see the module docstring
    job = _job
    out = []
    while (batch := _claim(job)) is not None:  # type: ignore[arg-type]
        out.extend(_replay_batch(job, batch))  # type: ignore[arg-type]
    return out


class ForkedReplays:
    """Replays of ``jobs`` (``(pipeline, settings)``, stateless pipelines) shared between
    ``workers - 1`` forked processes and the caller, which replays as it iterates; iterate for ``(index into jobs, Replay, what price made of it or None)`` as
    each one lands."""

    def __init__(self, view: SessionView, table: TokenTable, jobs: Sequence[tuple[tuple[str, ...], Settings]],
                 workers: int, shared: bool, price: Callable[[tuple[str, ...], Settings, Replay], Any] | None = None) -> None:
        global _job
        self.view, self.table, self.jobs = view, table, list(jobs)
        context = multiprocessing.get_context("fork")
        # the caller takes batches too once its own work is done: one worker fewer than the cores
        n = max(1, min(workers - 1, len(self.jobs) - 1))
        self._job = _job = (view, table, self.jobs, shared, price, batches(self.jobs), context.Value("i", 0))
        try:  # the pool forks its workers as it starts: they hold the job from then on
            self._pool = context.Pool(n)
        finally:
            _job = None
        self._results = self._pool.imap_unordered(_worker, range(n))

    def __iter__(self) -> Iterator[tuple[int, Replay, Any]]:
        numbers = range(1, len(self.view.calls) + 1)
        try:
            while (batch := _claim(self._job)) is not None:
                for k, tokens, shares, money in _replay_batch(self._job, batch):
                    names, settings = self.jobs[k]
                    yield k, assemble(self.view, self.table, names, settings, numbers, tokens, shares), money
            for done in self._results:
                for k, tokens, shares, money in done:
                    names, settings = self.jobs[k]
                    yield k, assemble(self.view, self.table, names, settings, numbers, tokens, shares), money
            self._pool.close()
        finally:
            self.close()

    def close(self) -> None:
        """Stop the workers (any replay not collected yet is dropped)."""
        self._pool.terminate()
        self._pool.join()


def may_fork(view: SessionView, workers: int, jobs: int) -> bool:
    """Whether a compare of ``jobs`` stateless pipelines on ``view`` forks its replays."""
    from ..tokens.pool import may_pool

    return workers > 1 and jobs >= 2 and len(view.calls) >= MIN_CALLS and may_pool() \
        and "fork" in multiprocessing.get_all_start_methods()


__all__ = ["BATCH", "ForkedReplays", "MIN_CALLS", "batches", "may_fork"]
