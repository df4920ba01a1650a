"""Helpers the record-based readers share: sniffing the first JSONL records, feeding a file's
lines to a :class:`~inspector.formats.base.RecordStream`, and the small conversions several agent
formats need (tool arguments as JSON text, skipped and malformed-record entries), and
:func:`read_stream`, how an appendable format reads a whole file with its own stream. Content,
images and usage are in :mod:`inspector.formats.reading`.

Used by the Claude Code, Codex, Strands, OpenAI Responses, Agents SDK, LangChain, OpenHands and
SWE-agent readers. No format knowledge lives here.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol, TypeVar

import orjson

from ..model import Skipped, SourceRef, new_skipped
from ..safeio import iter_text_lines, read_line, read_text
from .compressed import is_zstd, zstd_lines
from .probe import Probe, SessionFormatError

#: First lines can be long (a Claude Code file read, a Codex instructions block); when the probe's
#: head holds no complete line, read at most this much of the first line to sniff it.
FIRST_LINE_CAP = 8 * 1024 * 1024


def head_records(probe: Probe, limit: int = 25) -> list[dict[str, Any]]:
    """Up to ``limit`` JSON objects from the complete lines at the start of the file.

    Lines that do not parse, or parse to something other than an object, are left out; a file
    whose first line is longer than the probe's head is read up to :data:`FIRST_LINE_CAP`.
    """
    if probe.is_dir:
        return []
    head = probe.head
    lines = head.split(b"\n")
    if len(lines) > 1:
        lines = lines[:-1]  # the last piece may be cut by the head limit
    elif head:
        if probe.head.lstrip()[:1] in (b"{", b"[") and probe.document is not None:
            # the whole file is one JSON value (parsed once for every detector): its only line
            return [probe.document] if isinstance(probe.document, dict) else []
        lines = [read_line(probe.path, FIRST_LINE_CAP)]
    out: list[dict[str, Any]] = []
    for raw in lines:
        if not raw.strip():
            continue
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            out.append(value)
            if len(out) >= limit:
                break
    return out


def iter_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """``(line_no, line)`` for every line of ``path`` (1-based, newline stripped, blank kept),
    read a block at a time (:func:`~inspector.safeio.iter_text_lines`; a ``*.zst`` file's
    decompressed lines, :mod:`.compressed`)."""
    lines = zstd_lines(path) if str(path).endswith(".zst") and is_zstd(path) else iter_text_lines(path)
    for n, raw in enumerate(lines, 1):
        yield n, raw[:-1] if raw.endswith(b"\r") else raw


class _CountingStream(Protocol):
    recognised: int

    def feed(self, line: bytes, line_no: int) -> None: ...


_Stream = TypeVar("_Stream", bound=_CountingStream)


def read_stream(stream: _Stream, path: Path, problem: str, expected: str) -> _Stream:
    """``stream`` fed every line of ``path``; SessionFormatError at line 1 (``problem``,
    ``expected``) when it recognised no record of its format."""

    feed = stream.feed
    for line_no, line in iter_lines(path):
        feed(line, line_no)
    if not stream.recognised:
        raise SessionFormatError(path, "line 1", problem, expected)
    return stream


def parse_line(line: bytes, line_no: int, skipped: list[Skipped], file: str | None = None) -> dict[str, Any] | None:
    """One JSONL line as an object, or None (blank lines silently; bad ones into ``skipped``)."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        if not line or line.isspace():  # a blank line (tested only here: not a test of every line)
            return None
        skipped.append(Skipped(where=str(SourceRef(line=line_no, file=file)), reason=f"not valid JSON ({exc})"))
        return None
    if not isinstance(value, dict):
        where = str(SourceRef(line=line_no, file=file))
        skipped.append(Skipped(where=where, reason=f"expected a JSON object, got {type(value).__name__}"))
        return None
    return value


def ignored(where: str | SourceRef, record_type: str) -> Skipped:
    """A record skipped on purpose; ``reason`` is the record type so ``info`` can count them."""
    return new_skipped(where if type(where) is str else str(where), record_type, "ignored")


def ignored_at(line_no: int, file: str | None, record_type: str) -> Skipped:
    """:func:`ignored` for line ``line_no`` of ``file`` (None: the session file itself), its
    ``where`` as ``str(SourceRef(line=line_no, file=file))`` is, without building the SourceRef
    (a real Claude Code transcript skips about half its lines on purpose)."""
    return new_skipped(f"line {line_no}" if file is None else str(SourceRef(line=line_no, file=file)), record_type, "ignored")


#: What converting one record raises when a field has an unexpected type; readers catch these
#: around each record and skip it (:func:`malformed`) instead of failing the whole file.
FIELD_ERRORS = (TypeError, ValueError, AttributeError)


def malformed(where: str | SourceRef, what: str, exc: Exception) -> Skipped:
    """A record skipped because converting it raised one of :data:`FIELD_ERRORS`:
    ``reason`` = ``malformed <what> (<error type>: <error>)``."""
    return Skipped(where=str(where), reason=f"malformed {what} ({type(exc).__name__}: {exc})")


def json_text(value: Any) -> str:
    """Tool arguments given as an object, as JSON text (compact, as the Anthropic reader writes
    them, so the same call counts the same in every format); a string is kept as it is."""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # non-string keys, huge ints
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def load_json(path: Path) -> Any:
    """The file parsed as one JSON value; SessionFormatError naming the line and column if not."""

    data = read_text(path)
    if not data.strip():
        raise SessionFormatError(path, "line 1", "the file is empty.", "a JSON document")
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise SessionFormatError(path, f"line {exc.lineno}, column {exc.colno}", f"not valid JSON ({exc.msg}).") from None
