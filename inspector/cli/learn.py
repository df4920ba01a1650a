"""``context-inspector learn``: the lesson of :mod:`inspector.analysis.lesson`, printed.

On a terminal it opens the viewer's lesson screen; without one (a pipe, a file, CI) or with
``--print`` it prints every step with its figures as Rich text, and ``--json`` prints the same
figures as JSON.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

DESCRIPTION = (
    "A lesson on the bundled samples, step by step: why a tool call and its result are dropped together, "
    "truncation, a sliding window, summarising, and tool pruning on a three-question session whose replay "
    "reproduces the seeds' measured table. Opens the viewer's lesson screen on a terminal; prints otherwise."
)
SUMMARY = "a lesson on context management, step by step on the bundled samples"


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--step", metavar="KEY", help="only this step (naive_fifo, pair_safe_fifo, truncate_results, "
                                                 "sliding_window, summarize, tool_pruning)")
    p.add_argument("--print", dest="print_only", action="store_true", help="print the steps even on a terminal")
    p.add_argument("--json", action="store_true", help="print the steps' figures as JSON")
    p.add_argument("--theme", metavar="NAME", help="colour theme of the lesson screen")


def _step(key: str):
    """The lesson step named ``key``; a usage error naming the steps otherwise."""
    from ..analysis.lesson import step_named
    from .options import UsageError

    try:
        return step_named(key)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None


def lesson_report(step_key: str | None = None) -> dict[str, Any]:
    """The steps' figures (``learn --json``)."""
    from ..analysis.lesson import STEPS, step_figures
    from .samples import samples_dir

    steps = [_step(step_key)] if step_key else list(STEPS)
    return {"steps": [step_figures(step, samples_dir()) for step in steps]}


def cmd_learn(args: argparse.Namespace) -> int:
    if not (args.json or args.print_only) and sys.stdout.isatty() and sys.stdin.isatty():
        from ..analysis.lesson import STEPS
        from ..tui.app import run
        from .samples import sample_path

        start = STEPS.index(_step(args.step)) if args.step else 0
        return run(str(sample_path("measured_three_questions.json")), theme=args.theme, lesson=True,
                   lesson_step=start)
    report = lesson_report(args.step)
    if args.json:
        from .jsonout import print_report

        print_report(report)
        return 0
    from .render import console

    render_lesson(report, console())
    return 0


def render_lesson(report: dict[str, Any], out: Console) -> None:
    steps = report["steps"]
    for n, step in enumerate(steps, 1):
        title = Text(f"Step {n} of {len(steps)}: {step['title']}", style="bold")
        out.print(title)
        out.print(Text(step["text"]))
        params = ", ".join(f"{k}={v}" for k, v in step["params"].items())
        at = f"call {step['at_call']}" if step["at_call"] else "the next call"
        out.print(Text(f"{step['sample']}: {','.join(step['pipeline'])}({params}) at {at}, counted with "
                       f"{step['encoding']} and the {step['profile']} profile: "
                       f"{step['tokens_before']:,} -> {step['tokens_after']:,} tokens.", style="dim"))
        rows = Table(box=None, pad_edge=False)
        for column in ("#", "role", "unit", "tokens", "after", "status", "reason"):
            rows.add_column(column, justify="right" if column in ("#", "tokens", "after") else "left")
        for r in step["rows"]:
            rows.add_row(str(r["index"]), r["role"], r["unit"], f"{r['tokens']:,}", f"{r['tokens_after']:,}",
                         Text(r["status"]), Text(r["reason"]))
        out.print(rows)
        for provider, valid in step["valid"].items():
            line = f"{provider}: valid" if valid else f"{provider}: rejected: " + "; ".join(step["errors"].get(provider, []))
            out.print(Text(line, style="green" if valid else "red"))
        if "questions" in step:
            render_questions(step["questions"], out)
        out.print()


def render_questions(q: dict[str, Any], out: Console) -> None:
    table = Table(title="Per question: first and last call's input tokens", box=None)
    for column in ("question", "calls", "first", "last", "first (pruned)", "last (pruned)"):
        table.add_column(column, justify="right")
    for row in q["questions"]:
        table.add_row(str(row["turn"]), str(row["calls"]), f"{row['first']:,}", f"{row['last']:,}",
                      f"{row['first_pruned']:,}", f"{row['last_pruned']:,}")
    out.print(table)
    out.print(Text(f"{q['calls']} calls, {q['input_total']:,} input tokens "
                   f"({q['input_total_pruned']:,} with tool pruning)."))
    prior = ", ".join(f"turn {p['turn']} {p['tokens']:,} -> {p['pruned']:,}" for p in q["prior_turns"])
    out.print(Text(f"Prior-turn context at the next question's first call: {prior} tokens."))
