"""Search message text (``/``, ``n``, ``N``): a thread worker walks the rows from the cursor,
wrapping round, and the app moves the cursor to the first row whose text contains the term
(case-insensitive). Mixed into :class:`~inspector.tui.app.InspectorApp`."""

from __future__ import annotations

from textual import work
from textual.widgets import Input
from textual.worker import get_current_worker

from ..model import Message, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from .engine import PlanResult
from .messages import SearchDone


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


class SearchMixin:
    def action_search(self) -> None:
        box = self.query_one("#search", Input)
        box.remove_class("hidden")
        box.value = self.search_term
        box.focus()

    def action_search_next(self, direction: int) -> None:
        if not self.search_term:
            self.action_search()
            return
        self._search(self.search_term, direction)

    def _search(self, term: str, direction: int, include_current: bool = False) -> None:
        if self.result is None:
            return
        start = self.list.cursor if include_current else self.list.cursor + direction
        self._search_worker(term, self.result, start, direction)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False, description="search")
    def _search_worker(self, term: str, result: PlanResult, start: int, direction: int) -> None:
        worker = get_current_worker()
        rows = result.rows
        n = len(rows)
        needle = term.lower()
        messages = result.snapshot.view.messages
        for step in range(n):
            if step % 512 == 0 and worker.is_cancelled:
                return
            row = (start + direction * step) % n
            item = rows[row]
            text = searchable(messages[item]) if type(item) is int else item.text
            if needle in text.lower():
                self.post_message(SearchDone(term, row, step + 1))
                return
        self.post_message(SearchDone(term, None, n))

    def on_search_done(self, message: SearchDone) -> None:
        if message.term != self.search_term:
            return
        if message.row is None:
            self.notify(f"no message contains {message.term!r}", timeout=3)
            self._update_status(f"no match for {message.term!r}")
            return
        self.list.move_cursor(message.row)
        self.list.scroll_cursor_visible(center=True)
        self._update_status(f"match: row {message.row}")

    def start_search(self, term: str) -> None:
        """Search for ``term`` from the selected row on (the search bar's enter)."""
        self.search_term = term
        self.list.set_search(term)
        self._update_status()
        if term:
            self._search(term, 1, include_current=True)
