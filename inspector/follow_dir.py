"""Live-follow the session formats that are not one append-only file: Strands directories (a new
``message_<n>.json`` per message), OpenAI Agents SDK SQLite databases (a new row per item) and
files rewritten whole on each change (Gemini CLI chats) or directories whose files are (OpenHands
V1 conversations). No Textual here.

Both followers have the shape of :class:`inspector.follow.Follower`: ``session``, ``stopped``,
``notice`` and ``poll() -> FollowUpdate`` (``messages`` = ``session.messages[first:]``, new or
changed since the last poll). The Session object is updated in place, so a view holding it stays
valid.

- :class:`StrandsFollower` reads only the new message files while ``agent.json`` is unchanged.
  When ``agent.json`` changes (the conversation manager trimmed or summarised) or a stored message
  changes (redaction), the directory is read again and the update starts at the first message
  that differs, with a notice. A file that does not parse yet is retried at the next poll.
- :class:`SqliteFollower` polls the session's row count and ``max(id)``: new rows are read through
  the same item reader; rows removed (``pop_item``, ``clear_session``) reload the session with a
  notice. The database is only ever read through a private copy (nothing beside it changes), and
  copied only when the database or its ``-wal``/``-journal`` changed since the last poll, once
  per poll.

- :class:`RewriteFollower` re-reads a file whose size or modification time changed (for a
  directory: any file in it or in its subdirectories one level down), and the
  update starts at the first message that differs. A file that does not parse (caught
  mid-write) is retried at the next poll.

:func:`follower_for` picks the follower for the format's declared ``follow`` kind
(:data:`FOLLOWERS`); :func:`can_follow` says whether a format can be followed at all. Neither
lists formats: a format says how it grows.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from .follow import FollowUpdate, Follower
from .formats import agents_sqlite, strands
from .formats.base import SessionFormatError, follow_kind, get_format
from .model import Message, Session, Skipped


def _first_difference(old: list[Message], new: list[Message]) -> int:
    for i, (a, b) in enumerate(zip(old, new)):
        if a != b:
            return i
    return min(len(old), len(new))


def _replace(target: Session, fresh: Session) -> None:
    target.messages[:] = fresh.messages
    target.skipped[:] = fresh.skipped
    target.sidechains = fresh.sidechains
    target.extra = fresh.extra
    target.tools = fresh.tools
    target.agent, target.agent_version, target.model = fresh.agent, fresh.agent_version, fresh.model


class _Base:
    def __init__(self) -> None:
        self.stopped = False
        self.notice: str | None = None

    def _stop(self, what: str) -> FollowUpdate:
        self.stopped = True
        n = len(self.session.messages)
        self.notice = f"{self.path} {what}: keeping the {n} message{'s' if n != 1 else ''} already loaded and no longer following it."
        return self._stopped_update()

    def _stopped_update(self) -> FollowUpdate:
        return FollowUpdate(len(self.session.messages), [], self.notice, self.session, True)

    session: Session
    path: Path


class StrandsFollower(_Base):
    """Follows a Strands session or agent directory."""

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path)
        self.session = strands.read(self.path)
        _, self.agent_dir = strands.resolve(self.path)
        self._seen = {n for n, _ in strands.message_files(self.agent_dir)}
        self._sigs = self._signatures()

    def _signatures(self) -> dict[str, tuple[int, int]]:
        """mtime and size of agent.json and every seen message file (to notice rewrites)."""
        out = {}
        for p in [self.agent_dir / "agent.json"] + [p for n, p in strands.message_files(self.agent_dir) if n in self._seen]:
            try:
                st = os.stat(p)
            except FileNotFoundError:
                continue
            out[p.name] = (st.st_mtime_ns, st.st_size)
        return out

    def poll(self) -> FollowUpdate:
        if self.stopped:
            return self._stopped_update()
        if not self.agent_dir.is_dir():
            return self._stop("was deleted")
        files = strands.message_files(self.agent_dir)
        numbers = {n for n, _ in files}
        agent_sig = self._sigs.get("agent.json")
        try:
            st = os.stat(self.agent_dir / "agent.json")
            now_sig = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            now_sig = None
        if now_sig != agent_sig or not self._seen <= numbers or self._rewritten(files):
            return self._reload("agent.json changed (the conversation manager trimmed or summarised)" if now_sig != agent_sig else "stored messages changed")
        messages = self.session.messages
        first = len(messages)
        for n, p in files:
            if n in self._seen:
                continue
            scratch: list[Skipped] = []
            msg = strands.read_message_file(p, self.agent_dir, scratch)
            if msg is None:
                break  # not complete yet (or bad): try again next poll
            msg.index = len(messages)
            messages.append(msg)
            self._seen.add(n)
            st = os.stat(p)
            self._sigs[p.name] = (st.st_mtime_ns, st.st_size)
        return FollowUpdate(first, messages[first:], None, self.session)

    def _rewritten(self, files: list[tuple[int, Path]]) -> bool:
        for n, p in files:
            if n in self._seen:
                try:
                    st = os.stat(p)
                except FileNotFoundError:
                    return True
                if self._sigs.get(p.name) != (st.st_mtime_ns, st.st_size):
                    return True
        return False

    def _reload(self, why: str) -> FollowUpdate:
        try:
            fresh = strands.read(self.path)
        except SessionFormatError as exc:
            return self._stop(f"can no longer be read ({exc.problem})")
        old = list(self.session.messages)
        _replace(self.session, fresh)
        self._seen = {n for n, _ in strands.message_files(self.agent_dir)}
        self._sigs = self._signatures()
        first = _first_difference(old, self.session.messages)
        return FollowUpdate(first, self.session.messages[first:], f"{self.path}: {why}; reloaded from message {first}.", self.session)


class SqliteFollower(_Base):
    """Follows one session of an Agents SDK SQLite database by polling its rows."""

    def __init__(self, path: str | Path, session_id: str | None = None) -> None:
        super().__init__()
        self.path = Path(path)
        self._last_signature = self._signature()
        self._reader = agents_sqlite.SqliteSessionReader(self.path, session_id)
        self.session = self._reader.session
        self._with_connection(self._read_whole)
        self._reader.take()

    def _read_whole(self, con) -> None:
        """The session's rows, and its branches and the database's other sessions as sidechains."""
        self._reader.read_new(con)
        agents_sqlite.add_side_conversations(self._reader, con)

    def _with_connection(self, fn):
        con = agents_sqlite.connect(self.path)
        try:
            return fn(con)
        finally:
            con.close()

    def _signature(self) -> tuple[tuple[int, int, int] | None, ...]:
        """Inode, size and modification time of the database and its side files (None: absent)."""
        sig = []
        for suffix in ("", "-wal", "-journal"):
            try:
                st = os.stat(f"{self.path}{suffix}")
            except OSError:
                sig.append(None)
            else:
                sig.append((st.st_ino, st.st_size, st.st_mtime_ns))
        return tuple(sig)

    def poll(self) -> FollowUpdate:
        if self.stopped:
            return self._stopped_update()
        if not self.path.exists():
            return self._stop("was deleted")
        signature = self._signature()
        if signature == self._last_signature:
            return FollowUpdate(len(self.session.messages), [], None, self.session)
        try:
            con = agents_sqlite.connect(self.path)
            try:
                rows, last = self._reader.counts(con)
                if rows < self._reader.rows or last < self._reader.last_id:
                    con.close()
                    return self._reload()
                if last > self._reader.last_id:
                    self._reader.read_new(con)
            finally:
                con.close()
        except sqlite3.DatabaseError as exc:
            return self._stop(f"can no longer be read ({exc})")
        self._last_signature = signature
        first, messages = self._reader.take()
        return FollowUpdate(first, list(messages), None, self.session)

    def _reload(self) -> FollowUpdate:
        fresh = agents_sqlite.SqliteSessionReader(self.path, self._reader.session_id)
        self._with_connection(lambda con: (fresh.read_new(con), agents_sqlite.add_side_conversations(fresh, con)))
        old = list(self.session.messages)
        _replace(self.session, fresh.session)
        fresh.session = self.session
        fresh.items.messages = self.session.messages
        fresh.items.skipped = self.session.skipped
        fresh.items.dirty = len(self.session.messages)
        self._reader = fresh
        self._last_signature = self._signature()
        first = _first_difference(old, self.session.messages)
        notice = f"{self.path}: rows of session {fresh.session_id} were removed; reloaded from message {first}."
        return FollowUpdate(first, self.session.messages[first:], notice, self.session)


def _tree_signature(path: Path | str, depth: int) -> tuple:
    """``(name, time, size)`` of each entry of directory ``path``, with the entries of its
    subdirectories down to ``depth`` levels, in name order."""
    out = []
    with os.scandir(path) as entries:
        for e in sorted(entries, key=lambda e: e.name):
            try:
                st = e.stat()
                inner = _tree_signature(e.path, depth - 1) if depth > 1 and e.is_dir() else ()
            except FileNotFoundError:  # gone since listed (a temporary file renamed into place)
                continue
            out.append((e.name, st.st_mtime_ns, st.st_size, inner))
    return tuple(out)


class RewriteFollower(_Base):
    """Follows a file its agent writes again whole on every change (read with its format)."""

    def __init__(self, path: str | Path, fmt: str) -> None:
        super().__init__()
        self.path = Path(path)
        self._read = get_format(fmt).read
        self.session = self._read(self.path)
        self._sig = self._signature()

    def _signature(self) -> tuple | None:
        """The file's identity, time and size; for a session kept as a directory (OpenHands V1:
        ``base_state.json`` rewritten, event files added to ``events/`` and possibly written in
        place), the time and size of every file in it and in its subdirectories one level down."""
        try:
            st = os.stat(self.path)
            if not stat.S_ISDIR(st.st_mode):
                return st.st_ino, st.st_mtime_ns, st.st_size
            return st.st_ino, _tree_signature(self.path, depth=2)
        except FileNotFoundError:
            return None

    def poll(self) -> FollowUpdate:
        if self.stopped:
            return self._stopped_update()
        sig = self._signature()
        if sig is None:
            return self._stop("was deleted")
        n = len(self.session.messages)
        if sig == self._sig:
            return FollowUpdate(n, [], None, self.session)
        try:
            fresh = self._read(self.path)
        except (SessionFormatError, OSError):
            return FollowUpdate(n, [], None, self.session)  # caught mid-write: try again next poll
        self._sig = sig
        old = list(self.session.messages)
        _replace(self.session, fresh)
        first = _first_difference(old, self.session.messages)
        notice = None
        # the last message growing (a parallel call joining it) is what a stream's tail does: no notice
        if first < len(old) - 1 or len(self.session.messages) < len(old):
            notice = f"{self.path}: earlier messages changed; reloaded from message {first}."
        return FollowUpdate(first, self.session.messages[first:], notice, self.session)


#: The follower of each follow kind a format may declare (``Format.follow``).
FOLLOWERS = {
    "stream": Follower,
    "directory": StrandsFollower,
    "sqlite": SqliteFollower,
    "rewrite": RewriteFollower,
}


def can_follow(fmt: str) -> bool:
    """Whether sessions of format ``fmt`` can be followed live (its format declares how)."""
    return follow_kind(fmt) in FOLLOWERS


def followable_formats() -> str:
    """The names of the formats that can be followed, for a message (``a, b and c``)."""
    from .formats import FORMATS

    names = [name for name in FORMATS if can_follow(name)]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else "".join(names)


def follower_for(path: str | Path, fmt: str) -> Follower | StrandsFollower | SqliteFollower | RewriteFollower:
    """The follower for ``path`` read as format ``fmt`` (SessionFormatError if it cannot be followed)."""
    kind = follow_kind(fmt)
    if kind == "directory":
        return StrandsFollower(path)
    if kind == "sqlite":
        return SqliteFollower(path)
    if kind == "rewrite":
        return RewriteFollower(path, fmt)
    return Follower(path, fmt)  # an append-only stream; says why when the format is not one


__all__ = ["FOLLOWERS", "RewriteFollower", "SqliteFollower", "StrandsFollower", "can_follow", "followable_formats", "follower_for"]
