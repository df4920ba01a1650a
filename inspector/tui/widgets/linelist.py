"""A Line-API list with a row cursor: the base of the message list and the pipeline panel.

Only the rows on screen are rendered (``render_line``), each once: rendered rows are kept in a
small cache of Strips until the data, the size, the theme or the cursor row changes. Row 0 of the
widget can be a fixed header line that does not scroll.
"""

from __future__ import annotations

from rich.style import Style
from textual.binding import Binding
from textual.cache import LRUCache
from textual.events import Click
from textual.geometry import Size
from textual.message import Message as TMessage
from textual.scroll_view import ScrollView
from textual.strip import Strip


class LineList(ScrollView, can_focus=True):
    """Rows drawn by :meth:`render_row`; ``cursor`` is the selected row."""

    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False, id="cursor-up", tooltip="list: previous row"),
        Binding("down,j", "cursor(1)", "Down", show=False, id="cursor-down", tooltip="list: next row"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="page-up", tooltip="list: one page up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="page-down", tooltip="list: one page down"),
        Binding("home,g", "first", "First", show=False, id="first-row", tooltip="list: first row"),
        Binding("end,G", "last", "Last", show=False, id="last-row", tooltip="list: last row"),
    ]

    #: Lines at the top that do not scroll (a column header).
    HEADER_LINES = 0

    class CursorMoved(TMessage):
        def __init__(self, widget: LineList, row: int) -> None:
            super().__init__()
            self.widget = widget
            self.row = row

        def can_replace(self, message: TMessage) -> bool:
            return isinstance(message, LineList.CursorMoved) and message.widget is self.widget

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.cursor = 0
        self._strips: LRUCache[tuple[int, bool, int], Strip] = LRUCache(1024)
        self._styles: dict[str, Style] = {}

    # --- to implement -----------------------------------------------------------------------
    def row_count(self) -> int:
        return 0

    def render_row(self, row: int, width: int, selected: bool) -> Strip:
        raise NotImplementedError

    def render_header(self, y: int, width: int) -> Strip:
        return Strip.blank(width, self.rich_style)

    # --- styles -----------------------------------------------------------------------------
    def style(self, name: str, partial: bool = False) -> Style:
        """A component class's Rich style, cached until the theme changes."""
        key = f"{name}|{partial}"
        style = self._styles.get(key)
        if style is None:
            style = self.get_component_rich_style(name, partial=partial)
            self._styles[key] = style
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()

    # --- data changes -----------------------------------------------------------------------
    def reset(self, keep_cursor: int | None = None) -> None:
        """The rows changed: drop every cached line, set the virtual size, repaint."""
        self._strips.clear()
        count = self.row_count()
        if keep_cursor is not None:
            self.cursor = keep_cursor
        self.cursor = max(0, min(self.cursor, count - 1)) if count else 0
        self.virtual_size = Size(self.size.width, count + self.HEADER_LINES)
        self.refresh()

    def refresh_row(self, row: int) -> None:
        for key in [k for k in self._strips.keys() if k[0] == row]:
            self._strips.discard(key)
        self.refresh_line(row + self.HEADER_LINES)

    def on_resize(self) -> None:
        self._strips.clear()
        self.virtual_size = Size(self.size.width, self.row_count() + self.HEADER_LINES)

    # --- rendering --------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y < self.HEADER_LINES:
            return self.render_header(y, width)
        row = self.scroll_offset.y + y - self.HEADER_LINES
        if row >= self.row_count() or row < 0:
            return Strip.blank(width, self.rich_style)
        selected = row == self.cursor
        key = (row, selected, width)
        strip = self._strips.get(key)
        if strip is None:
            strip = self.render_row(row, width, selected)
            self._strips[key] = strip
        return strip

    # --- cursor -----------------------------------------------------------------------------
    @property
    def body_height(self) -> int:
        return max(1, self.scrollable_content_region.height - self.HEADER_LINES)

    def move_cursor(self, row: int, *, scroll: bool = True, announce: bool = True) -> None:
        count = self.row_count()
        if not count:
            return
        row = max(0, min(row, count - 1))
        old = self.cursor
        self.cursor = row
        if old != row:
            self.refresh_row(old)
            self.refresh_row(row)
        if scroll:
            self.scroll_cursor_visible()
        if announce:
            self.post_message(self.CursorMoved(self, row))

    def scroll_cursor_visible(self, center: bool = False) -> None:
        top = round(self.scroll_y)
        height = self.body_height
        row = self.cursor
        if center:
            self.scroll_to(y=max(0, row - height // 2), animate=False, immediate=True)
        elif row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif row > top + height - 1:
            self.scroll_to(y=row - height + 1, animate=False, immediate=True)

    def action_cursor(self, delta: int) -> None:
        self.move_cursor(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        step = self.body_height - 1 or 1
        self.move_cursor(self.cursor + direction * step)

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(self.row_count() - 1)

    def on_click(self, event: Click) -> None:
        y = event.y
        if y < self.HEADER_LINES:
            return
        row = round(self.scroll_y) + y - self.HEADER_LINES
        if 0 <= row < self.row_count():
            self.move_cursor(row, scroll=False)
            if event.chain == 2:
                self.on_double_click(row)

    def on_double_click(self, row: int) -> None:
        """Override: what a double click on a row does."""
