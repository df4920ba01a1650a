"""The one place the command line prints a ``--json`` report: every report is an object whose
first key is ``schema_version`` (see CHANGELOG.md: adding keys keeps the version; renaming or
removing one bumps it)."""

from __future__ import annotations

import json
import sys
from typing import Any

from ..textsafe import json_escape

SCHEMA_VERSION = 1


def print_json(obj: Any) -> None:
    """Print ``obj`` as indented JSON (non-ASCII kept)."""
    sys.stdout.write(json_escape(json.dumps(obj, indent=2, ensure_ascii=False)) + "\n")


def print_report(report: dict[str, Any]) -> None:
    """Print a ``--json`` report with its ``schema_version``."""
    print_json({"schema_version": SCHEMA_VERSION, **report})
