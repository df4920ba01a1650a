"""A JSONL file's objects with their line numbers, for the readers that read a whole file in one
loop (Claude Code, Codex): the same lines, objects and ``skipped`` entries as
:func:`~inspector.formats.records.iter_lines` followed by
:func:`~inspector.formats.records.parse_line` on every line, in one loop that calls the reader's
entry handler.

Why not those two: at 10k lines their two extra calls and generator layer per line cost about
as much as a tenth of the parse (measured 2026-11-24 on the 2-vCPU machine). Only a line that does not parse as an object
(rare) goes through ``parse_line``, so its error text is the one every reader writes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

import orjson

from ..model import Skipped
from ..safeio import iter_text_lines, iter_text_runs
from .records import iter_lines, parse_line


def feed_records(
    path: Path,
    add: Callable[[dict[str, Any], int], object],
    skipped: list[Skipped],
    file: str | None = None,
    guard: tuple[type[Exception], ...] = (),
    on_error: Callable[[dict[str, Any], int, Exception], object] | None = None,
) -> None:
    """``add(object, line_no)`` for every line of ``path`` that is a JSON object (1-based), in
    file order; blank lines left out silently and bad ones reported in ``skipped`` (``file``
    names them), as ``parse_line`` does. A loop that calls the reader, not a generator it
    iterates: one resumption a line less. When ``add`` raises one of ``guard``,
    ``on_error(object, line_no, exc)`` is called and the loop goes on (the reader's own
    try/except around each entry, without a wrapper call a line)."""
    if str(path).endswith(".zst"):  # compressed: the general line reader (rare, not the hot path)
        for line_no, line in iter_lines(path):
            value = parse_line(line, line_no, skipped, file)
            if value is not None:
                try:
                    add(value, line_no)
                except guard as exc:
                    on_error(value, line_no, exc)  # type: ignore[misc]
        return
    _feed_lines(enumerate(iter_text_lines(path), 1), add, skipped, file, guard, on_error)


def _feed_lines(
    lines: Iterable[tuple[int, bytes]],
    add: Callable[[dict[str, Any], int], object],
    skipped: list[Skipped],
    file: str | None,
    guard: tuple[type[Exception], ...],
    on_error: Callable[[dict[str, Any], int, Exception], object] | None,
) -> None:
    """:func:`feed_records`' loop over ``(line_no, line)`` pairs (the dict way)."""
    loads, error = orjson.loads, orjson.JSONDecodeError
    for line_no, line in lines:
        # a CRLF line's "\r" is JSON whitespace: the object is the same with or without it
        try:
            value = loads(line)
        except error:
            value = None
        if type(value) is not dict:  # not JSON, not an object, or blank: parse_line says which
            value = parse_line(line[:-1] if line.endswith(b"\r") else line, line_no, skipped, file)
            if value is None:
                continue
        try:
            add(value, line_no)
        except guard as exc:
            on_error(value, line_no, exc)  # type: ignore[misc]


class LineDecoder(Protocol):
    """A typed decoder of JSON lines (a ``msgspec.json.Decoder``)."""

    def decode(self, line: bytes) -> Any: ...

    def decode_lines(self, lines: Any) -> list[Any]: ...


def feed_typed_records(
    path: Path,
    decoder: LineDecoder,
    refused: tuple[type[Exception], ...],
    take: Callable[[Any, int], bool],
    add: Callable[[dict[str, Any], int], object],
    skipped: list[Skipped],
    guard: tuple[type[Exception], ...] = (),
    on_error: Callable[[dict[str, Any], int, Exception], object] | None = None,
) -> None:
    """:func:`feed_records` for a reader that decodes its lines into typed values first:
    ``take(value, line_no)`` is offered each line's value and returns whether it took the line;
    a line it does not take, or that ``decoder`` refuses (raises one of ``refused``), goes the
    dict way (``add``, or ``skipped``), exactly as :func:`feed_records` would send it.

    A run of whole lines (:func:`~inspector.safeio.iter_text_runs`) in which every line starts
    with ``{`` and ends with ``}`` is decoded in one call (``decode_lines``: no line cut, copied
    or decoded by a call of its own). ``decode_lines`` reads a stream of values across newlines,
    so its values are the lines' only when no value spans a newline and no line holds two: a
    newline inside a value would sit between two of its tokens, and no JSON value has ``}``
    then ``{`` there (after a value comes ``,`` or a closing bracket), so with every newline
    between a ``}`` and a ``{`` none does, and as many values as lines leaves one a line. Any
    other run, or one that does not decode, is decoded line by line."""
    if str(path).endswith(".zst"):  # compressed: the general line reader (rare, not the hot path)
        feed_records(path, add, skipped, None, guard, on_error)
        return
    decode, decode_lines = decoder.decode, decoder.decode_lines
    line_no = 1
    for buf, start, end in iter_text_runs(path):
        lines = _object_lines(buf, start, end)
        values = None
        if lines:
            try:
                with memoryview(buf) as view:
                    values = decode_lines(view[start:end])
            except refused:
                values = None
            if values is not None and len(values) != lines:
                values = None
        if values is not None:
            find, at, at_no = buf.find, start, line_no  # where line at_no starts (found when needed)
            for value in values:
                if not take(value, line_no):
                    while at_no < line_no:
                        at, at_no = find(b"\n", at) + 1, at_no + 1
                    _feed_lines(((line_no, buf[at : find(b"\n", at)]),), add, skipped, None, guard, on_error)
                line_no += 1
            continue
        find = buf.find
        while start < end:
            stop = find(b"\n", start, end)
            if stop < 0:
                stop = end
            line = buf[start:stop]
            try:
                took = take(decode(line), line_no)
            except refused:
                took = False
            if not took:
                _feed_lines(((line_no, line),), add, skipped, None, guard, on_error)
            start, line_no = stop + 1, line_no + 1


def _object_lines(buf: bytes, start: int, end: int) -> int:
    """How many lines ``buf[start:end]`` holds when each starts with ``{``, ends with ``}`` and
    has its newline; else 0. (A loop a line: counting the newlines in C, ``bytes.count``, goes a
    byte at a time and costs more than the whole loop, 1 ms a MB against 0.1.)"""
    if start >= end or buf[start] != 0x7B or buf[end - 1] != 0x0A:
        return 0
    find, lines = buf.find, 0
    while start < end:
        stop = find(b"\n", start, end)
        if buf[stop - 1] != 0x7D:
            return 0
        start, lines = stop + 1, lines + 1
        if start < end and buf[start] != 0x7B:
            return 0
    return lines


__all__ = ["LineDecoder", "feed_records", "feed_typed_records"]
