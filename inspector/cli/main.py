"""``context-inspector``: open the TUI on a session, or run one of the subcommands.

    context-inspector [SESSION] [--theme NAME] [--follow/--no-follow] [--format NAME] [--encoding NAME]
    context-inspector info SESSION [--calibrate] [--json]
    context-inspector schema
    context-inspector plan SESSION --strategy tool_pruning,sliding_window --budget 8000 [--at CALL] [--calibrate] [--json]
    context-inspector replay SESSION --strategy tool_pruning [--calibrate] [--json]
    context-inspector compare SESSION --budget 8000 [--calibrate] [--json]
    context-inspector export SESSION --strategy fifo --budget 8000 --to anthropic -o request.json

A first argument that is not a subcommand is the SESSION for the TUI. Bad input and bad option
values print one paragraph to stderr and exit with code 2, never a traceback. Textual is imported
only when the TUI opens, so ``--json`` runs stay light.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from .. import __version__
from ..tokens import ENCODINGS
from .options import (
    UsageError,
    add_calibrate_option,
    add_session_options,
    add_strategy_options,
    make_settings,
    settings_kwargs,
)
from . import sessions as _sessions
from .money_report import add_money_options

PROG = "context-inspector"
EXIT_USAGE = 2

#: Pipelines ``compare`` shows after the single strategies (only those whose parts exist).
COMPARE_PIPELINES = (
    "tool_pruning,sliding_window",
    "tool_pruning,truncate_results",
    "truncate_results,fifo",
    "clear_tool_uses,fifo",
)


SUMMARIES = {
    "info": "format, messages, turns, model calls, tokens by unit kind and per tool, recorded usage",
    "schema": "the JSON Schema of the inspector's JSONL session format",
    "plan": "what a strategy or pipeline does to every message at one model call, and why",
    "replay": "input tokens of every model call, without and with a strategy",
    "compare": "every strategy and a few pipelines side by side",
    "export": "the pruned history as an OpenAI or Anthropic request body",
    "samples": "paths of the bundled sample sessions",
    "sessions": _sessions.SUMMARY,
}


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one paragraph (no usage dump) and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}. See '{self.prog} --help'.\n")


# ------------------------------------------------------------------------------------------
# parsers


def _tui_parser() -> Parser:
    p = Parser(
        prog=PROG,
        description=(
            "See an LLM agent's context the way the model sees it, and what each pruning strategy would do to it. "
            "Without a subcommand, opens the interactive viewer on SESSION (a bundled sample when omitted)."
        ),
        epilog="subcommands (run '%(prog)s SUBCOMMAND --help'):\n"
        + "\n".join(f"  {name:<9} {text}" for name, text in SUMMARIES.items())
        + "\n\nA session file named like a subcommand can be opened as ./NAME.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("session", metavar="SESSION", nargs="?", help="session file (default: a bundled sample)")
    p.add_argument("--theme", metavar="NAME", help="colour theme")
    p.add_argument("--follow", action=argparse.BooleanOptionalAction, default=None, help="follow the session as the agent writes it (default: on for JSONL transcripts, Strands directories and Agents SDK SQLite)")
    p.add_argument("--format", metavar="NAME", help="force a format instead of detecting it")
    p.add_argument("--encoding", choices=ENCODINGS, default="cl100k_base", help="token counter (default: cl100k_base)")
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    _sessions.add_latest_option(p)
    return p


def _sub_parsers() -> dict[str, Parser]:
    parsers: dict[str, Parser] = {}

    def new(name: str, description: str) -> Parser:
        parser = Parser(prog=f"{PROG} {name}", description=description)
        parsers[name] = parser
        return parser

    p = new("info", "Format, messages, turns, model calls, tokens by unit kind, the largest messages, tokens per tool, "
                    "and the usage the file recorded.")
    add_session_options(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.add_argument("--largest", type=int, default=10, metavar="N", help="how many of the largest messages to list")
    add_calibrate_option(p)
    add_money_options(p)

    new("schema", "Print the JSON Schema of the inspector's own JSONL session format.")

    p = new("plan", "What a strategy (or pipeline) does to every message at one model call, and why.")
    add_session_options(p)
    add_strategy_options(p)
    p.add_argument("--at", type=int, metavar="CALL", help="plan the input of model call CALL (1-based; -1 = last); default: the next call")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_calibrate_option(p)

    p = new("replay", "Input tokens and cost of every model call, as recorded and under the strategy.")
    add_session_options(p)
    add_strategy_options(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_calibrate_option(p)
    add_money_options(p)

    p = new("compare", "Every strategy and a few pipelines side by side: tokens, replay total, saving in tokens and "
                       "in dollars, validity.")
    add_session_options(p)
    add_strategy_options(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_calibrate_option(p)
    add_money_options(p)

    p = new("export", "Write the pruned history as a request body that OpenAI or Anthropic accepts.")
    add_session_options(p)
    add_strategy_options(p)
    p.add_argument("--at", type=int, metavar="CALL", help="export the input of model call CALL; default: the next call")
    p.add_argument("--to", choices=("openai", "anthropic"), required=True, help="provider whose request shape to write")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="file to write ('-' for standard output)")

    p = new("samples", "Print the paths of the bundled sample sessions (or of the one called NAME).")
    p.add_argument("name", metavar="NAME", nargs="?", help="a sample's file name, e.g. three_questions.json")

    _sessions.configure(new("sessions", _sessions.DESCRIPTION))
    return parsers


# ------------------------------------------------------------------------------------------
# shared steps


def _load(args: argparse.Namespace):
    """Read and count the session: the one expensive step every command shares."""
    import inspector

    from ..tokens import get_counter_or_fallback
    from .report import default_profile

    session = inspector.load(args.session, args.format)
    profile = getattr(args, "profile", None) or default_profile(session.format)
    counter, warning = get_counter_or_fallback(args.encoding)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return inspector.analyze(session, counter.name, profile)


def _pipeline(args: argparse.Namespace) -> tuple[str, ...]:
    from ..strategies import parse_pipeline

    return parse_pipeline(args.strategy or "")


def _check_call(analysis, at: int | None) -> int | None:
    if at is None:
        return None
    count = len(analysis.view.calls)
    if count == 0:
        raise UsageError(f"--at {at}: {analysis.session.path} has no model calls (no assistant messages).")
    if at == 0 or abs(at) > count:
        raise UsageError(f"--at {at}: model calls are numbered 1 to {count} (or -1 to -{count} from the end).")
    return at if at > 0 else count + 1 + at


def _print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


# ------------------------------------------------------------------------------------------
# commands


def cmd_info(args: argparse.Namespace) -> int:
    from .report import calibration, info_report

    from ..analysis.money import session_money
    from .money_report import info_money, money_options

    options = money_options(args)
    analysis = _load(args)
    report = info_report(analysis, largest=max(0, args.largest), cal=calibration(analysis, args.calibrate))
    report["money"] = info_money(session_money(analysis.view, analysis.table, options=options))
    if args.json:
        _print_json(report)
    else:
        from .render import console, render_info

        render_info(report, console())
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from ..schema import jsonl_schema

    _print_json(jsonl_schema())
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    from ..strategies import plan as run_plan
    from .report import calibration, plan_report

    pipeline = _pipeline(args)
    settings = make_settings(settings_kwargs(args))
    analysis = _load(args)
    at = _check_call(analysis, args.at)
    result = run_plan(analysis.view, analysis.table, pipeline, settings, at)
    report = plan_report(analysis, result, calibration(analysis, args.calibrate))
    if args.json:
        _print_json(report)
    else:
        from .render import console, render_plan

        render_plan(report, console())
    return 0


class _Progress:
    """A transient progress bar on stderr while replaying, only when stderr is a terminal
    (a replay plans once per model call: seconds to minutes on sessions with thousands of calls)."""

    MIN_CALLS = 300

    def __init__(self, calls: int, steps: int = 1) -> None:
        self.bar = None
        if calls * steps >= self.MIN_CALLS and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import Progress

            self.bar = Progress(console=Console(stderr=True), transient=True)
            self.task = self.bar.add_task("replaying", total=calls * steps)
            self.base = 0

    def __enter__(self) -> _Progress:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def stage(self, label: str, calls: int) -> Callable[[int, int], None] | None:
        """The callback for one replay of ``calls`` calls, labelled ``label``."""
        if self.bar is None:
            return None
        base = self.base
        self.base += calls
        self.bar.update(self.task, description=f"replaying {label}")

        def advance(done: int, total: int) -> None:
            self.bar.update(self.task, completed=base + done)

        return advance


def _replay(analysis, pipeline: Sequence[str], settings, progress: Callable[[int, int], None] | None = None):
    import os

    from ..analysis.replay import replay

    # The CLI runs no threads of its own, so long replays may fork one worker per core.
    return replay(analysis.view, analysis.table, pipeline, settings, progress=progress, workers=os.cpu_count() or 1)


def cmd_replay(args: argparse.Namespace) -> int:
    from .report import calibration, pipeline_report, replay_report

    from ..analysis.money import session_money
    from .money_report import money_options

    pipeline = _pipeline(args)
    settings = make_settings(settings_kwargs(args))
    options = money_options(args)
    analysis = _load(args)
    with _Progress(len(analysis.view.calls)) as bar:
        result = _replay(analysis, pipeline, settings, bar.stage(",".join(pipeline) or "baseline", len(analysis.view.calls)))
    money = session_money(analysis.view, analysis.table, pipeline, settings, options)
    report = replay_report(analysis, result, pipeline_report(pipeline, settings), calibration(analysis, args.calibrate), money)
    if args.json:
        _print_json(report)
    else:
        from .render import console, render_replay

        render_replay(report, console())
    return 0


def compare_rows(analysis, settings, pipelines: Sequence[tuple[str, ...]], cal=None, options=None) -> list[dict[str, Any]]:
    """One row per pipeline: tokens at the last call, replay total (both scaled by ``cal``, a
    :class:`~inspector.cli.report.Calibration`), saving, validity, and its money
    (:func:`~inspector.cli.money_report.compare_money`)."""
    from ..analysis.money import MoneyOptions, session_money
    from ..strategies import plan as run_plan
    from .money_report import compare_money
    from .report import NO_CALIBRATION

    if cal is None:
        cal = NO_CALIBRATION
    calls = len(analysis.view.calls)
    at = calls or None
    rows = []
    baseline_total = None
    with _Progress(calls, len(pipelines)) as bar:
        results = [_replay(analysis, (), settings)]
        for names in pipelines:
            results.append(_replay(analysis, names, settings, bar.stage(",".join(names), calls)))
    options = options or MoneyOptions()
    baseline_money = session_money(analysis.view, analysis.table, (), settings, options)
    for names, result in zip([()] + list(pipelines), results):
        money = session_money(analysis.view, analysis.table, names, settings, options) if names else baseline_money
        p = run_plan(analysis.view, analysis.table, names, settings, at)
        total = result.total
        if baseline_total is None:
            baseline_total = result.baseline_total
        violations = p.violations
        rows.append(
            {
                "pipeline": ",".join(names) or "none",
                "tokens_last_call": cal(p.tokens_after),
                "replay_total": cal.total(c.tokens for c in result.calls),
                "saving_pct": round(100.0 * (baseline_total - total) / baseline_total, 1) if baseline_total else 0.0,
                "valid": {provider: not items for provider, items in violations.items()},
                "violations": {provider: len(items) for provider, items in violations.items()},
                **compare_money(baseline_money, money),
            }
        )
    return rows


def cmd_compare(args: argparse.Namespace) -> int:
    from ..strategies import STRATEGIES, parse_pipeline
    from .report import calibration, session_report

    settings = make_settings(settings_kwargs(args))
    if args.strategy:
        pipelines = [tuple(parse_pipeline(p)) for p in args.strategy.split(";") if p.strip()]
    else:
        pipelines = [(name,) for name in STRATEGIES]
        pipelines += [tuple(p.split(",")) for p in COMPARE_PIPELINES if all(s in STRATEGIES for s in p.split(","))]
    from ..analysis.prices import prices_as_of
    from .money_report import money_options

    options = money_options(args)
    analysis = _load(args)
    cal = calibration(analysis, args.calibrate)
    rows = compare_rows(analysis, settings, pipelines, cal, options)
    last = analysis.view.calls[-1].number if analysis.view.calls else None
    report = {
        "session": session_report(analysis),
        "encoding": analysis.table.encoding,
        "profile": analysis.table.profile,
        "calibration": cal.report(),
        "at_call": last,
        "settings": {k: (list(v) if isinstance(v, tuple) else v) for k, v in settings.model_dump().items()},
        "rows": rows,
        "prices_as_of": prices_as_of(),
    }
    if args.json:
        _print_json(report)
    else:
        from .render import console, render_compare

        render_compare(report, console())
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from ..providers.export import export_request, write_export
    from ..strategies import plan as run_plan

    pipeline = _pipeline(args)
    settings = make_settings(settings_kwargs(args))
    analysis = _load(args)
    at = _check_call(analysis, args.at)
    result = run_plan(analysis.view, analysis.table, pipeline, settings, at)
    body = export_request(result, args.to)
    if args.output == "-":
        _print_json(body)
        return 0
    write_export(body, args.output, args.session)
    sent = len(body.get("messages", ()))
    sys.stderr.write(
        f"wrote {args.output}: {args.to} request body with {sent} messages "
        f"({result.tokens_after:,} tokens by {analysis.table.encoding}, {analysis.table.profile} profile; "
        f"{result.tokens_before:,} before {','.join(pipeline) or 'no strategy'}).\n"
    )
    return 0


def cmd_samples(args: argparse.Namespace) -> int:
    from .samples import sample_path, sample_paths

    try:
        paths = [sample_path(args.name)] if args.name else sample_paths()
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    sys.stdout.write("".join(f"{p}\n" for p in paths))
    return 0


def cmd_tui(args: argparse.Namespace) -> int:
    from .samples import sample_path

    if args.latest:
        args.session, args.format = _sessions.latest_session(args)
    path = args.session or str(sample_path())
    # Bad input gets the same one-paragraph error as the subcommands, before the screen changes.
    from .. import formats
    from ..formats import builtin  # noqa: F401  (registers the built-in readers)

    formats.get_format(args.format) if args.format else formats.detect(path)
    from ..tui.app import run

    return run(path, theme=args.theme, follow=args.follow, format=args.format, encoding=args.encoding)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "info": cmd_info,
    "schema": cmd_schema,
    "plan": cmd_plan,
    "replay": cmd_replay,
    "compare": cmd_compare,
    "export": cmd_export,
    "samples": cmd_samples,
    "sessions": _sessions.cmd_sessions,
}


# ------------------------------------------------------------------------------------------
# entry point


def _expected_errors() -> tuple[type[BaseException], ...]:
    from ..formats import SessionFormatError
    from ..strategies import UnknownStrategy
    from ..tokens import EncodingUnavailable

    from ..providers.export import ExportError

    from ..analysis.prices import PriceError

    return (SessionFormatError, UnknownStrategy, EncodingUnavailable, UsageError, ExportError, PriceError)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in COMMANDS:
        name = argv[0]
        parser = _sub_parsers()[name]
        prog = parser.prog
        args = parser.parse_args(argv[1:])
        command = COMMANDS[name]
    else:
        parser = _tui_parser()
        prog = parser.prog
        args = parser.parse_args(argv)
        command = cmd_tui
    try:
        return command(args)
    except _expected_errors() as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return EXIT_USAGE
    except BrokenPipeError:  # `context-inspector info x | head`
        sys.stderr.close()
        return 0
    except OSError as exc:  # writing the export, reading a file that vanished...
        where = f" {exc.filename}:" if getattr(exc, "filename", None) else ""
        sys.stderr.write(f"{prog}: error:{where} {exc.strerror or exc}.\n")
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
