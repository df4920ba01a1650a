"""The replay cursor (``[`` ``]``, a click on the chart) and the chart's points: every model call
replayed under the pipeline, in a thread worker, a sample of calls first and then the rest.
:class:`Replay` owns the cursor and what is being replayed; the app composes it."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..strategies.incremental import replays_incrementally
from ..tokens import TokenTable
from ..units import SessionView
from . import engine
from .engine import CallPoint
from .messages import ReplayPoints
from .parts import Services, Stoppable
from .state import PipelineState

#: Replay every call only when calls x messages stays under this; beyond it the chart keeps the
#: evenly spaced sample (each call's replay is a plan over the history before it).
REPLAY_FULL_WORK = 60_000_000
REPLAY_SAMPLE = 160
REPLAY_DELAY = 0.25  # seconds after the last change before the replay starts
REPLAY_GROWTH_DELAY = 0.05  # the same when only the followed session grew (a few calls to redo)
REPLAY_POST_EVERY = 0.1  # seconds of replay work between chart updates
REPLAY_YIELD = 0.0005
#: Calls replayed per step when the pipeline replays incrementally (each costs microseconds).
REPLAY_FAST_CHUNK = 1000
#: Longest the replay waits, per step, while a plan the user asked for is computed and painted.
REPLAY_HOLD_MAX = 2.0
#: How often a replay that waits for the previous one to end looks again (seconds).
REPLAY_RETRY = 0.2
#: Seconds without a key before the replayed calls of a session of at least PRICE_IDLE_MESSAGES
#: are priced: pricing 50,000 messages is ~1.2 s of CPU that cannot pause (analysis.money asks
#: to stop once), which a key would share. Smaller sessions are priced at once (milliseconds).
PRICE_IDLE = 2.5
PRICE_IDLE_MESSAGES = 5_000


@dataclass(frozen=True)
class Inputs:
    """What a replay depends on: the session's view, its counts and the pipeline."""

    view: SessionView
    table: TokenTable
    state: PipelineState

    def key(self) -> tuple:
        return (id(self.view), id(self.table), self.state.pipeline, self.state.settings)


class Chart(Protocol):
    """What the replay needs of the chart widget."""

    points: dict[int, CallPoint]
    note: str

    def reset_points(self, n_calls: int) -> None: ...
    def set_call_count(self, n_calls: int) -> None: ...
    def add_points(self, points: list[CallPoint], pending: int) -> None: ...
    def set_cursor(self, call: int | None) -> None: ...


class Replay:
    """``at_call``: the model call whose context is shown (None: the next call after the whole
    session). ``inputs()`` is what the app shows now; ``cursor_moved()`` asks it to replan."""

    def __init__(self, services: Services, *, chart: Callable[[], Chart], inputs: Callable[[], Inputs],
                 cursor_moved: Callable[[], None], money_ready: Callable[[Any], None] | None = None) -> None:
        self.services = services
        #: Called with the session's :class:`~inspector.analysis.money.Money` once a full replay is
        #: done, and with None when the pipeline changed (the chart drops its own on reset).
        self._money_ready = money_ready
        self._chart = chart
        self._inputs = inputs
        self._cursor_moved = cursor_moved
        self.at_call: int | None = None
        #: The inputs of the replay scheduled or running (None before the first).
        self.key: Any = None
        self._timer: Stoppable | None = None
        #: First model call whose replay the followed session changed (not yet replayed), and the
        #: same for the replay now scheduled or running (None: nothing to redo).
        self._growth: int | None = None
        self._unfinished: int | None = None
        #: Set while a plan the user is waiting for is computed and painted: the replay (pure
        #: Python, in another thread) waits between steps instead of sharing the GIL with it.
        self._plan_pending = threading.Event()
        self._released_at = 0.0  # when the last plan the user asked for was painted
        #: Set while the viewer plans the next keys ahead (:mod:`.speculate`): the replay waits too.
        self._speculating = threading.Event()
        #: Replays whose thread has not returned. A superseded one stops at its next step, or
        #: its pricing at the next model call (:meth:`_pausing`); a new replay waits for it, so
        #: stale ones never pile up in Textual's worker thread pool (six threads on 2 cores),
        #: where they kept a key's plan queued for 30 s.
        self._in_flight = 0
        self._in_flight_lock = threading.Lock()

    def hold(self) -> None:
        """A plan is being computed for the screen: the replay pauses at its next step."""
        self._plan_pending.set()

    def release(self) -> None:
        """The plan is on screen: the replay goes on."""
        self._plan_pending.clear()
        self._released_at = time.perf_counter()

    def speculating(self, on: bool) -> None:
        """The next keys' plans are computed ahead (True) or done (False): the replay waits meanwhile."""
        (self._speculating.set if on else self._speculating.clear)()

    def wait_while_planning(self) -> None:
        """For other background work of the viewer: wait (at most REPLAY_HOLD_MAX) while a plan
        the user asked for is computed and painted."""
        self._wait_while_held(self.key, lambda: False)

    def _wait_while_held(self, key: Any, cancelled: Callable[[], bool]) -> None:
        end = time.perf_counter() + REPLAY_HOLD_MAX
        while ((self._plan_pending.is_set() or self._speculating.is_set()) and key == self.key and not cancelled()
               and time.perf_counter() < end):
            time.sleep(0.002)

    def _pausing(self, key: Any, cancelled: Callable[[], bool]) -> Callable[[], bool]:
        """The cancel token of the session's pricing, asked once per model call: it stops a
        superseded replay's pricing (minutes at 50,000 messages) and waits there while a plan
        the user asked for is computed, so that plan does not share the GIL with it."""

        def stop() -> bool:
            self._wait_while_held(key, cancelled)
            return cancelled() or key != self.key

        return stop

    # --- the cursor -------------------------------------------------------------------------
    def step(self, delta: int) -> None:
        """Move the cursor by ``delta`` calls; past the last call is 'next call'."""
        n = len(self._inputs().view.calls)
        if not n:
            self.services.notify("This session has no model calls (no assistant messages).", timeout=4)
            return
        cur = self.at_call
        if delta < 0:
            new = n if cur is None else max(1, cur + delta)
        else:
            new = None if cur is None or cur + delta > n else cur + delta
        self.go_to(new)

    def go_to(self, call: int | None) -> None:
        if call == self.at_call:
            return
        self.at_call = call
        self._chart().set_cursor(call)
        self._cursor_moved()

    # --- what must be replayed again --------------------------------------------------------
    def redo_all(self) -> None:
        """Every call's baseline changed (new counts): the next replay redoes every call."""
        self._unfinished = 1

    def grew_from(self, call: int) -> None:
        """The followed session changed the replay of calls from ``call`` on."""
        self._growth = call if self._growth is None else min(self._growth, call)

    # --- filling the chart ------------------------------------------------------------------
    def restart_if_changed(self) -> None:
        """Restart the replay when what it depends on changed. A pipeline change clears the chart
        and replays every call; when only the followed session grew, the chart keeps its points
        and only the calls the new messages can change are replayed (and any not done yet)."""
        inputs = self._inputs()
        key = inputs.key()
        if key == self.key:
            return
        same_pipeline = self.key is not None and self.key[2:] == key[2:]
        self.key = key  # a running replay sees this and stops at its next call
        chart = self._chart()
        n = len(inputs.view.calls)
        calls: list[int] | None = None
        delay = REPLAY_DELAY
        if not same_pipeline:
            chart.reset_points(n)
            if self._money_ready is not None:
                self._money_ready(None)  # the pipeline's cost comes with its replay
            self._growth = self._unfinished = None
        else:
            chart.set_call_count(n)
            redo = [c for c in (self._growth, self._unfinished) if c is not None]
            if redo and min(redo) > 1:
                calls = growth_calls(n, len(inputs.view), chart.points, min(redo))
                delay = REPLAY_GROWTH_DELAY
        self._growth = None
        self._unfinished = 1 if calls is None else (calls[0] if calls else None)
        if self._timer is not None:
            self._timer.stop()
        # Wait until the keys stop: replaying is pure-Python work that competes for the GIL.
        self._timer = self.services.set_timer(delay, lambda: self._start(key, inputs, calls))

    def _start(self, key: Any, inputs: Inputs, calls: list[int] | None) -> None:
        if key != self.key:
            return  # superseded while it waited
        if self._in_flight:
            self._timer = self.services.set_timer(REPLAY_RETRY, lambda: self._start(key, inputs, calls))
            return
        with self._in_flight_lock:
            self._in_flight += 1

        def job(cancelled: Callable[[], bool]) -> None:
            try:
                self.run(key, inputs, calls, cancelled)
            finally:
                with self._in_flight_lock:
                    self._in_flight -= 1

        self.services.run_thread(job, group="replay")

    def run(self, key: Any, inputs: Inputs, calls: list[int] | None = None,
            cancelled: Callable[[], bool] = lambda: False) -> None:
        """Replay ``calls`` (None: every call, or a sample of a long session), posting the points
        in batches; stops within one call when cancelled or when a newer change restarted it."""
        if key != self.key:
            return
        view, post = inputs.view, self.services.post
        n_calls = len(view.calls)
        note = ""
        order = engine.replay_order(n_calls, REPLAY_SAMPLE)
        fast = replays_incrementally(view, inputs.table, inputs.state.pipeline, inputs.state.settings)
        if not fast and n_calls * len(view) > REPLAY_FULL_WORK and n_calls > REPLAY_SAMPLE:
            order = order[:REPLAY_SAMPLE + 1]
            note = f"sampled: {len(order):,} of {n_calls:,} calls (a full replay of this session is too long)"
        if calls is not None:
            order = calls
        if not order:
            post(ReplayPoints(key, [], 0, note))
            return
        batch: list[CallPoint] = []
        posted = time.perf_counter()
        step = REPLAY_FAST_CHUNK if fast else 1
        for start in range(0, len(order), step):
            done = min(start + step, len(order))
            self._wait_while_held(key, cancelled)
            if cancelled() or key != self.key:
                return
            try:
                batch.extend(engine.replay_points(view, inputs.table, inputs.state, order[start:done]))
            except Exception as exc:  # keep the app alive; the chart says what failed
                post(ReplayPoints(key, [], 0, f"replay failed: {type(exc).__name__}: {exc}"))
                return
            now = time.perf_counter()
            if done == len(order):
                if not note and len(view) >= PRICE_IDLE_MESSAGES:
                    post(ReplayPoints(key, batch, 0, note))  # the chart is complete; its prices come later
                    batch = []
                    if not self._idle_for(PRICE_IDLE, key, cancelled):
                        return
                money = None if note else session_money_or_none(inputs, self._pausing(key, cancelled))
                if cancelled() or key != self.key:
                    return
                post(ReplayPoints(key, batch, 0, note, money))
            elif now - posted > REPLAY_POST_EVERY:
                post(ReplayPoints(key, batch, len(order) - done, note))
                batch = []
                posted = now
            time.sleep(REPLAY_YIELD)  # hand the GIL to the UI thread between calls

    def _idle_for(self, seconds: float, key: Any, cancelled: Callable[[], bool]) -> bool:
        """Wait until no plan was asked for or painted for ``seconds``; False when the replay was
        superseded meanwhile."""
        while True:
            if cancelled() or key != self.key:
                return False
            wait = self._released_at + seconds - time.perf_counter()
            if wait <= 0 and not self._plan_pending.is_set():
                return True
            time.sleep(min(max(wait, 0.05), 0.1))

    def points(self, message: ReplayPoints) -> None:
        """Points arrived from the worker: add them to the chart (stale ones are ignored)."""
        if message.key != self.key:
            return
        if message.pending == 0:
            self._unfinished = None
        chart = self._chart()
        chart.note = message.note
        chart.add_points(message.points, message.pending)
        if message.money is not None and self._money_ready is not None:
            self._money_ready(message.money)


def session_money_or_none(inputs: Inputs, cancelled: Callable[[], bool]) -> Any:
    """What every call costs with and without the pipeline (:func:`~inspector.analysis.money.session_money`),
    or None when pricing fails (the chart then stays in tokens)."""
    from ..analysis.compaction import compacting
    from ..analysis.money import session_money
    from ..analysis.replay import replay

    if cancelled():
        return None
    view, table, state = inputs.view, inputs.table, inputs.state
    try:
        # a compaction's summary calls and state come from the whole stateful replay
        whole = replay(view, table, state.pipeline, state.settings, cancelled=cancelled) if compacting(state.pipeline) else None
        return session_money(view, table, state.pipeline, state.settings, replay=whole, cancelled=cancelled)
    except Exception:  # a price the data cannot give (or a cancelled pricing) must not stop the viewer
        return None


def growth_calls(n: int, n_messages: int, points: dict[int, CallPoint], start: int) -> list[int]:
    """The calls to replay after the followed session grew to ``n`` calls: from call ``start`` on,
    and the ones the chart has no point for yet (of the sample, when the session is replayed sampled)."""
    if n * n_messages > REPLAY_FULL_WORK and n > REPLAY_SAMPLE:
        sample = engine.replay_order(n, REPLAY_SAMPLE)[:REPLAY_SAMPLE + 1]
        return sorted({c for c in sample if c not in points} | ({n} if n >= start else set()))
    return [c for c in range(1, n + 1) if c >= start or c not in points]
