"""The one pool of worker processes this process counts with (tiktoken scales across processes,
not threads: ~1.35x on 2 cores, per /work/shared/reference/performance.md).

:func:`shared_pool` creates it on first use and keeps it for the life of the process; it returns
None where a pool must not be made: inside a worker of another pool (a fleet worker, a replay
worker: nothing nests pools), or on one core. Workers are forked (they inherit the loaded
encodings), threads or not: a worker only unpickles texts and runs the tokenizer, while a fork
server or a spawned interpreter would run the main script of a program without a ``__main__``
guard again. Linux only (elsewhere fork is unsafe): counting stays in
the process there, as it does when a pool cannot start.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import sys
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
    """False in a child process (another pool's worker), on one core, or off Linux."""
    return (
        not _IN_WORKER
        and sys.platform.startswith("linux")
        and multiprocessing.parent_process() is None
        and workers() > 1
    )


def shared_pool() -> ProcessPoolExecutor | None:
    """The process's worker pool, created on first call; None where :func:`may_pool` says no."""
    global _pool, _IN_WORKER
    if not may_pool():
        return None
    with _lock:
        if _pool is None:
            context = multiprocessing.get_context("fork")
            # The helper processes multiprocessing starts (its resource tracker) are handed the
            # process's stderr: a TUI replaces sys.stderr with an object that has no real file.
            saved = sys.stderr
            try:
                if sys.__stderr__ is not None:
                    sys.stderr = sys.__stderr__
                _pool = ProcessPoolExecutor(max_workers=workers(), mp_context=context, initializer=_mark_worker)
            except (OSError, ValueError, RuntimeError):
                _IN_WORKER = True  # no pool in this process: count in place from now on
                return None
            finally:
                sys.stderr = saved
            atexit.register(shutdown)
        return _pool


def pool_running() -> bool:
    """Whether this process's pool has been made (and not shut down)."""
    return _pool is not None


#: A session file at least this large is counted on the pool (its texts pass
#: :data:`~inspector.tokens.batch.PARALLEL_MIN_CHARS`), so :func:`start_early` forks the workers.
EARLY_START_BYTES = 8 << 20


def start_early(session_path: str | os.PathLike[str]) -> None:
    """Fork the pool's workers now, before the session at ``session_path`` is read, when one that
    large will be counted on them: a worker forked later holds a copy of the loaded session in
    its resident memory (a 50k-message session: 130-150 MB more per worker than this)."""
    try:
        size = os.stat(session_path).st_size
    except OSError:
        return  # reading it names the problem
    if size >= EARLY_START_BYTES:
        pool = shared_pool()
        if pool is not None:
            pool.submit(int)  # the fork context starts every worker at the first submit


def shutdown() -> None:
    """Stop the workers (at exit; tests)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)


__all__ = ["may_pool", "pool_running", "shared_pool", "shutdown", "start_early", "workers"]
