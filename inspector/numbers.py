"""How money reads in every view: ``$1,234.50``, ``$0.0123``, ``-$0.19`` (the sign before the
symbol, never ``$-0.19``). Pure string formatting, shared by the CLI, the viewer and the report."""

from __future__ import annotations


def usd(value: float, places: int = 4) -> str:
    """``value`` dollars with ``places`` decimals and thousands separators, sign first."""
    text = f"${abs(value):,.{places}f}"
    return "-" + text if value < 0 and text.strip("$0.,") else text


def usd_short(value: float) -> str:
    """Dollars as few digits as the size needs (chart axes): $12.30, $0.123, $0.0012, $0."""
    if not value:
        return "$0"
    size = abs(value)
    return usd(value, 2 if size >= 1 else 3 if size >= 0.001 else 4)
