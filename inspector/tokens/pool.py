"""The one pool of worker processes this process counts with (tiktoken scales across processes,
not threads: ~1.35x on 2 cores, per /work/shared/reference/performance.md).

:func:`shared_pool` creates it on first use and keeps it for the life of the process; it returns
None where a pool must not be made: inside a worker of another pool (a fleet worker, a replay
worker: nothing nests pools), or on one core. Workers are forked while the process has one thread
(they inherit the loaded encodings), else started by a fork server.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor

_pool: ProcessPoolExecutor | None = None
_lock = threading.Lock()
#: Set in the workers of the pool: they never make a pool of their own.
_IN_WORKER = False


def workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _mark_worker() -> None:
    global _IN_WORKER
    _IN_WORKER = True


def may_pool() -> bool:
    """False in a child process (another pool's worker) or on one core."""
    return not _IN_WORKER and multiprocessing.parent_process() is None and workers() > 1


def shared_pool() -> ProcessPoolExecutor | None:
    """The process's worker pool, created on first call; None where :func:`may_pool` says no."""
    global _pool
    if not may_pool():
        return None
    with _lock:
        if _pool is None:
            methods = multiprocessing.get_all_start_methods()
            if "fork" in methods and threading.active_count() == 1:
                context = multiprocessing.get_context("fork")
            else:
                context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
            _pool = ProcessPoolExecutor(max_workers=workers(), mp_context=context, initializer=_mark_worker)
            atexit.register(shutdown)
        return _pool


def shutdown() -> None:
    """Stop the workers (at exit; tests)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


__all__ = ["may_pool", "shared_pool", "shutdown", "workers"]
