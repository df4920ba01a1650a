"""A fleet dataset on disk: Parquet shards per table, a manifest, and DuckDB views over them.

Layout::

    DATASET/
      manifest.jsonl          one line per session of the last run: path, size, mtime_ns, shard, error
      options.json            the options the rows were made with (other options: all reprocessed)
      sessions/part-<shard>.parquet, calls/..., units/..., tools/..., strategies/...
      <table>/_schema.parquet zero rows, the table's columns (so an empty table still has a view)

Shards are written by DuckDB itself (no pyarrow): rows stream into a JSON Lines spool file per
table while a batch fills, then one ``COPY ... TO parquet`` turns each spool into a shard, so the
writer holds one session's rows at a time. A session's rows live in the shard the manifest names;
rows of an older version of the session left in another shard are hidden by the views, and a shard
no manifest entry points at is deleted at the end of the run.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from .tables import TABLES

MANIFEST = "manifest.jsonl"
OPTIONS = "options.json"  # the run options the rows were made with (strategies, budget, with_text)
SPOOL = ".spool"


@dataclass(frozen=True)
class Entry:
    """The manifest's record of one session: its stat key and the shard holding its rows."""

    path: str
    session_id: str
    size: int
    mtime_ns: int
    shard: str | None  # None when the session could not be read (then ``error`` says why)
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "session_id": self.session_id, "size": self.size, "mtime_ns": self.mtime_ns,
                "shard": self.shard, "error": self.error}


def read_manifest(dataset: Path) -> dict[str, Entry]:
    path = dataset / MANIFEST
    if not path.exists():
        return {}
    entries = {}
    for line in path.read_bytes().splitlines():
        if line.strip():
            record = orjson.loads(line)
            entries[record["path"]] = Entry(**record)
    return entries


def read_options(dataset: Path) -> dict[str, Any] | None:
    path = dataset / OPTIONS
    return orjson.loads(path.read_bytes()) if path.exists() else None


def write_manifest(dataset: Path, entries: Iterable[Entry], options: dict[str, Any]) -> None:
    (dataset / OPTIONS).write_bytes(orjson.dumps(options))
    tmp = dataset / (MANIFEST + ".tmp")
    with tmp.open("wb") as fh:
        for entry in sorted(entries, key=lambda e: e.path):
            fh.write(orjson.dumps(entry.to_json()) + b"\n")
    os.replace(tmp, dataset / MANIFEST)


def _columns_sql(table: str) -> str:
    return "{" + ", ".join(f"'{name}': '{kind}'" for name, kind in TABLES[table].items()) + "}"


def _quote(path: Path | str) -> str:
    return "'" + str(path).replace("'", "''") + "'"


def ensure_schemas(dataset: Path, con=None) -> None:
    """Write each table's zero-row ``_schema.parquet`` once, so every view exists even when empty."""
    if con is None:
        import duckdb

        with duckdb.connect() as own:
            return ensure_schemas(dataset, own)
    for table, columns in TABLES.items():
        folder = dataset / table
        folder.mkdir(parents=True, exist_ok=True)
        schema = folder / "_schema.parquet"
        if not schema.exists():
            select = ", ".join(f"CAST(NULL AS {kind}) AS {name}" for name, kind in columns.items())
            con.execute(f"COPY (SELECT {select} WHERE false) TO {_quote(schema)} (FORMAT parquet)")


class ShardWriter:
    """Streams result rows into spool files and turns every ``batch`` sessions into one shard."""

    def __init__(self, dataset: Path, batch: int = 64) -> None:
        import duckdb

        self.dataset = dataset
        self.batch = max(1, batch)
        self.con = duckdb.connect()
        ensure_schemas(dataset, self.con)
        (dataset / SPOOL).mkdir(exist_ok=True)
        self._open()

    def _open(self) -> None:
        self.shard = uuid.uuid4().hex[:16]
        self.pending = 0
        self.files = {t: (self.dataset / SPOOL / f"{t}-{self.shard}.jsonl").open("wb") for t in TABLES}

    def add(self, lines: dict[str, bytes]) -> str:
        """Spool one session's rows (JSON Lines per table, :func:`~inspector.fleet.worker.encode_rows`);
        returns the shard they will be in."""
        for table, data in lines.items():
            self.files[table].write(data)
        shard = self.shard
        self.pending += 1
        if self.pending >= self.batch:
            self.flush()
            self._open()
        return shard

    def flush(self) -> None:
        for table, fh in self.files.items():
            fh.close()
            spool = Path(fh.name)
            if spool.stat().st_size:
                out = self.dataset / table / f"part-{self.shard}.parquet"
                self.con.execute(
                    f"COPY (SELECT * FROM read_json({_quote(spool)}, format='newline_delimited', "
                    f"columns={_columns_sql(table)})) TO {_quote(out)} (FORMAT parquet)"
                )
            spool.unlink()
        self.pending = 0

    def close(self) -> None:
        self.flush()
        self.con.close()
        try:
            (self.dataset / SPOOL).rmdir()
        except OSError:
            pass


def shards_in_use(entries: Iterable[Entry]) -> set[str]:
    return {e.shard for e in entries if e.shard}


def remove_unused_shards(dataset: Path, keep: set[str]) -> int:
    """Delete shard files no manifest entry points at; returns how many were removed."""
    removed = 0
    for table in TABLES:
        for path in (dataset / table).glob("part-*.parquet"):
            if path.stem[len("part-"):] not in keep:
                path.unlink()
                removed += 1
    return removed


def connect(dataset: Path):
    """An in-memory DuckDB connection with a view per table over the dataset's current rows."""
    import duckdb

    if not (dataset / MANIFEST).exists():
        raise FileNotFoundError(f"{dataset}: not a fleet dataset (no {MANIFEST}); run 'context-inspector fleet' first")
    con = duckdb.connect()
    con.execute(
        "CREATE TEMP TABLE current_shards AS SELECT session_id, shard FROM read_json("
        f"{_quote(dataset / MANIFEST)}, format='newline_delimited', "
        "columns={'path': 'VARCHAR', 'session_id': 'VARCHAR', 'size': 'BIGINT', 'mtime_ns': 'BIGINT', "
        "'shard': 'VARCHAR', 'error': 'VARCHAR'}) WHERE shard IS NOT NULL"
    )
    for table, columns in TABLES.items():
        names = ", ".join(f"t.{c}" for c in columns)
        glob = _quote(dataset / table / "*.parquet")
        con.execute(
            f"CREATE VIEW {table} AS SELECT {names} FROM read_parquet({glob}, filename=true, union_by_name=true) t "
            "JOIN current_shards c ON t.session_id = c.session_id "
            "AND regexp_extract(t.filename, 'part-([0-9a-f]+)\\.parquet$', 1) = c.shard"
        )
    return con


def query(con, sql: str) -> tuple[list[str], Iterator[tuple]]:
    """Run ``sql``; the column names and the rows (fetched in chunks, not all at once)."""
    cursor = con.execute(sql)
    columns = [d[0] for d in cursor.description] if cursor.description else []

    def rows() -> Iterator[tuple]:
        while True:
            chunk = cursor.fetchmany(1024)
            if not chunk:
                return
            yield from chunk

    return columns, rows()
