"""The replay chart: input tokens of every model call, baseline against the pipeline, with a cursor.

Each column is one call (or, on a long session, a bucket of calls showing their maximum). The
pipeline's bar is solid (``█`` and eighth blocks), the baseline above it is shaded (``░``), so
the saving reads without colour. ``[`` / ``]`` or a click move the cursor; the app then shows the
context exactly as that call sent it. Points arrive progressively from a worker: a sample of
calls first (the chart has its shape at once), then the rest.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.events import Click
from textual.message import Message as TMessage
from textual.strip import Strip
from textual.widget import Widget

from ..engine import CallPoint
from .totals import short

EIGHTHS = " ▁▂▃▄▅▆▇█"
AXIS = 8  # width of the y-axis labels


class ReplayChart(Widget):
    COMPONENT_CLASSES = {
        "chart--baseline",
        "chart--pipeline",
        "chart--pipeline-on-baseline",
        "chart--cursor",
        "chart--label",
        "chart--title",
        "chart--axis",
    }
    DEFAULT_CSS = """
    ReplayChart { height: 8; background: $surface; color: $foreground; }
    ReplayChart > .chart--baseline { color: $chart-baseline; }
    ReplayChart > .chart--pipeline { color: $chart-pipeline; }
    ReplayChart > .chart--pipeline-on-baseline { color: $chart-pipeline; background: $chart-baseline; }
    ReplayChart > .chart--cursor { background: $chart-cursor; }
    ReplayChart > .chart--label { color: $text-muted; }
    ReplayChart > .chart--title { color: $chart-cursor; text-style: bold; }
    ReplayChart > .chart--axis { color: $text-muted; }
    """

    class CallClicked(TMessage):
        def __init__(self, call: int | None) -> None:
            super().__init__()
            self.call = call

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.n_calls = 0
        self.points: dict[int, CallPoint] = {}
        self.cursor: int | None = None
        self.pending = 0  # calls not computed yet
        self.note = ""
        self._columns: list[tuple[int, int]] | None = None  # per column: (first call, last call)

    # --- data -------------------------------------------------------------------------------
    def reset_points(self, n_calls: int) -> None:
        self.n_calls = n_calls
        self.points = {}
        self.pending = n_calls
        self._columns = None
        self.refresh()

    def set_call_count(self, n_calls: int) -> None:
        """The session grew or shrank: keep the points of the calls it still has."""
        self.n_calls = n_calls
        if any(c > n_calls for c in self.points):
            self.points = {c: p for c, p in self.points.items() if c <= n_calls}
        self._columns = None
        self.refresh()

    def add_points(self, points: list[CallPoint], pending: int) -> None:
        for p in points:
            self.points[p.call] = p
        self.pending = pending
        self.refresh()

    def set_cursor(self, call: int | None) -> None:
        self.cursor = call
        self.refresh()

    def on_resize(self) -> None:
        self._columns = None

    # --- geometry ---------------------------------------------------------------------------
    def columns(self) -> list[tuple[int, int]]:
        """(first call, last call) of each plot column."""
        if self._columns is not None:
            return self._columns
        width = max(1, self.size.width - AXIS - 1)
        n = self.n_calls
        cols: list[tuple[int, int]] = []
        if n <= 0:
            pass
        elif n <= width:
            per = max(1, min(10, width // n))
            for k in range(1, n + 1):
                cols.extend([(k, k)] * per)
        else:
            for c in range(width):
                first = c * n // width + 1
                last = max(first, (c + 1) * n // width)
                cols.append((first, last))
        self._columns = cols
        return cols

    def call_at(self, x: int) -> int | None:
        cols = self.columns()
        k = x - AXIS
        if 0 <= k < len(cols):
            return cols[k][0]
        if k >= len(cols) and cols:
            return None  # right of the last call: the next call
        return 1 if cols else None

    # --- rendering --------------------------------------------------------------------------
    def _values(self) -> tuple[list[int | None], list[int | None], int]:
        base: list[int | None] = []
        pipe: list[int | None] = []
        top = 1
        points = self.points
        cache: dict[tuple[int, int], tuple[int | None, int | None]] = {}
        for first, last in self.columns():
            key = (first, last)
            if key not in cache:
                b = p = None
                for call in range(first, last + 1):
                    point = points.get(call)
                    if point is None:
                        continue
                    b = point.baseline if b is None else max(b, point.baseline)
                    p = point.tokens if p is None else max(p, point.tokens)
                cache[key] = (b, p)
            b, p = cache[key]
            base.append(b)
            pipe.append(p)
            if b is not None:
                top = max(top, b)
            if p is not None:
                top = max(top, p)
        return base, pipe, top

    def render_lines(self, crop):  # compute the column values once per paint, not per line
        self._paint = self._values()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        height = self.size.height
        bg = self.rich_style
        label = self.get_component_rich_style("chart--label")
        if y == 0:
            return self._title_line(width)
        bars = height - 2
        if y == height - 1:
            return self._axis_line(width)
        base, pipe, top = getattr(self, "_paint", None) or self._values()
        row = bars - y  # 0 = bottom bar row
        levels = bars * 8
        segs: list[Segment] = []
        if y == 1:
            axis_text = f"{short(top)} ┤".rjust(AXIS)
        elif y == bars:
            axis_text = "0 ┤".rjust(AXIS)
        else:
            axis_text = "│".rjust(AXIS)
        segs.append(Segment(axis_text, label))
        s_base = self.get_component_rich_style("chart--baseline")
        s_pipe = self.get_component_rich_style("chart--pipeline")
        s_both = self.get_component_rich_style("chart--pipeline-on-baseline")
        cursor_overlay = self.get_component_rich_style("chart--cursor", partial=True)
        cols = self.columns()
        for k, (first, last) in enumerate(cols):
            b = base[k]
            p = pipe[k]
            b_level = 0 if b is None else round(b * levels / top)
            p_level = 0 if p is None else round(p * levels / top)
            p_fill = max(0, min(8, p_level - row * 8))
            b_fill = max(0, min(8, b_level - row * 8))
            if p_fill == 8:
                ch, st = "█", s_pipe
            elif p_fill > 0:
                ch, st = EIGHTHS[p_fill], (s_both if b_fill == 8 else s_pipe)
            elif b_fill >= 4 or (b_fill > 0 and row == 0):
                ch, st = "░", s_base
            elif b is None and row == 0:
                ch, st = "·", label  # not computed yet
            else:
                ch, st = " ", bg
            if self.cursor is not None and first <= self.cursor <= last:
                st = st + cursor_overlay
            segs.append(Segment(ch, st))
        return Strip(segs).crop_extend(0, width, bg)

    def _title_line(self, width: int) -> Strip:
        title = self.get_component_rich_style("chart--title")
        label = self.get_component_rich_style("chart--label")
        s_base = self.get_component_rich_style("chart--baseline")
        s_pipe = self.get_component_rich_style("chart--pipeline")
        segs = [Segment(" Replay: input tokens per model call  ", title)]
        known = [p for p in self.points.values()]
        base_total = sum(p.baseline for p in known)
        pipe_total = sum(p.tokens for p in known)
        # the whole input each call had with no strategy (replay's predicted_tokens), not the CLI's baseline column
        segs += [Segment("░ no strategy ", s_base), Segment(f"{base_total:,}  ", label)]
        saving = 100.0 * (base_total - pipe_total) / base_total if base_total else 0.0
        segs += [Segment("█ pipeline ", s_pipe), Segment(f"{pipe_total:,} (−{saving:.1f}%)  ", label)]
        if self.pending:
            segs.append(Segment(f"computing… {self.n_calls - self.pending:,}/{self.n_calls:,} calls ", label))
        elif self.note:
            segs.append(Segment(self.note, label))
        return Strip(segs).crop_extend(0, width, self.rich_style)

    def _axis_line(self, width: int) -> Strip:
        label = self.get_component_rich_style("chart--label")
        title = self.get_component_rich_style("chart--title")
        cols = self.columns()
        cells = [" "] * len(cols)
        cursor_x = None
        for k, (first, last) in enumerate(cols):
            if self.cursor is not None and first <= self.cursor <= last:
                cursor_x = k if cursor_x is None else cursor_x
        segs = [Segment("call ".rjust(AXIS), label)]
        if cursor_x is not None:
            segs.append(Segment("".join(cells[:cursor_x]), label))
            segs.append(Segment("▲", title))
            point = self.points.get(self.cursor) if self.cursor is not None else None
            text = f" call {self.cursor}/{self.n_calls}"
            if point is not None:
                text += f": baseline {point.baseline:,} → {point.tokens:,}"
                if point.recorded is not None:
                    text += f" · recorded {point.recorded:,}"
            room = len(cols) - cursor_x - 1
            if len(text) > room and cursor_x > len(text):
                segs = [Segment("call ".rjust(AXIS), label), Segment(" " * (cursor_x - len(text)), label),
                        Segment(text.strip() + " ", title), Segment("▲", title)]
            else:
                segs.append(Segment(text, title))
        else:
            text = f"1 … {self.n_calls}" if self.n_calls else "no model calls"
            segs.append(Segment(text, label))
            segs.append(Segment("   ▶ cursor: next call (whole session)  [ ] move", title))
        return Strip(segs).crop_extend(0, width, self.rich_style)

    def on_click(self, event: Click) -> None:
        if not self.n_calls:
            return
        self.post_message(self.CallClicked(self.call_at(event.x)))
