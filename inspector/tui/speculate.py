"""Plans of the changes the user is likely to make next, computed while the screen is idle.

Once a plan is on screen, :class:`Speculation` plans its neighbours of the kind of change the
user just made, in a thread worker: the replay cursor one call either way, each panel strategy
toggled, or the budget one step either way. Each result is kept by the view
(:meth:`~inspector.tui.engine.ViewInfo.keep_result`), so the next key finds its plan there and
is only a repaint. The work stops between two plans as soon as anything changes (a key, a
grown session, new counts); a key whose plan is the one being speculated waits for it rather
than planning it twice (:meth:`Speculation.wait_for`). While it runs the chart's replay waits,
so the two never share the GIL. No Textual here: the app gives it a thread runner.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

from . import engine
from .engine import Snapshot, ViewInfo
from .state import ParamError, PipelineState

#: Longest a key's plan waits for the same plan being speculated (seconds).
WAIT_MAX = 5.0


def neighbours(state: PipelineState, at_call: int | None, n_calls: int, last: str, reference: int,
               toggles: int = 9) -> Iterator[tuple[PipelineState, int | None]]:
    """The (state, call) one key away from ``state`` at ``at_call`` by the kind of change just
    made (``last``): after "call" ``[`` and ``]`` (as :meth:`~inspector.tui.replay.Replay.step`
    moves), after "budget" the budget -/+ a step (``reference`` seeds an unset one), after any
    other change the first ``toggles`` strategies of the panel on or off."""

    def calls() -> Iterator[tuple[PipelineState, int | None]]:
        if not n_calls:
            return
        yield state, n_calls if at_call is None else max(1, at_call - 1)
        if at_call is not None:
            yield state, None if at_call + 1 > n_calls else at_call + 1

    def flips() -> Iterator[tuple[PipelineState, int | None]]:
        for k in range(min(toggles, len(state.order))):
            yield state.toggle_at(k), at_call

    def budget() -> Iterator[tuple[PipelineState, int | None]]:
        for direction in (-1, 1):
            try:
                yield state.step("budget", direction, reference=reference), at_call
            except ParamError:
                pass

    # only the kind of change just made: every plan ahead is CPU a key arriving meanwhile shares
    order = {"call": (calls,), "budget": (budget,)}.get(last, (flips,))
    seen = {(state, at_call)}
    for group in order:
        for candidate in group():
            if candidate not in seen:
                seen.add(candidate)
                yield candidate


class Speculation:
    """``start()`` after a plan is painted; ``stop()`` when anything changes (a new generation)."""

    def __init__(self, run_thread: Callable[..., Any], hold_replay: Callable[[bool], None]) -> None:
        self._run_thread = run_thread
        self._hold_replay = hold_replay  # True: the chart's replay waits; False: it goes on
        self._generation = 0  # the generation the running speculation serves
        self._lock = threading.Lock()
        self._planning: tuple | None = None  # the result key being planned, and its done event
        self._done = threading.Event()
        self._done.set()
        self._running = 0  # jobs whose thread has not returned (a stopped one ends after its plan)
        #: Results planned ahead (the bench prints it).
        self.planned = 0

    def _job_started(self, started: bool) -> None:
        """The replay waits from the first running job to the end of the last."""
        with self._lock:
            self._running += 1 if started else -1
            hold = self._running > 0
        self._hold_replay(hold)

    def start(self, snap: Snapshot, info: ViewInfo, candidates: list[tuple[PipelineState, int | None]]) -> None:
        """Plan ``candidates`` (state, call) for ``snap``'s view and counts, in order, while the
        generation stays ``snap.generation``."""
        self._generation = snap.generation
        wanted = [Snapshot(-1, snap.view, snap.table, state, call) for state, call in candidates]
        wanted = [s for s in wanted if not info.has_result(s)]
        if not wanted:
            return
        generation = snap.generation

        def job(cancelled: Callable[[], bool]) -> None:
            self._job_started(True)
            try:
                for s in wanted:
                    if cancelled() or self._generation != generation:
                        return
                    if info.has_result(s):
                        continue
                    with self._lock:
                        self._planning = engine.result_key(s)
                        self._done.clear()
                    try:
                        engine.compute_plan(s, info)
                        self.planned += 1
                    finally:
                        with self._lock:
                            self._planning = None
                            self._done.set()
            finally:
                self._job_started(False)

        self._run_thread(job, group="speculate")

    @property
    def running(self) -> bool:
        """Whether a job's thread has not returned yet."""
        return self._running > 0

    def stop(self) -> None:
        """Something changed: the running speculation stops after the plan it is computing."""
        self._generation = -1

    def wait_for(self, snap: Snapshot) -> None:
        """From a key's plan worker: when ``snap``'s plan is the one being speculated, wait until
        it is kept (planning it again beside it would take both twice as long)."""
        with self._lock:
            same = self._planning == engine.result_key(snap)
        if same:
            self._done.wait(WAIT_MAX)
