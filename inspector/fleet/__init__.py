"""Fleet: many sessions at once, as a Parquet dataset queried with DuckDB.

    from inspector import fleet
    run = fleet.build(fleet.expand(["~/.claude/projects"]), workers=2)
    print(fleet.report(run.dataset)["totals"])

Stages: :mod:`.sources` (which files) -> :mod:`.engines` (local processes or Ray) running
:mod:`.worker` (one session -> rows of every table, :mod:`.tables`) -> :mod:`.dataset` (Parquet
shards, manifest, DuckDB views) -> the SQL in ``queries/``. :mod:`.diet` measures tool results
for one session (``context-inspector tools``) and for the dataset's ``tools`` table.
DuckDB is imported only when a dataset is written or read (the ``fleet`` extra).
"""

from __future__ import annotations

from .build import REPORT_QUERIES, Run, build, default_dataset, report, sql
from .sources import Source, discovered, expand
from .tables import TABLE_NAMES, TABLES

__all__ = ["REPORT_QUERIES", "Run", "Source", "TABLES", "TABLE_NAMES", "build", "default_dataset", "discovered",
           "expand", "report", "sql"]
