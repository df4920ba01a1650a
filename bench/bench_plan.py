#!/usr/bin/env python3
"""Plan time per strategy and pipeline on a large synthetic session, counts cached.

Generates a deterministic session (bench/gen_session.py, seed 1234), counts it once with the
``approx`` counter (ceil(chars / 4); the plan cost does not depend on how counts were made, and
exact cl100k counting of 50k messages takes minutes on this machine), builds the view once, then
times ``plan()`` for each strategy and two pipelines: the median of ``--runs`` runs, after one
warm-up run that fills the per-view caches (its time is shown as "first"). Also timed: the
validator on the plan, ``decisions()``, ``messages_after()``, and a replay of ``--sample`` evenly
spaced model calls (incremental for most strategies and pipelines, else one plan per call;
bench/bench_speed.py times full replays, compare and re-planning against their floors).

Usage: python bench/bench_plan.py [--messages 50000] [--runs 7] [--budget 128000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from gen_session import generate  # noqa: E402

from inspector import analyze  # noqa: E402
from inspector.analysis.replay import replay  # noqa: E402
from inspector.strategies import Settings, plan  # noqa: E402
from inspector.providers.validate import validate_plan  # noqa: E402

CASES = [
    ("fifo", "fifo"),
    ("fifo pair_safe=false", "fifo"),
    ("sliding_window turns=10", "sliding_window"),
    ("sliding_window messages=40", "sliding_window"),
    ("summarize", "summarize"),
    ("truncate_results 2000", "truncate_results"),
    ("truncate_results chars", "truncate_results"),
    ("tool_pruning", "tool_pruning"),
    ("clear_tool_uses", "clear_tool_uses"),
    ("tool_pruning,sliding_window", "tool_pruning,sliding_window"),
    ("truncate_results,summarize,fifo", "truncate_results,summarize,fifo"),
]


def settings_for(label: str, budget: int) -> Settings:
    s = Settings(budget=budget, window_turns=10, trigger=100_000, keep=3)
    if "pair_safe=false" in label:
        s = s.model_copy(update={"pair_safe": False})
    if "messages=40" in label:
        s = s.model_copy(update={"window_mode": "messages"})
    if "chars" in label:
        s = s.model_copy(update={"truncate_unit": "chars"})
    return s


def timed(fn, runs: int) -> tuple[float, float, object]:
    t0 = time.perf_counter()
    result = fn()
    first = time.perf_counter() - t0
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        samples.append(time.perf_counter() - t0)
    return first * 1000, statistics.median(samples) * 1000, result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=50_000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--budget", type=int, default=128_000)
    ap.add_argument("--at-call", type=int, default=None, help="plan at this model call (default: after the session)")
    ap.add_argument("--sample", type=int, default=50, help="model calls replayed in the replay timing")
    a = ap.parse_args()

    t0 = time.perf_counter()
    session = generate(a.messages)
    t1 = time.perf_counter()
    analysis = analyze(session, encoding="approx")
    t2 = time.perf_counter()
    view, table = analysis.view, analysis.table
    print(
        f"session: {len(view):,} messages, {len(view.turns) - 1:,} turns, {len(view.calls):,} model calls, "
        f"{table.prefix[-1] + table.overhead:,} tokens (approx); generate {t1 - t0:.1f} s, "
        f"count + view {t2 - t1:.1f} s"
    )
    print(f"budget {a.budget:,}; median of {a.runs} runs after one warm-up ('first' fills per-view caches)\n")
    header = f"{'case':34} {'first ms':>9} {'median ms':>10} {'tokens after':>13} {'validate ms':>12}"
    print(header)
    print("-" * len(header))
    for label, pipeline in CASES:
        s = settings_for(label, a.budget)
        first, median, p = timed(lambda: plan(view, table, pipeline, s, a.at_call), a.runs)
        _, validate_ms, _ = timed(lambda: validate_plan(p), 3)
        print(f"{label:34} {first:9.1f} {median:10.1f} {p.tokens_after:13,} {validate_ms:12.1f}")
    p = plan(view, table, "tool_pruning", Settings())
    _, decisions_ms, _ = timed(p.decisions, 3)
    _, messages_ms, _ = timed(p.messages_after, 3)
    print(f"\ndecisions() {decisions_ms:.1f} ms, messages_after() {messages_ms:.1f} ms (tool_pruning plan)")
    n_calls = len(view.calls)
    sample = sorted({1 + k * (n_calls - 1) // (a.sample - 1) for k in range(a.sample)}) if n_calls > 1 else [1]
    for pipeline in ("", "tool_pruning", "tool_pruning,sliding_window"):
        t0 = time.perf_counter()
        r = replay(view, table, pipeline, Settings(budget=a.budget), calls=sample)
        elapsed = time.perf_counter() - t0
        print(
            f"replay {pipeline or '(baseline)':28} {len(sample)} evenly spaced calls of {n_calls:,}: "
            f"{elapsed * 1000:.0f} ms ({elapsed * 1000 / len(sample):.1f} ms a call), saving {r.savings_pct:.1f} %"
        )


if __name__ == "__main__":
    main()
