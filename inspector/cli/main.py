"""``context-inspector``: open the TUI on a session, or run one of the subcommands.

    context-inspector [SESSION] [--theme NAME] [--follow/--no-follow] [--format NAME] [--encoding NAME] [--preset NAME]
    context-inspector info SESSION [--json]
    context-inspector schema
    context-inspector plan SESSION --strategy tool_pruning,sliding_window --budget 8000 [--at CALL] [--json]
    context-inspector replay SESSION --strategy tool_pruning [--json]
    context-inspector compare SESSION --budget 8000 [--json]
    context-inspector export SESSION --strategy fifo --budget 8000 --to anthropic -o request.json
    context-inspector fleet [PATH...] [--dataset DIR] [--workers N] [--engine ray] [--json]
    context-inspector fleet query SQL [--dataset DIR] [--json]
    context-inspector tools SESSION [--json]
    context-inspector report SESSION [--strategy ... | --preset NAME] --html FILE [--redact]
    context-inspector learn [--step KEY] [--print] [--json]

``--calibrate`` is still accepted by info, plan, replay and compare: an alias kept for old scripts,
since every report now carries predicted_tokens (inspector.analysis.predict).

A first argument that is not a subcommand is the SESSION for the TUI; options written before a
subcommand (``--no-cache info X``) are the subcommand's. Bad input and bad option
values print one paragraph to stderr and exit with code 2, never a traceback. Textual is imported
only when the TUI opens, so ``--json`` runs stay light.
"""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .. import __version__
from ..textsafe import visible, visible_line
from ..tokens import ENCODINGS
from .options import (
    ENCODING_HELP,
    EXIT_USAGE,
    MODEL_HELP,
    Parser,
    UsageError,
    add_sidechain_option,
    chosen_sidechain,
    add_calibrate_option,
    add_no_cache_option,
    add_session_options,
    add_strategy_options,
    explicit_params,
    pipeline_and_settings,
)
from . import presets_cmd as _presets
from . import fleet as _fleet
from . import learn as _learn
from . import html_report as _html_report
from . import sessions as _sessions
from .jsonout import print_json, print_report
from .money_report import add_money_options

PROG = "context-inspector"

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
    "proxy": "record every API request an agent makes, to inspect it live (--proxy: and open the viewer)",
    "presets": _presets.SUMMARY,
    "fleet": _fleet.FLEET_SUMMARY,
    "tools": _fleet.TOOLS_SUMMARY,
    "report": _html_report.SUMMARY,
    "learn": _learn.SUMMARY,
}


# ------------------------------------------------------------------------------------------
# parsers

ALL_HELP = ("show every row of the table (above 2,000 {rows} the table sums long stretches up in one row each; "
            "--json always writes every row)")


def _followable() -> str:
    from ..follow_dir import followable_formats

    return followable_formats()


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
    p.add_argument("--follow", action=argparse.BooleanOptionalAction, default=None, help=f"follow the session as the agent writes it (default: on for the formats that grow while an agent runs: {_followable()})")
    p.add_argument("--format", metavar="NAME", help="force a format instead of detecting it")
    p.add_argument("--encoding", choices=ENCODINGS, help=ENCODING_HELP)
    p.add_argument("--model", metavar="NAME", help=MODEL_HELP)
    p.add_argument("--preset", metavar="NAME", help="open with an agent's preset applied (see 'context-inspector presets')")
    add_sidechain_option(p)
    add_no_cache_option(p)
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
    p.add_argument("--all", action="store_true", help=ALL_HELP.format(rows="messages"))
    add_calibrate_option(p)

    p = new("replay", "Input tokens and cost of every model call, as recorded and under the strategy.")
    add_session_options(p)
    add_strategy_options(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--all", action="store_true", help=ALL_HELP.format(rows="calls"))
    add_calibrate_option(p)
    add_money_options(p)

    p = new("compare", "Every strategy and a few pipelines side by side: tokens, replay total, saving in tokens and "
                       "in dollars, validity.")
    add_session_options(p)
    add_strategy_options(p)
    p.add_argument("--presets", action="store_true", help="compare every preset (each with its own settings)")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_calibrate_option(p)
    add_money_options(p)

    p = new("export", "Write the pruned history as a request body that OpenAI or Anthropic accepts.")
    add_session_options(p)
    add_strategy_options(p)
    p.add_argument("--at", type=int, metavar="CALL", help="export the input of model call CALL; default: the next call")
    p.add_argument("--to", choices=("openai", "anthropic"), required=True, help="provider whose request shape to write")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="file to write ('-' for standard output)")
    p.add_argument("--allow-invalid", action="store_true", help="write the body even when the provider would reject it (by default an export that breaks a provider rule is refused, exit 2, with the rules listed)")

    p = new("samples", "Print the paths of the bundled sample sessions (or of the one called NAME).")
    p.add_argument("name", metavar="NAME", nargs="?", help="a sample's file name, e.g. three_questions.json")

    _sessions.configure(new("sessions", _sessions.DESCRIPTION))
    _presets.configure(new("presets", _presets.DESCRIPTION))
    _fleet.configure_fleet(new("fleet", _fleet.FLEET_DESCRIPTION))
    _html_report.configure(new("report", _html_report.DESCRIPTION))
    _learn.configure(new("learn", _learn.DESCRIPTION))
    _fleet.configure_tools(new("tools", "Tool-result diet of a session: " + _fleet.TOOLS_SUMMARY.split(": ", 1)[1] + "."))
    return parsers


# ------------------------------------------------------------------------------------------
# shared steps


def _load(args: argparse.Namespace):
    """Read and count the session: the one expensive step every command shares."""
    import inspector

    from ..tokens import resolve_or_fallback
    from ..tokens.pool import start_early
    from .report import default_profile

    start_early(args.session)  # counting workers forked while this process is small
    session = chosen_sidechain(inspector.load(args.session, args.format), getattr(args, "sidechain", None))
    profile = getattr(args, "profile", None) or default_profile(session)
    model = args.model or session.model
    resolution, warning = resolve_or_fallback(model, args.encoding, profile)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    analysis = inspector.analyze(session, resolution.counter, profile, model)
    # the counted session lives until the command ends: out of the cyclic collector's sight, the
    # reports built next do not pay a full pass over its millions of objects (the reader freezes
    # the session it builds for the same reason)
    gc.freeze()
    return analysis


def _check_call(analysis, at: int | None) -> int | None:
    if at is None:
        return None
    count = len(analysis.view.calls)
    if count == 0:
        raise UsageError(f"--at {at}: {analysis.session.path} has no model calls (no assistant messages).")
    if at == 0 or abs(at) > count:
        raise UsageError(f"--at {at}: model calls are numbered 1 to {count} (or -1 to -{count} from the end).")
    return at if at > 0 else count + 1 + at


def _show(args: argparse.Namespace, report: dict[str, Any], command: str) -> None:
    """``report`` as JSON with ``--json``, else drawn by ``render.render_<command>``."""
    if args.json:
        print_report(report)
        return
    from . import render

    every = {"every": True} if getattr(args, "all", False) else {}
    getattr(render, f"render_{command}")(report, render.console(), **every)


def _windowed(settings, analysis, args: argparse.Namespace, preset: str | None = None):
    """``settings`` with the compacting strategies' window set to the session model's, unless the
    command line sets it (presets' thresholds are shares of the real window), and a preset's
    parameters for the agent version the session records (``preset``: default ``--preset``)."""
    from ..analysis.window import with_session_window

    preset = preset or getattr(args, "preset", None)
    return with_session_window(settings, analysis.session, explicit_params(args), args.model, preset)


def _budget_note(analysis, settings, args: argparse.Namespace) -> str:
    """Which budget the command used and why (the default one: the session's window less what
    the agent keeps free)."""
    from ..analysis.window import budget_note

    preset = getattr(args, "preset", None)
    by_preset = preset is not None and "budget" not in explicit_params(args)
    return budget_note(analysis.session, settings.budget, args.model, f"the preset {preset}'s" if by_preset else "as set")


def _budget_unused_note(plan, pipeline, args: argparse.Namespace) -> str:
    """Why being over the budget need not change the plan (a preset compacting at its own trigger)."""
    from ..analysis.window import budget_unused_note

    preset = getattr(args, "preset", None)
    return budget_unused_note(plan.settings, pipeline, plan.tokens_before, f"the preset {preset}" if preset else None,
                              plan.stages)


def _plan(args: argparse.Namespace):
    """The session counted, the pipeline, and its plan at ``--at`` (plan and export share it)."""
    import inspector

    pipeline, settings = pipeline_and_settings(args)
    analysis = _load(args)
    settings = _windowed(settings, analysis, args)
    at = _check_call(analysis, args.at)
    return analysis, pipeline, inspector.plan(analysis, pipeline, settings=settings, at_call=at)


# ------------------------------------------------------------------------------------------
# commands


def cmd_info(args: argparse.Namespace) -> int:
    from .report import info_report

    from ..analysis.info import unpriceable_calls
    from .money_report import money_options, recorded_info_money, unpriced_info_money

    options = money_options(args)
    analysis = _load(args)
    report = info_report(analysis, largest=max(0, args.largest))
    # the tables show money only beside recorded usage: without any, pricing every call is wasted
    report["money"] = None
    if args.json or _records_usage(analysis.session):
        unpriced = unpriceable_calls(analysis.view, options.model)
        report["money"] = recorded_info_money(analysis.view, analysis.table, options) if unpriced is None \
            else unpriced_info_money(unpriced)
    _show(args, report, "info")
    return 0


def _records_usage(session) -> bool:
    """Whether any message of the session or of its sidechains records usage."""
    chains = [session.messages, *session.sidechains.values()]
    return any(m.usage is not None for chain in chains for m in chain)


def cmd_schema(args: argparse.Namespace) -> int:
    from ..schema import jsonl_schema

    print_json(jsonl_schema())
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    from .report import plan_report

    analysis, pipeline, result = _plan(args)
    report = plan_report(analysis, result)
    report["budget_note"] = _budget_note(analysis, result.settings, args)
    report["budget_unused_note"] = _budget_unused_note(result, pipeline, args) if report["fits"] is False else ""
    _show(args, report, "plan")
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


def _workers() -> int:
    """The CLI runs no threads of its own, so long replays may fork one worker per core."""
    import os

    return os.cpu_count() or 1


def cmd_replay(args: argparse.Namespace) -> int:
    _show_uncollected(args, replay_data, "replay")
    return 0


def _show_uncollected(args: argparse.Namespace, build: Callable[[argparse.Namespace], dict[str, Any]], name: str) -> None:
    """``build(args)`` shown with no cyclic collection while it runs. The session is frozen out
    of the collector's sight once read (_load), and what the replays, their pricing, the plans and
    the report build makes no cycles: no collection pass walks it (a compare at 10,000 messages
    ran 367 passes, ~0.1 s of its ~1 s CPU, and ~0.04 s more when collection resumed before the
    table was drawn; the forked workers collect nothing either)."""
    from ..strategies.base import gc_paused

    with gc_paused():
        _show(args, build(args), name)
        gc.freeze()  # what outlives the command (the counts kept in memory) is long-lived too: not walked when collection resumes


def replay_data(args: argparse.Namespace, analysis=None) -> dict[str, Any]:
    """The ``replay --json`` report (``analysis``: the session already counted)."""
    import inspector

    from ..analysis.money import session_money
    from .money_report import money_options
    from .report import pipeline_report, replay_report

    pipeline, settings = pipeline_and_settings(args)
    options = money_options(args)
    analysis = analysis or _load(args)
    settings = _windowed(settings, analysis, args)
    with _Progress(len(analysis.view.calls)) as bar:
        progress = bar.stage(",".join(pipeline) or "baseline", len(analysis.view.calls))
        result = inspector.replay(analysis, pipeline, settings=settings, progress=progress, workers=_workers(), shared=True)
    money = session_money(analysis.view, analysis.table, pipeline, settings, options, replay=result)
    report = replay_report(analysis, result, pipeline_report(pipeline, settings), money)
    report["budget_note"] = _budget_note(analysis, settings, args)
    return report


def cmd_compare(args: argparse.Namespace) -> int:
    _show_uncollected(args, compare_data, "compare")
    return 0


def compare_data(args: argparse.Namespace, analysis=None) -> dict[str, Any]:
    """The ``compare --json`` report (``analysis``: the session already counted)."""
    import inspector

    from ..analysis.money import MoneyTotals, money_totals, session_money
    from ..analysis.money_sums import session_money_totals
    from ..presets import load_presets
    from ..strategies import STRATEGIES, parse_pipeline
    from .money_report import cache_aware_rows, money_options
    from .report import compare_report

    presets: list[tuple[str, Any]] = []
    strategies, args.strategy = args.strategy, ""  # compare's --strategy lists pipelines (A;B)
    if args.presets or args.preset:
        if strategies:
            raise UsageError("--presets and --preset cannot be used with --strategy.")
        pipelines = []
        for name in list(load_presets()) if args.presets else [args.preset]:
            args.preset = name
            pipeline, preset_settings = pipeline_and_settings(args)
            pipelines.append(pipeline)
            presets.append((name, preset_settings))
        args.preset = None
        settings = pipeline_and_settings(args)[1]
    elif strategies:
        settings = pipeline_and_settings(args)[1]
        pipelines = [tuple(parse_pipeline(p)) for p in strategies.split(";") if p.strip()]
    else:
        settings = pipeline_and_settings(args)[1]
        pipelines = [(name,) for name in STRATEGIES]
        pipelines += [tuple(p.split(",")) for p in COMPARE_PIPELINES if all(s in STRATEGIES for s in p.split(","))]
    options = money_options(args)
    analysis = analysis or _load(args)
    settings = _windowed(settings, analysis, args)
    presets = [(name, _windowed(s, analysis, args, name)) for name, s in presets]
    view, table = analysis.view, analysis.table
    # before the replays fork: the workers inherit what every pricing of this session shares
    baseline_money = session_money(view, table, (), settings, options)

    def price(pipeline: tuple[str, ...], s: Any, replay: Any) -> MoneyTotals:
        return session_money_totals(view, table, pipeline, s, options, replay=replay)

    with _Progress(len(view.calls), len(pipelines)) as bar:
        rows = inspector.compare(analysis, pipelines, settings=settings, presets=presets, progress_for=bar.stage,
                                 workers=_workers(), shared=True, price=price)
    row_settings = [settings] + [s for _, s in presets] if presets else [settings] * len(rows)
    base_totals = money_totals(baseline_money)
    moneys = [row.money if row.pipeline else base_totals for row in rows]
    report = compare_report(analysis, settings, rows, baseline_money, moneys)
    report["cache_aware"] = cache_aware_rows(analysis.view, analysis.table, rows, row_settings, base_totals, options)
    report["budget_note"] = _budget_note(analysis, settings, args)
    return report


def cmd_export(args: argparse.Namespace) -> int:
    import inspector

    from ..analysis.agent_removed import plan_total
    from ..providers.export import write_export
    from ..providers.exportable import check_exportable, session_files

    analysis, pipeline, result = _plan(args)
    if not args.allow_invalid:
        check_exportable(result, args.to)
    body = inspector.export(result, args.to)
    if args.output == "-":
        print_json(body)
        return 0
    write_export(body, args.output, args.session, session_files(analysis.view.session))
    sent = len(body.get("messages", ()))
    total = plan_total(result)
    sys.stderr.write(
        f"wrote {visible(args.output)}: {args.to} request body with {sent} messages "
        f"({total.tokens_after:,} tokens by {analysis.table.encoding}, {analysis.table.profile} profile; "
        f"{result.tokens_before:,} before {','.join(pipeline) or 'no strategy'}; {visible(_budget_note(analysis, result.settings, args))}).\n"
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
    from ..tokens import tokenizer_for
    from .samples import sample_path

    if args.latest:
        args.session, args.format = _sessions.latest_session(args)
    path = args.session or str(sample_path())
    # Bad input gets the same one-paragraph error as the subcommands, before the screen changes.
    from .. import formats
    from ..formats import builtin  # noqa: F401  (registers the built-in readers)

    formats.get_format(args.format) if args.format else formats.detect(path)
    if args.preset:
        from ..presets import PresetError, get_preset

        try:
            get_preset(args.preset)
        except PresetError as exc:
            raise UsageError(str(exc)) from None
    from ..tui.app import run

    # Without --encoding the viewer counts with the tokenizer of --model, else of the model the file records.
    encoding = args.encoding or (tokenizer_for(args.model) if args.model else None)
    side = {"sidechain": args.sidechain} if args.sidechain is not None else {}
    if args.preset:
        side["preset"] = args.preset
    if args.model:
        side["model"] = args.model
    return run(path, theme=args.theme, follow=args.follow, format=args.format, encoding=encoding, **side)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "info": cmd_info,
    "schema": cmd_schema,
    "plan": cmd_plan,
    "replay": cmd_replay,
    "compare": cmd_compare,
    "presets": _presets.run,
    "export": cmd_export,
    "samples": cmd_samples,
    "sessions": _sessions.cmd_sessions,
    "fleet": _fleet.cmd_fleet,
    "tools": _fleet.cmd_tools,
    "report": lambda args: _html_report.cmd_report(args, _plan, replay_data, compare_data),
    "learn": _learn.cmd_learn,
}


# ------------------------------------------------------------------------------------------
# entry point


def _expected_errors() -> tuple[type[BaseException], ...]:
    from ..formats import SessionFormatError
    from ..strategies import UnknownStrategy
    from ..providers.export import ExportError
    from ..tokens import EncodingUnavailable

    from ..analysis.prices import PriceError

    return (SessionFormatError, UnknownStrategy, EncodingUnavailable, UsageError, ExportError, PriceError)


def _show_plugin_warnings() -> None:
    """Print a skipped plugin's warning as one ``warning:`` line, like the other warnings."""
    import warnings

    from ..plugins import PluginWarning

    if getattr(warnings.showwarning, "_inspector", False):
        return
    original = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, PluginWarning):
            sys.stderr.write(f"{PROG}: warning: {message}\n")
        else:
            original(message, category, filename, lineno, file, line)

    show._inspector = True  # type: ignore[attr-defined]
    warnings.showwarning = show


def _subcommand_first(argv: list[str]) -> list[str]:
    """``--no-cache info X`` as ``info X --no-cache``: options written before a subcommand go after
    its arguments (before a ``--``).

    Only options come first (with their values, as the viewer's parser reads them); a subcommand that
    does not take one of them says so in its own one-paragraph error, naming the option and its value
    ('unrecognized arguments: --theme dark'; put before X, the value was read as the session and the
    error named --theme and X).
    """
    if not argv or not argv[0].startswith("-"):  # the usual case: nothing to move, no parser built
        return argv
    takes_value = {option: action.nargs != 0 for action in _tui_parser()._actions for option in action.option_strings}
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        option = argv[i]
        i += 2 if "=" not in option and takes_value.get(option, False) else 1
    if 0 < i < len(argv) and argv[i] in COMMANDS:
        rest = argv[i + 1:]
        end = rest.index("--") if "--" in rest else len(rest)
        return [argv[i], *rest[:end], *argv[:i], *rest[end:]]
    return argv


def main(argv: Sequence[str] | None = None) -> int:
    argv = _subcommand_first(list(sys.argv[1:] if argv is None else argv))
    _show_plugin_warnings()
    if argv and (argv[0] == "proxy" or (argv[0] not in COMMANDS and "--proxy" in argv)):
        from .proxy import main as proxy_main  # inspector/cli/proxy.py owns both entry points

        return proxy_main(argv)
    if argv and argv[0] in COMMANDS:
        name = argv[0]
        parser = _sub_parsers()[name]
        prog = parser.prog
        # fleet's positionals may follow its options: `fleet query --dataset DIR "SQL"`.
        parse = parser.parse_intermixed_args if name == "fleet" else parser.parse_args
        args = parse(argv[1:])
        command = COMMANDS[name]
    else:
        parser = _tui_parser()
        prog = parser.prog
        args = parser.parse_args(argv)
        command = cmd_tui
    try:
        return command(args)
    except _expected_errors() as exc:
        sys.stderr.write(f"{prog}: error: {visible_line(str(exc))}\n")
        return EXIT_USAGE
    except BrokenPipeError:  # `context-inspector info x | head`
        sys.stderr.close()
        return 0
    except OSError as exc:  # writing the export, reading a file that vanished...
        where = f" {exc.filename}:" if getattr(exc, "filename", None) else ""
        sys.stderr.write(visible_line(f"{prog}: error:{where} {str(exc.strerror or exc).rstrip('.')}.") + "\n")
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
