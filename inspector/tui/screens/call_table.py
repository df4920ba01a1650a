"""The replay as a table (``c``): one row per model call with the chart's figures — input tokens
with no strategy and under the pipeline, what the file recorded, the cache read and write the
cache model gives the pipeline's request, the cost with no strategy, under the pipeline and of
the recorded usage, and the compaction that came before the call. Every figure comes from
analysis (the replay's points and :func:`inspector.analysis.money.call_dollars`); this screen
only lays them out."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Static

from ...analysis.money import CallDollars, Money, call_dollars
from ..engine import CallPoint
from ...numbers import usd

COLUMNS = ("call", "no strategy", "pipeline", "recorded", "cache read", "cache write",
           "$ no strategy", "$ pipeline", "$ recorded", "compacted by", "cache")


def _n(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def _usd(value: float | None) -> str:
    return "—" if value is None else usd(value)


def table_rows(points: dict[int, CallPoint], money: Money | None) -> list[tuple[str, ...]]:
    """The table's cells, call by call (calls not replayed yet are left out)."""
    dollars: dict[int, CallDollars] = call_dollars(money) if money is not None else {}
    rows = []
    for call in sorted(points):
        p, d = points[call], dollars.get(call)
        rows.append((
            str(call), _n(p.baseline), _n(p.tokens), _n(p.recorded),
            _n(d.read_tokens) if d else "—", _n(d.write_tokens) if d else "—",
            _usd(d.baseline) if d else "—", _usd(d.pipeline) if d else "—", _usd(d.recorded) if d else "—",
            p.compacted_by or "", "breaks" if d and d.breaks_cache else "",
        ))
    return rows


class CallTableScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,number_sign", "dismiss", "Close")]
    DEFAULT_CSS = """
    CallTableScreen { align: center middle; }
    CallTableScreen > #calls-title { dock: top; height: 1; background: $primary; color: $background; padding: 0 1;
        text-style: bold; }
    CallTableScreen > DataTable { width: 100%; height: 1fr; }
    """

    def __init__(self, points: dict[int, CallPoint], money: Money | None, n_calls: int) -> None:
        super().__init__()
        self.rows = table_rows(points, money)
        priced = f"prices as of {money.prices_as_of}, cache-aware" if money is not None else "not priced yet"
        self.title_text = f"Replay per call: {len(self.rows):,} of {n_calls:,} calls · tokens are whole inputs · {priced}"

    def compose(self) -> ComposeResult:
        from rich.text import Text

        yield Static(Text(self.title_text), id="calls-title")
        yield DataTable(id="calls", zebra_stripes=True, cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for k, name in enumerate(COLUMNS):
            table.add_column(name, key=name)
        for row in self.rows:
            table.add_row(*row)
        table.focus()
