"""``context-inspector fleet`` (many sessions into a Parquet dataset, a report, ``fleet query``)
and ``context-inspector tools`` (the tool-result diet of one session).

The figures come from :mod:`inspector.fleet` (SQL over the dataset, :mod:`inspector.fleet.diet`);
this module parses options, shows a progress bar on a terminal and draws the dicts with Rich.
Strings from sessions (tool and field names) are drawn as plain text, never markup.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .jsonout import print_report
from .options import UsageError, add_no_cache_option, add_session_options

FLEET_SUMMARY = "many sessions at once into a Parquet dataset, with a report; 'fleet query SQL' queries it"
TOOLS_SUMMARY = "tool-result diet of a session: sizes, share, truncations, unused JSON fields, errors, secrets"

FLEET_DESCRIPTION = (
    "Read every session under PATH... (files, directories, globs; default: where the agents keep them, "
    "--agent to pick one) in parallel, write tidy tables (sessions, calls, units, tools, strategies) as Parquet "
    "into --dataset, and report. A re-run processes only new or changed sessions (path, size, mtime). "
    "'fleet query SQL [--dataset DIR]' runs your own SQL (DuckDB) over those tables."
)


def configure_fleet(p: argparse.ArgumentParser) -> None:
    from ..fleet.engines import ENGINES

    p.add_argument("paths", metavar="PATH", nargs="*", help="session files, directories or globs; or 'query SQL'")
    p.add_argument("--agent", metavar="NAME", help="with no PATH: only this agent's sessions (claude, codex, strands)")
    p.add_argument("--dataset", metavar="DIR", help="dataset directory (default: fleet/ in the user data directory)")
    p.add_argument("--workers", type=int, metavar="N", help="worker processes (default: one per core)")
    p.add_argument("--engine", choices=ENGINES, default="process", help="process (this machine) or ray (a Ray cluster)")
    p.add_argument("--address", metavar="ADDR", help="--engine ray: the cluster to join (default: start a local Ray)")
    add_no_cache_option(p)
    p.add_argument("--strategies", metavar="LIST", default="all",
                   help="strategies to replay per session for the savings table: comma-separated, 'all' (default) or 'none'")
    p.add_argument("--budget", type=int, metavar="TOKENS", help="token budget the strategies replay under")
    p.add_argument("--with-text", action="store_true", help="keep tool result text in the dataset (default: sizes, names and hashes only)")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")


def configure_tools(p: argparse.ArgumentParser) -> None:
    add_session_options(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")


# ------------------------------------------------------------------------------------------
# fleet


def _strategies(value: str) -> tuple[str, ...]:
    from ..strategies import STRATEGIES, parse_pipeline

    if value == "none":
        return ()
    if value == "all":
        return tuple(STRATEGIES)
    return tuple(parse_pipeline(value))


def _dataset(args: argparse.Namespace) -> Path:
    from ..fleet import default_dataset

    return Path(args.dataset).expanduser() if args.dataset else default_dataset()


class _Bar:
    """A progress bar with ETA on stderr, only on a terminal."""

    def __init__(self) -> None:
        self.progress = None
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.progress = Progress(TextColumn("sessions"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                     console=Console(stderr=True), transient=True)
            self.task = self.progress.add_task("sessions", total=None)

    def __enter__(self) -> _Bar:
        if self.progress is not None:
            self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.progress is not None:
            self.progress.stop()

    def __call__(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress.update(self.task, completed=done, total=total)


def _need_duckdb() -> None:
    try:
        import duckdb  # noqa: F401
    except ImportError:
        raise UsageError("fleet needs DuckDB: pip install 'context-inspector[fleet]'.") from None


def cmd_fleet(args: argparse.Namespace) -> int:
    from .. import fleet
    from ..fleet.engines import RayUnavailable

    _need_duckdb()
    if args.paths and args.paths[0] == "query":
        return cmd_query(args)
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers {args.workers}: give 1 or more worker processes.")
    sources = fleet.expand(args.paths) if args.paths else fleet.discovered(args.agent)
    try:
        with _Bar() as bar:
            run = fleet.build(
                sources, _dataset(args), engine=args.engine, workers=args.workers, address=args.address,
                strategies=_strategies(args.strategies), budget=args.budget, with_text=args.with_text, progress=bar,
            )
    except RayUnavailable as exc:
        raise UsageError(str(exc)) from None
    parts = fleet.report(run.dataset)
    totals = parts["totals"]
    report = {
        "sessions": totals["sessions"],
        "messages": totals["messages"],
        "model_calls": totals["model_calls"],
        "tokens": totals["tokens"],
        "dataset": str(run.dataset),
        "run": {"found": run.found, "processed": run.processed, "skipped": run.skipped, "errors": run.errors},
        **{name: value for name, value in parts.items() if name != "totals"},
        "compactions": totals["compactions"],
        "cost_usd": totals["cost_usd"],
    }
    if args.json:
        print_report(report)
    else:
        from .render import console

        render_fleet(report, console())
    return 0


def cmd_query(args: argparse.Namespace) -> int:
    from ..fleet import dataset as ds

    text = " ".join(args.paths[1:]).strip()
    if not text:
        raise UsageError("fleet query: give the SQL to run, e.g. fleet query 'SELECT count(*) FROM sessions'.")
    dataset = _dataset(args)
    try:
        con = ds.connect(dataset)
    except FileNotFoundError as exc:
        raise UsageError(str(exc)) from None
    import duckdb

    try:
        columns, rows = ds.query(con, text)
        if args.json:
            print_report({"dataset": str(dataset), "columns": columns, "rows": [[_json_value(v) for v in r] for r in rows]})
        else:
            from .render import console

            render_query(columns, rows, console())
    except duckdb.Error as exc:
        raise UsageError(f"fleet query: {str(exc).splitlines()[0]}") from None
    finally:
        con.close()
    return 0


def _json_value(value: Any) -> Any:
    """A query result value as JSON: numbers, text, booleans, None and lists as they are; dates,
    decimals and other types as their text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    return str(value)


# ------------------------------------------------------------------------------------------
# tools


def cmd_tools(args: argparse.Namespace) -> int:
    from ..fleet.diet import tools_report
    from ..fleet.worker import analyse

    analysis = analyse(args.session, args.format, args.encoding, args.model, args.profile, args.sidechain)
    report = tools_report(analysis)
    if args.json:
        print_report(report)
    else:
        from .render import console

        render_tools(report, console())
    return 0


# ------------------------------------------------------------------------------------------
# drawing


def _table(title: str, columns: list[str], report: bool = False):
    """A table of ``columns``; a ``report`` table (not a query's result, whose headers are the
    names to write SQL with) lets its headers wrap at their underscores ("baseline tokens")."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(title, style="bold"), box=box.SIMPLE_HEAD, title_justify="left")
    for i, c in enumerate(columns):
        table.add_column(c.replace("_", " ") if report else c, justify="left" if i == 0 else "right")
    return table


def _cell(value: Any):
    from rich.text import Text

    from ..analysis.info import preview
    from .render import N

    if value is None:
        return Text("—", style="dim")
    if isinstance(value, bool):
        return Text("yes" if value else "no")
    if isinstance(value, (int, float)):
        return N(value)
    if isinstance(value, list):
        return Text(preview(", ".join(map(str, value)), 60))
    return Text(preview(str(value), 60))


def _rows_table(title: str, rows: list[dict[str, Any]]):
    table = _table(title, list(rows[0]) if rows else ["(none)"], report=True)
    for row in rows:
        table.add_row(*(_cell(v) for v in row.values()))
    return table


def render_fleet(report: dict[str, Any], out) -> None:
    from rich.text import Text

    from ..textsafe import visible
    from .render import plural
    from .wholetable import print_whole

    run = report["run"]
    out.print(Text(
        f"{plural(report['sessions'], 'session')}, {plural(report['messages'], 'message')}, "
        f"{plural(report['model_calls'], 'model call')}, {plural(report['tokens'], 'token')} "
        f"({run['processed']:,} processed, {run['skipped']:,} unchanged). "
        f"Dataset: {visible(report['dataset'])}"
    ))
    for err in run["errors"][:10]:
        out.print(Text(visible(f"skipped {err['path']}: {err['error']}"), style="yellow"))
    if len(run["errors"]) > 10:
        out.print(Text(f"... and {len(run['errors']) - 10} more unreadable sessions", style="yellow"))
    print_whole(out, _rows_table("Peak context per session (tokens) and compactions", [report["context_distribution"]]))
    print_whole(out, _rows_table("Top tools by result tokens (share of all tokens)", report["top_tools"]))
    print_whole(out, _rows_table("JSON fields never used afterwards", report["unused_fields"]))
    print_whole(out, _rows_table("Validity breaks (recorded history)", [report["validity"]]))
    print_whole(out, _rows_table("Savings per strategy (replayed input tokens, all calls)", report["savings"]))
    if any(row.get("saving_usd") is None for row in report["savings"]):
        out.print(Text("Money columns stay empty until prices are known.", style="dim"))


def render_query(columns: list[str], rows, out) -> None:
    from .wholetable import print_whole

    table = _table("", columns)
    for row in rows:
        table.add_row(*(_cell(v) for v in row))
    print_whole(out, table)


def render_tools(report: dict[str, Any], out) -> None:
    from rich.text import Text

    from ..textsafe import visible
    from .wholetable import print_whole

    s = report["session"]
    out.print(Text(f"{visible(str(s['path']))} ({s['format']}): {report['context_tokens']:,} tokens in context"))
    rows = [
        {k: r[k] for k in ("tool", "results", "result_tokens", "share_pct", "tokens_p50", "tokens_p90", "tokens_max",
                           "truncated", "unstructured_errors", "secrets")}
        for r in report["tools"]
    ]
    print_whole(out, _rows_table("Tool results", rows))
    fields = [{"tool": r["tool"], "fields": len(r["fields"]), "unused": r["unused_fields"]} for r in report["tools"] if r["fields"]]
    if fields:
        print_whole(out, _rows_table("JSON fields never used afterwards", fields))
        out.print(Text(f"Heuristic: {report['heuristic']}.", style="dim"))
    if report["unstructured_errors"]:
        print_whole(out, _rows_table("Errors returned as unstructured text", report["unstructured_errors"]))
    if report["secrets"]:
        print_whole(out, _rows_table("Results that look like secrets (redacted)", report["secrets"]))
