"""The top line: which session, its size, how tokens are counted, and the live-follow state."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget


class StatusLine(Widget):
    COMPONENT_CLASSES = {"status--name", "status--label", "status--follow", "status--notice"}
    DEFAULT_CSS = """
    StatusLine { height: 1; background: $primary; color: $background; text-wrap: nowrap; text-overflow: ellipsis; }
    StatusLine > .status--name { color: $background; text-style: bold; }
    StatusLine > .status--label { color: $background; }
    StatusLine > .status--follow { color: $background; text-style: bold reverse; }
    StatusLine > .status--notice { color: $background; background: $warning; text-style: bold; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.name_text = ""
        self.facts = ""
        self.follow = ""
        self.notice = ""
        self.short_facts = ""

    def set(self, *, name: str | None = None, facts: str | None = None, follow: str | None = None,
            notice: str | None = None, short_facts: str | None = None) -> None:
        if name is not None:
            self.name_text = name
        if facts is not None:
            self.facts = facts
        if short_facts is not None:
            self.short_facts = short_facts
        if follow is not None:
            self.follow = follow
        if notice is not None:
            self.notice = notice
        self.refresh()

    def render(self) -> Text:
        t = self.line(self.facts, brand=True)
        if t.cell_len > self.size.width and self.short_facts:
            # too narrow: the follow state and the pipeline matter more than the brand and counts
            t = self.line(self.short_facts, brand=False, badges_first=True)
        return t

    def line(self, facts: str, *, brand: bool, badges_first: bool = False) -> Text:
        s = self.get_component_rich_style
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(" context-inspector " if brand else " ", s("status--name"))
        t.append(self.name_text if badges_first else self.name_text + "  ", s("status--name"))
        if not badges_first:
            t.append(facts, s("status--label"))
        if self.follow:
            t.append("  ")
            t.append(f" {self.follow} ", s("status--follow"))
        if self.notice:
            t.append("  ")
            t.append(f" {self.notice} ", s("status--notice"))
        if badges_first:
            t.append("  ")
            t.append(facts, s("status--label"))
        return t
