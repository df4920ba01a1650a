"""Shared plumbing of the whole-document JSON readers (OpenAI, Anthropic).

- :func:`parse_file` reads and parses a file once with orjson, turning a decoder error into a
  :class:`SessionFormatError` that names the line and column.
- :class:`ShapeError` is what a reader raises on a structural problem, with the JSON path as a
  tuple; :func:`shape_error` turns it into a SessionFormatError naming the path and, computed only
  then, the line the offending value starts on (:func:`line_of`).
- A one-slot cache lets ``read`` reuse the document that detection already parsed.
- :func:`read_document`, :func:`message_items`, :func:`tool_items` and :func:`tool_fields` are the
  steps the OpenAI and Anthropic readers (and the inspector's JSONL tool header) take alike.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from ..model import Session
from ..safeio import read_text
from . import hints as H
from .base import Probe, SessionFormatError, loading_heap
from .jsonstream import STREAM_FROM_BYTES, load_json

PathParts = tuple[str | int, ...]

NOT_JSON_EXPECTED = "a JSON document (OpenAI or Anthropic messages) or JSONL with one JSON object per line"


class ShapeError(Exception):
    """A value in the document has the wrong shape: ``path`` is where, ``problem`` says what."""

    def __init__(self, path: PathParts, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{json_path(path)}: {problem}")


def json_path(parts: PathParts) -> str:
    """``("messages", 3, "tool_calls", 0)`` -> ``$.messages[3].tool_calls[0]``."""
    out = ["$"]
    for part in parts:
        out.append(f"[{part}]" if isinstance(part, int) else f".{part}")
    return "".join(out)


def describe(value: Any) -> str:
    """A short name for what a JSON value is, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "an empty list" if not value else "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


#: No cyclic GC pass while building many objects that are all kept, and the result frozen out
#: of the collector's view (:func:`inspector.formats.base.loading_heap`).
paused_gc = loading_heap


# -- parsing -------------------------------------------------------------------------------------

_cache: tuple[str, tuple[int, int, int], bytes | None, Any] | None = None


def _signature(path: Path) -> tuple[int, int, int]:
    st = os.stat(path)
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def remember(probe: Probe, document: Any) -> None:
    """Keep the document detection parsed, so the reader that wins does not parse it again."""
    global _cache
    try:
        _cache = (str(probe.path), _signature(probe.path), None, document)
    except OSError:
        _cache = None


def parse_file(path: Path) -> tuple[bytes | None, Any]:
    """``(raw bytes or None when taken from the cache, document)``; SessionFormatError if not JSON."""
    global _cache
    cached, _cache = _cache, None
    if cached is not None and cached[0] == str(path):
        try:
            if cached[1] == _signature(path):
                return cached[2], cached[3]
        except OSError:
            pass
    if os.stat(path).st_size >= STREAM_FROM_BYTES:
        try:
            return None, load_json(path)  # a large array, a block at a time (the bytes not kept)
        except orjson.JSONDecodeError:
            pass  # the whole-file parse below reports it
    raw = read_text(path)
    if not raw.strip():
        raise SessionFormatError(path, "line 1", "the file is empty.", "a JSON or JSONL agent session")
    try:
        return raw, orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise SessionFormatError(
            path, f"line {exc.lineno}, column {exc.colno}", f"this is not valid JSON ({exc.msg}).", NOT_JSON_EXPECTED
        ) from None


def shape_error(path: Path, raw: bytes | None, err: ShapeError, format_name: str) -> SessionFormatError:
    """The SessionFormatError for a structural problem: line (when it can be found) and JSON path."""
    if raw is None:
        try:
            raw = read_text(path)
        except OSError:
            raw = b""
    line = line_of(raw, err.path)
    where = json_path(err.path) if line is None else f"line {line}, {json_path(err.path)}"
    return SessionFormatError(path, where, f"{err.problem} (reading it as {format_name}).")


def read_document(path: Path, build: Callable[[Any, str], Session], format_name: str) -> Session:
    """``build(document, str(path))`` on the parsed file; its ShapeError becomes a SessionFormatError."""
    raw, doc = parse_file(path)
    try:
        return build(doc, str(path))
    except ShapeError as err:
        raise shape_error(path, raw, err, format_name) from None


# -- the parts of a messages document ------------------------------------------------------------


def message_items(doc: Any, top_handled: frozenset[str], expected: str) -> tuple[list[Any], PathParts, dict[str, Any]]:
    """``(message items, their JSON path prefix, Session.extra)`` of a bare list of messages or an
    object with ``"messages"`` (its keys outside ``top_handled`` go to extra); ShapeError naming
    ``expected`` for anything else."""
    if isinstance(doc, list):
        return doc, (), {H.BARE: True}
    if isinstance(doc, dict) and "messages" in doc:
        items = doc["messages"]
        if not isinstance(items, list):
            raise ShapeError(("messages",), f"expected a list of messages, found {describe(items)}")
        return items, ("messages",), {k: v for k, v in doc.items() if k not in top_handled}
    found = 'an object without "messages"' if isinstance(doc, dict) else describe(doc)
    raise ShapeError((), f"expected {expected}, found {found}")


def tool_items(doc: dict[str, Any], key: str, extra: dict[str, Any]) -> list[Any]:
    """The tool definitions listed under ``doc[key]``: none when the key is absent, null or an empty
    list (then kept in ``extra`` as written, for write-back); ShapeError if it is not a list."""
    if key not in doc:
        return []
    items = doc[key]
    if items is None or items == []:
        extra[key] = items
        return []
    if not isinstance(items, list):
        raise ShapeError((key,), f"expected a list of tool definitions, found {describe(items)}")
    return items


def tool_fields(t: dict[str, Any], path: PathParts, schema_key: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """``(description, schema, rest)`` of a tool definition object: ``description`` ("" when absent)
    and the JSON Schema under ``schema_key`` ({} when absent), type-checked; ``rest`` = its other
    fields but ``name``, with the absent ones of those two listed under ``H.OMIT``."""
    description, schema = t.get("description", ""), t.get(schema_key, {})
    if not isinstance(description, str):
        raise ShapeError(path + ("description",), f"expected a string, found {describe(description)}")
    if not isinstance(schema, dict):
        raise ShapeError(path + (schema_key,), f"expected a JSON Schema object, found {describe(schema)}")
    rest = {k: v for k, v in t.items() if k not in ("name", "description", schema_key)}
    absent = [k for k in ("description", schema_key) if k not in t]
    if absent:
        rest[H.OMIT] = absent
    return description, schema, rest


# -- locating a JSON path in the text (only on error) ---------------------------------------------

_TOKEN = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}:,]')
_SPACE = re.compile(rb"[ \t\r\n]*")


def line_of(raw: bytes, target: PathParts) -> int | None:
    """1-based line on which the value at ``target`` starts in ``raw``; when ``target`` does not
    exist (a missing key), the line of the deepest enclosing value that does. None if not JSON.

    A token scan (strings and punctuation only) that stops once it is past the value, so its cost
    is proportional to how far into the file the value is.
    """
    target = tuple(target)
    stack: list[list[Any]] = []  # one frame per open container: [is_object, current key or index]
    last_string: bytes | None = None
    best_line: int | None = None
    best_depth = -1

    def line_at(pos: int) -> int:
        start = _SPACE.match(raw, pos).end()  # type: ignore[union-attr]
        return raw.count(b"\n", 0, start) + 1

    def value_starts(pos: int) -> bool:
        """Record a value starting at ``pos`` if it is on the way to the target; True when it is it."""
        nonlocal best_line, best_depth
        depth = len(stack)
        if depth > best_depth and target[:depth] == tuple(frame[1] for frame in stack):
            best_line, best_depth = line_at(pos), depth
        return best_depth == len(target)

    if value_starts(0):
        return best_line
    for match in _TOKEN.finditer(raw):
        tok = match.group()
        ch = tok[:1]
        if ch == b'"':
            last_string = tok
        elif ch == b"[":
            stack.append([False, 0])
            start = _SPACE.match(raw, match.end()).end()  # type: ignore[union-attr]
            if raw[start : start + 1] != b"]" and value_starts(start):
                return best_line
        elif ch == b"{":
            stack.append([True, None])
        elif ch in (b"]", b"}"):
            if stack:
                stack.pop()
            if best_depth >= 0 and len(stack) <= best_depth:  # left the deepest match: target absent
                return best_line
        elif ch == b":":
            if stack and stack[-1][0] and last_string is not None:
                try:
                    stack[-1][1] = orjson.loads(last_string)
                except orjson.JSONDecodeError:
                    stack[-1][1] = None
                if value_starts(match.end()):
                    return best_line
        elif ch == b",":
            if stack and not stack[-1][0]:
                stack[-1][1] += 1
                if value_starts(match.end()):
                    return best_line
    return best_line
