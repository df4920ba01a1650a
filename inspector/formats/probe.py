"""What detection and every reader share, below the registry: the :class:`Probe` a format's
``detect`` scores, the one error bad input raises, and the registry dict itself (filled by
:func:`inspector.formats.base.register`; the error names its formats). Kept apart from
:mod:`.base` so the helpers base builds on (:mod:`.discovery`, :mod:`.records`) can use them
without importing base back.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..safeio import read_text_head
from .compressed import is_zstd, zstd_head
from .jsonstream import load_json

if TYPE_CHECKING:  # pragma: no cover
    from .base import Format

#: Every registered format by name, in registration order.
FORMATS: dict[str, Format] = {}

HEAD_BYTES = 64 * 1024


class SessionFormatError(Exception):
    """Bad or unrecognised input. ``str()`` is one paragraph: file, place, what was expected."""

    def __init__(self, path: str | Path, where: str | None, problem: str, expected: str | None = None) -> None:
        self.path = str(path)
        self.where = where
        self.problem = problem
        self.expected = expected
        super().__init__(self._paragraph())

    def _paragraph(self) -> str:
        place = f"{self.path}, {self.where}" if self.where else self.path
        text = f"{place}: {self.problem}"
        if self.expected:
            text += f" Expected {self.expected}."
        text += f" Known formats: {', '.join(FORMATS)} (use --format NAME to force one)."
        return text


class Probe:
    """What detection looks at: the path, the first bytes, and (lazily) the parsed content."""

    def __init__(self, path: Path, head_bytes: int = HEAD_BYTES) -> None:
        self.path = path
        self.is_dir = path.is_dir()
        self.head_bytes = head_bytes

    @cached_property
    def head(self) -> bytes:
        if self.is_dir:
            return b""
        if str(self.path).endswith(".zst") and is_zstd(self.path):
            return zstd_head(self.path, self.head_bytes)
        return read_text_head(self.path, self.head_bytes)

    @cached_property
    def first_line(self) -> Any:
        """The first non-blank line parsed as JSON, or None if it does not parse."""
        for raw in self.head.splitlines():
            if raw.strip():
                try:
                    return orjson.loads(raw)
                except orjson.JSONDecodeError:
                    return None
        return None

    def _first_line_then_more(self) -> bool:
        """The first non-blank line is a JSON value of its own and more text follows it."""
        lines = self.head.split(b"\n")
        for k, raw in enumerate(lines):
            if raw.strip():
                return self.first_line is not None and any(rest.strip() for rest in lines[k + 1 :])
        return False

    @cached_property
    def document(self) -> Any:
        """The whole file parsed as one JSON value, or None if it is not one."""
        if self.is_dir:
            return None
        stripped = self.head.lstrip()
        if not stripped[:1] in (b"{", b"["):
            return None
        if self._first_line_then_more():
            return None  # JSONL: one value, then more text, is not one JSON value (no need to read it all)
        try:
            return load_json(self.path)
        except orjson.JSONDecodeError:
            return None


__all__ = ["FORMATS", "HEAD_BYTES", "Probe", "SessionFormatError"]
