#!/usr/bin/env python3
"""How close the prompt-cache model comes to the cache reads and writes real Claude Code calls recorded.

For every Claude Code session under the given directories (default: the Claude Code transcripts
of /work/shared/real_sessions and the Entire checkpoints under /work/extra_sessions), every main-chain call that recorded its
usage: the recorded cache read, cache write and uncached input next to the split the cache model
simulates with no strategy (``session_money(...).calls[k].baseline_cache``). A session stored
twice (the Entire checkpoints hold the same transcript under several names) is counted once.

Prints per session its totals (``-v``), then per group of sessions (all; one-hour or five-minute
writes; with or without a recorded compaction; with or without sub-agent calls): the median and
90th percentile over sessions of |simulated - recorded| writes and reads as a share of the
session's recorded input, the share of sessions whose writes are underestimated, the simulated /
recorded write total, and the same for the cost with no strategy against the recorded cost.
Figures only, no timing.

Usage: python bench/bench_cache_truth.py [-v] [DIR_OR_FILE ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import inspector
from inspector.analysis.money import session_money
from inspector.cli.report import default_profile

DEFAULT_DIRS = ("/work/shared/real_sessions/claude_code",
                *(f"/work/extra_sessions/{d}" for d in ("entire_graph", "entire_cli", "entire_agentv", "entire_planetfall",
                                                          "entire_tokencosts", "entire_v1", "entire_v2")))


@dataclass(frozen=True, slots=True)
class SessionFigures:
    name: str
    calls: int
    one_hour: bool  # some call wrote one-hour entries
    compactions: bool
    sub_agents: bool
    recorded: tuple[int, int, int]  # read, write, uncached summed over the calls
    simulated: tuple[int, int, int]
    recorded_cost: float
    simulated_cost: float

    @property
    def input(self) -> int:
        return sum(self.recorded)

    def error(self, part: int) -> float:
        """|simulated - recorded| of part 0 (read) or 1 (write), as a share of the recorded input."""
        return abs(self.simulated[part] - self.recorded[part]) / self.input if self.input else 0.0


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def session_files(paths: list[str]) -> Iterator[Path]:
    for p in map(Path, paths):
        if p.is_file():
            yield p
        elif p.is_dir():
            yield from sorted(f for f in p.rglob("*.jsonl") if f.is_file())


def figures(path: Path) -> SessionFigures | None:
    """The session's figures; None where it is no Claude Code session or records no usage."""
    try:
        session = inspector.load(path)
    except Exception:  # another agent's file or a bad one
        return None
    if session.format != "claude_code":
        return None
    analysis = inspector.analyze(session, None, default_profile(session))
    money = session_money(analysis.view, analysis.table)
    recorded, simulated = [0, 0, 0], [0, 0, 0]
    recorded_cost = simulated_cost = 0.0
    calls = 0
    messages = analysis.view.messages
    for c in money.calls:
        if c.kind != "call" or c.sidechain is not None:
            continue
        usage = messages[c.message_index].usage
        if usage is None or usage.input_tokens is None:
            continue
        calls += 1
        for k, n in enumerate((usage.cache_read_input_tokens or 0, usage.cache_creation_input_tokens or 0, usage.input_tokens)):
            recorded[k] += n
        split = c.baseline_cache
        for k, n in enumerate((split.read_tokens, split.write_tokens, split.uncached_tokens)):
            simulated[k] += n
        if c.recorded_cost is not None and c.baseline_cost is not None:
            recorded_cost += float(c.recorded_cost.total)
            simulated_cost += float(c.baseline_cost.total)
    if not calls:
        return None
    one_hour = any((m.usage.cache_creation_1h_input_tokens or 0) > 0 for m in messages if m.usage is not None)
    return SessionFigures(str(path), calls, one_hour, any(c.kind == "compaction" for c in money.calls),
                          any(c.sidechain is not None and c.kind == "call" for c in money.calls),
                          (recorded[0], recorded[1], recorded[2]), (simulated[0], simulated[1], simulated[2]),
                          recorded_cost, simulated_cost)


def summary(name: str, sessions: list[SessionFigures]) -> str:
    if not sessions:
        return f"{name:16} sessions   0"
    writes, reads = [s.error(1) for s in sessions], [s.error(0) for s in sessions]
    under = sum(s.simulated[1] < s.recorded[1] for s in sessions) / len(sessions)
    costs = [abs(s.simulated_cost - s.recorded_cost) / s.recorded_cost for s in sessions if s.recorded_cost]
    written = sum(s.simulated[1] for s in sessions) / max(1, sum(s.recorded[1] for s in sessions))
    paid = sum(s.simulated_cost for s in sessions) / max(1e-9, sum(s.recorded_cost for s in sessions))
    return (f"{name:16} sessions {len(sessions):3}  write err median {statistics.median(writes):6.2%} p90 {p90(writes):6.2%}  "
            f"read err median {statistics.median(reads):6.2%} p90 {p90(reads):6.2%}  writes under {under:4.0%}  "
            f"writes {written:5.3f}x  cost err median {statistics.median(costs) if costs else 0:6.2%} "
            f"p90 {p90(costs) if costs else 0:6.2%}  cost {paid:5.3f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[d for d in DEFAULT_DIRS if Path(d).exists()])
    parser.add_argument("-v", action="store_true", help="print every session's totals")
    args = parser.parse_args()
    sessions: list[SessionFigures] = []
    seen: set[tuple] = set()
    for path in session_files(args.paths):
        found = figures(path)
        if found is None:
            continue
        key = (found.calls, found.recorded, found.simulated)
        if key in seen:  # the same transcript stored again
            continue
        seen.add(key)
        sessions.append(found)
        if args.v:
            print(f"{found.name[-60:]:60} calls {found.calls:4} writes {found.recorded[1]:>10,} -> {found.simulated[1]:>10,}  "
                  f"reads {found.recorded[0]:>11,} -> {found.simulated[0]:>11,}  ${found.recorded_cost:8.2f} -> ${found.simulated_cost:8.2f}")
    groups: list[tuple[str, Callable[[SessionFigures], bool]]] = [
        ("all", lambda s: True), ("one-hour writes", lambda s: s.one_hour), ("5-minute writes", lambda s: not s.one_hour),
        ("compactions", lambda s: s.compactions), ("no compaction", lambda s: not s.compactions),
        ("sub-agents", lambda s: s.sub_agents), ("no sub-agent", lambda s: not s.sub_agents),
    ]
    for name, member in groups:
        print(summary(name, [s for s in sessions if member(s)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
