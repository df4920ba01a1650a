"""OpenAI Agents SDK ``SQLiteSession`` databases (``agent_sessions`` / ``agent_messages`` tables).

Each ``agent_messages`` row's ``message_data`` is one Responses API item (JSON), in ``id`` order;
they are read with :class:`~inspector.formats.openai_responses.ItemReader` (output items of one
response grouped into one assistant message, calls and outputs linked by ``call_id``). Table names
are configurable in the SDK, so the tables are found by their columns (``session_id`` +
``message_data``). A database can hold several sessions: :func:`read` opens the one with the
newest row, lists them all in ``Session.extra["sessions"]`` and reads the others as sidechains
``session:<id>`` (a notice in ``skipped`` names the one shown); :func:`read_database` takes a
``session_id``. ``EncryptedSession`` rows (``{"__enc__": 1, ...}``) cannot be read and are skipped.
The basic session records no usage.

``AdvancedSQLiteSession`` adds ``message_structure`` (each row's ``branch_id``, sequence and user
turn; a branch made with ``create_branch_from_turn`` shares the earlier rows, so reading every row
in id order mixes the branches) and ``turn_usage`` (per user turn: ``requests``, input and output
tokens with their details JSON). With that table the session is one branch, the one written last
(the SDK keeps its current branch in memory only); the other branches are sidechains
``branch:<id>``. ``turn_usage`` rows go to ``extra["turn_usage"]``; a turn of one request is one
model call, and its usage is that call's when the turn has exactly one assistant message.

The inspector never writes to the database, nor creates anything beside it: even a read-only
SQLite connection leaves ``-wal`` and ``-shm`` files next to a WAL database (every real Agents SDK
database is one), and ``immutable=1`` would ignore rows still in the WAL. So :func:`connect` reads
a private copy: the ``-wal`` (and a rollback ``-journal``) first, then the database, into a fresh
temporary directory that closing the connection removes. Text that is not UTF-8 is read with
its bad bytes kept as surrogate escapes, so one bad row never fails the whole read.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import orjson

from ..model import SEPARATE_SESSIONS, Message, Session, Skipped, SourceRef
from .reading import OPENAI, usage_from
from .base import Format, Probe, SessionFormatError, register
from .openai_responses import ItemReader
from ..safeio import open_input
from .records import ignored

NAME = "agents_sqlite"
SQLITE_MAGIC = b"SQLite format 3\x00"


class _PrivateCopy(sqlite3.Connection):
    """A connection to a private copy of a database; closing it removes the copy."""

    _copy_dir: str | None = None

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._copy_dir:
                shutil.rmtree(self._copy_dir, ignore_errors=True)
                self._copy_dir = None

    def __del__(self) -> None:
        self.close()


def _copy(source: Path, target: Path) -> None:
    with open_input(source) as src, open(target, "wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def connect(path: Path) -> sqlite3.Connection:
    """A connection to a private copy of ``path`` with its WAL (nothing is created or changed
    beside ``path``); close it to remove the copy."""
    copy_dir = tempfile.mkdtemp(prefix="context-inspector-sqlite-")
    try:
        copy = Path(copy_dir) / "session.db"
        for suffix in ("-wal", "-journal"):  # before the database: a checkpoint in between loses nothing
            side = Path(f"{path}{suffix}")
            if side.is_file():
                _copy(side, Path(f"{copy}{suffix}"))
        _copy(path, copy)
        con = sqlite3.connect(copy, factory=_PrivateCopy)
    except BaseException:
        shutil.rmtree(copy_dir, ignore_errors=True)
        raise
    con._copy_dir = copy_dir
    con.text_factory = _text
    return con


def messages_table(con: sqlite3.Connection) -> str | None:
    """The table holding ``session_id`` and ``message_data`` (``agent_messages`` by default)."""
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    for name in sorted(names, key=lambda n: n != "agent_messages"):
        cols = {r[1] for r in con.execute(f'PRAGMA table_info("{name}")')}
        if {"id", "session_id", "message_data"} <= cols:
            return name
    return None


def sessions(con: sqlite3.Connection, table: str) -> list[dict[str, Any]]:
    """Every session in the table, newest (highest row id) first."""
    rows = con.execute(f'SELECT session_id, COUNT(*), MAX(id) FROM "{table}" GROUP BY session_id ORDER BY MAX(id) DESC').fetchall()
    return [{"session_id": sid, "items": count, "last_id": last} for sid, count, last in rows]


def _has_columns(con: sqlite3.Connection, table: str, columns: set[str]) -> bool:
    return columns <= {r[1] for r in con.execute(f'PRAGMA table_info("{table}")')}


def branches(con: sqlite3.Connection, session_id: Any) -> list[str]:
    """The session's ``AdvancedSQLiteSession`` branches, the one written last first ([] without
    a ``message_structure`` table)."""
    if not _has_columns(con, "message_structure", {"session_id", "message_id", "branch_id"}):
        return []
    rows = con.execute("SELECT branch_id, MAX(id) FROM message_structure WHERE session_id = ? GROUP BY branch_id ORDER BY MAX(id) DESC", (session_id,))
    return [str(b) for b, _ in rows.fetchall()]


class SqliteSessionReader:
    """Reads one session's rows (of one branch, where the database has them) into a Session;
    :meth:`read_new` adds rows appended since."""

    def __init__(self, path: Path, session_id: str | None = None, branch: str | None = None,
                 con: sqlite3.Connection | None = None, listed: tuple[str, list[dict[str, Any]]] | None = None) -> None:
        """``con``: a connection to read the database through (kept open), instead of a copy of its own;
        ``listed``: the message table and its sessions, as another reader of the same database found them
        (a database of thousands of sessions is listed once, not once per session)."""
        self.path = path
        try:
            own = con is None
            con = connect(path) if con is None else con
            try:
                self.table = messages_table(con) if listed is None else listed[0]
                if self.table is None:
                    raise SessionFormatError(path, None, "this SQLite database has no Agents SDK message table.", "a table with session_id and message_data columns (agent_messages)")
                listed = sessions(con, self.table) if listed is None else listed[1]
                given = session_id
                if session_id is None:
                    session_id = listed[0]["session_id"] if listed else None
                found = branches(con, session_id)
            finally:
                if own:
                    con.close()
        except sqlite3.DatabaseError as exc:
            raise SessionFormatError(path, None, f"cannot read it as SQLite ({exc}).") from None
        if given is not None and not any(s["session_id"] == given for s in listed):
            raise SessionFormatError(path, None, f"no session {session_id!r} in table {self.table}.")
        self.session_id = session_id
        self.branch = branch if branch is not None else (found[0] if found else None)
        extra: dict[str, Any] = {"session_id": session_id, "table": self.table, "sessions": listed}
        if self.branch is not None:
            extra.update(branch=self.branch, branches=found)
        self.session = Session(path=str(path), format=NAME, agent="openai-agents", extra=extra)
        self.items = ItemReader(self.session.messages, self.session.skipped)
        self.last_id = 0
        self.rows = 0

    def _where(self) -> tuple[str, tuple[Any, ...]]:
        """The rows of this session (and branch): SQL condition and its parameters."""
        if self.branch is None:
            return "session_id = ?", (self.session_id,)
        return ("session_id = ? AND id IN (SELECT message_id FROM message_structure WHERE session_id = ? AND branch_id = ?)",
                (self.session_id, self.session_id, self.branch))

    def counts(self, con: sqlite3.Connection) -> tuple[int, int]:
        """``(rows, max id)`` of the session now."""
        where, params = self._where()
        n, last = con.execute(f'SELECT COUNT(*), MAX(id) FROM "{self.table}" WHERE {where}', params).fetchone()
        return n, last or 0

    def read_new(self, con: sqlite3.Connection) -> None:
        where, params = self._where()
        rows = con.execute(f'SELECT id, message_data FROM "{self.table}" WHERE {where} AND id > ? ORDER BY id', (*params, self.last_id)).fetchall()
        for row_id, data in rows:
            self.last_id = row_id
            self.rows += 1
            source = SourceRef(json_path=f"{self.table}[id={row_id}].message_data")
            try:
                item = orjson.loads(data)
            except (orjson.JSONDecodeError, TypeError) as exc:
                self.session.skipped.append(Skipped(where=str(source), reason=f"not valid JSON ({exc})"))
                continue
            if isinstance(item, dict) and "__enc__" in item:
                self.session.skipped.append(ignored(source, "encrypted item (EncryptedSession)"))
                continue
            self.items.add(item, source)

    def take(self) -> tuple[int, list[Message]]:
        return self.items.take()


def turn_usage(con: sqlite3.Connection, reader: SqliteSessionReader) -> None:
    """``AdvancedSQLiteSession``'s ``turn_usage`` rows of the reader's branch into
    ``extra["turn_usage"]``; a one-request turn's usage goes to its one assistant message."""
    if reader.branch is None or not _has_columns(con, "turn_usage", {"session_id", "branch_id", "user_turn_number", "requests"}):
        return
    rows = con.execute("SELECT user_turn_number, requests, input_tokens, output_tokens, input_tokens_details, output_tokens_details FROM turn_usage "
                       "WHERE session_id = ? AND branch_id = ? ORDER BY user_turn_number", (reader.session_id, reader.branch)).fetchall()
    turn_of = dict(con.execute("SELECT message_id, user_turn_number FROM message_structure WHERE session_id = ? AND branch_id = ?",
                               (reader.session_id, reader.branch)).fetchall())
    calls: dict[Any, list[Message]] = {}
    for m in reader.session.messages:
        row_id = _row_id(m.source.json_path)
        if m.role == "assistant" and row_id is not None:
            calls.setdefault(turn_of.get(row_id), []).append(m)
    listed = []
    for turn, requests, input_tokens, output_tokens, in_details, out_details in rows:
        raw = {"input_tokens": input_tokens, "output_tokens": output_tokens, "input_tokens_details": _json(in_details), "output_tokens_details": _json(out_details)}
        listed.append({"turn": turn, "requests": requests, **raw})
        details = raw["input_tokens_details"]
        if isinstance(details, dict) and "cache_write_tokens" in details:  # openai 2.x+ Responses usage
            raw["cache_write_input_tokens"] = details["cache_write_tokens"]
        in_turn = calls.get(turn, [])
        if requests == 1 and len(in_turn) == 1 and in_turn[0].usage is None:
            in_turn[0].usage = usage_from(raw, OPENAI)
    if listed:
        reader.session.extra["turn_usage"] = listed


def _row_id(json_path: str | None) -> int | None:
    """The row id in a source path ``table[id=N].message_data``."""
    if not json_path or "[id=" not in json_path:
        return None
    digits = json_path.split("[id=", 1)[1].split("]", 1)[0]
    return int(digits) if digits.isdigit() else None


def _json(text: Any) -> Any:
    try:
        return orjson.loads(text) if isinstance(text, str) else None
    except orjson.JSONDecodeError:
        return None


def read_database(path: Path, session_id: str | None = None) -> Session:
    reader = SqliteSessionReader(path, session_id)
    con = connect(path)
    try:
        reader.read_new(con)
        turn_usage(con, reader)
        add_side_conversations(reader, con)
    except sqlite3.DatabaseError as exc:
        raise SessionFormatError(path, None, f"cannot read it as SQLite ({exc}).") from None
    finally:
        con.close()
    return reader.session


def add_side_conversations(reader: SqliteSessionReader, con: sqlite3.Connection) -> None:
    """The shown session's other branches (``branch:<id>``) and the database's other sessions
    (``session:<id>``) as sidechains of ``reader``'s session, as they are now (a follower reads
    them when it starts and when it reloads; it follows the shown session's rows)."""
    for other in reader.session.extra.get("branches", [])[1:]:
        side = SqliteSessionReader(reader.path, reader.session_id, other, con, (reader.table, reader.session.extra["sessions"]))
        side.read_new(con)
        reader.session.sidechains[f"branch:{other}"] = side.session.messages
    _other_sessions(reader, con)


def _other_sessions(reader: SqliteSessionReader, con: sqlite3.Connection) -> None:
    """The database's other sessions as sidechains ``session:<id>``, with a notice naming the one
    shown (a database shared by several users or conversations holds one per ``session_id``)."""
    listed = reader.session.extra["sessions"]
    others = [s["session_id"] for s in listed if s["session_id"] != reader.session_id]
    for other in others:
        side = SqliteSessionReader(reader.path, other, None, con, (reader.table, listed))
        side.read_new(con)
        reader.session.sidechains[f"session:{other}"] = side.session.messages
        reader.session.extra.setdefault(SEPARATE_SESSIONS, []).append(f"session:{other}")
    if others:
        reader.session.skipped.insert(0, ignored(
            reader.table, f"{len(listed)} sessions in this database: showing {reader.session_id} (the newest row); "
            "the others are sidechains (open one with --sidechain session:SESSION_ID)"))


def read(path: Path) -> Session:
    return read_database(path)


def detect(probe: Probe) -> int:
    if probe.is_dir or not probe.head.startswith(SQLITE_MAGIC):
        return 0
    try:
        con = connect(probe.path)
        try:
            return 90 if messages_table(con) else 0
        finally:
            con.close()
    except sqlite3.DatabaseError:
        return 0


FORMAT = register(
    Format(
        name=NAME,
        description="OpenAI Agents SDK SQLiteSession database (agent_messages rows of Responses items)",
        detect=detect,
        read=read,
        suffix=".db",
        follow="sqlite",
    )
)
