"""The reader registry, format detection and the one error type bad input raises.

A format module registers a :class:`Format` with :func:`register`: a ``detect`` function that
scores a :class:`Probe` (0 = not this format), a ``read`` function that returns a
:class:`~inspector.model.Session`, and optionally a ``write`` function for round trips and
exports. Readers never write to the session file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

import orjson

from ..model import Session
from ..safeio import InputError, check_input, read_text, read_text_head

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

    def __init__(self, path: Path) -> None:
        self.path = path
        self.is_dir = path.is_dir()

    @cached_property
    def head(self) -> bytes:
        if self.is_dir:
            return b""
        return read_text_head(self.path, HEAD_BYTES)

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

    @cached_property
    def document(self) -> Any:
        """The whole file parsed as one JSON value, or None if it is not one."""
        if self.is_dir:
            return None
        stripped = self.head.lstrip()
        if not stripped[:1] in (b"{", b"["):
            return None
        try:
            return orjson.loads(read_text(self.path))
        except orjson.JSONDecodeError:
            return None


class RecordStream(Protocol):
    """Incremental reader of an append-only (JSONL) format: fed one complete line at a time.

    The whole-file reader of such a format is "feed every line, then look at ``session``"; the
    live follower (:mod:`inspector.follow`) feeds lines as they are appended. A bad line never
    raises: it goes to ``session.skipped`` with its line number.
    """

    session: Session

    def feed(self, line: bytes, line_no: int) -> None:
        """Consume one line (without its newline); ``line_no`` is 1-based."""
        ...

    def take(self) -> tuple[int, list[Any]]:
        """``(first, messages)``: messages ``session.messages[first:]`` changed or appeared since
        the last ``take`` (``first == len`` when nothing did). A format that merges several lines
        into one message (Claude Code) reports the merged message again."""
        ...


@dataclass(frozen=True)
class Format:
    name: str
    description: str
    detect: Callable[[Probe], int]
    read: Callable[[Path], Session]
    write: Callable[[Session], str] | None = None
    #: Append-only on disk, so the TUI can follow it as it grows.
    appendable: bool = False
    #: File suffix for ``write`` output.
    suffix: str = ".json"
    #: For appendable formats: make a RecordStream for a path (the path names the session).
    stream: Callable[[Path], RecordStream] | None = None


FORMATS: dict[str, Format] = {}


def register(fmt: Format) -> Format:
    FORMATS[fmt.name] = fmt
    return fmt


#: What a detector raises on a field of an unexpected type (a dict where a string belongs is
#: unhashable in ``role in ROLES``): the file is then not that format, never a traceback.
DETECT_FIELD_ERRORS = (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError)


def _score(fmt: Format, probe: Probe) -> int:
    """``fmt.detect(probe)``, 0 when the detector trips over a wrongly typed field."""
    try:
        return fmt.detect(probe)
    except DETECT_FIELD_ERRORS:
        return 0


def detect(path: str | Path) -> Format:
    """The registered format that scores highest on ``path``; SessionFormatError if none does."""
    p = Path(path)
    if not p.exists() and not p.is_symlink():
        raise SessionFormatError(p, None, "no such file or directory.")
    check_input(p)
    probe = Probe(p)
    try:
        scored = sorted(((_score(fmt, probe), fmt.name) for fmt in FORMATS.values()), reverse=True)
    except InputError:
        raise  # already one paragraph naming the file and the cause
    except OSError as exc:
        raise SessionFormatError(p, None, f"cannot read it ({exc.strerror or exc}).") from exc
    if not scored or scored[0][0] <= 0:
        if not p.is_dir() and not probe.head.strip():
            raise SessionFormatError(p, "line 1", "the file is empty.", "a JSON or JSONL agent session")
        raise SessionFormatError(
            p,
            None,
            "this is not a session format the inspector recognises.",
            "a JSON list of chat messages (OpenAI), an object with 'messages' (OpenAI or Anthropic), "
            "or JSONL with one message per line",
        )
    return FORMATS[scored[0][1]]


def get_format(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise SessionFormatError(name, None, f"unknown format {name!r}.") from None


def load(path: str | Path, format: str | None = None) -> Session:
    """Read ``path`` into a Session, detecting the format unless ``format`` names one."""
    p = Path(path)
    fmt = get_format(format) if format else detect(p)
    if not p.exists() and not p.is_symlink():
        raise SessionFormatError(p, None, "no such file or directory.")
    check_input(p)
    return fmt.read(p)
