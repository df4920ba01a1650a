"""Live follow of a session while an agent writes it (``--follow``, on by default for every format
that can grow: the inspector's, Claude Code's and Codex's JSONL files, Strands session
directories, Agents SDK SQLite databases). Mixed into :class:`~inspector.tui.app.InspectorApp`.

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

import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import work

from ..model import Message, Session
from ..tokens import TokenTable
from ..units import SessionView, build_view
from . import engine
from .engine import ViewInfo
from .messages import FollowPolled

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


def _replay_from(old: SessionView, new: SessionView, first: int) -> int:
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


class FollowMixin:
    # set by InspectorApp.__init__
    follow_requested: bool | None
    following: bool
    follow_started: bool
    follow_stopped: bool
    follower: Any

    def _start_follow(self) -> None:
        if not self.session_path or self.follow_started:
            return
        from ..follow_dir import can_follow, followable_formats

        followable = can_follow(self.format_name)
        wanted = followable if self.follow_requested is None else self.follow_requested
        if not wanted:
            self._update_status()
            return
        if not followable:
            self.notify(f"{self.format_name} sessions cannot be followed live: only {followable_formats()} "
                        f"sessions grow while an agent runs.",
                        severity="warning", timeout=6)
            self._update_status()
            return
        self.follow_started = True
        self.following = True
        self._watch_worker(self.session_path, self.format_name)
        self._follow_interval = self.set_interval(FOLLOW_POLL_SECONDS, self.poll_follow, name="follow-poll")
        self.poll_follow()  # the first poll builds the follower, off the UI thread
        self._update_status()

    def action_toggle_follow(self) -> None:
        if not self.follow_started:
            self.follow_requested = True
            self._start_follow()
            return
        if self.follow_stopped:
            self.notify(self.notice or "no longer following this session", severity="warning", timeout=6)
            return
        self.following = not self.following
        if self.following:
            self.list.scroll_end(animate=False)
            self.poll_follow()
        self._update_status()

    def _stop_follow(self) -> None:
        self.follow_stopped = True
        self.following = False
        self.workers.cancel_group(self, "watch")
        for timer in (self._follow_interval, self._follow_timer):
            if timer is not None:
                timer.stop()
        self._follow_interval = self._follow_timer = None

    @work(exclusive=True, group="watch", exit_on_error=False, description="watch")
    async def _watch_worker(self, path: str, fmt: str) -> None:
        """Wake the follower as soon as the source changes (the interval poll is the fallback)."""
        try:
            from watchfiles import awatch
        except ImportError:
            return
        root, recursive, matters = watch_target(Path(path), fmt)
        async for changes in awatch(root, debounce=50, step=25, recursive=recursive):
            if self.following and any(matters(p) for _, p in changes):
                self.poll_follow()

    def poll_follow(self) -> None:
        """Poll the follower now, or as soon as the previous poll is done and its cost allows."""
        if not self.following or self.follow_stopped:
            return
        if self._follow_busy:
            self._follow_again = True
            return
        wait = self._follow_not_before - time.monotonic()
        if wait > 0:
            if self._follow_timer is None:
                self._follow_timer = self.set_timer(wait, self._follow_timer_fired)
            return
        self._follow_busy = True
        self._follow_worker(self.follower, self.session, self.table, self.info)

    def _follow_timer_fired(self) -> None:
        self._follow_timer = None
        self.poll_follow()

    @work(thread=True, group="follow", exit_on_error=False, description="follow")
    def _follow_worker(self, follower: Any, session: Session, table: TokenTable, info: ViewInfo) -> None:
        t0 = time.thread_time()  # the worker's own CPU, not the time it waited for the GIL
        try:
            if follower is None:
                from ..follow_dir import follower_for

                follower = follower_for(self.session_path, self.format_name)
                first = sync_start(session.messages, follower.session.messages)
                changed = follower.session.messages[first:]
                notice, stopped = None, False
            else:
                update = follower.poll()
                first, changed, notice, stopped = update.first, update.messages, update.notice, update.stopped
            if first > len(session.messages):  # cannot happen after the first sync; stay whole anyway
                first = len(session.messages)
                changed = follower.session.messages[first:]
            messages = merge_messages(session.messages, first, changed)
            if messages is None:
                self.post_message(FollowPolled(follower, notice=notice, stopped=stopped,
                                               seconds=time.thread_time() - t0))
                return
            source = follower.session
            grown = source.model_copy(update={"messages": messages, "tools": list(source.tools),
                                              "skipped": list(source.skipped)})
            view = build_view(grown)
            new_info = ViewInfo(view)
            new_info.keep_from(info, first)
            new_table = engine.count(messages, grown.tools, table.encoding, table.profile, previous=table,
                                     keep=min(first, len(table.counts)))
        except Exception as exc:  # a follower that cannot start or read: say so, keep what is shown
            self.post_message(FollowPolled(follower, error=f"cannot follow {self.session_path}: {exc}"))
            return
        self.post_message(FollowPolled(follower, session=grown, view=view, info=new_info, table=new_table,
                                       base_table=table, first=first, notice=notice, stopped=stopped,
                                       seconds=time.thread_time() - t0))

    def on_follow_polled(self, message: FollowPolled) -> None:
        self._follow_busy = False
        if message.follower is not None:
            self.follower = message.follower
        self._follow_not_before = time.monotonic() + max(FOLLOW_MIN_GAP, FOLLOW_COST_FACTOR * message.seconds)
        if message.error:
            self.notice = message.error
            self.notify(message.error, severity="error", timeout=8)
            self._stop_follow()
        if message.notice and message.notice != self._shown_notice:
            self._shown_notice = self.notice = message.notice
            self.notify(message.notice, severity="warning", timeout=8)
        if message.stopped:
            self._stop_follow()
        if message.session is not None:
            self._apply_growth(message)
        self._update_status()
        if self._follow_again:
            self._follow_again = False
            self.poll_follow()

    def _apply_growth(self, message: FollowPolled) -> None:
        first = message.first
        table = message.table
        current = self.table
        if message.base_table is not current:
            # exact counts arrived, or the counter changed, while the worker ran: count the
            # changed messages on top of what the app has now
            table = engine.count(message.session.messages, message.session.tools, current.encoding, current.profile,
                                 previous=current, keep=min(first, len(current.counts)))
        old_view = self.view
        self.session = message.session
        self.view = message.view
        self.info = message.info
        self.table = table
        if self.exact_pending:  # a running exact count must recount from here when it ends
            self._count_dirty = min(self._count_dirty, first)
        grown_from = _replay_from(old_view, message.view, first)
        self._replay_growth = grown_from if self._replay_growth is None else min(self._replay_growth, grown_from)
        gc.freeze()
        self.request_plan()
