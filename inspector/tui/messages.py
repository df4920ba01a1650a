"""Messages the workers post to the app. Workers compute; only the app's handlers change state
or touch widgets (so a result that arrives late can be recognised as stale and ignored)."""

from __future__ import annotations

from typing import Any

from textual.message import Message as TMessage

from ..model import Session
from ..tokens import TokenTable
from ..units import SessionView
from .engine import CallPoint, PlanResult, ViewInfo


class PlanReady(TMessage):
    def __init__(self, result: PlanResult) -> None:
        super().__init__()
        self.result = result


class ReplayPoints(TMessage):
    def __init__(self, key: Any, points: list[CallPoint], pending: int, note: str = "", money: Any = None) -> None:
        super().__init__()
        self.key = key
        self.points = points
        self.pending = pending
        self.note = note
        self.money = money  # inspector.analysis.money.Money, once every call is replayed


class CountProgress(TMessage):
    def __init__(self, done: int, total: int) -> None:
        super().__init__()
        self.done = done
        self.total = total

    def can_replace(self, message: TMessage) -> bool:
        return isinstance(message, CountProgress)


class CountDone(TMessage):
    def __init__(self, table: TokenTable, messages: int) -> None:
        super().__init__()
        self.table = table
        self.messages = messages


class Prepared(TMessage):
    """A big session's structure and first (estimated) counts, built off the UI thread after
    the first paint."""

    def __init__(self, view: SessionView, info: ViewInfo, table: TokenTable) -> None:
        super().__init__()
        self.view = view
        self.info = info
        self.table = table


class CounterChecked(TMessage):
    """The counter ``requested`` for a big session is loaded; ``warning``: it could not be, and
    ``encoding`` is the fallback to count with instead."""

    def __init__(self, requested: str, encoding: str, warning: str | None) -> None:
        super().__init__()
        self.requested = requested
        self.encoding = encoding
        self.warning = warning


class FollowPolled(TMessage):
    """One poll of the follower, done. ``session`` is None when nothing changed; otherwise it is
    the app's new session (messages ``first:`` are new or changed), with its view, view info and
    counts (``table``, counted on top of ``base_table``). ``facts_changed``: a session fact every call's
    figures read (:data:`inspector.model.CALL_FACTS`) changed. ``seconds``: the worker's time."""

    def __init__(self, follower: Any, *, session: Session | None = None, view: SessionView | None = None,
                 info: ViewInfo | None = None, table: TokenTable | None = None, base_table: TokenTable | None = None,
                 first: int = 0, notice: str | None = None, stopped: bool = False, error: str | None = None,
                 facts_changed: bool = False, seconds: float = 0.0) -> None:
        super().__init__()
        self.follower = follower
        self.facts_changed = facts_changed
        self.session = session
        self.view = view
        self.info = info
        self.table = table
        self.base_table = base_table
        self.first = first
        self.notice = notice
        self.stopped = stopped
        self.error = error
        self.seconds = seconds


class SearchDone(TMessage):
    def __init__(self, term: str, row: int | None, searched: int, *, rank: int | None = None, total: int = 0,
                 hidden: int = 0) -> None:
        super().__init__()
        self.term = term
        self.row = row
        self.searched = searched
        self.rank = rank  # the match's place among the ``total`` shown matches, from 1
        self.total = total
        self.hidden = hidden  # matches the list's filter hides
