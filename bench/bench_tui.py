#!/usr/bin/env python3
"""TUI latency on large sessions, each figure beside its floor measured in the same run.

Writes, to a temp directory, a generated OpenAI-format session (bench/gen_session.py, seed 1234,
the inspector's JSONL) of each ``--sizes`` messages, and a Claude Code and a Codex transcript
of ``--agent-turns`` turns (bench/bench_agent_formats.py's writers), then for each file:

- **first paint, parse included**: a fresh process loads the file and opens the app headless
  (``App.run_test``, 160x48) until the first screen refresh that shows the message list; the
  floor is a fresh process that loads the same file and paints a bare Line-API list of the same
  rows (position, role, text). Then, in the same processes: the first plan on screen
  (estimates) and, in process, the exact counts on screen. Every process gets an empty token
  count cache (a cold start, not a lookup).
- **key -> repaint**: a strategy key (1, 4, 5, 2, each pressed twice: on, off) planned in the
  worker and painted, median, p90 and worst of ``--repeat`` rounds, pressed back to back and
  again after ``IDLE`` seconds each (a user reading the screen: the viewer plans the next keys
  meanwhile, :mod:`inspector.tui.speculate`); a budget step (``+``, fifo on); the replay cursor
  (``[``) while the replay runs, and after ``IDLE`` seconds; cursor ``down``/``pagedown`` on the list. The
  floor is a Line-API restyle: every widget of the screen repainted, the list's line cache
  emptied, with no plan (what any key that changes the styles costs at least), measured just
  before each key of every case, so each figure stands beside a floor taken under the same
  conditions (the replay running or not, the same load). The exact count has no floor here
  (``bench_speed_load.py`` measures counting against tiktoken on a process pool).

Keys are sent with ``App.simulate_key`` (``Pilot.press`` waits for idle, ~80 ms a key). A case
ends at the first screen refresh (``Screen._compositor_refresh``) after the app applied the
change (the time ``on_plan_ready`` applied the key's plan, recorded there): key to pixels (a change not on screen after 30 s counts as 30 s). CPU is
``time.process_time`` over the same span, all threads.
Usage: ``python bench/bench_tui.py [--sizes 50000] [--agent-turns 1250] [--repeat 3]``

The README (Speed and memory) quotes the last run's figures and the machine they came from.
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("TEXTUAL_ANIMATIONS", "none")

from textual.screen import Screen  # noqa: E402

PAINTS: list[float] = []
_refresh = Screen._compositor_refresh


def _timed_refresh(self) -> None:
    _refresh(self)
    PAINTS.append(time.perf_counter())


Screen._compositor_refresh = _timed_refresh

SIZE = (160, 48)

# A fresh process: parse, open the app, print seconds to the first paint of the list, then to
# the first plan on screen.
OURS = r"""
import asyncio, os, sys, time
sys.path.insert(0, sys.argv[2])
import bench_tui
from bench_tui import PAINTS
from inspector import load
from inspector.tui.app import InspectorApp

async def main():
    t0 = time.perf_counter()
    session = load(sys.argv[1])
    loaded = time.perf_counter()
    app = InspectorApp(session, path=sys.argv[1], follow=False, theme="inspector-dark")
    async with app.run_test(size=bench_tui.SIZE):
        while not (PAINTS and app.list.row_count()):
            await asyncio.sleep(0.001)
        first = PAINTS[-1]
        while app.result is None:
            await asyncio.sleep(0.001)
        shown = time.perf_counter()
        while not PAINTS[-1] > shown:
            await asyncio.sleep(0.001)
        print(loaded - t0, first - t0, PAINTS[-1] - t0)
        app.exit()

asyncio.run(main())
"""

# The floor: parse the same file, paint a bare Line-API list of the same rows.
FLOOR = r"""
import asyncio, sys, time
sys.path.insert(0, sys.argv[2])
import bench_tui
from bench_tui import PAINTS
from rich.segment import Segment
from textual.app import App
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from inspector import load

class Rows(ScrollView):
    def __init__(self, messages):
        super().__init__()
        self.messages = messages

    def on_mount(self):
        self.virtual_size = Size(self.size.width, len(self.messages))

    def render_line(self, y):
        i = self.scroll_offset.y + y
        if i >= len(self.messages):
            return Strip.blank(self.size.width)
        m = self.messages[i]
        text = next((getattr(b, "text", "") for b in m.content), "")
        line = f"{i:>6} {m.role:<9} {text}".replace("\n", " ")[: self.size.width]
        return Strip([Segment(line.ljust(self.size.width))])

class Floor(App):
    def __init__(self, messages):
        super().__init__()
        self.messages = messages

    def compose(self):
        yield Rows(self.messages)

async def main():
    t0 = time.perf_counter()
    session = load(sys.argv[1])
    loaded = time.perf_counter()
    app = Floor(session.messages)
    async with app.run_test(size=bench_tui.SIZE):
        while not PAINTS:
            await asyncio.sleep(0.001)
        print(loaded - t0, PAINTS[-1] - t0, PAINTS[-1] - t0)
        app.exit()

asyncio.run(main())
"""


class Clock:
    def __init__(self) -> None:
        self.wall = time.perf_counter()
        self.cpu = time.process_time()

    def since(self) -> tuple[float, float]:
        return (time.perf_counter() - self.wall) * 1000, (time.process_time() - self.cpu) * 1000


def row(label: str, floor: float | None, ours: float, note: str = "") -> None:
    ratio = f"{ours / floor:6.2f}x" if floor else "       "
    floor_text = f"{floor:9.1f}" if floor is not None else " " * 9
    print(f"{label:<46} {floor_text} {ours:9.1f} {ratio} {note}")


def fresh(script: str, path: Path, env: dict[str, str], repeat: int) -> list[float]:
    """Median (load, first paint, first plan) seconds of ``script`` over ``repeat`` processes."""
    runs = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", script, str(path), HERE], capture_output=True, text=True,
                             env={**env, "CONTEXT_INSPECTOR_CACHE_DIR": tempfile.mkdtemp(prefix="bench-tui-cache-")},
                             timeout=900)
        if out.returncode:
            raise SystemExit(out.stderr)
        runs.append([float(x) for x in out.stdout.split()])
    return [statistics.median(r[k] for r in runs) for k in range(3)]


#: (generation, time) of every plan result the app applied (recorded by on_plan_ready itself: a
#: kept plan is applied and painted within one turn of the event loop, before a poll sees it).
APPLIED: list[tuple[int, float]] = []


def record_applied(app_class) -> None:
    ready = app_class.on_plan_ready

    def on_plan_ready(self, message) -> None:
        ready(self, message)
        if self.result is message.result:
            APPLIED.append((message.result.generation, time.perf_counter()))

    app_class.on_plan_ready = on_plan_ready


async def paint_after(change, done, timeout: float = 30.0) -> tuple[float, float]:
    """Call ``change()``; (wall ms, CPU ms) until the first paint after the time ``done()``
    returns (a number: when the change was applied; True: now; None/False: not yet)."""
    c = Clock()
    change()
    end = time.perf_counter() + timeout
    applied = None
    while time.perf_counter() < end:
        if applied is None:
            at = done()
            applied = time.perf_counter() if at is True else at or None
        if applied is not None and PAINTS and PAINTS[-1] > applied:
            break
        await asyncio.sleep(0.0005)
    return c.since()


async def key(app, name: str, kind: str = "plan") -> tuple[float, float]:
    gen, cursor = app._gen, app.list.cursor

    def plan_applied() -> float | None:
        return next((t for g, t in reversed(APPLIED) if g > gen and g == app._gen), None)

    if kind == "plan":
        return await paint_after(lambda: app.simulate_key(name), plan_applied)
    return await paint_after(lambda: app.simulate_key(name), lambda: app.list.cursor != cursor)


def restyle(app) -> None:
    """The floor of a key: every widget repainted, the list's lines rendered again, no plan."""
    app.list._strips.clear()
    for widget in app.screen.query("*"):
        widget.refresh()


def med(samples: list[tuple[float, float]], k: int = 0) -> float:
    return statistics.median(s[k] for s in samples)


def p90(samples: list[tuple[float, float]], k: int = 0) -> float:
    return statistics.quantiles([s[k] for s in samples], n=10, method="inclusive")[-1]


#: Seconds a user reads the screen between two keys, in the "after idle" cases.
IDLE = 2.0


async def in_process(path: Path, repeat: int) -> None:
    from inspector import load
    from inspector.tui.app import InspectorApp

    record_applied(InspectorApp)
    session = load(path)
    c = Clock()
    app = InspectorApp(session, path=str(path), follow=False, theme="inspector-dark")
    async with app.run_test(size=SIZE) as pilot:
        while app.result is None or app.exact_pending:
            await asyncio.sleep(0.001)
        done = time.perf_counter()
        while not (app.result.generation == app._gen and PAINTS and PAINTS[-1] > done):
            await asyncio.sleep(0.001)
        row("exact counts on screen (s, from the app's start)", None, c.since()[0] / 1000)
        await asyncio.sleep(0.5)

        async def paired(press, settle: float = 0.05) -> tuple[tuple[float, float], tuple[float, float]]:
            """(floor, case): a restyle of the same screen just before each key, same conditions."""
            floor = await paint_after(lambda: restyle(app), lambda: True)
            await asyncio.sleep(settle)
            case = await press()
            await asyncio.sleep(settle)
            return floor, case

        def report(label: str, pairs: list, worst: bool = False) -> None:
            floors, cases = [p[0] for p in pairs], [p[1] for p in pairs]
            row(f"{label}, median of {len(cases)}", med(floors), med(cases))
            if worst:
                row("   p90", p90(floors), p90(cases))
                row("   worst", max(s[0] for s in floors), max(s[0] for s in cases))
                row("   CPU ms, median (all threads)", med(floors, 1), med(cases, 1))

        def toggle_round() -> list:
            return [(name, on) for name in ("1", "4", "5", "2") for on in (True, False)]

        # A user reads the screen between keys: the viewer plans the next keys meanwhile (each
        # strategy toggled, [ ], budget -/+). Each case starts with no plan kept from before.
        app.info._results.clear()
        idle = []
        for _ in range(repeat):
            for name, _on in toggle_round():
                await asyncio.sleep(IDLE)
                idle.append(await paired(lambda: key(app, name)))
        report(f"toggle key after {IDLE:g} s idle -> repaint", idle, worst=True)
        app.info._results.clear()
        await asyncio.sleep(IDLE)
        toggles = []
        for _ in range(repeat):
            for name, _on in toggle_round():
                toggles.append(await paired(lambda: key(app, name)))
        report("toggle key back to back -> repaint", toggles, worst=True)
        print(f"   (plans computed ahead so far: {app.speculation.planned})")

        await key(app, "5")  # tool_pruning on: its replay (and pricing) runs behind the next keys
        await asyncio.sleep(1.0)
        busy = [await paired(lambda: key(app, "left_square_bracket"), 0.0) for _ in range(repeat * 3)]
        report("replay cursor [ while the replay runs", busy, worst=True)
        calm = []
        for _ in range(repeat * 3):
            await asyncio.sleep(IDLE)
            calm.append(await paired(lambda: key(app, "left_square_bracket"), 0.0))
        report(f"replay cursor [ after {IDLE:g} s idle", calm, worst=True)
        await key(app, "1")
        steps = [await paired(lambda: key(app, "plus")) for _ in range(repeat * 3)]
        report("budget +1k (fifo + tool_pruning) -> repaint", steps)
        app.replay.go_to(None)
        await asyncio.sleep(0.5)
        app.list.focus()
        await pilot.pause()
        for name, label, count in (("pagedown", "list: pagedown -> repaint", 20), ("down", "list: down -> repaint", 40)):
            report(label, [await paired(lambda: key(app, name, "move"), 0.0) for _ in range(count)])
        # This runs in a process of its own (main): end it here, without waiting for the replay's
        # pricing thread, which at 50,000 messages can outlast the measurement by minutes.
        from inspector.tokens.pool import shutdown

        shutdown()  # the counting processes, which os._exit would leave behind
        sys.stdout.flush()
        os._exit(0)


def write_files(tmp: Path, sizes: list[int], agent_turns: int) -> list[tuple[str, Path]]:
    from bench_agent_formats import claude_lines, codex_lines
    from gen_session import generate, write_jsonl

    files = []
    for n in sizes:
        path = tmp / f"openai-{n}.jsonl"
        write_jsonl(generate(n), path)
        files.append((f"OpenAI (inspector JSONL), {n:,} generated", path))
    if agent_turns:
        for name, lines in (("claude_code", claude_lines(agent_turns)), ("codex", codex_lines(agent_turns))):
            path = tmp / f"{name}.jsonl"
            path.write_text("\n".join(lines) + "\n")
            files.append((f"{name}, {agent_turns:,} turns", path))
    return files


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="*", default=[50000])
    ap.add_argument("--agent-turns", type=int, default=1250, help="turns of the Claude Code and Codex files (0: none)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--in-process", default=None, help=argparse.SUPPRESS)  # one file's keys, in this process
    args = ap.parse_args()
    if args.in_process:
        asyncio.run(in_process(Path(args.in_process), args.repeat))
        return
    import textual

    from inspector import load

    print(f"textual {textual.__version__}, python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}, terminal {SIZE[0]}x{SIZE[1]} (headless)")
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as d:
        for label, path in write_files(Path(d), args.sizes, args.agent_turns):
            n = len(load(path).messages)
            print(f"\n## {label}: {n:,} messages, {path.stat().st_size / 1e6:.0f} MB")
            print(f"{'case':<46} {'floor':>9} {'ours':>9} {'ratio':>7}")
            floor = fresh(FLOOR, path, env, args.repeat)
            ours = fresh(OURS, path, env, args.repeat)
            row("load (s, median of fresh processes)", floor[0], ours[0])
            row("first paint, parse included (s)", floor[1], ours[1])
            row("   of which after the parse (ms)", 1000 * (floor[1] - floor[0]), 1000 * (ours[1] - ours[0]))
            row("first plan on screen, estimates (s)", floor[1], ours[2])
            sys.stdout.flush()
            subprocess.run([sys.executable, __file__, "--in-process", str(path), "--repeat", str(args.repeat)],
                           env={**env, "CONTEXT_INSPECTOR_CACHE_DIR": tempfile.mkdtemp(prefix="bench-tui-cache-")},
                           timeout=1800, check=True)


if __name__ == "__main__":
    main()
