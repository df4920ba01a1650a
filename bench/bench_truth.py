#!/usr/bin/env python3
"""How close ``predicted_tokens`` comes to the input each call recorded, on real transcripts.

For every session under the given directories (default: /work/shared/real_sessions and
/work/extra_sessions when present) whose format records usage per call (Claude Code, Codex,
OpenHands V0 trajectories, V1 conversations and completion-log folders, SWE-agent and
mini-swe-agent, Gemini CLI...), every model call after the first that recorded usage: relative error |predicted - recorded| / recorded, where predicted uses
the usage of earlier calls only (inspector.analysis.predict). Prints per session and per agent
the median and 90th percentile next to the targets of issue 10. The first recorded call of each
session, predicted from the agent's typical size (inspector.analysis.predict.TYPICAL) alone, is
left out of those figures and measured on its own line per agent ("first call"); the first call
of a file that starts mid-session takes its own record (no prediction) and is only counted.

Counted with the tokenizer of the model each file records (``--encoding`` to force one). The
readers pin each recorded usage to the call it measures (Codex 0.40 and 0.58 write it before the
response, later versions after it).

Usage: python bench/bench_truth.py [--encoding NAME] [DIR_OR_FILE ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import inspector
from inspector.analysis.predict import predictions
from inspector.cli.report import default_profile
from inspector.formats.openhands_completions import LOG_FILE

TARGETS = {"codex": (0.02, 0.06), "claude_code": (0.03, 0.10)}
#: Files that may hold a session (a JSON file that is none is skipped; one a folder reads, too).
SESSION_FILES = ("*.jsonl", "*.json", "*.traj", "*.db")
DEFAULT_DIRS = ("/work/shared/real_sessions", "/work/extra_sessions")


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def session_files(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            for pattern in SESSION_FILES:
                out.extend(sorted(f for f in p.rglob(pattern) if f.is_file() and not LOG_FILE.fullmatch(f.name)))
            out.extend(sorted(f.parent for f in p.rglob("base_state.json")))  # OpenHands V1 conversations
            out.extend(sorted({f.parent for f in p.rglob("*.json") if LOG_FILE.fullmatch(f.name)}))  # completion-log folders
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", default=[d for d in DEFAULT_DIRS if Path(d).exists()])
    parser.add_argument("--encoding", default=None, help="force a tokenizer (default: the model's)")
    args = parser.parse_args()
    errors: dict[str, list[float]] = {}
    first_errors: dict[str, list[float]] = {}  # the first recorded call, from the typical size
    own_record: dict[str, int] = {}  # first calls of files that start mid-session: their own record, no prediction
    print(f"{'session':58} {'agent':12} {'calls':>5} {'median':>7} {'p90':>7}  tokenizer")
    for path in session_files(args.paths):
        try:
            session = inspector.load(path)
        except Exception as exc:  # a file of another agent or a bad file: say so and go on
            print(f"{str(path)[-58:]:58} skipped: {type(exc).__name__}", file=sys.stderr)
            continue
        analysis = inspector.analyze(session, args.encoding, default_profile(session))
        calls = predictions(analysis.view, analysis.table)
        # the first call that recorded usage has nothing recorded before it (not always call 1:
        # some OpenHands runs record none for their first calls): it is measured on its own line
        at = next((k for k, c in enumerate(calls) if c.error is not None), len(calls))
        first = calls[at] if at < len(calls) else None
        errs = [abs(c.error) for c in calls[at + 1:] if c.error is not None]
        if first is not None and first.fit.basis == "typical":
            first_errors.setdefault(session.format, []).append(abs(first.error))
        elif first is not None and first.fit.basis == "own record":  # a file that starts mid-session
            own_record[session.format] = own_record.get(session.format, 0) + 1
        if not errs:
            continue
        errors.setdefault(session.format, []).extend(errs)
        print(f"{str(path)[-58:]:58} {session.format:12} {len(errs):5} {statistics.median(errs):7.2%} "
              f"{p90(errs):7.2%}  {analysis.table.label}")
    print()
    for agent, errs in errors.items():
        if not errs:
            print(f"{agent}: no calls")
            continue
        median_target, p90_target = TARGETS.get(agent, (None, None))
        targets = (f" (target <= {median_target:.0%})", f" (target <= {p90_target:.0%})") if median_target is not None else ("", "")
        print(f"{agent:12} calls {len(errs):4}  median {statistics.median(errs):6.2%}{targets[0]}  p90 {p90(errs):6.2%}{targets[1]}")
    for agent, errs in first_errors.items():
        print(f"{agent:12} first call, typical size: sessions {len(errs):3}  median {statistics.median(errs):6.2%}  p90 {p90(errs):6.2%}")
    for agent, count in own_record.items():
        print(f"{agent:12} first call, own record (the file starts mid-session): sessions {count:3}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
