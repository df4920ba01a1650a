"""Search message text (``/``, ``n``, ``N``): a thread worker walks the rows from the cursor,
wrapping round, and the cursor moves to the first row whose text contains the term
(case-insensitive). :class:`Search` owns the term; the app composes it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..model import Message, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from .engine import PlanResult
from .messages import SearchDone
from .parts import Services


def searchable(message: Message) -> str:
    """All the text search looks at in a message: text, tool names, arguments and results."""
    parts = []
    for b in message.content:
        if isinstance(b, TextBlock):
            parts.append(b.text)
        elif isinstance(b, ToolCallBlock):
            parts.append(b.name)
            parts.append(b.arguments)
        elif isinstance(b, ToolResultBlock):
            parts.append(b.text)
        elif isinstance(b, ThinkingBlock):
            parts.append(b.thinking)
    return "\n".join(parts)


def find_row(term: str, result: PlanResult, start: int, direction: int,
             cancelled: Callable[[], bool] = lambda: False) -> tuple[int | None, int]:
    """The first row from ``start`` on (stepping by ``direction``, wrapping round) whose text
    contains ``term``, case-insensitive, and how many rows were looked at. (None, n): no row does;
    (None, k < n): cancelled."""
    rows = result.rows
    n = len(rows)
    needle = term.lower()
    messages = result.snapshot.view.messages
    for step in range(n):
        if step % 512 == 0 and cancelled():
            return None, step
        row = (start + direction * step) % n
        item = rows[row]
        text = searchable(messages[item]) if type(item) is int else item.text
        if needle in text.lower():
            return row, step + 1
    return None, n


class SearchList(Protocol):
    """What search needs of the message list."""

    cursor: int

    def set_search(self, term: str) -> None: ...
    def move_cursor(self, row: int, *, scroll: bool = True, announce: bool = True) -> None: ...
    def scroll_cursor_visible(self, center: bool = False) -> None: ...
    def focus(self, scroll_visible: bool = True) -> object: ...


class SearchBox(Protocol):
    """What search needs of the search input."""

    value: str

    def has_class(self, *names: str) -> bool: ...
    def add_class(self, *names: str, update: bool = True) -> object: ...
    def remove_class(self, *names: str, update: bool = True) -> object: ...
    def focus(self, scroll_visible: bool = True) -> object: ...


class Search:
    """The search term and the search bar. ``result()`` is the plan on screen (None before the
    first); matches are found off the UI thread and come back through :meth:`done`."""

    def __init__(self, services: Services, *, rows: Callable[[], SearchList], box: Callable[[], SearchBox],
                 result: Callable[[], PlanResult | None]) -> None:
        self.services = services
        self._rows = rows
        self._box = box
        self._result = result
        self.term = ""

    def open(self) -> None:
        """Show the search bar with the current term (``/``)."""
        box = self._box()
        box.remove_class("hidden")
        box.value = self.term
        box.focus()

    def close(self) -> bool:
        """Hide the search bar if it is open; True if it was."""
        box = self._box()
        if box.has_class("hidden"):
            return False
        box.add_class("hidden")
        self._rows().focus()
        return True

    def submitted(self, value: str) -> None:
        """The search bar's enter: hide it and search for its text from the selected row on."""
        self._box().add_class("hidden")
        self._rows().focus()
        self.start(value.strip())

    def start(self, term: str) -> None:
        """Search for ``term`` from the selected row on (an empty term clears the search)."""
        self.term = term
        self._rows().set_search(term)
        self.services.show_status(None)
        if term:
            self._find(1, include_current=True)

    def next(self, direction: int) -> None:
        """``n`` / ``N``: the next match after (or before) the cursor; opens the bar with no term."""
        if not self.term:
            self.open()
            return
        self._find(direction)

    def _find(self, direction: int, include_current: bool = False) -> None:
        result = self._result()
        if result is None:
            return
        cursor = self._rows().cursor
        start = cursor if include_current else cursor + direction
        term, post = self.term, self.services.post

        def job(cancelled: Callable[[], bool]) -> None:
            row, searched = find_row(term, result, start, direction, cancelled)
            if row is not None or searched == len(result.rows):
                post(SearchDone(term, row, searched))

        self.services.run_thread(job, group="search")

    def done(self, message: SearchDone) -> None:
        """A search finished: move to the match, or say there is none (stale terms are ignored)."""
        if message.term != self.term:
            return
        if message.row is None:
            self.services.notify(f"no message contains {message.term!r}", timeout=3)
            self.services.show_status(f"no match for {message.term!r}")
            return
        rows = self._rows()
        rows.move_cursor(message.row)
        rows.scroll_cursor_visible(center=True)
        self.services.show_status(f"match: row {message.row}")
