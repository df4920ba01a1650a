"""Messages the workers post to the app. Workers compute; only the app's handlers change state
or touch widgets (so a result that arrives late can be recognised as stale and ignored)."""

from __future__ import annotations

from typing import Any

from textual.message import Message as TMessage

from ..model import Session
from ..tokens import TokenTable
from ..units import SessionView
from .engine import CallPoint, PlanResult


class PlanReady(TMessage):
    def __init__(self, result: PlanResult) -> None:
        super().__init__()
        self.result = result


class ReplayPoints(TMessage):
    def __init__(self, key: Any, points: list[CallPoint], pending: int, note: str = "") -> None:
        super().__init__()
        self.key = key
        self.points = points
        self.pending = pending
        self.note = note


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


class SessionGrew(TMessage):
    """The followed file changed: a new session, its view and counts (``notice`` for the user)."""

    def __init__(self, session: Session | None, view: SessionView | None, table: TokenTable | None,
                 first: int, added: int, notice: str | None) -> None:
        super().__init__()
        self.session = session
        self.view = view
        self.table = table
        self.first = first
        self.added = added
        self.notice = notice


class SearchDone(TMessage):
    def __init__(self, term: str, row: int | None, searched: int) -> None:
        super().__init__()
        self.term = term
        self.row = row
        self.searched = searched
