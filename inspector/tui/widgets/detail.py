"""The selected message in detail: where it sits, its tokens (and the file's recorded usage), its
status and the reason, the provider rules it breaks, and its content with tool arguments and
results as pretty JSON.

:func:`describe` builds the lines (plain strings, escaped, with a style key each); the
:class:`DetailPane` under the list shows the first of them for every cursor move (built with a
character cap, so a megabyte message costs nothing), and :class:`TextView` shows all of them,
wrapped, in the full-screen detail.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from ...analysis.idle import kept_reason
from ...strategies import Inserted, Status
from ...units import flag_names
from ..engine import PlanResult, detail_sections
from ..text import clean, expand_tabs
from .message_list import STATUS_LABEL, UNIT_LABEL

Line = tuple[str, str]  # (text, style key)

STYLE_KEYS = ("title", "status", "reason", "recorded", "muted", "violation", "heading", "body")


def _status_key(status: Status) -> str:
    return f"status-{status.value}"


def describe(item: int | Inserted, result: PlanResult, max_chars: int | None = None) -> list[Line]:
    """The detail lines of one row. Session text in them is already escaped."""
    lines: list[Line] = []
    view = result.snapshot.view
    table = result.snapshot.table
    plan = result.plan
    approx = "" if table.exact else "≈"
    if type(item) is not int:
        ins: Inserted = item
        replaces = ""
        if ins.replaces:
            replaces = f" · replaces #{ins.replaces[0]}–#{ins.replaces[-1]} ({len(ins.replaces)} messages)"
        sim = " (simulated offline stand-in: the token count is what counts)" if ins.simulated else ""
        lines.append((f"inserted {ins.kind} · role {ins.role} · by {ins.by}{replaces}", "title"))
        lines.append((f"tokens +{approx}{ins.tokens:,}{sim}", "status-inserted"))
        lines.append((f"why: {clean(ins.reason)}", "reason"))
        row = result.rows.index(ins) if ins in result.rows else -1
        for b in result.inserted_breaks.get(row, []):
            lines.append((f"{_provider(b.provider)} would reject this: {clean(b.text)}", "violation"))
        lines.append(("", "body"))
        lines.append(("── text", "heading"))
        text = ins.text if max_chars is None else ins.text[:max_chars]
        lines.extend((expand_tabs(clean(t)), "body") for t in text.split("\n"))
        return lines

    i = item
    message = view.messages[i]
    unit = view.units[view.unit_of[i]]
    tools = ", ".join(dict.fromkeys(view.tool_names[i]))
    where = str(message.source) if (message.source.line is not None or message.source.json_path) else ""
    head = [f"#{i}", f"turn {view.turn_of[i]}", f"unit {UNIT_LABEL[unit.kind]}", f"role {message.role}"]
    if tools:
        head.append(f"tools {clean(tools)}")
    if where:
        head.append(clean(where))
    lines.append((" · ".join(head), "title"))
    before = table.totals[i]
    if plan is not None and i < plan.stop:
        status = plan.status[i]
        after = plan.tokens_after_of[i]
        by = plan.by[i]
        reason = plan.why(i)
        line = f"tokens {approx}{before:,} → {approx}{after:,} · {STATUS_LABEL[status]}"
        if by:
            line += f" by {by}"
        lines.append((line, _status_key(status)))
        lines.append((f"why: {clean(str(reason)) if reason is not None else kept_reason(plan, i)}", "reason"))
        for edit in plan.edits.get(i, []):
            lines.append((f"block {edit.block}: {edit.kind} {edit.tokens_before:,} → {edit.tokens_after:,} tokens"
                          + (f" by {edit.by}" if edit.by else ""), "muted"))
    else:
        lines.append((f"tokens {approx}{before:,} · not part of this call's context", "muted"))
    if message.usage is not None:
        u = message.usage
        parts = []
        if u.input_tokens is not None:
            parts.append(f"input {u.input_tokens:,}")
        if u.cache_read_input_tokens:
            parts.append(f"cache read {u.cache_read_input_tokens:,}")
        if u.cache_creation_input_tokens:
            parts.append(f"cache write {u.cache_creation_input_tokens:,}")
        if u.output_tokens is not None:
            parts.append(f"output {u.output_tokens:,}")
        if parts:
            lines.append(("recorded usage of the call that wrote this message: " + ", ".join(parts), "recorded"))
    flags = flag_names(view.flags[i])
    if flags:
        kind = view.injected[i] if i < len(view.injected) else None  # who wrote it: "attachment", "observation"...
        named = [f"injected ({kind})" if f == "injected" and kind else f.replace("_", " ") for f in flags]
        lines.append(("flags: " + ", ".join(named), "muted"))
    for b in result.breaks.get(i, []):
        lines.append((f"{_provider(b.provider)} would reject this: {clean(b.text)}", "violation"))
    lines.append(("", "body"))
    counts = table.counts[i].blocks if i < len(table.counts) else None
    for heading, body in detail_sections(message, counts, max_chars=max_chars):
        lines.append((f"── {clean(heading)}", "heading"))
        for t in body.split("\n"):
            lines.append((expand_tabs(clean(t)), "body"))
    return lines


def _provider(name: str) -> str:
    return {"openai": "OpenAI", "anthropic": "Anthropic"}.get(name, name)


_DETAIL_CLASSES = {
    "detail--title",
    "detail--reason",
    "detail--recorded",
    "detail--muted",
    "detail--violation",
    "detail--heading",
    "detail--body",
    "detail--status-kept",
    "detail--status-dropped",
    "detail--status-truncated",
    "detail--status-summarized",
    "detail--status-cleared",
    "detail--status-inserted",
}
_DETAIL_CSS = """
    & > .detail--title { color: $primary; text-style: bold; }
    & > .detail--reason { color: $foreground; text-style: italic; }
    & > .detail--recorded { color: $secondary; }
    & > .detail--muted { color: $text-muted; }
    & > .detail--violation { color: $status-violation; text-style: bold; }
    & > .detail--heading { color: $accent; }
    & > .detail--body { color: $foreground; }
    & > .detail--status-kept { color: $status-kept; }
    & > .detail--status-dropped { color: $status-dropped; text-style: bold; }
    & > .detail--status-truncated { color: $status-truncated; text-style: bold; }
    & > .detail--status-summarized { color: $status-summarized; text-style: bold; }
    & > .detail--status-cleared { color: $status-cleared; text-style: bold; }
    & > .detail--status-inserted { color: $status-inserted; text-style: bold; }
"""


class DetailPane(Widget):
    """The first lines of the selected row's detail, under the list."""

    COMPONENT_CLASSES = _DETAIL_CLASSES
    DEFAULT_CSS = "DetailPane { height: 10; background: $panel; padding: 0 1; overflow: hidden; " + _DETAIL_CSS + "}"
    PREVIEW_CHARS = 4000

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[Line] = []

    def show(self, item: int | Inserted | None, result: PlanResult | None) -> None:
        if item is None or result is None or result.plan is None:
            self.lines = [("no message selected", "muted")]
        else:
            self.lines = describe(item, result, max_chars=self.PREVIEW_CHARS)
            if len(self.lines) > 3:
                self.lines.append(("", "body"))
        self.refresh()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y >= len(self.lines):
            return Strip.blank(width, self.rich_style)
        text, key = self.lines[y]
        if y == self.size.height - 1 and len(self.lines) > self.size.height:
            text, key = "… enter: full message · v: rule text", "muted"
        style = self.get_component_rich_style(f"detail--{key}")
        return Strip([Segment(set_cell_size(text, width), style)], width)


class TextView(ScrollView, can_focus=True):
    """Read-only lines, wrapped to the width, drawn with the Line API (any size opens at once)."""

    COMPONENT_CLASSES = _DETAIL_CLASSES
    DEFAULT_CSS = "TextView { background: $surface; overflow-x: hidden; " + _DETAIL_CSS + "}"
    BINDINGS = [
        Binding("up,k", "scroll_up", "Up", show=False),
        Binding("down,j", "scroll_down", "Down", show=False),
        Binding("pageup,b", "page_up", "Page up", show=False),
        Binding("pagedown,space", "page_down", "Page down", show=False),
        Binding("home,g", "scroll_home", "Top", show=False),
        Binding("end,G", "scroll_end", "Bottom", show=False),
    ]

    def __init__(self, lines: list[Line], *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines = lines
        self._wrapped: list[tuple[int, int, int]] = []  # (line, start, stop)
        self._wrap_width = 0
        self._cache: LRUCache[int, Strip] = LRUCache(512)

    def _wrap(self, width: int) -> None:
        if width == self._wrap_width:
            return
        self._wrap_width = width
        self._cache.clear()
        out = []
        w = max(10, width)
        for k, (text, _) in enumerate(self.lines):
            n = len(text)
            if n <= w or cell_len(text) <= w:
                out.append((k, 0, n))
                continue
            start = 0
            while start < n:
                out.append((k, start, min(n, start + w)))
                start += w
        self._wrapped = out
        self.virtual_size = Size(width, len(out))

    def on_resize(self) -> None:
        self._wrap(self.scrollable_content_region.width)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        self._wrap(self.scrollable_content_region.width)
        index = self.scroll_offset.y + y
        if index >= len(self._wrapped):
            return Strip.blank(width, self.rich_style)
        strip = self._cache.get(index)
        if strip is None:
            k, start, stop = self._wrapped[index]
            text, key = self.lines[k]
            style = self.get_component_rich_style(f"detail--{key}")
            strip = Strip([Segment(set_cell_size(text[start:stop], width), style)], width)
            self._cache[index] = strip
        return strip
