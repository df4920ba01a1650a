"""The one place the command line prints a ``--json`` report: every report is an object whose
first key is ``schema_version`` (see CHANGELOG.md: adding keys keeps the version; renaming or
removing one bumps it).

The text is written by orjson (indented two spaces, like ``json.dumps(indent=2)``): the stdlib
encoder is pure Python once it indents, 2.7 s and 110 MB of peak memory for a 60,000-message plan,
ten times that at 600,000. What orjson cannot write (a lone surrogate from a broken file, an int
beyond 64 bits) falls back to the stdlib. The two differ only in how a float with a small exponent
is spelled (``3e-6`` for ``3e-06``), the same number to every JSON reader.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import orjson

from ..analysis.usage_rows import RowsWhenRead
from ..textsafe import json_escape

SCHEMA_VERSION = 1
_CHUNK = 4_096  # rows of a LazyRows serialised at a time


class LazyRows(RowsWhenRead):
    """Rows of a report built when read (:meth:`row`), never all held at once: :func:`print_json`
    writes a top-level value of this type in chunks, exactly as the list of its rows (rows built
    when read anywhere else in a report are written as their list)."""

_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS


def _rows(value: Any) -> list[Any]:
    """Rows a report builds when read (:class:`RowsWhenRead`: ``info``'s usage and cost rows),
    written as their list."""
    if isinstance(value, RowsWhenRead):
        return list(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def json_text(obj: Any) -> str:
    """``obj`` as indented JSON text (non-ASCII kept, unsafe characters escaped)."""
    try:
        text = orjson.dumps(obj, default=_rows, option=_OPTIONS).decode()
    except (TypeError, orjson.JSONEncodeError):
        text = json.dumps(obj, indent=2, ensure_ascii=False, default=_rows)
    return json_escape(text)


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON (non-ASCII kept); a top-level :class:`LazyRows` value of a
    dict is written a chunk of rows at a time."""
    lazy = {key: value for key, value in obj.items() if isinstance(value, LazyRows)} if isinstance(obj, dict) else {}
    if not lazy:
        sys.stdout.write(json_text(obj) + "\n")
        return
    marks = {key: f"\u0000rows {n}\u0000" for n, key in enumerate(lazy)}
    text = json_text({key: marks.get(key, value) for key, value in obj.items()})
    for key, rows in lazy.items():
        before, text = text.split(json.dumps(marks[key]), 1)
        sys.stdout.write(before)
        _write_rows(rows)
    sys.stdout.write(text + "\n")


def _write_rows(rows: LazyRows) -> None:
    """``rows`` as the indented JSON list a top-level key's value is (two spaces deeper)."""
    if not len(rows):
        sys.stdout.write("[]")
        return
    sys.stdout.write("[\n")
    for start in range(0, len(rows), _CHUNK):
        chunk = json_text(rows[start : start + _CHUNK])  # "[\n  {...},\n  {...}\n]"
        if start:
            sys.stdout.write(",\n")
        sys.stdout.write("  " + chunk[2:-2].replace("\n", "\n  "))
    sys.stdout.write("\n  ]")


def print_report(report: dict[str, Any]) -> None:
    """Print a ``--json`` report with its ``schema_version``."""
    print_json({"schema_version": SCHEMA_VERSION, **report})
