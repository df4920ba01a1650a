"""Live follow of a growing session file (``--follow``, on by default for JSONL): the library's
:class:`~inspector.follow.Follower` reads what was appended; ``watchfiles`` wakes it as soon as
the file changes (a one-second poll is the fallback); a thread worker rebuilds the view and counts
only the new messages; the app swaps them in and replans. A truncated, replaced or deleted file
shows a notice and keeps what was loaded. Mixed into :class:`~inspector.tui.app.InspectorApp`."""

from __future__ import annotations

import gc
from pathlib import Path

from textual import work

from ..units import build_view
from . import engine
from .engine import ViewInfo
from .messages import SessionGrew

FOLLOW_POLL_SECONDS = 1.0


class FollowMixin:
    def _start_follow(self) -> None:
        if not self.session_path:
            return
        wanted = self.follow_requested
        if wanted is None:
            wanted = self._appendable()
        if not wanted:
            self._update_status()
            return
        try:
            from ..follow import Follower
        except ImportError:
            self.notify("following needs inspector.follow, which is not available", severity="warning")
            return
        try:
            self.follower = Follower(self.session_path, self.format_name)
        except Exception as exc:  # a format that cannot be followed
            self.notify(f"cannot follow this file: {exc}", severity="warning", timeout=6)
            return
        self.following = True
        self._watch_worker(self.session_path)
        self.set_interval(FOLLOW_POLL_SECONDS, self.poll_follow, name="follow-poll")
        self._update_status()

    def _appendable(self) -> bool:
        try:
            from ..formats import FORMATS

            fmt = FORMATS.get(self.format_name)
            return bool(fmt and fmt.appendable)
        except Exception:
            return str(self.session_path).endswith(".jsonl")

    def action_toggle_follow(self) -> None:
        if self.follower is None:
            self.follow_requested = True
            self._start_follow()
            return
        self.following = not self.following
        if self.following:
            self.list.scroll_end(animate=False)
            self.poll_follow()
        self._update_status()

    @work(exclusive=True, group="watch", exit_on_error=False, description="watch")
    async def _watch_worker(self, path: str) -> None:
        """Wake the follower as soon as the file changes (the interval poll is the fallback)."""
        try:
            from watchfiles import awatch
        except ImportError:
            return
        target = Path(path).resolve()
        async for changes in awatch(target.parent, debounce=50, step=25, recursive=False):
            if any(Path(p).resolve() == target for _, p in changes) and self.following:
                self.poll_follow()

    def poll_follow(self) -> None:
        if self.following and self.follower is not None:
            self._follow_worker()

    @work(thread=True, exclusive=True, group="follow", exit_on_error=False, description="follow")
    def _follow_worker(self) -> None:
        update = self.follower.poll()
        if update is None:
            return
        first = getattr(update, "first", len(self.session.messages))
        new_messages = getattr(update, "messages", []) or []
        notice = getattr(update, "notice", None)
        session = getattr(update, "session", None)
        if not new_messages:
            if notice:
                self.post_message(SessionGrew(None, None, None, first, 0, notice))
            return
        if session is None:
            return
        session = session.model_copy(update={"messages": list(session.messages)})
        view = build_view(session)
        table = self.table
        new_table = engine.count(session.messages, session.tools, table.encoding, table.profile, previous=table,
                                 keep=min(first, len(table.counts)))
        self.post_message(SessionGrew(session, view, new_table, first, len(new_messages), notice))

    def on_session_grew(self, message: SessionGrew) -> None:
        if message.notice:
            self.notice = message.notice
            self.notify(message.notice, severity="warning", timeout=8)
        if message.session is not None:
            self.session = message.session
            self.view = message.view
            self.info = ViewInfo(message.view)
            self.table = message.table
            gc.freeze()
            if self.exact_pending:
                self._count_worker(self.session, self.state.encoding, self.state.profile, None)
        self._update_status()
        if message.session is not None:
            self.request_plan()
