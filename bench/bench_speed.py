#!/usr/bin/env python3
"""Replay, compare and re-plan speed (issue 13), each row beside its floor measured in the same run.

Writes generated OpenAI-shaped sessions (bench/gen_session.py, seed 1234) as JSONL to a
temporary folder and prints, for each size:

- ``info`` on the file (the CLI command in this process, output discarded): the floor the replay
  rows are measured against;
- ``replay`` of every call under each stateless strategy (:func:`inspector.replay` on the session
  ``info`` loaded) and its ratio ``(info + replay) / info``: what a replay command costs next to
  ``info`` when it has to load the same file (goal <= 1.5);
- ``replay`` of ``compact``, stateful (each call after a compaction sees summary + kept + new),
  and of every built-in preset that compacts (with its own settings and shared prefixes, as
  ``replay --preset P`` computes them);
- ``compare`` of every pipeline the CLI's ``compare`` shows by default (every strategy, compact
  included, and ``COMPARE_PIPELINES``; :func:`inspector.compare`, 10k only by default):
  ``(info + compare) / info`` (goal <= 3);
- re-plan fifo with counts cached (the median of ``plan()`` at the next call) against the floor of
  a bisection over prefix sums plus a per-message status list (goal <= 1 ms);
- the decision LangChain's ``trim_messages(strategy="last", include_system=True,
  start_on="human")`` makes with precomputed counts, by LangChain itself and by the inspector
  (``plan()`` and the bare cut), when langchain-core is installed (goal >= 10x faster).

The machine is shared and noisy: the ratios, not the absolute times, are what count. The CLI
``replay`` and ``compare`` commands also price every call (:mod:`inspector.analysis.money`,
whose cache model needs each call's shared prefix): their rows time the whole command (load,
count, compare or replay, money; output discarded) against ``info`` (``compare`` / ``info``),
so compare is reported with and without money (``--no-money`` skips these rows). The CLI
forks its replays over the cores (:mod:`inspector.analysis.compare_forked`); the in-process
``compare`` row does not.

Times: wall for the replay, compare and info rows (seconds), CPU for the millisecond rows; the
CLI compare rows also give their CPU (the forked workers' included) against ``info``'s, the
ratio that holds when other processes take the cores the workers would use.

Every command row (``info`` included) runs as a process reopening the file would: its counts on
disk in the bench's own cache folder (one untimed ``info`` per file writes them), none kept in
memory from the row before, the tokenizer already loaded. Before this, the first file's ``info``
counted everything (1.18 s at 10k) and a later format's found the counts in memory (0.39 s), so
the ratios of one run were not comparable between formats; ``info`` also read the user's whole
count cache (up to 64 MB), so its time depended on the machine's history. ``--as-before`` runs
the command rows that way, to compare with figures measured before.

``--formats`` runs every row on the session written in each named format (the writers of
bench/bench_speed_load.py): ``openai`` (OpenAI chat JSON), ``jsonl`` (the inspector's JSONL, the
default and what the figures above were measured on), ``claude_code`` (a Claude Code transcript:
recorded usage on every call) and ``codex`` (a Codex rollout). ``--dir`` keeps the written files
(and reuses them) instead of a temporary folder.

Usage: python bench/bench_speed.py [--sizes 10000,50000] [--formats jsonl,openai,claude_code,codex] [--dir DIR]
                                   [--runs 21] [--encoding cl100k_base] [--compare-max N] [--no-money] [--as-before]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import resource
import statistics
import sys
import tempfile
import time
from bisect import bisect_left
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_speed_load import FORMATS, input_path, write_format  # noqa: E402
from gen_session import generate  # noqa: E402

import inspector  # noqa: E402
from inspector.cli.main import main as cli  # noqa: E402
from inspector.strategies import STRATEGIES, Settings, plan  # noqa: E402
from inspector.strategies.base import Status  # noqa: E402
from inspector.strategies.incremental import INCREMENTAL, PIPELINES, _trim_cut, facts  # noqa: E402
from inspector.tokens import cache, get_counter  # noqa: E402
from inspector.analysis.prices import _library_price  # noqa: E402
from inspector.strategies.common import count_text  # noqa: E402

#: What a process remembers from one command to the next (a fresh process starts without it).
_MEMOS = (_library_price, count_text)
#: ``--as-before``: the command rows as this bench ran them before 2026-11-24.
AS_BEFORE = False

BUDGET = 128_000


def wall(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    result = fn()
    return time.perf_counter() - t0, result


def cpu_seconds() -> float:
    """CPU of this process and its reaped children (the forked compare workers): under load, the
    wall time of a forked command depends on the others' use of the cores; its CPU does not."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def _load() -> str:
    """The 1-minute load average: on a shared machine the wall-time rows run longer under load."""
    try:
        return f"{os.getloadavg()[0]:.1f}"
    except OSError:
        return "unknown"


def median_ms(fn, runs: int) -> float:
    """Median CPU time (``process_time``: on a shared machine wall time mostly measures the others)."""
    fn()  # warm-up: fills the per-view caches
    samples = []
    for _ in range(runs):
        t0 = time.process_time()
        fn()
        samples.append(time.process_time() - t0)
    return statistics.median(samples) * 1000


def quiet_cli(argv: list[str]) -> None:
    """``argv`` run as a command in this process, as a fresh process reopening the file would run it:
    the counts on disk (the bench's own cache folder, warmed by one untimed ``info`` per file), none
    remembered in memory from the commands before: neither counts nor prices (in one process the
    Codex ``compare --json`` row took 5.0 s after the text row's 15.5 s had filled the price memo)."""
    if not AS_BEFORE:
        cache.clear_memory()
        for memo in _MEMOS:
            memo.cache_clear()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        cli(argv)


def row(label: str, value: str, floor: str, ratio: float, goal: str) -> None:
    print(f"  {label:44} {value:>11} {floor:>11} {ratio:8.2f}x   {goal}")


def bench_size(n: int, path: str, a: argparse.Namespace, fmt: str) -> None:
    encoding = ["--encoding", a.encoding]
    if not AS_BEFORE:
        quiet_cli(["info", path, *encoding])  # the counts on disk: every timed command below reopens the file
    c0 = cpu_seconds()
    t_info, _ = wall(lambda: quiet_cli(["info", path, *encoding]))
    c_info = cpu_seconds() - c0
    analysis = inspector.analyze(inspector.load(path), a.encoding)
    view, table = analysis.view, analysis.table
    print(f"\n{fmt}, {n:,} messages target: {len(view):,} messages, {len(view.calls):,} calls, {len(view.turns) - 1:,} turns; "
          f"info {t_info:.2f} s ({a.encoding}); load average {_load()}")
    print(f"  {'row':44} {'time':>11} {'floor':>11} {'ratio':>9}   goal")
    s = Settings(budget=BUDGET)
    for name in STRATEGIES:
        if name not in INCREMENTAL:
            continue
        t, r = wall(lambda: inspector.replay(analysis, (name,), settings=s))
        assert r.complete
        row(f"replay {name}, every call", f"{t:.3f} s", f"{t_info:.2f} s", (t_info + t) / t_info, "<= 1.5 (info + replay)")
    for names in PIPELINES:
        t, r = wall(lambda: inspector.replay(analysis, names, settings=s))
        row(f"replay {','.join(names)}", f"{t:.3f} s", f"{t_info:.2f} s", (t_info + t) / t_info, "<= 1.5 (info + replay)")
    t, r = wall(lambda: inspector.replay(analysis, ("compact",), settings=s))
    compactions = sum(1 for c in r.calls if c.kind == "summary")
    row(f"replay compact, stateful ({compactions} compactions)", f"{t:.3f} s", f"{t_info:.2f} s", (t_info + t) / t_info,
        "<= 1.5 (info + replay)")
    for preset in _stateful_presets():  # each with its own settings; shared prefixes too, as the CLI's replay prices them
        ps = Settings(**preset.params)
        t, r = wall(lambda: inspector.replay(analysis, preset.pipeline, settings=ps, shared=True))
        compactions = sum(1 for c in r.calls if c.kind == "summary")
        row(f"replay --preset {preset.name} ({compactions} compactions)", f"{t:.3f} s", f"{t_info:.2f} s",
            (t_info + t) / t_info, "<= 1.5 (info + replay)")
    for name in sorted(set(STRATEGIES) - set(INCREMENTAL) - {"compact"}):
        print(f"  replay {name}: planned call by call (no incremental path), not timed here")
    if n <= a.compare_max:
        from inspector.cli.main import COMPARE_PIPELINES

        pipelines = [(name,) for name in STRATEGIES]
        pipelines += [tuple(p.split(",")) for p in COMPARE_PIPELINES]
        t, _ = wall(lambda: inspector.compare(analysis, pipelines, settings=s))
        row(f"compare, all {len(pipelines)} (no money)", f"{t:.2f} s", f"{t_info:.2f} s", (t_info + t) / t_info,
            "<= 3 (info + compare)")
        if a.money:
            for extra in ([], ["--json"]):
                c0 = cpu_seconds()
                t, _ = wall(lambda: quiet_cli(["compare", path, *encoding, "--budget", str(BUDGET), *extra]))
                c = cpu_seconds() - c0
                row(f"CLI compare{' --json' if extra else ''}, all {len(pipelines)} (load + money)", f"{t:.2f} s",
                    f"{t_info:.2f} s", t / t_info, f"<= 3 (compare / info); load average {_load()}; CPU {c:.2f} s, "
                    f"{c / c_info:.2f}x info's {c_info:.2f} s")
    # re-plan fifo, counts cached, against prefix sums + bisect + a per-message status list
    prefix = table.prefix
    stop = len(view)

    def floor() -> list:
        k = bisect_left(prefix, prefix[stop] - BUDGET, 0, stop + 1)
        return [Status.DROPPED] * k + [Status.KEPT] * (stop - k)

    f_ms = median_ms(floor, a.runs)
    p_ms = median_ms(lambda: plan(view, table, "fifo", s), a.runs)
    row("re-plan fifo (plan(), next call), CPU", f"{p_ms:.3f} ms", f"{f_ms:.3f} ms", p_ms / f_ms, "<= 1 ms")
    a_ms = median_ms(lambda: plan(view, table, "fifo", s).tokens_after_of, a.runs)
    row("  the same + tokens_after_of (the TUI reads it)", f"{a_ms:.3f} ms", f"{f_ms:.3f} ms", a_ms / f_ms, "")
    if a.money:
        for name in ("fifo", "truncate_results,fifo"):
            t, _ = wall(lambda: quiet_cli(["replay", path, *encoding, "--strategy", name, "--budget", str(BUDGET), "--json"]))
            row(f"CLI replay --json {name} (load + money)", f"{t:.2f} s", f"{t_info:.2f} s", t / t_info, "<= 1.5")
    if n <= 10_000 and fmt in ("openai", "jsonl"):
        langchain_row(view, table, a.runs)
    elif n <= 10_000:
        print("  (the trim_messages row runs on the openai and jsonl files: its message conversion knows their roles)")


def _stateful_presets() -> list:
    """The built-in presets whose pipeline compacts (replayed call by call with their state)."""
    from inspector.presets import load_presets

    return [p for p in load_presets().values() if "compact" in p.pipeline and p.origin == "builtin"]


def langchain_row(view, table, runs: int) -> None:
    try:
        from langchain_core import messages as lc
    except ImportError:
        print("  (langchain-core not installed: the trim_messages row is skipped)")
        return
    session = view.session
    out = []
    for m in session.messages:
        if m.role == "system":
            out.append(lc.SystemMessage(m.text))
        elif m.role == "user":
            out.append(lc.HumanMessage(m.text))
        elif m.role == "assistant":
            out.append(lc.AIMessage(m.text, tool_calls=[{"id": c.id, "name": c.name, "args": {}} for c in m.tool_calls]))
        else:
            out.append(lc.ToolMessage(m.tool_results[0].text, tool_call_id=m.tool_results[0].tool_call_id))
    counts = {id(m): t for m, t in zip(out, table.totals)}

    def counter(ms) -> int:
        return sum(counts[id(m)] for m in ms)

    def theirs():
        return lc.trim_messages(out, max_tokens=BUDGET, token_counter=counter, strategy="last", include_system=True,
                                start_on="human")

    s = Settings(budget=BUDGET, trim_include_system=True, trim_start_on="human")
    ours = plan(view, table, "trim_messages", s)
    assert len(theirs()) == sum(1 for i in ours.sequence if type(i) is int), "not the decision LangChain makes"
    lc_ms = median_ms(theirs, runs)
    plan_ms = median_ms(lambda: plan(view, table, "trim_messages", s), runs)
    f = facts(view, table)
    cut_ms = median_ms(lambda: _trim_cut(f, s, len(view)), runs)
    row("trim_messages decision: plan()", f"{plan_ms:.3f} ms", f"{lc_ms:.3f} ms", lc_ms / plan_ms, ">= 10x faster (LangChain / ours)")
    row("trim_messages decision: the cut alone", f"{cut_ms * 1000:.1f} us", f"{lc_ms:.3f} ms", lc_ms / cut_ms, ">= 10x faster")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,50000")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--encoding", default="cl100k_base")
    ap.add_argument("--compare-max", type=int, default=10_000, help="time compare up to this size")
    ap.add_argument("--no-money", dest="money", action="store_false",
                    help="skip the CLI compare and replay rows (the commands price every call)")
    ap.add_argument("--formats", default="jsonl", help=f"comma-separated, of {','.join(FORMATS)}")
    ap.add_argument("--dir", default=None, help="write the sessions here (kept, and reused if present)")
    ap.add_argument("--as-before", action="store_true",
                    help="the command rows as before 2026-11-24: the user's cache folder, no untimed info, counts "
                         "and prices remembered from row to row (to compare with figures measured then)")
    a = ap.parse_args()
    formats = a.formats.split(",")
    unknown = sorted(set(formats) - set(FORMATS))
    if unknown:
        ap.error(f"unknown format(s) {', '.join(unknown)}: choose from {', '.join(FORMATS)}")
    global AS_BEFORE
    AS_BEFORE = a.as_before
    if not AS_BEFORE:
        get_counter(a.encoding).count("warm")  # the tokenizer loaded once, before any row (not a row's cost)
    with contextlib.ExitStack() as stack:
        if not AS_BEFORE:
            os.environ["CONTEXT_INSPECTOR_CACHE_DIR"] = stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-cache-"))
        directory = Path(a.dir) if a.dir else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        directory.mkdir(parents=True, exist_ok=True)
        for n in (int(x) for x in a.sizes.split(",")):
            session = None
            for fmt in formats:
                path = input_path(directory, fmt, n)
                if not path.exists():
                    session = session or generate(n)
                    write_format(fmt, session, path)
                bench_size(n, str(path), a, fmt)


if __name__ == "__main__":
    main()
