"""Full-screen views of text the user asked to read: one message in full (``enter``) and the
provider rules a plan breaks (``v``). Both draw with :class:`~inspector.tui.widgets.detail.TextView`,
so a megabyte message opens at once."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from ..widgets.detail import Line, TextView


class TextScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q", "dismiss", "Close")]
    DEFAULT_CSS = """
    TextScreen { align: center middle; }
    TextScreen > #text-title { dock: top; height: 1; background: $primary; color: $background; padding: 0 1;
        text-style: bold; }
    TextScreen > TextView { width: 100%; height: 1fr; }
    """

    def __init__(self, title: str, lines: list[Line]) -> None:
        super().__init__()
        self.title_text = title
        self.lines = lines

    def compose(self) -> ComposeResult:
        from rich.text import Text

        yield Static(Text(self.title_text), id="text-title")
        yield TextView(self.lines, id="text-view")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(TextView).focus()
