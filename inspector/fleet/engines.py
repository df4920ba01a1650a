"""Engines that map :func:`inspector.fleet.worker.run_task` over many sessions.

- ``process``: a local :class:`~concurrent.futures.ProcessPoolExecutor`, one worker per core by
  default; at most ``2 x workers`` tasks are in flight, so results stream back to the writer
  instead of piling up.
- ``ray``: the same function as Ray tasks on the cluster at ``address`` (``None`` starts a local
  instance), also with a bounded number in flight. Paths must be readable where the tasks run.

Both yield :class:`~inspector.fleet.worker.Result` objects as they complete (order not kept).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

from .worker import Result, Task, run_task

ENGINES = ("process", "ray")


def default_workers() -> int:
    return os.cpu_count() or 1


def run_process(tasks: Iterable[Task], workers: int | None = None) -> Iterator[Result]:
    workers = max(1, workers or default_workers())
    it = iter(tasks)
    if workers == 1:  # no pool: same function, no pickling, easier to profile
        yield from map(run_task, it)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending = set()
        for task in it:
            pending.add(pool.submit(run_task, task))
            if len(pending) >= 2 * workers:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()


class RayUnavailable(RuntimeError):
    """``--engine ray`` without Ray installed."""


def run_ray(tasks: Iterable[Task], address: str | None = None, workers: int | None = None) -> Iterator[Result]:
    try:
        import ray
    except ImportError:
        raise RayUnavailable(
            "--engine ray needs Ray: pip install 'context-inspector[ray]' (or use the default process engine)."
        ) from None
    started = not ray.is_initialized()
    if started:
        kwargs = {"address": address} if address else {"num_cpus": workers or default_workers()}
        ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False, **kwargs)
    remote = ray.remote(run_task)
    limit = 2 * max(1, int(ray.cluster_resources().get("CPU", 1)))
    try:
        pending = []
        for task in tasks:
            pending.append(remote.remote(task))
            if len(pending) >= limit:
                done, pending = ray.wait(pending, num_returns=1)
                yield from ray.get(done)
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield from ray.get(done)
    finally:
        if started:
            ray.shutdown()


def run(engine: str, tasks: Iterable[Task], workers: int | None = None, address: str | None = None) -> Iterator[Result]:
    if engine == "ray":
        return run_ray(tasks, address, workers)
    return run_process(tasks, workers)
