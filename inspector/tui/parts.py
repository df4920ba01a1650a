"""The contract between the app and its parts (search, follow, replay, export).

A part owns its own state and reaches the rest of the app only through what it is given: the
:class:`Services` below (notices, the status line, workers, timers, posting a message) plus, in
its constructor, getters for the few widgets or values it reads and callbacks for what it asks
the app to do. Nothing else: a part never reads another part's state or the app's attributes.
Tests build a part with fake services and drive it without an app (see ``tests/tui/test_parts.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from textual.message import Message as TMessage

#: A thread job: called in a worker thread with a function that says whether it was cancelled.
ThreadJob = Callable[[Callable[[], bool]], None]


class Stoppable(Protocol):
    """A timer or a worker: something a part may stop."""

    def stop(self) -> Any: ...


class Cancellable(Protocol):
    def cancel(self) -> Any: ...


@dataclass(frozen=True)
class Services:
    """What every part may ask of the app."""

    #: Show a plain-text notice (``notify(text, severity=..., timeout=...)``).
    notify: Callable[..., None]
    #: Redraw the status line, with a one-off notice in place of the standing one when given.
    show_status: Callable[[str | None], None]
    #: Post a message to the app (thread-safe); the app hands it back to the part that owns it.
    post: Callable[[TMessage], Any]
    #: Run ``job`` in a thread worker of ``group`` (``exclusive``: cancel the group's older jobs).
    run_thread: Callable[..., Any]
    #: Run a coroutine function in an async worker of ``group``; returns something cancellable.
    run_async: Callable[..., Cancellable]
    #: ``set_timer(delay, callback)`` and ``set_interval(seconds, callback)``: stoppable.
    set_timer: Callable[[float, Callable[[], Any]], Stoppable]
    set_interval: Callable[[float, Callable[[], Any]], Stoppable]


def thread_job_runner(app: Any) -> Callable[..., Any]:
    """``Services.run_thread`` for a Textual app: a thread worker whose job gets the worker's
    cancelled flag. The description is fixed: Textual would otherwise build it from repr() of
    the arguments, which for a session is seconds of work."""
    from textual.worker import get_current_worker

    def run_thread(job: ThreadJob, *, group: str, exclusive: bool = True) -> Any:
        def body() -> None:
            worker = get_current_worker()
            job(lambda: worker.is_cancelled)

        return app.run_worker(body, thread=True, exclusive=exclusive, group=group, exit_on_error=False,
                              description=group)

    return run_thread


def async_job_runner(app: Any) -> Callable[..., Cancellable]:
    """``Services.run_async`` for a Textual app (one exclusive async worker per group)."""

    def run_async(job: Callable[[], Awaitable[None]], *, group: str) -> Cancellable:
        return app.run_worker(job, exclusive=True, group=group, exit_on_error=False, description=group)

    return run_async
