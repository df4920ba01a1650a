#!/usr/bin/env python3
"""TUI latency on large sessions: mount, key press to repaint, and scrolling.

Generates a deterministic session in memory (bench/gen_session.py, seed 1234), opens the app
headless (``App.run_test``, 160x48) and measures, for each size:

- **mount**: from constructing the app (view built, counter loaded) to the first paint of the
  first plan (chars/4 estimates), and to the paint with exact cl100k counts from the background
  worker;
- **toggle -> repaint**: a strategy key (1, 4, 5, 2) pressed, planned in the worker, the list,
  totals, gauge and panel updated, and the screen painted; median of ``--repeat`` rounds of the
  four keys (each key pressed twice: on, off), with the replay worker restarting in the
  background each time, as it does for a user;
- **budget step** (``+`` with fifo on) and **replay cursor** (``[``);
- **scroll**: ``pagedown`` (one screen) and ``down`` (one row) per key, ``end`` to the last row;
- **paint only**: rendering every visible row of the list from an empty strip cache.

Keys are sent with ``App.simulate_key`` (not ``Pilot.press``, whose wait-for-idle adds ~80 ms per
key and waits up to seconds while the replay worker keeps posting chart updates). A case ends at
the first screen refresh (``Screen._compositor_refresh``) after the app applied the change, so
"wall" is key to pixels; "CPU" is ``time.process_time`` over the same span, all threads
(it includes the replay and counting workers running in the background). Usage:
``python bench/bench_tui.py [--sizes 10000 50000] [--repeat 3]``

Measured on the 2-vCPU development VM (Textual 8.2.8, Python 3.11.7), median wall ms:

=====================================  ======  ======
case                                    10,010  50,009
=====================================  ======  ======
mount to first plan painted (est.)         425   1,252
mount to exact counts painted            3,493  13,449
toggle key -> repaint                       50      86
toggle key -> repaint, worst of 24          67     144
  plan + rows + validation in worker        11      51
replay cursor ``[`` (replay running)        51     125
budget +1k (fifo + tool_pruning)            51      77
scroll: pagedown / down per key          17/17   24/20
paint all visible rows, empty cache          2       2
=====================================  ======  ======
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

from gen_session import generate  # noqa: E402

from textual.screen import Screen  # noqa: E402

from inspector.tui.app import InspectorApp  # noqa: E402
from inspector.tui.widgets.linelist import LineList  # noqa: E402

PAINTS: list[float] = []
MOVES: list[float] = []
_refresh = Screen._compositor_refresh
_move = LineList.move_cursor


def _timed_refresh(self) -> None:
    _refresh(self)
    PAINTS.append(time.perf_counter())


def _timed_move(self, *args, **kw) -> None:
    _move(self, *args, **kw)
    MOVES.append(time.perf_counter())


Screen._compositor_refresh = _timed_refresh
LineList.move_cursor = _timed_move

SIZE = (160, 48)


class Clock:
    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = time.process_time()

    def since(self) -> tuple[float, float]:
        return (time.perf_counter() - self.wall) * 1000, (time.process_time() - self.cpu) * 1000


async def shown(pilot, app: InspectorApp, timeout: float = 60.0) -> None:
    """Wait until the plan of the last change is on screen, then one more paint."""
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        if app.result is not None and app.result.generation == app._gen:
            break
        await asyncio.sleep(0.001)
    await pilot.pause()


async def key_to_paint(app: InspectorApp, key: str, kind: str = "plan", timeout: float = 30.0) -> tuple[float, float]:
    """Send ``key``; (wall ms, CPU ms) until the first paint after the app applied it."""
    gen = app._gen
    moves = len(MOVES)
    c = Clock()
    app.simulate_key(key)
    end = time.perf_counter() + timeout
    applied = None
    while time.perf_counter() < end:
        if applied is None:
            if kind == "plan" and app._gen > gen and app.result.generation == app._gen:
                applied = time.perf_counter()
            elif kind == "move" and len(MOVES) > moves:
                applied = MOVES[-1]
        if applied is not None and PAINTS and PAINTS[-1] > applied:
            break
        await asyncio.sleep(0.0005)
    return c.since()


def med(samples: list[tuple[float, float]]) -> str:
    w = statistics.median(s[0] for s in samples)
    c = statistics.median(s[1] for s in samples)
    return f"{w:8.1f} {c:8.1f}"


async def bench(n: int, repeat: int) -> None:
    t = Clock()
    session = generate(n)
    gen_ms = t.since()[0]
    print(f"\n## {len(session.messages):,} messages (generated in {gen_ms / 1000:.1f} s)")
    print(f"{'case':<44} {'wall ms':>8} {'CPU ms':>8}")
    t = Clock()
    app = InspectorApp(session, path=None, follow=False, theme="inspector-dark", sync_count=False)
    async with app.run_test(size=SIZE) as pilot:
        while app.result is None:
            await asyncio.sleep(0.001)
        shown_at = time.perf_counter()
        while not (PAINTS and PAINTS[-1] > shown_at):
            await asyncio.sleep(0.001)
        mount = t.since()
        print(f"{'mount: start to first plan on screen (est.)':<44} {mount[0]:8.1f} {mount[1]:8.1f}")
        while app.exact_pending:
            await asyncio.sleep(0.001)
        done_at = time.perf_counter()
        while not (app.result.generation == app._gen and PAINTS and PAINTS[-1] > done_at):
            await asyncio.sleep(0.001)
        exact = t.since()
        print(f"{'mount: start to exact counts on screen':<44} {exact[0]:8.1f} {exact[1]:8.1f}")

        toggles = []
        plan_ms = []
        for _ in range(repeat):
            for key in ("1", "4", "5", "2"):
                for _ in range(2):
                    toggles.append(await key_to_paint(app, key))
                    plan_ms.append(app.result.seconds * 1000)
                    await asyncio.sleep(0.05)
        print(f"{'toggle key -> repaint (median)':<44} {med(toggles)}")
        print(f"{'   worst of ' + str(len(toggles)):<44} {max(s[0] for s in toggles):8.1f} {max(s[1] for s in toggles):8.1f}")
        print(f"{'   of which plan + rows in the worker':<44} {statistics.median(plan_ms):8.1f}")

        await key_to_paint(app, "5")  # tool_pruning on: its replay runs behind the next keys
        await asyncio.sleep(1.0)
        busy = [await key_to_paint(app, "left_square_bracket") for _ in range(repeat * 3)]
        print(f"{'replay cursor [ while the replay runs':<44} {med(busy)}")
        await key_to_paint(app, "1")
        steps = []
        for _ in range(repeat * 3):
            steps.append(await key_to_paint(app, "plus"))
            await asyncio.sleep(0.05)
        print(f"{'budget +1k (fifo + tool_pruning) -> repaint':<44} {med(steps)}")
        app.replay.go_to(None)
        await shown(pilot, app)

        lst = app.list
        lst.focus()
        await pilot.pause()
        for key, label, count in (("pagedown", "scroll: pagedown, per key", 20), ("down", "scroll: down, per key", 40)):
            samples = [await key_to_paint(app, key, "move") for _ in range(count)]
            print(f"{label:<44} {med(samples)}")
        end = await key_to_paint(app, "end", "move")
        print(f"{'scroll: end (to row ' + format(lst.row_count(), ',') + ')':<44} {end[0]:8.1f} {end[1]:8.1f}")

        paints = []
        for _ in range(20):
            lst._strips.clear()
            c = Clock()
            for y in range(lst.size.height):
                lst.render_line(y)
            paints.append(c.since())
        print(f"{'paint only: all visible rows, cache empty':<44} {med(paints)}")
        await pilot.press("q")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10000, 50000])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import textual

    print(f"textual {textual.__version__}, python {sys.version.split()[0]}, terminal {SIZE[0]}x{SIZE[1]} (headless)")
    for n in args.sizes:
        asyncio.run(bench(n, args.repeat))


if __name__ == "__main__":
    main()
