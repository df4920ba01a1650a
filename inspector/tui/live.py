"""Live follow of a session while an agent writes it (``--follow``, on by default for every format
that can grow: the inspector's, Claude Code's and Codex's JSONL files, Strands session
directories, Agents SDK SQLite databases). :class:`Follow` owns the follower and its schedule; the
app composes it and applies what it reads (:meth:`Follow.polled` hands each grown session back).

The library's follower (:func:`inspector.follow_dir.follower_for`) reads only what was added: new
lines, new message files, new rows. ``watchfiles`` wakes it as soon as the file, the directory or
the database (or its write-ahead log) changes; a one-second poll is the fallback. One thread
worker at a time polls the follower, copies the new or changed messages (a reader merges a
block-per-line continuation into the message it returned before, so the app never shares a
message object with the follower), rebuilds the view and counts only those messages; the app
swaps them in and replans once per poll, however many records the poll found. Polls are spaced by
what the last one cost (rebuilding the view of a big session is the expensive part), so a session
written at 50 records a second stays responsive. A truncated, replaced or deleted source shows a
notice and keeps what was loaded.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import CALL_FACTS, Message, Session
from ..tokens import TokenTable
from ..units import SessionView, build_view
from . import engine
from .engine import ViewInfo
from .messages import FollowPolled
from .parts import Cancellable, Services, Stoppable

#: Fallback poll when watchfiles is missing or misses an event.
FOLLOW_POLL_SECONDS = 1.0
#: Two polls start at least this far apart, and at least this many times the CPU the last one
#: took (so following a big session uses at most about a quarter of a core).
FOLLOW_MIN_GAP = 0.1
FOLLOW_COST_FACTOR = 3.0
#: Messages at the end of the loaded session compared with the follower's own first read (the
#: source may have grown between loading it and starting to follow it).
SYNC_TAIL = 64
#: Formats kept in a database file: its write-ahead log and journal change first.
DATABASE_FORMATS = ("agents_sqlite",)


def sync_start(loaded: list[Message], followed: list[Message], tail: int = SYNC_TAIL) -> int:
    """The first message where the follower's first read differs from the loaded session
    (``len(loaded)`` when it only has more messages, or the same ones)."""
    n = min(len(loaded), len(followed))
    for i in range(max(0, n - tail), n):
        if loaded[i] != followed[i]:
            return i
    return n


def own_copy(message: Message) -> Message:
    """A copy the follower cannot change later: readers extend ``content``, ``extra`` and set
    ``usage`` of a message they already returned when its next line arrives."""
    return message.model_copy(update={"content": list(message.content), "extra": dict(message.extra)})


def merge_messages(current: list[Message], first: int, changed: list[Message]) -> list[Message] | None:
    """The app's messages after an update that replaces ``current[first:]`` with ``changed``
    (None when that changes nothing). Rows from ``first`` on are replaced, not appended to, so a
    continuation merged into the last response never shows twice."""
    if not changed and first >= len(current):
        return None
    return current[:first] + [own_copy(m) for m in changed]


def watch_target(path: Path, fmt: str) -> tuple[Path, bool, Callable[[str], bool]]:
    """What watchfiles watches for a followed session: (folder, recursive, whether a changed path
    matters). A Strands directory: its JSON files at any depth; a database: the file and its
    ``-wal`` / ``-journal`` (never ``-shm``, which readers touch); a JSONL file: the file."""
    path = path.resolve()
    if path.is_dir():
        return path, True, lambda p: p.endswith(".json")
    names = {path.name}
    if fmt in DATABASE_FORMATS:
        names |= {path.name + "-wal", path.name + "-journal"}
    return path.parent, False, lambda p: Path(p).name in names


def replay_from(old: SessionView, new: SessionView, first: int) -> int:
    """The first model call whose replay an update from message ``first`` can change: every call
    from the start of the turn holding ``first`` (that turn's final answer and orphan marks may
    change), in the old view and in the new one."""
    start = first
    for view in (old, new):
        for turn in reversed(view.turns):
            if turn.start <= first:
                start = min(start, turn.start)
                break
    calls = new.calls
    k = len(calls)
    while k > 0 and calls[k - 1].message_index >= start:
        k -= 1
    return k + 1


@dataclass(frozen=True)
class Loaded:
    """What the app shows now, which the next poll grows: its session, counts and view info."""

    session: Session
    table: TokenTable
    info: ViewInfo


class Follow:
    """Following one session file, directory or database. ``requested``: the user's --follow /
    --no-follow (None: follow when the format can grow). ``loaded()`` is what the app shows now;
    ``grown(message)`` swaps a grown session in; ``scroll_end()`` pins the list to the newest row."""

    def __init__(self, services: Services, *, path: str | None, format_name: str, requested: bool | None,
                 loaded: Callable[[], Loaded], grown: Callable[[FollowPolled], None],
                 scroll_end: Callable[[], None]) -> None:
        self.services = services
        self.path = path
        self.format_name = format_name
        self.requested = requested
        self._loaded = loaded
        self._grown = grown
        self._scroll_end = scroll_end
        self.following = False
        self.started = False
        self.stopped = False
        self.follower: Any = None
        #: The standing notice (why following stopped, or what the follower last warned of).
        self.notice = ""
        self._shown_notice: str | None = None
        self._busy = False
        self._again = False
        self._not_before = 0.0
        self._timer: Stoppable | None = None
        self._interval: Stoppable | None = None
        self._watch: Cancellable | None = None

    def badge(self) -> str:
        """What the status line says about following ("" when it never started)."""
        if self.stopped:
            return "follow stopped"
        if self.started:
            return "● following" if self.following else "following paused (f)"
        return ""

    def start(self) -> None:
        if not self.path or self.started:
            return
        from ..follow_dir import can_follow, followable_formats

        followable = can_follow(self.format_name)
        wanted = followable if self.requested is None else self.requested
        if not wanted:
            self.services.show_status(None)
            return
        if not followable:
            self.services.notify(f"{self.format_name} sessions cannot be followed live: only {followable_formats()} "
                                 f"sessions grow while an agent runs.", severity="warning", timeout=6)
            self.services.show_status(None)
            return
        self.started = True
        self.following = True
        self._watch = self.services.run_async(self._watch_changes, group="watch")
        self._interval = self.services.set_interval(FOLLOW_POLL_SECONDS, self.poll)
        self.poll()  # the first poll builds the follower, off the UI thread
        self.services.show_status(None)

    def toggle(self) -> None:
        """``f``: start following, or pause / resume it."""
        if not self.started:
            self.requested = True
            self.start()
            return
        if self.stopped:
            self.services.notify(self.notice or "no longer following this session", severity="warning", timeout=6)
            return
        self.following = not self.following
        if self.following:
            self._scroll_end()
            self.poll()
        self.services.show_status(None)

    def stop(self) -> None:
        self.stopped = True
        self.following = False
        if self._watch is not None:
            self._watch.cancel()
        for timer in (self._interval, self._timer):
            if timer is not None:
                timer.stop()
        self._watch = self._interval = self._timer = None

    async def _watch_changes(self) -> None:
        """Wake the follower as soon as the source changes (the interval poll is the fallback)."""
        try:
            from watchfiles import awatch
        except ImportError:
            return
        root, recursive, matters = watch_target(Path(self.path), self.format_name)
        async for changes in awatch(root, debounce=50, step=25, recursive=recursive):
            if self.following and any(matters(p) for _, p in changes):
                self.poll()

    def poll(self) -> None:
        """Poll the follower now, or as soon as the previous poll is done and its cost allows."""
        if not self.following or self.stopped:
            return
        if self._busy:
            self._again = True
            return
        wait = self._not_before - time.monotonic()
        if wait > 0:
            if self._timer is None:
                self._timer = self.services.set_timer(wait, self._timer_fired)
            return
        self._busy = True
        follower, loaded = self.follower, self._loaded()
        self.services.run_thread(lambda cancelled: self.services.post(self.read(follower, loaded)),
                                 group="follow", exclusive=False)

    @property
    def busy(self) -> bool:
        """A poll is running."""
        return self._busy

    def _timer_fired(self) -> None:
        self._timer = None
        self.poll()

    def read(self, follower: Any, loaded: Loaded) -> FollowPolled:
        """One poll, in a worker thread: what the source added since ``loaded``, with its view and
        counts (only the changed messages are counted)."""
        t0 = time.thread_time()  # the worker's own CPU, not the time it waited for the GIL
        session, table, info = loaded.session, loaded.table, loaded.info
        try:
            if follower is None:
                from ..follow_dir import follower_for

                follower = follower_for(self.path, self.format_name)
                first = sync_start(session.messages, follower.session.messages)
                changed = follower.session.messages[first:]
                notice, stopped = None, False
            else:
                update = follower.poll()
                first, changed, notice, stopped = update.first, update.messages, update.notice, update.stopped
            if first > len(session.messages):  # cannot happen after the first sync; stay whole anyway
                first = len(session.messages)
                changed = follower.session.messages[first:]
            source = follower.session
            messages = merge_messages(session.messages, first, changed)
            facts_changed = any(source.extra.get(key) != session.extra.get(key) for key in CALL_FACTS)
            if messages is None:
                if not facts_changed:
                    return FollowPolled(follower, notice=notice, stopped=stopped, seconds=time.thread_time() - t0)
                messages, first = session.messages, len(session.messages)
            # the app's own copy of the session's facts: the follower changes its ``extra`` in place
            extra = dict(source.extra)
            extra.update((key, copy.deepcopy(extra[key])) for key in CALL_FACTS if key in extra)
            grown = source.model_copy(update={"messages": messages, "tools": list(source.tools),
                                              "skipped": list(source.skipped), "extra": extra})
            view = build_view(grown)
            new_info = ViewInfo(view)
            new_info.keep_from(info, first)
            new_table = engine.count(messages, grown.tools, table.encoding, table.profile, previous=table,
                                     keep=min(first, len(table.counts)))
        except Exception as exc:  # a follower that cannot start or read: say so, keep what is shown
            return FollowPolled(follower, error=f"cannot follow {self.path}: {exc}")
        return FollowPolled(follower, session=grown, view=view, info=new_info, table=new_table, base_table=table,
                            first=first, facts_changed=facts_changed, notice=notice, stopped=stopped, seconds=time.thread_time() - t0)

    def polled(self, message: FollowPolled) -> None:
        """A poll finished: keep its follower, space the next poll by its cost, show its notices,
        hand a grown session to the app."""
        self._busy = False
        if message.follower is not None:
            self.follower = message.follower
        self._not_before = time.monotonic() + max(FOLLOW_MIN_GAP, FOLLOW_COST_FACTOR * message.seconds)
        if message.error:
            self.notice = message.error
            self.services.notify(message.error, severity="error", timeout=8)
            self.stop()
        if message.notice and message.notice != self._shown_notice:
            self._shown_notice = self.notice = message.notice
            self.services.notify(message.notice, severity="warning", timeout=8)
        if message.stopped:
            self.stop()
        if message.session is not None:
            self._grown(message)
        self.services.show_status(None)
        if self._again:
            self._again = False
            self.poll()
