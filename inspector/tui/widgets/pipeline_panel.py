"""The pipeline panel: every strategy with its on/off box and order, and every parameter,
editable in place (stepped with the arrow keys, typed after enter), plus the preset.

The panel never changes state itself: it posts :class:`PipelinePanel.Changed` with the new
:class:`~inspector.tui.state.PipelineState` (or :class:`PipelinePanel.Edit` to ask for a typed
value) and the app decides. Rows are drawn with the Line API like the message list.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding
from textual.message import Message as TMessage
from textual.strip import Strip

from ...strategies import STRATEGIES
from ..state import ParamError, PipelineState, format_value, global_params, spec_for, strategy_params
from .linelist import LineList


@dataclass(frozen=True)
class PanelRow:
    kind: str  # "header", "param", "strategy", "hint"
    name: str = ""  # parameter or strategy name
    owner: str = ""  # for a strategy's parameter: the strategy
    text: str = ""


class PipelinePanel(LineList):
    BINDINGS = [
        Binding("space", "activate", "Toggle", show=False),
        Binding("enter", "edit", "Edit/toggle", show=False),
        Binding("left", "step(-1)", "−", show=False),
        Binding("right", "step(1)", "+", show=False),
        Binding("shift+left", "step(-1, True)", "−10%", show=False),
        Binding("shift+right", "step(1, True)", "+10%", show=False),
        Binding("shift+up,K", "reorder(-1)", "Move up", show=False),
        Binding("shift+down,J", "reorder(1)", "Move down", show=False),
    ]
    COMPONENT_CLASSES = {
        "panel--header",
        "panel--on",
        "panel--off",
        "panel--label",
        "panel--value",
        "panel--inactive",
        "panel--saving",
        "panel--hint",
        "panel--cursor",
    }
    DEFAULT_CSS = """
    PipelinePanel { background: $surface; color: $foreground; scrollbar-size-vertical: 1; overflow-x: hidden; }
    PipelinePanel > .panel--header { color: $primary; text-style: bold; }
    PipelinePanel > .panel--on { color: $success; text-style: bold; }
    PipelinePanel > .panel--off { color: $text-muted; }
    PipelinePanel > .panel--label { color: $foreground; }
    PipelinePanel > .panel--value { color: $accent; text-style: bold; }
    PipelinePanel > .panel--inactive { color: $text-disabled; }
    PipelinePanel > .panel--saving { color: $status-dropped; }
    PipelinePanel > .panel--hint { color: $text-muted; text-style: italic; }
    PipelinePanel > .panel--cursor { background: $row-cursor; }
    """

    class Changed(TMessage):
        def __init__(self, state: PipelineState, what: str) -> None:
            super().__init__()
            self.state = state
            self.what = what

    class Edit(TMessage):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    class Invalid(TMessage):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, state: PipelineState, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state = state
        self.savings: dict[str, int] = {}
        #: Why each strategy that is on changes nothing (:func:`inspector.analysis.idle.idle_reasons`).
        self.idle: dict[str, str] = {}
        self.reference_budget: int = 0
        #: Choices this machine cannot use (an encoding tiktoken cannot load); stepping skips them.
        self.unavailable: set[str] = set()
        self.rows: list[PanelRow] = []
        self._rebuild()
        self.cursor = next((k for k, r in enumerate(self.rows) if r.kind != "header"), 0)

    # --- data -------------------------------------------------------------------------------
    def set_state(self, state: PipelineState, savings: dict[str, int] | None = None,
                  idle: dict[str, str] | None = None) -> None:
        current = self.current
        self.state = state
        if savings is not None:
            self.savings = savings
        if idle is not None:
            self.idle = idle
        self._rebuild()
        if current is not None:  # keep the cursor on the same strategy or parameter
            for k, r in enumerate(self.rows):
                if r.kind == current.kind and r.name == current.name and r.owner == current.owner:
                    self.cursor = k
                    break
        self.reset()

    def _rebuild(self) -> None:
        preset = f"  preset: {self.state.preset} (p)" if self.state.preset else "  (p: presets)"
        rows = [PanelRow("header", text="Settings" + preset)]
        rows += [PanelRow("param", p) for p in global_params()]
        rows.append(PanelRow("header", text="Strategies  (space on/off · K/J move)"))
        for name in self.state.order:
            rows.append(PanelRow("strategy", name))
            if name in self.state.enabled and name in self.idle:  # a header row: the cursor skips it
                rows.append(PanelRow("header", name, owner="idle", text=f"      ({self.idle[name]})"))
            rows += [PanelRow("param", p, owner=name) for p in strategy_params(name)]
        self.rows = rows

    def row_count(self) -> int:
        return len(self.rows)

    @property
    def current(self) -> PanelRow | None:
        return self.rows[self.cursor] if 0 <= self.cursor < len(self.rows) else None

    # --- rendering --------------------------------------------------------------------------
    def render_row(self, row: int, width: int, selected: bool) -> Strip:
        r = self.rows[row]
        state = self.state
        base = self.rich_style
        overlay = self.style("panel--cursor", partial=True) if selected else Style()
        segs: list[tuple[str, Style]] = []
        if r.kind == "header":
            segs.append((r.text, self.style("panel--saving" if r.owner == "idle" else "panel--header")))
        elif r.kind == "strategy":
            position = state.order.index(r.name) + 1
            on = r.name in state.enabled
            box = "[x]" if on else "[ ]"
            key = f"{position}" if position <= 9 else " "
            stage = state.pipeline.index(r.name) + 1 if on else 0
            segs.append((f"{key} {box} ", self.style("panel--on" if on else "panel--off")))
            segs.append((r.name, self.style("panel--on" if on else "panel--label")))
            tail = ""
            if on:
                saving = self.savings.get(r.name)
                tail = f" #{stage}" + (f" −{saving:,}" if saving else " ±0")
            segs.append((tail, self.style("panel--saving")))
        else:  # param
            spec = spec_for(r.name)
            active = not r.owner or r.owner in state.enabled
            label_style = self.style("panel--label" if active else "panel--inactive")
            value_style = self.style("panel--value" if active else "panel--inactive")
            indent = "      " if r.owner else "  "
            value = format_value(r.name, state.value(r.name))
            if r.name == "budget" and state.settings.budget is None:
                value = "none"
            label = indent + spec.title
            room = max(1, width - len(value) - 2)
            segs.append((set_cell_size(label, room), label_style))
            segs.append((" " + value + " ", value_style))
        used = 0
        out = []
        for text, style in segs:
            style = base + style + overlay if overlay else base + style
            out.append(Segment(text, style))
            used += len(text)
        strip = Strip(out)
        return strip.crop_extend(0, width, base + overlay if overlay else base)

    # --- actions ----------------------------------------------------------------------------
    def move_cursor(self, row: int, *, scroll: bool = True, announce: bool = True) -> None:
        count = len(self.rows)
        if not count:
            return
        row = max(0, min(row, count - 1))
        step = 1 if row >= self.cursor else -1
        while 0 <= row < count and self.rows[row].kind == "header":
            row += step
        if not 0 <= row < count:
            return
        super().move_cursor(row, scroll=scroll, announce=announce)

    def _emit(self, state: PipelineState, what: str) -> None:
        self.post_message(self.Changed(state, what))

    def _try(self, fn, what: str) -> None:
        try:
            state = fn()
        except ParamError as exc:
            self.post_message(self.Invalid(str(exc)))
            return
        self._emit(state, what)

    def action_activate(self) -> None:
        r = self.current
        if r is None:
            return
        if r.kind == "strategy":
            self._emit(self.state.toggle(r.name), f"{r.name} {'off' if r.name in self.state.enabled else 'on'}")
        elif r.kind == "param":
            spec = spec_for(r.name)
            if spec.kind in ("bool", "choice"):
                self._try(lambda: self.state.step(r.name, 1, skip=self.unavailable), r.name)
            else:
                self.post_message(self.Edit(r.name))

    def action_edit(self) -> None:
        r = self.current
        if r is not None and r.kind == "param" and spec_for(r.name).kind not in ("bool", "choice"):
            self.post_message(self.Edit(r.name))
        else:
            self.action_activate()

    def action_step(self, direction: int, big: bool = False) -> None:
        r = self.current
        if r is None:
            return
        if r.kind == "param":
            self._try(lambda: self.state.step(r.name, direction, big, reference=self.reference_budget,
                                              skip=self.unavailable), r.name)
        elif r.kind == "strategy":
            want_on = direction > 0
            if (r.name in self.state.enabled) != want_on:
                self._emit(self.state.toggle(r.name), f"{r.name} {'on' if want_on else 'off'}")

    def action_reorder(self, delta: int) -> None:
        r = self.current
        if r is None or r.kind == "header":
            return
        name = r.name if r.kind == "strategy" else r.owner
        if not name:
            return
        self._emit(self.state.move(name, delta), f"{name} moved")

    def on_click(self, event) -> None:
        """A click selects the row; a click on a strategy's box (or a second click) toggles it."""
        event.prevent_default()  # instead of LineList's plain row selection
        row = round(self.scroll_y) + event.y
        if not 0 <= row < len(self.rows) or self.rows[row].kind == "header":
            return
        already = row == self.cursor
        self.move_cursor(row, scroll=False)
        r = self.rows[row]
        if r.kind == "strategy" and (event.x < 6 or already):
            self.action_activate()
        elif r.kind == "param" and already:
            self.action_edit()

    def hint(self) -> str:
        """What the keys do on the selected row (shown under the panel)."""
        r = self.current
        if r is None:
            return ""
        if r.kind == "strategy":
            strategy = STRATEGIES.get(r.name)
            summary = strategy.summary.split(". ")[0].rstrip(".") + "." if strategy else ""
            return f"space on/off · K/J move · {summary}"
        spec = spec_for(r.name)
        if spec.kind in ("bool", "choice"):
            return "space or ←/→ to change"
        if spec.kind == "names":
            return "enter to type names, comma separated"
        if spec.percent_step:
            return f"←/→ ±{int(spec.step):,} · shift ±10% · enter to type"
        step = f"{spec.step:g}" if spec.kind == "float" else f"{int(spec.step):,}"
        return f"←/→ ±{step} · enter to type"
