"""The cyclic garbage collector held off from a key to its repaint.

A full collection walks every long-lived object not frozen (``gc.freeze``): at 50,000
messages, with the plans the viewer keeps, that is 35-70 ms, and it fell inside a key's
latency at random (the allocations of a plan trigger it, and the plan's own ``gc_paused``
starts it the moment planning ends). The app pauses collection when it asks for a plan and
resumes it once that plan is painted and the screen is idle, so the pending collection runs
while the user reads.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Any

#: Longest the collector stays paused when no plan arrives (a worker that failed).
GC_HOLD_MAX = 2.0
#: Seconds of idle screen after a paint before the collector runs (see :meth:`GcHold.resume_when_idle`).
IDLE_COLLECT = 0.3


class GcHold:
    """``pause()`` when a key asks for a plan, ``resume()`` when it is on screen; pauses nest
    (a second key before the first plan's paint) and the last resume re-enables collection. A
    pause the app holds longer than :data:`GC_HOLD_MAX` ends by itself."""

    def __init__(self, set_timer: Callable[[float, Callable[[], None]], Any], busy: Callable[[], bool] = lambda: False) -> None:
        """``busy()``: background work the collection waits for (the plans computed ahead)."""
        self._set_timer = set_timer
        self._busy = busy
        self._paused = False
        self._timer: Any = None

    def pause(self) -> None:
        if not self._paused:
            # not "if enabled": a replay thread's plan pauses it for itself (gc_paused) at times
            gc.disable()
            self._paused = True
        if self._timer is not None:
            self._timer.stop()
        self._timer = self._set_timer(GC_HOLD_MAX, self.resume)

    def resume_when_idle(self) -> None:
        """The plan is painted: once the screen has been idle :data:`IDLE_COLLECT` seconds (a key
        meanwhile pauses again), collect what the keys left, freeze what survives and turn
        collection back on. Collections that come later, in whatever thread allocates, then walk
        only what is newer than that: a full one over every plan kept (60-300 ms at 50,000
        messages) ran in the workers planning ahead and held the GIL in the next key's window."""
        if self._timer is not None:
            self._timer.stop()
        self._timer = self._set_timer(IDLE_COLLECT, self._collect) if self._paused else None

    def _collect(self) -> None:
        self._timer = None
        if self._paused and self._busy():  # it allocates what the collection would walk: after it
            self._timer = self._set_timer(IDLE_COLLECT, self._collect)
        elif self._paused:
            gc.collect()
            gc.freeze()
            self._paused = False
            gc.enable()

    def resume(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self._paused:
            self._paused = False
            gc.enable()
