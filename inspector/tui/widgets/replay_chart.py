"""The replay chart: input tokens (or dollars) of every model call, baseline against the pipeline,
with a cursor.

Each column is one call (or, on a long session, a bucket of calls showing their maximum). The
pipeline's bar is solid (``█`` and eighth blocks), the baseline above it is shaded (``░``), so
the saving reads without colour; what the file recorded for the call is drawn beside the
estimate: a thin bar of its own in the call's last column where a call has several columns, a
``•`` at its height (where no bar is) when calls share columns. The y axis has ticks at the top, the middle and 0; a ``c`` under a column
marks a compaction just before that call. ``[`` / ``]`` or a click move the cursor; the app then
shows the context exactly as that call sent it. Points arrive progressively from a worker: a
sample of calls first (the chart has its shape at once), then the rest. Once every call is
replayed the worker also prices them (:mod:`inspector.analysis.money`, cache-aware) and
:meth:`ReplayChart.toggle_unit` switches the chart to dollars: the figures are analysis's.
"""

from __future__ import annotations

from rich.segment import Segment
from textual.events import Click
from textual.message import Message as TMessage
from textual.strip import Strip
from textual.widget import Widget

from ...analysis.money import CallDollars, Money, call_dollars
from ..engine import CallPoint
from .totals import short
from ...numbers import usd, usd_short

EIGHTHS = " ▁▂▃▄▅▆▇█"
AXIS = 8  # width of the y-axis labels
COMPACT_BELOW = 120  # chart width under which the title's words are shortened


class ReplayChart(Widget):
    COMPONENT_CLASSES = {
        "chart--baseline",
        "chart--pipeline",
        "chart--pipeline-on-baseline",
        "chart--cursor",
        "chart--label",
        "chart--title",
        "chart--axis",
        "chart--recorded",
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
    ReplayChart > .chart--recorded { color: $secondary; text-style: bold; }
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
        self.preparing = False  # the app is still finding the session's model calls
        self._columns: list[tuple[int, int]] | None = None  # per column: (first call, last call)
        self._columns_width = -1  # the widget's width the columns (and the kept maxima) are for
        #: Per column the maxima the bars show (:meth:`_values`), kept between paints: a plan
        #: that only moves the cursor repaints without visiting every call (22,016 at 50,000
        #: messages), and new points update only their own columns.
        self._kept: tuple[list[float | None], list[float | None], float, list[float | None]] | None = None
        self._column_of: dict[int, list[int]] | None = None  # call -> its columns
        self._column_of_key: tuple[int, ...] | None = None  # the columns it was built for
        self._sums: tuple[int, int, bool, frozenset[int]] | None = None  # of the points: see _point_sums
        self.unit = "tokens"  # or "dollars"
        self.money: Money | None = None
        self.dollars: dict[int, CallDollars] = {}

    # --- data -------------------------------------------------------------------------------
    def reset_points(self, n_calls: int) -> None:
        self.n_calls = n_calls
        self.preparing = False
        self.points = {}
        self._sums = None
        self.set_money(None)
        self.pending = n_calls
        self._columns = None
        self._kept = None
        self.refresh()

    def set_call_count(self, n_calls: int) -> None:
        """The session grew or shrank: keep the points of the calls it still has."""
        self.n_calls = n_calls
        if any(c > n_calls for c in self.points):
            self.points = {c: p for c, p in self.points.items() if c <= n_calls}
            self._sums = None
        self._columns = None
        self._kept = None
        self.refresh()

    def add_points(self, points: list[CallPoint], pending: int) -> None:
        self._fit_width()
        kept = self._kept
        if kept is not None and (self.unit != "tokens" or any(p.call in self.points for p in points)):
            kept = self._kept = None  # a figure may go down: every column again, at the next paint
        for p in points:
            self.points[p.call] = p
        self._sums = None
        if kept is not None:
            self._kept = self._raise_columns(kept, points)
        self.pending = pending
        self.refresh()

    def _raise_columns(self, kept, points: list[CallPoint]):
        """``kept`` with the columns of ``points`` (new calls, figures in tokens) raised to them."""
        base, pipe, top, rec = kept
        return base, pipe, self._raise(base, pipe, rec, top, ((p.call, (p.baseline, p.tokens, p.recorded)) for p in points)), rec

    def _raise(self, base, pipe, rec, top, figures) -> float:
        """Raise each column to the ``(call, (no strategy, pipeline, recorded))`` figures of its
        calls; returns the top of the scale."""
        column_of = self._calls_to_columns()
        for call, values in figures:
            for k in column_of.get(call, ()):
                for column, v in zip((base, pipe, rec), values):
                    if v is not None and (column[k] is None or v > column[k]):
                        column[k] = v
                        if v > top:
                            top = v
        return top

    def set_cursor(self, call: int | None) -> None:
        self.cursor = call
        self.refresh()

    def set_money(self, money: Money | None) -> None:
        """The session's money (None: not priced yet, or stale); dollars need it."""
        self.money = money
        self.dollars = call_dollars(money) if money is not None else {}
        if money is None and self.unit == "dollars":
            self.unit = "tokens"
        self._kept = None
        self.refresh()

    def toggle_unit(self) -> bool:
        """Tokens <-> dollars; False when the calls are not priced yet (the unit stays tokens)."""
        if self.unit == "tokens" and self.money is None:
            return False
        self.unit = "dollars" if self.unit == "tokens" else "tokens"
        self._kept = None
        self.refresh()
        return True

    def _figures(self, call: int) -> tuple[float | None, float | None, float | None]:
        """(no strategy, pipeline, recorded) of ``call`` in the chart's unit; None where unknown."""
        if self.unit == "dollars":
            d = self.dollars.get(call)
            return (d.baseline, d.pipeline, d.recorded) if d is not None else (None, None, None)
        point = self.points.get(call)
        return (point.baseline, point.tokens, point.recorded) if point is not None else (None, None, None)

    def label(self, value: float) -> str:
        """A figure in the chart's unit, short."""
        if self.unit == "tokens":
            return short(int(value))
        return usd_short(value)

    def _fit_width(self) -> None:
        """Forget the columns and their maxima if the width changed since they were made. Checked
        where they are used, not on Resize: a paint at the new width can come before that event,
        and columns made then for the old width were kept (after 160 -> 80 columns the chart
        showed the first half of the calls, cut at the right)."""
        if self._columns_width != self.size.width:
            self._columns_width = self.size.width
            self._columns = None
            self._kept = None

    # --- geometry ---------------------------------------------------------------------------
    def columns(self) -> list[tuple[int, int]]:
        """(first call, last call) of each plot column."""
        self._fit_width()
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

    def _calls_to_columns(self) -> dict[int, list[int]]:
        cols = self.columns()
        key = (len(cols), self.n_calls, cols[-1][0] if cols else 0)
        if self._column_of is None or self._column_of_key != key:
            column_of: dict[int, list[int]] = {}
            for k, (first, last) in enumerate(cols):
                for call in range(first, last + 1):
                    column_of.setdefault(call, []).append(k)
            self._column_of, self._column_of_key = column_of, key
        return self._column_of

    def call_at(self, x: int) -> int | None:
        cols = self.columns()
        k = x - AXIS
        if 0 <= k < len(cols):
            return cols[k][0]
        if k >= len(cols) and cols:
            return None  # right of the last call: the next call
        return 1 if cols else None

    # --- rendering --------------------------------------------------------------------------
    def _values(self) -> tuple[list[float | None], list[float | None], float, list[float | None]]:
        """Per column the maximum of its calls' no-strategy, pipeline and recorded figures, and
        the top of the scale (visiting the calls that have figures, not every call)."""
        n = len(self.columns())
        base: list[float | None] = [None] * n
        pipe: list[float | None] = [None] * n
        rec: list[float | None] = [None] * n
        top: float = 1 if self.unit == "tokens" else 0.0
        calls = self.dollars if self.unit == "dollars" else self.points
        top = self._raise(base, pipe, rec, top, ((call, self._figures(call)) for call in calls))
        return base, pipe, top or 1.0, rec

    def _point_sums(self) -> tuple[int, int, bool, frozenset[int]]:
        """(no-strategy total, pipeline total, any call recorded, the calls a compaction precedes)
        of the points so far, kept until points change."""
        if self._sums is None:
            known = self.points.values()
            self._sums = (sum(p.baseline for p in known), sum(p.tokens for p in known),
                          any(p.recorded is not None for p in known),
                          frozenset(c for c, p in self.points.items() if p.compacted_by))
        return self._sums

    def render_lines(self, crop):  # compute the column values once, not per line or per paint
        self._fit_width()
        if self._kept is None:
            self._kept = self._values()
        self._paint = self._kept
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
        base, pipe, top, rec = getattr(self, "_paint", None) or self._values()
        row = bars - y  # 0 = bottom bar row
        levels = bars * 8
        segs: list[Segment] = []
        middle = 1 + (bars - 1) // 2
        if y == 1:
            axis_text = f"{self.label(top)} ┤"
        elif y == bars:
            axis_text = "0 ┤"
        elif y == middle and bars >= 4:  # the value at the top of this row
            axis_text = f"{self.label(top * (row + 1) / bars)} ┤"
        else:
            axis_text = "│"
        segs.append(Segment(axis_text.rjust(AXIS), label))
        s_rec = self.get_component_rich_style("chart--recorded")
        s_base = self.get_component_rich_style("chart--baseline")
        s_pipe = self.get_component_rich_style("chart--pipeline")
        s_both = self.get_component_rich_style("chart--pipeline-on-baseline")
        cursor_overlay = self.get_component_rich_style("chart--cursor", partial=True)
        cols = self.columns()
        for k, (first, last) in enumerate(cols):
            b = base[k]
            p = pipe[k]
            r = rec[k]
            b_level = 0 if b is None else round(b * levels / top)
            p_level = 0 if p is None else round(p * levels / top)
            p_fill = max(0, min(8, p_level - row * 8))
            b_fill = max(0, min(8, b_level - row * 8))
            shares_left = k > 0 and cols[k - 1] == (first, last)
            shares_right = k + 1 < len(cols) and cols[k + 1] == (first, last)
            if shares_left and not shares_right:  # a call drawn over several columns: its last one is the recorded usage's bar
                r_fill = 0 if r is None else max(0, min(8, round(r * levels / top) - row * 8))
                ch, st = (EIGHTHS[r_fill], s_rec) if r_fill else (" ", bg)
            elif r is not None and not shares_left and not shares_right and p_fill == 0 \
                    and max(0, (round(r * levels / top) - 1) // 8) == row:
                ch, st = "•", s_rec  # one column per call: the recorded usage as a mark where no bar is
            elif p_fill == 8:
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
        """Title, legend and totals; under ``COMPACT_BELOW`` cells the words are shortened."""
        title = self.get_component_rich_style("chart--title")
        label = self.get_component_rich_style("chart--label")
        s_base = self.get_component_rich_style("chart--baseline")
        s_pipe = self.get_component_rich_style("chart--pipeline")
        s_rec = self.get_component_rich_style("chart--recorded")
        compact = width < COMPACT_BELOW
        base_sum, pipe_sum, any_recorded, compacted = self._point_sums()
        if self.unit == "dollars" and self.money is not None:
            money = self.money
            head = " $ per call  " if compact else " Replay: cost per model call (USD, cache-aware)  "
            base_total = float(money.total("baseline_cost", False) or 0)
            pipe_total = float(money.total("cost", False) or 0)
            recorded = money.total("recorded_cost", False)
            base_text, pipe_text = usd(base_total), usd(pipe_total)
            rec_text = None if recorded is None else usd(float(recorded))
        else:
            head = " tokens per call  " if compact else " Replay: input tokens per model call  "
            # the whole input each call had with no strategy (replay's predicted_tokens), not the CLI's baseline column
            base_total, pipe_total = base_sum, pipe_sum
            fmt = short if compact else (lambda n: f"{n:,}")
            base_text, pipe_text = fmt(base_total), fmt(pipe_total)
            rec_text = "" if any_recorded else None
        saving = 100.0 * (base_total - pipe_total) / base_total if base_total else 0.0
        segs = [Segment(head, title)]
        segs += [Segment("░ none " if compact else "░ no strategy ", s_base), Segment(f"{base_text}  ", label)]
        segs += [Segment("█ pipeline ", s_pipe), Segment(f"{pipe_text} ({-saving or 0.0:+.1f}%)  ", label)]
        if rec_text is not None:
            segs += [Segment("• recorded", s_rec), Segment(f" {rec_text}  " if rec_text else "  ", label)]
        if compacted:
            segs.append(Segment("c compaction  ", label))
        if self.unit == "dollars" and self.money is not None:
            segs.append(Segment(("" if compact else f"prices {self.money.prices_as_of.split(' ')[0]}  ") + "$ tokens ", label))
            return Strip(segs).crop_extend(0, width, self.rich_style)
        if self.money is not None:
            segs.append(Segment("$ usd  " if compact else "$ dollars  ", label))
        if self.pending:
            segs.append(Segment(f"computing… {self.n_calls - self.pending:,}/{self.n_calls:,} calls ", label))
        elif self.note:
            segs.append(Segment(self.note, label))
        return Strip(segs).crop_extend(0, width, self.rich_style)

    def _axis_line(self, width: int) -> Strip:
        label = self.get_component_rich_style("chart--label")
        title = self.get_component_rich_style("chart--title")
        cols = self.columns()
        compacted = self._point_sums()[3]
        cells = ["c" if any(first <= c <= last for c in compacted) else " " for first, last in cols] if compacted else [" "] * len(cols)
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
            dollars = self.dollars.get(self.cursor) if self.cursor is not None and self.unit == "dollars" else None
            if dollars is not None:
                b, p, r = (self.label(v) if v is not None else "—" for v in (dollars.baseline, dollars.pipeline, dollars.recorded))
                text += f": {b} → {p} · recorded {r}" + (" · breaks the cache" if dollars.breaks_cache else "")
            elif point is not None:
                text += f": baseline {point.baseline:,} → {point.tokens:,}"
                if point.recorded is not None:
                    text += f" · recorded {point.recorded:,}"
            if point is not None and point.compacted_by:
                text += f" · compacted by {point.compacted_by}"
            room = len(cols) - cursor_x - 1
            if len(text) > room and cursor_x > len(text):
                segs = [Segment("call ".rjust(AXIS), label), Segment(" " * (cursor_x - len(text)), label),
                        Segment(text.strip() + " ", title), Segment("▲", title)]
            else:
                segs.append(Segment(text, title))
        else:
            text = f"1 … {self.n_calls}" if self.n_calls else "finding model calls…" if self.preparing else "no model calls"
            if compacted:
                text = "".join(cells).rstrip() + "  " + text
            segs.append(Segment(text, label))
            segs.append(Segment("   ▶ cursor: next call (whole session)  [ ] move", title))
        return Strip(segs).crop_extend(0, width, self.rich_style)

    def on_click(self, event: Click) -> None:
        if not self.n_calls:
            return
        self.post_message(self.CallClicked(self.call_at(event.x)))
