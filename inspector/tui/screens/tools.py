"""The tool diet of the session on screen (``T``): per tool, what its results cost the context and
what the model did with them. The figures are :func:`inspector.fleet.diet.tools_report`, the same
dict ``context-inspector tools SESSION --json`` prints; this screen only lays them out. ``enter``
on a tool closes the screen with the message list's cursor on the tool's largest result."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from ..text import clean, one_line

if TYPE_CHECKING:  # pragma: no cover
    from ..app import InspectorApp

#: (header, key in a tools_report tool row) of the table's columns, left to right.
COLUMNS = (
    ("tool", "tool"),
    ("results", "results"),
    ("result tokens", "result_tokens"),
    ("share %", "share_pct"),
    ("p50", "tokens_p50"),
    ("p90", "tokens_p90"),
    ("max", "tokens_max"),
    ("truncated", "truncated"),
    ("errors", "errors"),
    ("unstructured", "unstructured_errors"),
    ("unused fields", "unused_fields"),
    ("secrets", "secrets"),
)


def _cell(key: str, row: dict[str, Any]) -> Text:
    value = row[key]
    if key == "tool":
        return Text(one_line(value, 40))
    if key == "unused_fields":
        text = f"{len(value)} of {len(row['fields'])}" if row["fields"] else "—"
    elif key == "share_pct":
        text = f"{value:.1f}"
    else:
        text = f"{value:,}"
    return Text(text, justify="right")


def details(report: dict[str, Any]) -> Text:
    """Below the table: the unused fields by name, the unstructured errors and the secrets by
    place (redacted as the core left them), and the field-use heuristic in one sentence."""
    parts: list[Text] = []
    unused = [t for t in report["tools"] if t["unused_fields"]]
    if unused:
        parts.append(Text("JSON fields never used afterwards", style="bold"))
        for t in unused:
            parts.append(Text(f"  {one_line(t['tool'], 40)}: {one_line(', '.join(t['unused_fields']), 200)}"))
    if report["unstructured_errors"]:
        parts.append(Text("Errors returned as unstructured text", style="bold"))
        for e in report["unstructured_errors"]:
            parts.append(Text(f"  {one_line(e['tool'], 40)} at {clean(e['source'])} (message {e['message_index']}): "
                              f"{e['tokens']:,} tokens"))
    if report["secrets"]:
        parts.append(Text("Results that look like secrets (redacted)", style="bold"))
        for s in report["secrets"]:
            parts.append(Text(f"  {one_line(s['tool'], 40)}: {s['kind']} at {clean(s['source'])} (message "
                              f"{s['message_index']}), result line {s['line']} column {s['column']}: {clean(s['redacted'])}"))
    parts.append(Text(f"Heuristic: {report['heuristic']}.", style="dim"))
    return Text("\n").join(parts)


class ToolsScreen(ModalScreen["int | None"]):
    """Dismissed with the message index to select (``enter`` on a tool) or None (``escape``)."""

    BINDINGS = [Binding("escape,q", "close", "Close")]
    DEFAULT_CSS = """
    ToolsScreen { align: center middle; }
    ToolsScreen > #tools-title { dock: top; height: 1; background: $primary; color: $background; padding: 0 1;
        text-style: bold; }
    ToolsScreen > #tools-table { height: auto; max-height: 60%; }
    ToolsScreen > #tools-details { height: 1fr; padding: 0 1; }
    """

    def __init__(self, report: dict[str, Any]) -> None:
        super().__init__()
        self.report = report

    def compose(self) -> ComposeResult:
        r = self.report
        results = sum(t["results"] for t in r["tools"])
        yield Static(Text(f"Tool diet: {len(r['tools'])} tools, {results:,} results; {r['context_tokens']:,} tokens in "
                          f"context ({r['encoding']}). enter: go to the tool's largest result"), id="tools-title")
        yield DataTable(id="tools-table", cursor_type="row", zebra_stripes=True)
        with VerticalScroll(id="tools-details"):
            yield Static(details(r), id="tools-details-text")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for header, key in COLUMNS:
            table.add_column(Text(header, justify="left" if key == "tool" else "right"), key=key)
        for row in self.report["tools"]:
            table.add_row(*(_cell(key, row) for _, key in COLUMNS))
        if not self.report["tools"]:
            table.add_row(Text("(no tool results)"), *(Text("") for _ in COLUMNS[1:]))
        table.focus()

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        tools = self.report["tools"]
        if 0 <= event.cursor_row < len(tools):
            self.dismiss(tools[event.cursor_row]["largest_message_index"])

    def action_close(self) -> None:
        self.dismiss(None)


def open_tools(app: InspectorApp) -> None:
    """Measure the app's session (its current counts) and show the screen; on ``enter`` move the
    list's cursor to the chosen message when the plan on screen shows it."""
    from ...analysis.session import Analysis
    from ...fleet.diet import tools_report

    report = tools_report(Analysis(app.session, app.view, app.table))

    def go_to(index: int | None) -> None:
        result = app.result
        if index is None or result is None or not 0 <= index < len(result.row_of) or result.row_of[index] < 0:
            return
        app.list.move_cursor(result.row_of[index])
        app.list.focus()

    app.push_screen(ToolsScreen(report), go_to)
