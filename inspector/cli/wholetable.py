"""Rich tables printed with no cell cut short.

Rich fits a table to the terminal by shrinking its widest columns, and a cell that cannot wrap
(a figure, a pipeline name) is then cut with an ellipsis: at 80 columns ``compare`` printed
"15,498,0…" for 15,498,028 tokens and "tool_pruni…" for three different pipelines. Here every
column gets at least its longest word (the header's and each cell's), the room left goes to the
columns that would wrap, and a table whose words alone are wider than the terminal loses its blank
edges, then is printed at that width (the terminal folds the lines; no figure is lost).
"""

from __future__ import annotations

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table


def fit_columns(table: Table, console: Console, width: int) -> int:
    """Fix each column of ``table`` to a width no cell is cut at, as close to ``width`` in all as
    the cells allow; returns the table's width."""
    wide = console.options.update_width(1 << 20)
    lows, highs = [], []
    for column in table.columns:
        cells = [column.header, column.footer, *column.cells]
        sizes = [Measurement.get(console, wide, cell) for cell in cells if cell is not None and cell != ""]
        high = max((m.maximum for m in sizes), default=1)
        lows.append(high if column.no_wrap else max((m.minimum for m in sizes), default=1))
        highs.append(high)
    n = len(table.columns)
    _, right, _, left = table.padding
    edges = ((2 if table.show_edge else 0) + n - 1) if table.box else 0
    fixed = edges + n * (left + right) - (0 if table.pad_edge else left + right)
    widths = list(lows)
    room = width - fixed - sum(widths)
    while room > 0:  # the room left goes to the columns that would wrap, evenly, up to their widest line
        short = [i for i in range(n) if widths[i] < highs[i]]
        if not short:
            break
        share = max(1, room // len(short))
        for i in short:
            step = min(share, highs[i] - widths[i], room)
            widths[i] += step
            room -= step
    for column, w in zip(table.columns, widths):
        column.width = w
    return fixed + sum(widths)


def print_whole(out: Console, table: Table) -> None:
    """Print ``table`` on ``out`` with every cell whole (:func:`fit_columns`)."""
    need = fit_columns(table, out, out.width)
    if need > out.width:  # the blank edges and their padding go first
        table.show_edge = table.pad_edge = False
        need = fit_columns(table, out, out.width)
    if need <= out.width:
        out.print(table)
        return
    width = out.width
    out.width = need
    try:
        out.print(table, crop=False)
    finally:
        out.width = width
