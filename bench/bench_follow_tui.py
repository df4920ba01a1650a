#!/usr/bin/env python3
"""TUI responsiveness while a followed Claude Code transcript grows at 50 records a second.

Writes a synthetic Claude Code transcript (bench/bench_agent_formats.py's ``claude_lines``: one
line per content block, two parallel tool calls per step, progress records, 2 kB tool results)
with ``--turns`` turns to a temp file, opens the app on it headless (``App.run_test``, 160x48,
``--follow`` on, exact counts done before measuring), then starts a writer **process** that
appends the next records at ``--rate`` records a second for ``--seconds`` seconds. Meanwhile:

- **toggle -> repaint**: strategy keys (5, 1: tool_pruning, fifo), each pressed and then pressed
  again, spaced 150-250 ms apart; from ``simulate_key`` to the first screen refresh after the plan
  with the new pipeline is applied (as in bench_tui.py);
- **cursor up -> repaint**: the ``up`` key on the message list;
- **follow lag**: from the moment the writer wrote a record to the first paint of a plan that
  includes it (median and worst over every record);
- **follow updates**: how many times the app swapped in a grown session, the records per update,
  and the CPU time of the whole process (all threads) over the writing span.

The same keys are measured first with no writer (idle) for comparison. Usage:
``python bench/bench_follow_tui.py [--turns 125 1250] [--rate 50] [--seconds 10]``

Measured on the 2-vCPU development VM (Textual 8.2.8, Python 3.11.7), ms, median / worst:

========================================  =============  =============
case                                      1,000 msgs     10,000 msgs
========================================  =============  =============
toggle key -> repaint, idle                  49 / 71        49 / 140
toggle key -> repaint, while writing         33 / 54        56 / 90
cursor up -> repaint, while writing          18 / 45        34 / 47
record written -> on screen                 117 / 199      506 / 854
follow updates for 500 records               85             19
CPU while writing (one core = 100%)          39%            50%
========================================  =============  =============

Before polls were serialised and spaced by their cost (a new exclusive worker per watchfiles
event, the view rebuilt each time): worst toggle while writing 1,069 ms at 10,000 messages, and
the list showed 10,069 of the 10,200 messages when the writer stopped; 68% CPU at 1,000.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

from bench_agent_formats import claude_lines  # noqa: E402
from textual.screen import Screen  # noqa: E402

from inspector import load  # noqa: E402
from inspector.tui.app import InspectorApp  # noqa: E402

SIZE = (160, 48)
PAINTS: list[float] = []
#: (perf_counter when a plan built on a followed session was applied, follower byte offset)
SHOWN: list[tuple[float, int]] = []
UPDATES: list[tuple[float, int]] = []  # (time the grown session was swapped in, byte offset)
_refresh = Screen._compositor_refresh
_polled = InspectorApp.on_follow_polled
_ready = InspectorApp.on_plan_ready
_offset_of_view: dict[int, int] = {}


def _timed_refresh(self) -> None:
    _refresh(self)
    PAINTS.append(time.perf_counter())


def _timed_polled(self, message) -> None:
    _polled(self, message)
    if message.session is not None and self.follow.follower is not None:
        offset = self.follow.follower.offset
        _offset_of_view[id(self.view)] = offset
        UPDATES.append((time.perf_counter(), offset))


def _timed_ready(self, message) -> None:
    _ready(self, message)
    result = message.result
    offset = _offset_of_view.get(id(result.snapshot.view))
    if offset is not None and result.generation == self._gen:
        SHOWN.append((time.perf_counter(), offset))


Screen._compositor_refresh = _timed_refresh
InspectorApp.on_follow_polled = _timed_polled
InspectorApp.on_plan_ready = _timed_ready

WRITER = r"""
import sys, time
path, lines_file, rate, start = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
lines = open(lines_file, "rb").read().split(b"\n")
with open(path, "ab", buffering=0) as fh:
    for k, line in enumerate(lines):
        wait = start + k / rate - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        fh.write(line + b"\n")
"""


async def first_paint_after(t: float, timeout: float = 30.0) -> float:
    end = time.perf_counter() + timeout
    while time.perf_counter() < end:
        if PAINTS and PAINTS[-1] > t:
            return next(p for p in PAINTS if p > t)
        await asyncio.sleep(0.0005)
    return float("nan")


async def key_to_paint(app: InspectorApp, key: str, done, timeout: float = 30.0) -> float:
    """ms from sending ``key`` to the first paint after ``done()`` holds."""
    t0 = time.perf_counter()
    app.simulate_key(key)
    end = t0 + timeout
    while time.perf_counter() < end and not done():
        await asyncio.sleep(0.0005)
    applied = time.perf_counter()
    return (await first_paint_after(applied) - t0) * 1000


async def press_keys(app: InspectorApp, until: float | None, rounds: int) -> tuple[list[float], list[float]]:
    toggles, ups = [], []
    k = 0
    while (until is None and k < rounds) or (until is not None and time.perf_counter() < until):
        for key, name in (("5", "tool_pruning"), ("5", "tool_pruning"), ("1", "fifo"), ("1", "fifo")):
            want = app.state.enabled ^ {name}
            toggles.append(await key_to_paint(
                app, key, lambda: app.result is not None and app.result.snapshot.state.enabled == want
                and app.result.generation == app._gen))
            await asyncio.sleep(0.15 + 0.1 * (k % 2))
        lst = app.list
        if lst.cursor > 0:
            want_row = lst.cursor - 1
            ups.append(await key_to_paint(app, "up", lambda: lst.cursor == want_row))
        await asyncio.sleep(0.2)
        k += 1
    return toggles, ups


def stats(samples: list[float]) -> str:
    good = [s for s in samples if s == s]
    if not good:
        return "—"
    return f"{statistics.median(good):7.1f} {max(good):7.1f}  (n={len(good)})"


async def bench(turns: int, rate: float, seconds: float) -> None:
    n_new = int(rate * seconds)
    lines = claude_lines(turns + n_new // 20 + 2)
    per_turn = len(lines) // (turns + n_new // 20 + 2)
    initial, appended = lines[: turns * per_turn], lines[turns * per_turn: turns * per_turn + n_new]
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "3f2b9c1e-5d4a-4e8b-9c71-000000000000.jsonl"
        path.write_text("\n".join(initial) + "\n")
        to_append = Path(d) / "append.txt"
        to_append.write_text("\n".join(appended))
        base = path.stat().st_size
        ends, pos = [], base
        for line in appended:
            pos += len(line.encode()) + 1
            ends.append(pos)
        session = load(path)
        print(f"\n## {len(session.messages):,} messages ({len(initial):,} records, {base / 1e6:.1f} MB); "
              f"then {len(appended)} records at {rate:g}/s")
        app = InspectorApp(session, path=str(path), follow=True, theme="inspector-dark")
        async with app.run_test(size=SIZE) as pilot:
            while app.result is None or app.exact_pending or app.follow.follower is None:
                await asyncio.sleep(0.01)
            await pilot.pause(0.5)
            app.list.focus()
            idle_toggles, idle_ups = await press_keys(app, None, 3)
            await pilot.pause(0.5)
            SHOWN.clear()
            UPDATES.clear()
            cpu0, wall0 = time.process_time(), time.perf_counter()
            start = time.perf_counter() + 0.3
            writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(to_append), str(rate), str(start)])
            live_toggles, live_ups = await press_keys(app, start + seconds, 0)
            while writer.poll() is None:
                await asyncio.sleep(0.01)
            while not SHOWN or SHOWN[-1][1] < ends[-1]:
                await asyncio.sleep(0.01)
            done = time.perf_counter()
            cpu = (time.process_time() - cpu0) / (done - wall0)
            shown_paints = [(await first_paint_after(t), off) for t, off in SHOWN]
            lags = []
            for k, end_byte in enumerate(ends):
                written = start + k / rate
                paint = next((p for p, off in shown_paints if off >= end_byte), None)
                if paint is not None:
                    lags.append((paint - written) * 1000)
            print(f"{'case':<44} {'median':>7} {'worst':>7}  ms")
            print(f"{'toggle key -> repaint, idle':<44} {stats(idle_toggles)}")
            print(f"{'toggle key -> repaint, while writing':<44} {stats(live_toggles)}")
            print(f"{'cursor up -> repaint, idle':<44} {stats(idle_ups)}")
            print(f"{'cursor up -> repaint, while writing':<44} {stats(live_ups)}")
            print(f"{'record written -> on screen':<44} {stats(lags)}")
            print(f"follow updates: {len(UPDATES)} for {len(appended)} records "
                  f"({len(appended) / max(1, len(UPDATES)):.1f} records each); "
                  f"messages now {len(app.view):,}; CPU {100 * cpu:.0f}% of one core while writing (all threads)")
            await pilot.press("q")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, nargs="+", default=[125, 1250])
    ap.add_argument("--rate", type=float, default=50.0)
    ap.add_argument("--seconds", type=float, default=10.0)
    args = ap.parse_args()
    import textual

    print(f"textual {textual.__version__}, python {sys.version.split()[0]}, terminal {SIZE[0]}x{SIZE[1]} (headless)")
    for turns in args.turns:
        asyncio.run(bench(turns, args.rate, args.seconds))


if __name__ == "__main__":
    main()
