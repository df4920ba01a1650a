"""One fleet run: find the sessions, process the new or changed ones, write the dataset, report.

A session is skipped when the manifest already has it with the same path, size and mtime_ns (the
stat key; nothing is opened). The report is computed by the SQL files in ``queries/`` over the
dataset, so the figures shown are the figures a user's own query gets.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .. import paths
from . import dataset as ds
from .engines import run
from .sources import Source
from .worker import Task, session_id

#: The report's parts, in order: one SQL file each in ``inspector/fleet/queries``.
REPORT_QUERIES = ("totals", "context_distribution", "top_tools", "unused_fields", "validity", "savings")


def default_dataset() -> Path:
    return paths.data_dir() / "fleet"


@dataclass
class Run:
    """What one run did: sessions processed, skipped (unchanged) and failed (path, reason)."""

    dataset: Path
    found: int = 0
    processed: int = 0
    skipped: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)
    removed_shards: int = 0


#: What the rows mean; a dataset written with another is processed again. 2: peak_context and
#: context_next_call are whole inputs (they were the messages alone); sessions.<provider>_ends_on_tool_call.
ROWS_VERSION = 2


def build(
    sources: Sequence[Source],
    dataset: Path | None = None,
    *,
    engine: str = "process",
    workers: int | None = None,
    address: str | None = None,
    strategies: tuple[str, ...] = (),
    budget: int | None = None,
    with_text: bool = False,
    batch: int = 64,
    progress: Callable[[int, int], None] | None = None,
) -> Run:
    """Bring ``dataset`` up to date with ``sources``: the dataset then holds exactly these sessions.
    ``progress(done, total)`` is called as sessions complete (total: the ones to process)."""
    dataset = paths.ensure(Path(dataset) if dataset else default_dataset())
    options = {"strategies": list(strategies), "budget": budget, "with_text": with_text, "rows": ROWS_VERSION}
    # Rows made under other options are not reused: everything is processed again.
    old = ds.read_manifest(dataset) if ds.read_options(dataset) == options else {}
    entries: dict[str, ds.Entry] = {}
    todo: list[Task] = []
    for s in sources:
        known = old.get(s.path)
        if known is not None and known.size == s.size and known.mtime_ns == s.mtime_ns:
            entries[s.path] = known
        else:
            todo.append(Task(s.path, s.size, s.mtime_ns, s.format, strategies, budget, with_text))
    result = Run(dataset, found=len(sources), skipped=len(entries))
    if progress is not None:
        progress(0, len(todo))
    if todo:
        writer = ds.ShardWriter(dataset, batch)
        try:
            for done, r in enumerate(run(engine, todo, workers, address), 1):
                shard = writer.add(r.lines) if r.error is None else None
                entries[r.path] = ds.Entry(r.path, r.session_id, r.size, r.mtime_ns, shard, r.error)
                result.processed += 1
                if progress is not None:
                    progress(done, len(todo))
        finally:
            writer.close()
    ds.ensure_schemas(dataset)
    ds.write_manifest(dataset, entries.values(), options)
    result.removed_shards = ds.remove_unused_shards(dataset, ds.shards_in_use(entries.values()))
    result.errors = [{"path": e.path, "error": e.error} for e in sorted(entries.values(), key=lambda e: e.path) if e.error]
    return result


def sql(name: str) -> str:
    """The text of a shipped query (``queries/<name>.sql``)."""
    return resources.files(__package__).joinpath("queries", f"{name}.sql").read_text(encoding="utf-8")


def _rows(con, text: str) -> list[dict[str, Any]]:
    columns, rows = ds.query(con, text)
    return [dict(zip(columns, row)) for row in rows]


def report(dataset: Path) -> dict[str, Any]:
    """The fleet report: every query in :data:`REPORT_QUERIES` run over ``dataset``."""
    con = ds.connect(dataset)
    try:
        parts = {name: _rows(con, sql(name)) for name in REPORT_QUERIES}
    finally:
        con.close()
    for name in ("totals", "context_distribution", "validity"):
        parts[name] = parts[name][0]
    return parts


__all__ = ["REPORT_QUERIES", "Run", "build", "default_dataset", "report", "session_id", "sql"]
