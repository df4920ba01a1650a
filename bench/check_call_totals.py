#!/usr/bin/env python3
"""No impossible call totals: every pipeline's call total >= 0 (so no saving above the call's prediction).

For every session file under the given paths (default: /work/shared/real_sessions,
/work/extra_sessions when present, inspector/sample_sessions) and generated sessions in each
format bench/bench_speed_load.py writes (``--generated N`` messages; 0: none), runs what
``compare --json`` runs (every strategy and compare's pipelines, with the layouts the CLI prices)
at each ``--budgets`` and checks every call row, each replay total and each ``tokens_last_call``.
Prints one line per file with the lowest call total and the number of offending rows; exit 1 if
any. Files no reader takes are listed as skipped.

Usage: python bench/check_call_totals.py [--budgets 8000,50000] [--generated 2000] [PATH ...]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import inspector  # noqa: E402
from inspector.cli.main import COMPARE_PIPELINES  # noqa: E402
from inspector.cli.report import default_profile  # noqa: E402
from inspector.strategies import STRATEGIES  # noqa: E402
from inspector.strategies.params import settings_model  # noqa: E402
from inspector.tokens import resolve_or_fallback  # noqa: E402

DEFAULT = ("/work/shared/real_sessions", "/work/extra_sessions", str(Path(inspector.__file__).parent / "sample_sessions"))
SUFFIXES = (".jsonl", ".json", ".traj", ".db")


def files(paths: list[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            out.extend(sorted(f for f in p.rglob("*") if f.is_file() and f.name.endswith(SUFFIXES)))
    return out


def analyze(path: Path):
    session = inspector.load(path)
    profile = default_profile(session)
    resolution, _ = resolve_or_fallback(session.model, None, profile)
    return inspector.analyze(session, resolution.counter, profile, session.model)


def offending(analysis, budget: int) -> tuple[int, int | None]:
    """(rows with a negative call total, replay total or last-call tokens; the lowest call total)."""
    pipelines = [(name,) for name in STRATEGIES]
    pipelines += [tuple(p.split(",")) for p in COMPARE_PIPELINES if all(s in STRATEGIES for s in p.split(","))]
    rows = inspector.compare(analysis, pipelines, settings=settings_model()(budget=budget), shared=True)
    bad, lowest = 0, None
    for row in rows:
        calls = [c for c in row.replay.calls if c.kind == "call"]
        for c in calls:
            lowest = c.tokens if lowest is None else min(lowest, c.tokens)
            bad += c.tokens < 0 or c.saving > c.predicted_tokens
        bad += row.replay.total < 0 or (bool(calls) and row.tokens_last_call < 0)
    return bad, lowest


def generated(n: int, directory: Path) -> list[Path]:
    from bench_speed_load import FORMATS, input_path, write_format
    from gen_session import generate

    session = generate(n)
    out = []
    for fmt in FORMATS:
        path = input_path(directory, fmt, n)
        write_format(fmt, session, path)
        out.append(path)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=[d for d in DEFAULT if Path(d).exists()])
    ap.add_argument("--budgets", default="8000,50000")
    ap.add_argument("--generated", type=int, default=2000, help="messages of each generated session (0: none)")
    a = ap.parse_args()
    budgets = [int(b) for b in a.budgets.split(",")]
    total_bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        paths = files(a.paths) + (generated(a.generated, Path(tmp)) if a.generated else [])
        for path in paths:
            try:
                analysis = analyze(path)
            except Exception as exc:  # another kind of file (a sidecar, a database of another agent)
                print(f"{str(path)[-70:]:70} skipped: {type(exc).__name__}")
                continue
            if not analysis.view.calls:
                continue
            figures = [offending(analysis, b) for b in budgets]
            bad = sum(b for b, _ in figures)
            total_bad += bad
            lows = " ".join(f"{low:>10,}" for _, low in figures)
            print(f"{str(path)[-70:]:70} calls {len(analysis.view.calls):>5}  lowest {lows}  bad {bad}")
    print(f"offending rows: {total_bad}")
    return 1 if total_bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
