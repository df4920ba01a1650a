"""Compare in the viewer (``m``): every strategy and preset the panel offers, side by side for the
session, and a diff of two of them.

The figures come from :func:`inspector.analysis.compare_choices.compare_choices` (the core of
``context-inspector compare --presets``), computed in a thread worker with a progress line; the
screen only draws them. Columns sort with one key each (again: reversed); enter applies the row's
pipeline or preset to the viewer; space marks two rows and ``d`` lists the messages the two
treat differently (:func:`inspector.analysis.diff.plan_diff`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static
from textual.worker import get_current_worker

from ...analysis.compare_choices import Choice, ChoiceRow, compare_choices
from ...analysis.diff import DiffRow, plan_diff
from ...analysis.session import Analysis
from ...textsafe import visible


class _Cancelled(Exception):
    """The screen closed while the comparison ran."""


@dataclass(frozen=True)
class Column:
    key: str  # the key that sorts by it
    title: str
    value: Callable[[ChoiceRow], object]
    reverse: bool = False  # the first press sorts descending


def _validity(row: ChoiceRow) -> str:
    valid = row.at_cursor.valid
    return " ".join(f"{p}:{'ok' if valid.get(p) else 'BREAKS'}" for p in ("openai", "anthropic"))


COLUMNS = (
    Column("n", "name", lambda r: r.choice.label.lower()),
    Column("t", "at call", lambda r: r.tokens_at_cursor),
    Column("r", "replay total", lambda r: r.replay_total),
    Column("s", "saved", lambda r: r.tokens_saved, reverse=True),
    Column("u", "saved $", lambda r: r.dollars_saved if r.dollars_saved is not None else float("-inf"), reverse=True),
    Column("v", "valid", lambda r: sum(r.at_cursor.valid.values()), reverse=True),
)


def cells(row: ChoiceRow, marked: bool) -> list[Text]:
    """One table row, as plain text (labels are data, never markup)."""
    pct = row.compared.saving_pct
    dollars = "—" if row.dollars_saved is None else f"{row.dollars_saved:+,.4f}"
    kind = "preset" if row.choice.preset else ("" if row.choice.pipeline else "baseline")
    return [
        Text(("● " if marked else "  ") + row.choice.label + (f"  ({kind})" if kind else "")),
        Text(f"{row.tokens_at_cursor:,}", justify="right"),
        Text(f"{row.replay_total:,}", justify="right"),
        Text(f"{row.tokens_saved:,} ({pct:.1f}%)", justify="right"),
        Text(dollars, justify="right"),
        Text(_validity(row), style="" if all(row.at_cursor.valid.values()) else "bold red"),
    ]


class CompareScreen(ModalScreen[Choice | None]):
    """Dismisses with the chosen :class:`Choice` (enter), or None (escape)."""

    BINDINGS = [
        Binding("escape,q,m", "dismiss(None)", "Close", id="close-compare", tooltip="close the compare screen"),
        Binding("space", "mark", "Mark", id="compare-mark", tooltip="mark a row for the diff (two at most)"),
        Binding("d", "diff", "Diff", id="compare-diff", tooltip="the messages the two marked rows treat differently"),
        *[Binding(c.key, f"sort({i})", f"Sort by {c.title}", show=False, id=f"compare-sort-{c.key}",
                  tooltip=f"sort by {c.title} (again: reversed)") for i, c in enumerate(COLUMNS)],
    ]
    DEFAULT_CSS = """
    CompareScreen { align: center middle; }
    CompareScreen > #compare-box { width: 100%; height: 100%; background: $panel; border: round $accent; padding: 0 1; }
    CompareScreen #compare-title { color: $foreground; text-style: bold; }
    CompareScreen #compare-progress { color: $text-muted; }
    CompareScreen #compare-hint { color: $text-muted; }
    CompareScreen DataTable { height: 1fr; }
    CompareScreen DataTable > .datatable--fixed { background: transparent; }  /* the name column, striped as the rest */
    """

    def __init__(self, analysis: Analysis, choices: list[Choice], baseline: Choice, at_call: int | None,
                 call_label: str) -> None:
        super().__init__()
        self.analysis = analysis
        self.choices = choices
        self.baseline = baseline
        self.at_call = at_call
        self.call_label = call_label
        self.rows: list[ChoiceRow] = []
        self.marked: list[int] = []  # indices into self.rows
        self.sort_column: int | None = None
        self.sort_reverse = False
        self.progress_text = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="compare-box"):
            yield Static(Text(f"Every strategy and preset at {self.call_label}, and over the whole replay"),
                         id="compare-title")
            yield Static(Text("comparing…"), id="compare-progress")
            # the name stays while the figures scroll sideways (80 columns show name, at call and half a total)
            yield DataTable(id="compare-table", cursor_type="row", zebra_stripes=True, fixed_columns=1)
            yield Static(Text("enter applies · space marks two · d diff · sort: "
                              + " ".join(f"{c.key} {c.title}" for c in COLUMNS) + " · escape closes"),
                         id="compare-hint")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for c in COLUMNS:
            table.add_column(f"{c.title} ({c.key})", key=c.title)
        self._run()

    # --- the worker -----------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="compare", exit_on_error=False, description="compare")
    def _run(self) -> None:
        worker = get_current_worker()
        total = len(self.choices)
        started = [0]

        def progress_for(label: str, calls: int) -> Callable[[int, int], None]:
            started[0] += 1
            stage = started[0]

            def step(done: int, of: int) -> None:
                if worker.is_cancelled:
                    raise _Cancelled
                if done == of or done % 16 == 0:
                    self.app.call_from_thread(self._progress, f"comparing {stage} of {total}: {label} "
                                                              f"(call {done:,} of {of:,})")

            return step

        try:
            rows = compare_choices(self.analysis, self.choices, self.baseline.settings, self.at_call,
                                   progress_for=progress_for)
        except _Cancelled:
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show, rows)

    def _progress(self, text: str) -> None:
        if self.is_attached:
            self.query_one("#compare-progress", Static).update(Text(text))

    def _show(self, rows: list[ChoiceRow]) -> None:
        if not self.is_attached:
            return
        self.rows = rows
        calls = len(self.analysis.view.calls)
        self.query_one("#compare-progress", Static).update(
            Text(f"{len(rows)} rows · replay over {calls:,} model calls · saved: against no strategy · "
                 f"saved $: estimated cost saved, below 0 where dropping breaks the prompt cache (— no prices)"))
        self._fill()

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        keep = table.cursor_row
        table.clear()
        for k in self.order():
            table.add_row(*cells(self.rows[k], k in self.marked), key=str(k))
        if self.rows:
            table.move_cursor(row=min(max(keep, 0), len(self.rows) - 1))

    def order(self) -> list[int]:
        """Row indices in the order shown."""
        indices = list(range(len(self.rows)))
        if self.sort_column is None:
            return indices
        column = COLUMNS[self.sort_column]
        return sorted(indices, key=lambda k: column.value(self.rows[k]), reverse=self.sort_reverse)

    def row_at_cursor(self) -> int | None:
        table = self.query_one(DataTable)
        if not self.rows or table.cursor_row < 0:
            return None
        return self.order()[table.cursor_row]

    # --- keys -----------------------------------------------------------------------------------
    def action_sort(self, column: int) -> None:
        if self.sort_column == column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = column, COLUMNS[column].reverse
        self._fill()

    def action_mark(self) -> None:
        k = self.row_at_cursor()
        if k is None:
            return
        if k in self.marked:
            self.marked.remove(k)
        else:
            self.marked = (self.marked + [k])[-2:]
        self._fill()

    def action_diff(self) -> None:
        if len(self.marked) != 2:
            self.notify("mark two rows with space first", timeout=3)
            return
        a, b = (self.rows[k] for k in self.marked)
        self.app.push_screen(DiffScreen(a, b, plan_diff(a.at_cursor, b.at_cursor), self.call_label))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        k = self.row_at_cursor()
        if k is not None:
            self.dismiss(self.rows[k].choice)


class DiffScreen(ModalScreen[None]):
    """The messages two pipelines treat differently at one call."""

    BINDINGS = [Binding("escape,q,d", "dismiss", "Close", id="close-diff", tooltip="close the diff")]
    DEFAULT_CSS = """
    DiffScreen { align: center middle; }
    DiffScreen > #diff-box { width: 100%; height: 100%; background: $panel; border: round $accent; padding: 0 1; }
    DiffScreen #diff-title { color: $foreground; text-style: bold; }
    DiffScreen DataTable { height: 1fr; }
    """

    def __init__(self, a: ChoiceRow, b: ChoiceRow, rows: list[DiffRow], call_label: str) -> None:
        super().__init__()
        self.a, self.b, self.diff, self.call_label = a, b, rows, call_label

    def compose(self) -> ComposeResult:
        a, b = self.a.choice.label, self.b.choice.label
        with Vertical(id="diff-box"):
            count = f"{len(self.diff)} message{'s' if len(self.diff) != 1 else ''} treated differently"
            yield Static(Text(f"A: {a}  vs  B: {b} at {self.call_label}: {count}"), id="diff-title")
            yield DataTable(id="diff-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("#", "A", "A tokens", "B", "B tokens", "why (A / B)")
        for d in self.diff:
            table.add_row(Text(str(d.index)), Text(d.status_a.value), Text(f"{d.tokens_a:,}", justify="right"),
                          Text(d.status_b.value), Text(f"{d.tokens_b:,}", justify="right"),
                          Text(visible(f"A: {d.reason_a} / B: {d.reason_b}")))
        if not self.diff:
            table.add_row(Text("—"), Text("the two plans treat every message the same"), Text(""), Text(""),
                          Text(""), Text(""))


__all__ = ["COLUMNS", "CompareScreen", "DiffScreen", "cells"]
