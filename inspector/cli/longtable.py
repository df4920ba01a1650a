"""Tables of many thousand rows, printed in linear time.

Rich's :class:`~rich.table.Table` measures and renders every cell through its layout engine, about
a millisecond a row: a 40,000-message ``plan`` spent 25-40 s drawing its table. Above
:data:`LONG` rows the CLI lays the same columns out itself: widths from the cells' display width
(one pass), the last column folded to the space left, each row one :class:`~rich.text.Text` line,
printed in chunks. The output looks like a ``box.SIMPLE_HEAD`` table, and it goes through the
same :class:`~inspector.cli.safeconsole.SafeConsole`, so session strings stay inert.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

LONG = 2_000
_CHUNK = 2_000
_MIN_FOLD = 20


@dataclass(frozen=True)
class Column:
    header: str
    right: bool = False
    footer: Text | None = None


def _pad(cell: Text, width: int, right: bool) -> Text:
    gap = width - cell_len(cell.plain)
    if gap <= 0:
        return cell
    pad = " " * gap
    return Text.assemble(pad, cell) if right else Text.assemble(cell, pad)


def _fold(cell: Text, width: int, measure: Console) -> list[Text]:
    """The last column's text cut into lines of at most ``width`` cells (no word lost)."""
    if cell_len(cell.plain) <= width:
        return [cell]
    return list(cell.wrap(measure, width, overflow="fold"))


def print_long_table(out: Console, columns: Sequence[Column], rows: Sequence[Sequence[Text]]) -> None:
    """Print ``rows`` under ``columns``; the last column folds (unless it is right-aligned: a
    figure), the others never wrap."""
    fixed = columns[:-1]
    widths = [max(cell_len(c.header), cell_len(c.footer.plain) if c.footer else 0) for c in fixed]
    for row in rows:
        for k in range(len(fixed)):
            n = cell_len(row[k].plain)
            if n > widths[k]:
                widths[k] = n
    used = 1 + sum(w + 2 for w in widths)
    last = max(_MIN_FOLD, out.width - used - 1)
    measure = Console(width=last, legacy_windows=False)

    def line(cells: Sequence[Text], style: str = "") -> list[Text]:
        head = Text(" ", style=style)
        for k, col in enumerate(fixed):
            head.append_text(_pad(cells[k], widths[k], col.right))
            head.append("  ")
        if columns[-1].right:  # a figure: padded to the column's width, never folded
            parts = [_pad(cells[-1], widest_last, True)]
        else:
            parts = _fold(cells[-1], last, measure)
        indent = " " * cell_len(head.plain)
        out_lines = [Text.assemble(head, parts[0])]
        out_lines.extend(Text.assemble(indent, p) for p in parts[1:])
        return out_lines

    widest_last = max([cell_len(columns[-1].header), *(cell_len(r[-1].plain) for r in rows),
                       cell_len(columns[-1].footer.plain) if columns[-1].footer else 0])
    rule = Text(" " + "─" * (used - 1 + min(last, widest_last)))
    header = line([Text(c.header, style="bold") for c in columns])
    footer = line([c.footer or Text("") for c in columns])
    buffer: list[Text] = [*header, rule]
    for row in rows:
        buffer.extend(line(row))
        if len(buffer) >= _CHUNK:
            _flush(out, buffer)
    buffer.append(rule)
    buffer.extend(footer)
    _flush(out, buffer)


def _flush(out: Console, buffer: list[Text]) -> None:
    out.print(Text("\n").join(buffer), no_wrap=True, overflow="ignore", crop=False)
    buffer.clear()


__all__ = ["LONG", "Column", "print_long_table"]
