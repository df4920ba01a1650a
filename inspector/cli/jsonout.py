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

from ..textsafe import json_escape

SCHEMA_VERSION = 1

_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS


def json_text(obj: Any) -> str:
    """``obj`` as indented JSON text (non-ASCII kept, unsafe characters escaped)."""
    try:
        text = orjson.dumps(obj, option=_OPTIONS).decode()
    except (TypeError, orjson.JSONEncodeError):
        text = json.dumps(obj, indent=2, ensure_ascii=False)
    return json_escape(text)


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON (non-ASCII kept)."""
    sys.stdout.write(json_text(obj) + "\n")


def print_report(report: dict[str, Any]) -> None:
    """Print a ``--json`` report with its ``schema_version``."""
    print_json({"schema_version": SCHEMA_VERSION, **report})
