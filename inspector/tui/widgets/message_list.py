"""The message list: one row per message of the context being viewed, drawn with the Line API.

Columns: tool-exchange bracket, position, turn, unit, role, tool, preview, tokens before -> after,
status, and the providers whose rules the row breaks (``!O`` OpenAI, ``!A`` Anthropic). Every
colour is a component class styled from theme variables; every unit and status is also written
as a word, so the list reads without colour. Session text arrives already escaped
(:mod:`inspector.tui.text`) and is drawn as plain segments, never parsed as markup.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.message import Message as TMessage
from textual.strip import Strip

from ...strategies import Inserted, Status
from ...textsafe import visible_line
from ...units import UnitKind
from ..draft import Draft
from ..engine import PlanResult, ViewInfo
from ..text import one_line
from .linelist import LineList

UNIT_LABEL = {
    UnitKind.SYSTEM: "system",
    UnitKind.USER: "user",
    UnitKind.ASSISTANT: "answer",
    UnitKind.TOOL_EXCHANGE: "tool",
    UnitKind.SUMMARY: "summary",
}
UNIT_CLASS = {
    UnitKind.SYSTEM: "msglist--unit-system",
    UnitKind.USER: "msglist--unit-user",
    UnitKind.ASSISTANT: "msglist--unit-assistant",
    UnitKind.TOOL_EXCHANGE: "msglist--unit-tool-exchange",
    UnitKind.SUMMARY: "msglist--unit-summary",
}
STATUS_LABEL = {
    Status.KEPT: "kept",
    Status.DROPPED: "DROPPED",
    Status.TRUNCATED: "truncated",
    Status.SUMMARIZED: "summarized",
    Status.CLEARED: "cleared",
    Status.INSERTED: "inserted",
}
ROLE_LABEL = {"system": "sys", "user": "user", "assistant": "asst", "tool": "tool"}
PROVIDER_MARK = {"openai": "O", "anthropic": "A"}


@dataclass(frozen=True)
class Columns:
    pos: int
    turn: int
    unit: int
    role: int
    tool: int
    preview: int
    tokens: int
    status: int
    rules: int


def _turn_cell(text: str, c: Columns) -> str:
    """The turn column's cell and its space; nothing where the list gave the column up."""
    return text.ljust(c.turn) + " " if c.turn else ""


class MessageList(LineList):
    """Rows of a :class:`~inspector.tui.engine.PlanResult`; before the first one of a big
    session, the parsed messages (:class:`~inspector.tui.draft.Draft`), one row each."""

    HEADER_LINES = 1
    BINDINGS = [
        Binding("enter", "open", "Detail", show=False, id="open-message",
                tooltip="the selected message in full: content, pretty JSON, tokens, reason"),
    ]
    COMPONENT_CLASSES = {
        "msglist--header",
        "msglist--muted",
        "msglist--band",
        "msglist--cursor",
        "msglist--match",
        "msglist--gone",
        "msglist--unit-system",
        "msglist--unit-user",
        "msglist--unit-assistant",
        "msglist--unit-tool-exchange",
        "msglist--unit-summary",
        "msglist--unit-truncated",
        "msglist--status-kept",
        "msglist--status-dropped",
        "msglist--status-truncated",
        "msglist--status-summarized",
        "msglist--status-cleared",
        "msglist--status-inserted",
        "msglist--status-violation",
    }
    DEFAULT_CSS = """
    MessageList { background: $surface; color: $foreground; scrollbar-size-vertical: 1; overflow-x: hidden; }
    MessageList > .msglist--header { color: $text-muted; text-style: bold; background: $panel; }
    MessageList > .msglist--muted { color: $text-muted; }
    MessageList > .msglist--band { background: $row-band; }
    MessageList > .msglist--cursor { background: $row-cursor; }
    MessageList > .msglist--match { background: $row-match; text-style: bold; }
    MessageList > .msglist--gone { text-style: strike dim; }
    MessageList > .msglist--unit-system { color: $unit-system; }
    MessageList > .msglist--unit-user { color: $unit-user; }
    MessageList > .msglist--unit-assistant { color: $unit-assistant; }
    MessageList > .msglist--unit-tool-exchange { color: $unit-tool-exchange; }
    MessageList > .msglist--unit-summary { color: $unit-summary; }
    MessageList > .msglist--unit-truncated { color: $unit-truncated; }
    MessageList > .msglist--status-kept { color: $status-kept; }
    MessageList > .msglist--status-dropped { color: $status-dropped; text-style: bold; }
    MessageList > .msglist--status-truncated { color: $status-truncated; }
    MessageList > .msglist--status-summarized { color: $status-summarized; }
    MessageList > .msglist--status-cleared { color: $status-cleared; }
    MessageList > .msglist--status-inserted { color: $status-inserted; text-style: italic; }
    MessageList > .msglist--status-violation { color: $status-violation; text-style: bold; }
    """

    class OpenDetail(TMessage):
        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.result: PlanResult | None = None
        self.info: ViewInfo | None = None
        self.draft: Draft | None = None
        self.search: str = ""
        self._columns: tuple[int, Columns] | None = None
        #: Which rows are shown (FILTERS), and whether the largest come first.
        self.filter_name = "all"
        self.filter_value: str | int | None = None  # the tool, turn or unit kind of "tool"/"turn"/"kind"
        self.by_tokens = False
        self.order: list[int] | None = None  # shown row -> row of the result (None: all, in order)
        self._shown_at: dict[int, int] | None = None

    # --- data -------------------------------------------------------------------------------
    def show_draft(self, draft: Draft) -> None:
        """Show the parsed messages until the first plan arrives (:meth:`set_result`)."""
        self.draft = draft
        self._columns = None
        self.reset()

    def set_result(self, result: PlanResult, info: ViewInfo, select_message: int | None = None) -> tuple[bool, bool]:
        """Show ``result``; keep the selection on message ``select_message`` when it is there.
        Returns whether the list was scrolled to the bottom and the cursor on the last row
        before the change (the app keeps a followed list anchored there)."""
        at_bottom = self.row_count() == 0 or round(self.scroll_y) >= self.max_scroll_y
        follow_cursor = self.row_count() > 0 and self.cursor >= self.row_count() - 1
        if self.result is None and self.draft is not None and (self.cursor or round(self.scroll_y)):
            # the user moved in the draft (one row per message): keep that message selected
            at_bottom, follow_cursor = False, False
            if select_message is None:
                select_message = self.cursor
        elif self.result is None:
            at_bottom, follow_cursor = True, False  # as if the list had been empty
        self.draft = None
        self.result = result
        self.info = info
        self._columns = None
        self._arrange()
        cursor = None
        if select_message is not None and 0 <= select_message < len(result.row_of) and result.row_of[select_message] >= 0:
            cursor = self.shown_row(result.row_of[select_message])
        self.reset(keep_cursor=cursor)
        return at_bottom, follow_cursor

    # --- filter and order -------------------------------------------------------------------
    def set_filter(self, name: str, value: str | int | None = None) -> None:
        """Show only the rows of filter ``name`` (FILTERS; "tool" keeps the rows of ``tool``),
        keeping the selected message selected when it is still shown."""
        selected = self.result_row(self.cursor) if self.row_count() else None
        self.filter_name, self.filter_value = name, value
        self._arrange()
        self.reset(keep_cursor=self.shown_row(selected) if selected is not None else 0)
        self.scroll_cursor_visible(center=True)
        self.post_message(self.CursorMoved(self, self.cursor))  # the detail pane follows the selection

    def set_by_tokens(self, on: bool) -> None:
        selected = self.result_row(self.cursor) if self.row_count() else None
        self.by_tokens = on
        self._arrange()
        self.reset(keep_cursor=self.shown_row(selected) if selected is not None else 0)
        self.scroll_cursor_visible(center=True)
        self.post_message(self.CursorMoved(self, self.cursor))

    def _arrange(self) -> None:
        result = self.result
        self._shown_at = None
        if result is None or result.plan is None or (self.filter_name == "all" and not self.by_tokens):
            self.order = None
            return
        keep = _FILTERS[self.filter_name]
        order = [k for k, item in enumerate(result.rows) if keep(self, result, item)]
        if self.by_tokens:
            totals, by = result.snapshot.table.totals, result.plan.by

            def sent(k: int) -> int:  # what the call sends: a message the agent compacted away, nothing
                item = result.rows[k]
                if type(item) is not int:
                    return item.tokens
                return 0 if by[item] == "source" else totals[item]

            order.sort(key=lambda k: -sent(k))
        self.order = order

    def result_row(self, row: int) -> int:
        """The row of the plan's result shown at ``row`` (-1 when the filter shows no such row)."""
        if self.order is None:
            return row
        return self.order[row] if 0 <= row < len(self.order) else -1

    def shown_row(self, result_row: int) -> int | None:
        """Where the result's row ``result_row`` is shown (None: the filter hides it)."""
        if self.order is None:
            return result_row
        if self._shown_at is None:
            self._shown_at = {k: row for row, k in enumerate(self.order)}
        return self._shown_at.get(result_row)

    @property
    def filter_label(self) -> str:
        """What the header says of the filter and order ("" when every row shows in order)."""
        parts = []
        if self.filter_name != "all":
            what = {"tool": f"tool {self.filter_value}", "turn": f"turn {self.filter_value}",
                    "kind": f"{self.filter_value} units"}.get(self.filter_name, self.filter_name)
            parts.append(f"only {what}: "
                         f"{self.row_count():,} of {len(self.result.rows) if self.result else 0:,}")
        if self.by_tokens:
            parts.append("largest first")
        return " · ".join(parts)

    def set_search(self, term: str) -> None:
        self.search = term.lower()
        self._strips.clear()
        self.refresh()

    def row_count(self) -> int:
        if self.result is None:
            return len(self.draft) if self.draft is not None else 0
        return len(self.order) if self.order is not None else len(self.result.rows)

    def message_at(self, row: int) -> int | Inserted | None:
        if self.result is None or not 0 <= row < self.row_count():
            return None
        return self.result.rows[self.result_row(row)]

    @property
    def selected(self) -> int | Inserted | None:
        return self.message_at(self.cursor)

    def action_open(self) -> None:
        if self.row_count():
            self.post_message(self.OpenDetail(self.cursor))

    def on_double_click(self, row: int) -> None:
        self.post_message(self.OpenDetail(row))

    # --- layout -----------------------------------------------------------------------------
    def columns(self, width: int) -> Columns:
        if self._columns is not None and self._columns[0] == width:
            return self._columns[1]
        result = self.result
        n = len(result.snapshot.view) if result is not None else len(self.draft) if self.draft is not None else 0
        pos = max(3, len(f"{max(n - 1, 0)}"))
        turns = result.snapshot.view.turns[-1].number if result is not None and result.snapshot.view.turns else 0
        turn = max(4, len(str(turns)) + 1)
        biggest = max(result.snapshot.table.totals, default=0) if result is not None else 99_999
        tokens = max(9, 2 * len(f"{biggest:,}") + 1)
        status, rules, unit = 10, 3, 7
        role = 4 if width >= 90 else 0
        tool = 14 if width >= 120 else 10 if width >= 96 else 0
        # bracket + the spaces after each column
        fixed = 1 + pos + turn + 1 + unit + (role + 1 if role else 0) + (tool + 1 if tool else 0) + tokens + status + rules + 5
        if width - fixed < 8:  # a narrow list (80x24) gives up the turn (the detail pane shows it), not the rule marks
            fixed -= turn + 1
            turn = 0
        preview = max(8, width - fixed)
        cols = Columns(pos, turn, unit, role, tool, preview, tokens, status, rules)
        self._columns = (width, cols)
        return cols

    def on_resize(self) -> None:
        self._columns = None
        super().on_resize()

    # --- rendering --------------------------------------------------------------------------
    def render_header(self, y: int, width: int) -> Strip:
        c = self.columns(width)
        est = ""
        if (self.result is not None and not self.result.snapshot.table.exact) or self.draft is not None:
            est = "≈"
        parts = [
            " ", "#".rjust(c.pos), " ", _turn_cell("turn", c), "unit".ljust(c.unit), " ",
        ]
        if c.role:
            parts += ["role".ljust(c.role), " "]
        if c.tool:
            parts += ["tool".ljust(c.tool), " "]
        label = self.filter_label
        head = f"[{label}] preview" if label else "preview"  # the filter first: seen on a narrow list
        parts += [set_cell_size(head, c.preview), " ", (est + "tokens").rjust(c.tokens)[-c.tokens:], " ",
                  "status".ljust(c.status), " ", "!".ljust(c.rules)]
        text = "".join(parts)
        return Strip([Segment(set_cell_size(text, width), self.style("msglist--header"))], width)

    def render_row(self, row: int, width: int, selected: bool) -> Strip:
        result = self.result
        info = self.info
        c = self.columns(width)
        base = self.rich_style
        if result is None:
            assert self.draft is not None
            segs, gone, band = self._draft_segments(row, c, self.draft)
        elif type(item := result.rows[self.result_row(row)]) is int:
            segs, gone, band = self._message_segments(item, c, result, info)
        else:
            segs, gone, band = self._inserted_segments(self.result_row(row), item, c, result)
        overlay = Style()
        if band:
            overlay += self.style("msglist--band", partial=True)
        if selected:
            overlay += self.style("msglist--cursor", partial=True)
        gone_style = self.style("msglist--gone", partial=True) if gone else None
        out: list[Segment] = []
        used = 0
        for text, style, strike in segs:
            if style is None:
                style = base
            if gone_style is not None and strike:
                style = style + gone_style
            if overlay:
                style = style + overlay
            out.append(Segment(text, style))
            used += cell_len(text)
        if used < width:
            out.append(Segment(" " * (width - used), base + overlay if overlay else base))
        strip = Strip(out, max(used, width))
        if used > width:
            strip = strip.crop(0, width)
        return strip

    def _message_segments(self, i: int, c: Columns, result: PlanResult, info: ViewInfo):
        view = result.snapshot.view
        plan = result.plan
        unit = view.units[view.unit_of[i]]
        kind = unit.kind
        unit_style = self.style(UNIT_CLASS[kind])
        status = plan.status[i]
        before = result.snapshot.table.totals[i]
        after = plan.tokens_after_of[i]
        gone = status is Status.DROPPED or status is Status.SUMMARIZED
        truncated_src = info.truncated_in_source(i)
        band = kind is UnitKind.TOOL_EXCHANGE
        muted = self.style("msglist--muted")
        # bracket that groups a tool exchange's call and results
        bracket = " "
        if band:
            members = [m for m in unit.indices if m < plan.stop]
            if len(members) <= 1:
                bracket = "["
            elif i == members[0]:
                bracket = "┌"
            elif i == members[-1]:
                bracket = "└"
            else:
                bracket = "│"
        label = UNIT_LABEL[kind]
        label_style = unit_style
        if truncated_src or status is Status.TRUNCATED:
            label_style = self.style("msglist--unit-truncated")
            label = "tool ✂" if truncated_src else label
        segs = [
            (bracket, self.style("msglist--unit-tool-exchange"), False),
            (f"{i}".rjust(c.pos) + " ", muted, True),
            (_turn_cell(f"t{view.turn_of[i]}", c), muted, True),
            (label.ljust(c.unit)[: c.unit] + " ", label_style, True),
        ]
        if c.role:
            segs.append((ROLE_LABEL.get(view.roles[i], view.roles[i]).ljust(c.role)[: c.role] + " ", unit_style, True))
        if c.tool:
            segs.append((set_cell_size(visible_line(info.tool(i)), c.tool) + " ", self.style("msglist--unit-tool-exchange"), True))
        preview_style = self.style("msglist--unit-summary") if kind is UnitKind.SUMMARY else None
        segs.extend(self._preview_segments(info.preview(i), c.preview, preview_style))
        compacted = status is Status.DROPPED and plan.by[i] == "source"
        if status is Status.KEPT and after == before:
            tok = f"{before:,}"
            tok_style = None
        elif compacted:  # not sent before the pipeline either: in neither total, so no "→0"
            tok = f"({before:,})"
            tok_style = self.style(_status_class(status))
        else:
            tok = f"{before:,}→{after:,}"
            tok_style = self.style(_status_class(status))
        segs.append((" " + tok.rjust(c.tokens)[-c.tokens:] + " ", tok_style, False))
        status_label = "compacted" if compacted else STATUS_LABEL[status]
        segs.append((status_label.ljust(c.status)[: c.status], self.style(_status_class(status)), False))
        breaks = result.breaks.get(i)
        marks = ""
        if breaks:
            marks = "!" + "".join(sorted({PROVIDER_MARK.get(b.provider, b.provider[:1].upper()) for b in breaks}))
        segs.append((" " + marks.ljust(c.rules)[: c.rules], self.style("msglist--status-violation"), False))
        return segs, gone, band

    def _draft_segments(self, i: int, c: Columns, draft: Draft):
        """A parsed message before the plan: its position, role, tools, preview and estimate;
        turn, unit and status come with the plan."""
        muted = self.style("msglist--muted")
        role = draft.role(i)
        segs = [
            (" ", None, False),
            (f"{i}".rjust(c.pos) + " ", muted, False),
            (_turn_cell("", c), None, False),
            ("…".ljust(c.unit) + " ", muted, False),
        ]
        if c.role:
            segs.append((ROLE_LABEL.get(role, role).ljust(c.role)[: c.role] + " ", muted, False))
        if c.tool:
            segs.append((set_cell_size(visible_line(draft.tool(i)), c.tool) + " ", self.style("msglist--unit-tool-exchange"), False))
        segs.extend(self._preview_segments(draft.preview(i), c.preview, None))
        segs.append((" " + f"{draft.estimate(i):,}".rjust(c.tokens)[-c.tokens:] + " ", None, False))
        segs.append(("…".ljust(c.status), muted, False))  # the status comes with the plan
        segs.append((" " + "".ljust(c.rules), None, False))
        return segs, False, False

    def _inserted_segments(self, row: int, item: Inserted, c: Columns, result: PlanResult):
        style = self.style("msglist--status-inserted")
        kind_style = self.style("msglist--unit-summary") if item.kind == "summary" else self.style("msglist--unit-tool-exchange")
        text = one_line(item.text, c.preview + 20)
        segs = [
            (" ", None, False),
            ("+".rjust(c.pos) + " ", style, False),
            (_turn_cell("", c), None, False),
            (item.kind[: c.unit].ljust(c.unit) + " ", kind_style, False),
        ]
        if c.role:
            segs.append((ROLE_LABEL.get(item.role, item.role).ljust(c.role) + " ", kind_style, False))
        if c.tool:
            segs.append(("".ljust(c.tool) + " ", None, False))
        segs.extend(self._preview_segments(text, c.preview, style))
        segs.append((" " + f"+{item.tokens:,}".rjust(c.tokens) + " ", style, False))
        segs.append((STATUS_LABEL[Status.INSERTED].ljust(c.status), style, False))
        breaks = result.inserted_breaks.get(row)
        marks = "!" + "".join(sorted({PROVIDER_MARK.get(b.provider, "?") for b in breaks})) if breaks else ""
        segs.append((" " + marks.ljust(c.rules)[: c.rules], self.style("msglist--status-violation"), False))
        return segs, False, False

    def _preview_segments(self, text: str, width: int, style: Style | None):
        cell = set_cell_size(text, width)
        term = self.search
        if not term or term not in cell.lower():
            return [(cell, style, True)]
        match = self.style("msglist--match", partial=True)
        low = cell.lower()
        out = []
        start = 0
        while True:
            k = low.find(term, start)
            if k < 0:
                break
            if k > start:
                out.append((cell[start:k], style, True))
            out.append((cell[k : k + len(term)], (style or self.rich_style) + match, True))
            start = k + len(term)
        if start < len(cell):
            out.append((cell[start:], style, True))
        return out


def changed_by_pipeline(result: PlanResult, item: int | Inserted) -> bool:
    """A row the pipeline inserted, dropped, cut or otherwise changed (a message the agent
    itself compacted away before this call is not the pipeline's doing)."""
    if type(item) is not int:
        return True
    plan = result.plan
    if plan.by[item] == "source":
        return False
    return plan.status[item] is not Status.KEPT or plan.tokens_after_of[item] != result.snapshot.table.totals[item]


def _trimmed(lst: MessageList, result: PlanResult, item: int | Inserted) -> bool:
    return type(item) is int and result.plan.status[item] in (Status.TRUNCATED, Status.CLEARED, Status.SUMMARIZED)


def _breaks(lst: MessageList, result: PlanResult, item: int | Inserted) -> bool:
    if type(item) is int:
        return item in result.breaks
    return any(result.rows[row] is item for row in result.inserted_breaks)


def _tool_exchange(lst: MessageList, result: PlanResult, item: int | Inserted) -> bool:
    view = result.snapshot.view
    return type(item) is int and view.units[view.unit_of[item]].kind is UnitKind.TOOL_EXCHANGE


#: Row filters, in the order ``x`` cycles them ("tool": the rows of one tool, ``X``).
_FILTERS = {
    "all": lambda lst, result, item: True,
    "changed": lambda lst, result, item: changed_by_pipeline(result, item),
    "dropped": lambda lst, result, item: (type(item) is int and result.plan.status[item] is Status.DROPPED
                                          and result.plan.by[item] != "source"),
    "truncated or cleared": _trimmed,
    "rule breaks": _breaks,
    "tool exchanges": _tool_exchange,
    # the selected row's tool, turn or unit kind (X)
    "tool": lambda lst, result, item: type(item) is int and lst.info is not None and lst.info.tool(item) == lst.filter_value,
    "turn": lambda lst, result, item: type(item) is int and result.snapshot.view.turn_of[item] == lst.filter_value,
    "kind": lambda lst, result, item: type(item) is int and UNIT_LABEL[_kind(result, item)] == lst.filter_value,
}
#: The filters ``x`` cycles; "tool", "turn" and "kind" take their value from the selected row (``X``).
FILTERS = tuple(name for name in _FILTERS if name not in ("tool", "turn", "kind"))
ROW_FILTERS = ("tool", "turn", "kind")


def _kind(result: PlanResult, item: int) -> UnitKind:
    view = result.snapshot.view
    return view.units[view.unit_of[item]].kind


def _status_class(status: Status) -> str:
    return f"msglist--status-{status.value}"
