#!/usr/bin/env python3
"""Fleet benchmark: N generated sessions (bench/gen_session.py, one seed each) through ``fleet``.

Prints, for the same sessions:
- wall time with ``--workers 2`` vs ``--workers 1`` (target <= 0.65x on two cores);
- a re-run with nothing changed vs the first run (target <= 5 %);
- peak RSS of the writing process (and of the largest worker) as N grows (N/4, N/2, N): flat
  when results are streamed to shards instead of held.

Usage: python bench/bench_fleet.py [--sessions N] [--messages M] [--strategies LIST] [--keep DIR]
(the issue's figure is 2,000 sessions of about 1 MB: --sessions 2000 --messages 160)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

CHILD = """
import json, resource, sys, time
from inspector import fleet
paths, dataset, workers, strategies = sys.argv[1], sys.argv[2], int(sys.argv[3]), tuple(s for s in sys.argv[4].split(",") if s)
sources = fleet.expand([paths])
start = time.perf_counter()
run = fleet.build(sources, dataset, workers=workers, strategies=strategies)
totals = fleet.report(run.dataset)["totals"]
wall = time.perf_counter() - start
me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
print(json.dumps({"wall": wall, "cpu": cpu, "processed": run.processed, "skipped": run.skipped, "errors": len(run.errors),
                  "tokens": totals["tokens"], "sessions": totals["sessions"],
                  "rss_self_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "rss_worker_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
"""


def write_sessions(folder: Path, n: int, messages: int) -> int:
    from gen_session import generate, write_jsonl

    total = 0
    for k in range(n):
        session = generate(messages, seed=1000 + k)
        path = folder / f"s{k:05d}.jsonl"
        write_jsonl(session, path)
        total += path.stat().st_size
    return total


def fleet_run(paths: Path, dataset: Path, workers: int, strategies: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(paths), str(dataset), str(workers), strategies],
                         check=True, capture_output=True, text=True, timeout=3600)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sessions", type=int, default=40)
    ap.add_argument("--messages", type=int, default=160, help="messages per generated session (160: about 1 MB)")
    ap.add_argument("--strategies", default="", help="strategies replayed per session (default none: parse+count+tables)")
    ap.add_argument("--keep", metavar="DIR", help="generate into DIR and keep it (default: a temporary directory)")
    a = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(a.keep) if a.keep else Path(tmp)
        sessions = root / "sessions"
        sessions.mkdir(parents=True, exist_ok=True)
        size = write_sessions(sessions, a.sessions, a.messages)
        print(f"{a.sessions} sessions, {size / 1e6:,.1f} MB, strategies: {a.strategies or 'none'}")

        one = fleet_run(sessions, root / "ds1", 1, a.strategies)
        two = fleet_run(sessions, root / "ds2", 2, a.strategies)
        again = fleet_run(sessions, root / "ds2", 2, a.strategies)
        assert one["tokens"] == two["tokens"] == again["tokens"] and again["processed"] == 0
        print(f"workers 1: {one['wall']:.2f} s   workers 2: {two['wall']:.2f} s   ratio {two['wall'] / one['wall']:.2f}x (target <= 0.65x)")
        # CPU-seconds per wall-second: near 2 when both cores did the work; lower when other load took them.
        print(f"cores used: workers 1 {one['cpu'] / one['wall']:.2f}, workers 2 {two['cpu'] / two['wall']:.2f} "
              f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
        print(f"re-run unchanged: {again['wall']:.3f} s = {100 * again['wall'] / two['wall']:.1f} % of the first run (target <= 5 %)")

        print("peak RSS as N grows (workers 2):")
        for part in (4, 2, 1):
            n = a.sessions // part
            subset = root / f"subset{n}"
            subset.mkdir(exist_ok=True)
            for k in range(n):
                link = subset / f"s{k:05d}.jsonl"
                if not link.exists():
                    link.symlink_to(sessions / f"s{k:05d}.jsonl")
            r = fleet_run(subset, root / f"ds_rss{n}", 2, a.strategies)
            print(f"  N={n:>6}: writer {r['rss_self_mb']:.0f} MB, largest worker {r['rss_worker_mb']:.0f} MB, {r['wall']:.2f} s")


if __name__ == "__main__":
    main()
