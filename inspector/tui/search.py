"""Search message text (``/``, ``n``, ``N``): a thread worker finds every row whose text contains
the term (case-insensitive; kept for the term and plan on screen, so ``n`` costs no scan), and
the cursor moves to the next one the list shows, wrapping round; the status says "match k of N"
and how many more the list's filter hides. Escape with the search bar closed clears the term.
:class:`Search` owns the term; the app composes it."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
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


def matching_rows(term: str, result: PlanResult, cancelled: Callable[[], bool] = lambda: False) -> list[int] | None:
    """Every row of ``result`` whose text contains ``term`` (case-insensitive), in order; None if
    cancelled."""
    needle = term.lower()
    messages = result.snapshot.view.messages
    out = []
    for row, item in enumerate(result.rows):
        if row % 512 == 0 and cancelled():
            return None
        text = searchable(messages[item]) if type(item) is int else item.text
        if needle in text.lower():
            out.append(row)
    return out


def next_match(shown: list[int], cursor: int, direction: int, include_current: bool) -> tuple[int, int] | None:
    """``(shown row, rank)`` of the match after (before) ``cursor`` among the sorted shown rows of
    the matches, wrapping round; None when no match is shown."""
    if not shown:
        return None
    if direction > 0:
        k = bisect_left(shown, cursor) if include_current else bisect_right(shown, cursor)
        k %= len(shown)
    else:
        k = (bisect_left(shown, cursor) - 1) % len(shown)
    return shown[k], k


class SearchList(Protocol):
    """What search needs of the message list."""

    cursor: int

    def set_search(self, term: str) -> None: ...
    def shown_row(self, result_row: int) -> int | None: ...
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
        self._matches: tuple[str, int, list[int]] | None = None  # (term, id of the result, rows)

    def open(self) -> None:
        """Show the search bar with the current term (``/``)."""
        box = self._box()
        box.remove_class("hidden")
        box.value = self.term
        box.focus()

    def close(self) -> bool:
        """Hide the search bar if it is open; True if it was. With the bar closed, clear the
        term (its highlights go)."""
        box = self._box()
        if box.has_class("hidden"):
            if self.term:
                self.start("")
                return True
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
        rows = self._rows()
        cursor = rows.cursor
        term, post = self.term, self.services.post
        cached = self._matches if self._matches is not None and self._matches[:2] == (term, id(result)) else None

        def job(cancelled: Callable[[], bool]) -> None:
            matches = cached[2] if cached else matching_rows(term, result, cancelled)
            if matches is None:
                return
            self._matches = (term, id(result), matches)
            shown = sorted(r for r in (rows.shown_row(m) for m in matches) if r is not None)
            found = next_match(shown, cursor, direction, include_current)
            post(SearchDone(term, None if found is None else found[0], len(result.rows),
                            rank=None if found is None else found[1] + 1, total=len(shown), hidden=len(matches) - len(shown)))

        self.services.run_thread(job, group="search")

    def done(self, message: SearchDone) -> None:
        """A search finished: move to the match, or say there is none (stale terms are ignored)."""
        if message.term != self.term:
            return
        hidden = f" ({message.hidden} more the filter hides: x shows all)" if message.hidden else ""
        if message.row is None:
            self.services.notify(f"no message contains {message.term!r}{hidden}", timeout=3)
            self.services.show_status(f"no match for {message.term!r}{hidden}")
            return
        rows = self._rows()
        rows.move_cursor(message.row)
        rows.scroll_cursor_visible(center=True)
        self.services.show_status(f"match {message.rank} of {message.total} for {message.term!r}{hidden} · n/N next/previous · escape clears")
