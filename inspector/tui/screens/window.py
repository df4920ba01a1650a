"""The model's whole window at a glance (``w``), as Claude Code's ``/context`` draws it: a grid
whose every cell is half a percent of the window, filled by category (system prompt, prompts,
answers, tool exchanges, summaries, not in file, tool definitions and framing), then what is free
and what the agent keeps in reserve. Two grids side by side: the call under the cursor as the
session sent it (before) and with the pipeline (after), and a legend with tokens and share of the
window for each. The figures are the plan's (:class:`~inspector.tui.engine.PlanResult`) and the
window's (:func:`inspector.analysis.window.session_window`); this screen only draws them.
"""

from __future__ import annotations

import textwrap

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

from ...analysis.window import Window, session_window
from ..engine import CATEGORIES, PlanResult
from ..widgets.totals import CATEGORY_CLASSES, COMPACT_NAMES, FREE_GLYPH, GAUGE_GLYPHS, RESENT_NAME, split_widths

COLUMNS = 20
ROWS = 10
#: Widths of the legend's columns: (name, number), wide and compact.
LEGEND_WIDE = (23, 10)
LEGEND_COMPACT = (16, 9)
#: Below this many columns for the content, one grid (after) is drawn and the legend is compact.
TWO_GRIDS_FROM = 2 * (COLUMNS + 2) + LEGEND_WIDE[0] + 2 * 10 + 11
RESERVED_GLYPH = "▧"
#: Columns of the terminal the box around the grid takes: its border, its padding and the grid's.
BOX_EDGES = 6


def grid_cells(values: list[int], window: Window) -> list[int]:
    """Cells per category, then free, then reserved, on a grid of COLUMNS x ROWS cells."""
    cells = COLUMNS * ROWS
    used = sum(values)
    scale = max(window.tokens, used, 1)
    reserved = min(window.reserved, max(window.tokens - used, 0))
    free = max(window.tokens - used - reserved, 0)
    return split_widths([*values, free, reserved], scale, cells)


class WindowGrid(Widget):
    COMPONENT_CLASSES = {"wingrid--label", "wingrid--number", "wingrid--free", "wingrid--reserved",
                         "wingrid--over", "wingrid--title", *(c.replace("totals--", "wingrid--") for c in CATEGORY_CLASSES)}
    DEFAULT_CSS = """
    WindowGrid { width: auto; height: auto; padding: 0 1; }
    WindowGrid > .wingrid--label { color: $text-muted; }
    WindowGrid > .wingrid--number { color: $foreground; text-style: bold; }
    WindowGrid > .wingrid--title { color: $foreground; text-style: bold; }
    WindowGrid > .wingrid--free { color: $gauge-free; }
    WindowGrid > .wingrid--reserved { color: $warning; }
    WindowGrid > .wingrid--over { color: $error; text-style: bold; }
    WindowGrid > .wingrid--system { color: $unit-system; }
    WindowGrid > .wingrid--user { color: $unit-user; }
    WindowGrid > .wingrid--assistant { color: $unit-assistant; }
    WindowGrid > .wingrid--tool-exchange { color: $unit-tool-exchange; }
    WindowGrid > .wingrid--summary { color: $unit-summary; }
    WindowGrid > .wingrid--overhead { color: $gauge-overhead; }
    WindowGrid > .wingrid--not-in-file { color: $gauge-overhead; text-style: italic; }
    """

    def __init__(self, result: PlanResult, window: Window, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.result = result
        self.window = window

    def get_content_width(self, container, viewport) -> int:
        return max(cell_len(line) for line in self.render().plain.split("\n"))

    def get_content_height(self, container, viewport, width: int) -> int:
        return self.render().plain.count("\n") + 1

    def s(self, name: str):
        return self.get_component_rich_style(name, partial=True)

    def _grid_rows(self, values: list[int]) -> list[list[tuple[str, str]]]:
        styles = [c.replace("totals--", "wingrid--") for c in CATEGORY_CLASSES] + ["wingrid--free", "wingrid--reserved"]
        glyphs = [*GAUGE_GLYPHS, FREE_GLYPH, RESERVED_GLYPH]
        flat: list[tuple[str, str]] = []
        for k, n in enumerate(grid_cells(values, self.window)):
            flat.extend([(glyphs[k], styles[k])] * n)
        flat.extend([(FREE_GLYPH, "wingrid--free")] * (COLUMNS * ROWS - len(flat)))
        return [flat[r * COLUMNS:(r + 1) * COLUMNS] for r in range(ROWS)]

    def render(self) -> Text:
        r, window = self.result, self.window
        wide = self.app.size.width - 8 >= TWO_GRIDS_FROM
        name_w, num_w = LEGEND_WIDE if wide else LEGEND_COMPACT
        before, after = r.before_by_category, r.by_category
        used_before, used_after = sum(before), sum(after)
        # a space before every number: 1,039,286 free of a 1,048,576 window fills the compact 9
        num_w = max(num_w, 1 + len(f"{max(window.tokens, used_before, used_after):,}"))

        def name(text: str) -> str:
            return (text if wide else COMPACT_NAMES.get(text, text)).ljust(name_w - 2)

        reserved = window.reserved
        legend: list[list[tuple[str, str]]] = [
            [("category".ljust(name_w), "wingrid--label"), ("before".rjust(num_w), "wingrid--label"),
             ("after".rjust(num_w), "wingrid--label"), ("  of window" if wide else "  window", "wingrid--label")],
        ]
        style_of = [c.replace("totals--", "wingrid--") for c in CATEGORY_CLASSES]

        def pct(n: int) -> str:
            return f"{100.0 * n / window.tokens:5.1f}%" if window.tokens else "    -"

        for k, (key, label) in enumerate(CATEGORIES):
            if key == "not_in_file" and r.resent and wide:  # as the header's gauge (compact: its short name)
                label = RESENT_NAME
            legend.append([(GAUGE_GLYPHS[k] + " ", style_of[k]), (name(label), "wingrid--label"),
                           (f"{before[k]:,}".rjust(num_w), "wingrid--number"), (f"{after[k]:,}".rjust(num_w), "wingrid--number"),
                           ("  " + pct(after[k]), "wingrid--label")])
        free_after = max(window.tokens - used_after - reserved, 0)
        free_before = max(window.tokens - used_before - reserved, 0)
        legend.append([(FREE_GLYPH + " ", "wingrid--free"), (name("free"), "wingrid--label"),
                       (f"{free_before:,}".rjust(num_w), "wingrid--number"), (f"{free_after:,}".rjust(num_w), "wingrid--number"),
                       ("  " + pct(free_after), "wingrid--label")])
        if reserved:
            legend.append([(RESERVED_GLYPH + " ", "wingrid--reserved"), (name("reserved"), "wingrid--label"),
                           (f"{reserved:,}".rjust(num_w), "wingrid--number"), (f"{reserved:,}".rjust(num_w), "wingrid--number"),
                           ("  " + pct(reserved), "wingrid--label")])
        legend.append([("used".ljust(name_w), "wingrid--title"), (f"{used_before:,}".rjust(num_w), "wingrid--number"),
                       (f"{used_after:,}".rjust(num_w), "wingrid--number"), ("  " + pct(used_after), "wingrid--label")])
        for used, when in ((used_before, "before"), (used_after, "after")):
            if used > window.tokens:
                legend.append([(f"{when}: over the window by {used - window.tokens:,}", "wingrid--over")])

        t = Text(no_wrap=True, overflow="crop")
        grids = [self._grid_rows(before), self._grid_rows(after)] if wide else [self._grid_rows(after)]
        if wide:
            t.append("before".ljust(COLUMNS + 2), self.s("wingrid--title"))
        t.append("after".ljust(COLUMNS + 2) if wide else "after the pipeline", self.s("wingrid--title"))
        t.append("\n")
        for row in range(max(ROWS, len(legend))):
            for grid in grids:
                if row < ROWS:
                    for glyph, style in grid[row]:
                        t.append(glyph, self.s(style))
                else:
                    t.append(" " * COLUMNS)
                t.append("  ")
            if row < len(legend):
                for text, style in legend[row]:
                    t.append(text, self.s(style))
            t.append("\n")
        notes = [f"window {window.tokens:,} tokens ({window.model + ', ' if window.model else ''}{window.source})",
                 f"each cell {window.tokens / (COLUMNS * ROWS):,.0f} tokens (a category smaller than a cell still gets one)"]
        if reserved:
            notes.append(f"the agent reserves {reserved:,} ({window.reserved_note})")
        room = max(COLUMNS, self.app.size.width - BOX_EDGES)  # the notes wrap to the terminal; the grid never does
        t.append("\n".join(line for note in notes for line in textwrap.wrap(note, room, subsequent_indent="  ")),
                 self.s("wingrid--label"))
        return t


class WindowScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,w,q", "dismiss", "Close", id="close-window", tooltip="close the window view")]
    DEFAULT_CSS = """
    WindowScreen { align: center middle; }
    WindowScreen > #window-box { width: auto; max-width: 100%; height: auto; max-height: 100%;
        background: $panel; border: round $accent; padding: 0 1; overflow-y: auto; }
    WindowScreen #window-title { width: auto; color: $foreground; text-style: bold; padding: 0 1; }
    WindowScreen #window-hint { width: auto; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, result: PlanResult, call_label: str, model: str | None = None) -> None:
        super().__init__()
        self.result = result
        self.call_label = call_label
        self.model = model  # the viewer's --model

    def compose(self) -> ComposeResult:
        from textual.containers import Vertical

        window = session_window(self.result.snapshot.view.session, self.model)
        with Vertical(id="window-box"):
            yield Static(Text(f"The model's window at {self.call_label}"), id="window-title")
            yield WindowGrid(self.result, window, id="window-grid")
            yield Static(Text("escape closes · [ ] in the main view move the call"), id="window-hint")


__all__ = ["WindowGrid", "WindowScreen", "grid_cells"]
