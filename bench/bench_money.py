#!/usr/bin/env python3
"""The cache model against what real sessions recorded: per session, the recorded cache-read share
of input vs the share simulated with no strategy, and the recorded cost vs the simulated baseline
cost (same prices, same output tokens). Done when every share is within 5 points. Notes name the
calls whose recorded cache read is under half the simulated one (misses the file does not show).

Run: python bench/bench_money.py [FILE ...] (default: every Claude Code and Codex file under
/work/shared/real_sessions and /work/extra_sessions).

The readers pin Codex usage to the call it measures and fill Claude Code's one-hour cache writes,
so the sessions are priced as loaded.
"""

from __future__ import annotations

import sys
from pathlib import Path

from inspector import analyze, load
from inspector.analysis.money import session_money
from inspector.cli.report import default_profile

ROOTS = (Path("/work/shared/real_sessions"), Path("/work/extra_sessions"))


def default_files() -> list[Path]:
    out: list[Path] = []
    for root in ROOTS:
        for agent in ("claude_code", "codex"):
            d = root / agent
            if d.is_dir():
                out.extend(p for p in sorted(d.rglob("*.jsonl")) if "/subagents/" not in str(p))
    return out


def share(read: int, total: int) -> float:
    return 100.0 * read / total if total else 0.0


def main(argv: list[str]) -> int:
    files = [Path(a) for a in argv] or default_files()
    print(f"{'session':58} {'calls':>5} {'rec read%':>9} {'sim read%':>9} {'diff':>6} {'rec $':>9} {'sim $':>9}  notes")
    worst = 0.0
    for path in files:
        session = load(path)
        notes = []
        analysis = analyze(session, profile=default_profile(session))  # as the CLI counts it
        money = session_money(analysis.view, analysis.table)
        main_calls = [c for c in money.calls if c.sidechain is None]
        view = analysis.view
        rec_read = rec_total = 0
        for call in view.calls:
            usage = view.messages[call.message_index].usage
            if usage is not None and usage.context_tokens:
                rec_read += usage.cache_read_input_tokens or 0
                rec_total += usage.context_tokens
        misses = [f"{c.call}" for c, call in zip(main_calls, view.calls)
                  if (u := view.messages[call.message_index].usage) is not None and u.context_tokens
                  and (u.cache_read_input_tokens or 0) < c.baseline_cache.read_tokens // 2]
        if misses:  # the provider read far less than the model predicts (a miss the file does not explain)
            notes.append("recorded misses at calls " + ",".join(misses[:6]) + ("..." if len(misses) > 6 else ""))
        sim_read = sum(c.baseline_cache.read_tokens for c in main_calls)
        sim_total = sum(c.baseline_cache.total for c in main_calls)
        rec, sim = share(rec_read, rec_total), share(sim_read, sim_total)
        rec_cost, sim_cost = money.total("recorded_cost", False), money.total("baseline_cost", False)
        if not rec_total:
            notes.append("no recorded usage")
        else:
            worst = max(worst, abs(rec - sim))
        compactions = [c for c in money.calls if c.kind == "compaction"]
        if compactions:  # recorded compactions' summary calls: on the bill, apart from the main calls
            unrecorded = sum(1 for c in compactions if c.recorded_cost is None)
            simulated = sum(float(c.baseline_cost.total) for c in compactions if c.baseline_cost is not None)
            notes.append(f"{len(compactions)} compaction summary call(s) ${simulated:.3f} simulated, {unrecorded} without recorded usage")
        if money.unknown_models:
            notes.append("unpriced: " + ",".join(money.unknown_models))
        name = path.name if len(path.name) <= 58 else path.name[:55] + "..."
        print(f"{name:58} {len(main_calls):5d} {rec:9.1f} {sim:9.1f} {sim - rec:+6.1f} "
              f"{float(rec_cost or 0):9.3f} {float(sim_cost or 0):9.3f}  {'; '.join(notes)}")
    print(f"worst |simulated - recorded| cache-read share: {worst:.1f} points (target <= 5); prices as of {money.prices_as_of}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
