"""A JSON file parsed with bounded memory when it is one large array (a bare list of messages).

orjson parses a whole document at once: the file's bytes, orjson's own buffers and the parsed
values are all alive together, about 3.3x the file at the peak. :func:`load_json` reads the file
in blocks instead and parses each block's run of whole elements with one call: the peak is the
parsed values and about one block.

A run is cut between two elements, at ``}`` ``,`` ``{`` (JSON whitespace between) followed by the
first key of the array's first element (``"role"`` in a list of messages), so a cut inside a
string or between the parts of a nested list is rare. The run, with ``[`` before it and ``]``
after it, parses only when the cut lies between two top-level elements (a parser that starts
between elements and accepts the ``]`` is between elements there too); a run that does not parse
is tried at the previous cut. Each run is therefore a sequence of complete elements orjson
accepted, with exactly ``,`` between runs, so the result is what ``orjson.loads`` of the whole
file returns. Anything else (an object at the top, text that is not plain UTF-8, many failed
cuts, bad JSON) is parsed whole, as before, so errors and their line numbers are orjson's on the
whole file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from ..safeio import MAX_INPUT_BYTES, open_input, read_text, sniff_encoding

#: Below this size the whole-file parse is cheap enough.
STREAM_FROM_BYTES = 8 << 20
BLOCK_BYTES = 4 << 20
#: Failed cuts allowed in a row before giving up on streaming (each costs a parse of up to a
#: block, so a document whose nested objects look like its elements would cost many).
MAX_FAILED_CUTS = 16
#: Bytes at a block's end searched again with the next block: a cut can straddle the two.
_OVERLAP = 4096

_WS = b" \t\n\r"
_WS_RUN = rb"[ \t\n\r]*"
_CUT = re.compile(rb"\}" + _WS_RUN + b"," + _WS_RUN + rb"(\{)")
#: The first key of an object (a plain one: no escapes), after ``{`` and whitespace.
_FIRST_KEY = re.compile(rb"\{" + _WS_RUN + rb'("[^"\\]*")')


class _NotStreamable(Exception):
    pass


def load_json(path: Path) -> Any:
    """The file parsed as one JSON value (``orjson.loads`` of :func:`read_text`'s bytes);
    orjson.JSONDecodeError or InputError as the whole-file parse raises them."""
    try:
        size = os.stat(path).st_size
    except OSError:
        size = 0
    if STREAM_FROM_BYTES <= size <= MAX_INPUT_BYTES:
        try:
            return _array_elements(path)
        except _NotStreamable:
            pass
    return orjson.loads(read_text(path))


def _cuts(first: bytes) -> re.Pattern[bytes]:
    """Where one element may end and the next begin: ``}``, ``,``, ``{`` and the first element's
    first key (any ``{`` when it has none)."""
    key = _FIRST_KEY.match(first)
    if key is None:
        return _CUT
    return re.compile(_CUT.pattern + _WS_RUN + re.escape(key.group(1)))


_LEADING_WS = re.compile(_WS_RUN)
#: How far back from a block's end :func:`_last_first` looks at a time.
_WINDOW = 64 * 1024


def _last_first(cuts: re.Pattern[bytes], buf: bytearray, lo: int) -> Iterator[re.Match[bytes]]:
    """The cuts in ``buf[lo:]``, the last first, found a window at a time from the end (a block
    holds thousands; the run is usually cut at the last). A cut longer than :data:`_OVERLAP`
    (that much whitespace) that straddles two windows is not offered: one cut fewer to try."""
    hi = len(buf)
    seen = hi
    while hi > lo:
        at = max(lo, hi - _WINDOW)
        found = [m for m in cuts.finditer(buf, at, min(len(buf), hi + _OVERLAP)) if m.start() < seen]
        yield from reversed(found)
        seen, hi = at, at


def _array_elements(path: Path) -> list[Any]:
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    out: list[Any] = []
    with open_input(path) as fh:
        buf = bytearray(fh.read(BLOCK_BYTES))
        if sniff_encoding(bytes(buf[:4])) != ("utf-8", 0) or b"\r" in buf:
            raise _NotStreamable  # a BOM, UTF-16/32 or CR line ends: read_text's rewriting applies
        start = _LEADING_WS.match(buf).end()
        if buf[start : start + 1] != b"[":
            raise _NotStreamable
        start = _LEADING_WS.match(buf, start + 1).end()
        if buf[start : start + 1] != b"{":
            raise _NotStreamable  # an empty array, or one of something other than objects
        cuts = _cuts(bytes(buf[start : start + 1024]))
        # The run from ``start`` is parsed in place as ``[`` run ``]``: the byte before ``start``
        # (``[``, ``,`` or whitespace) becomes ``[``, the one after the cut's ``}`` becomes ``]``.
        failed, searched = 0, start
        while True:
            last_tried = -1
            for cut in _last_first(cuts, buf, searched):
                last_tried = max(last_tried, cut.start())
                end = cut.start() + 1
                kept = buf[end]
                buf[start - 1], buf[end] = 0x5B, 0x5D
                with memoryview(buf) as view:
                    try:
                        out += loads(view[start - 1 : end + 1])
                    except decode_error:
                        buf[end] = kept
                        failed += 1
                        if failed > MAX_FAILED_CUTS:
                            raise _NotStreamable from None
                        continue
                start = cut.start(1)
                failed = 0
                break
            if last_tried >= 0:  # every cut after the one taken was tried
                searched = max(last_tried + 1, start)
            more = fh.read(BLOCK_BYTES)
            if not more:
                break
            if b"\r" in more:
                raise _NotStreamable
            searched = max(searched, len(buf) - _OVERLAP, start)
            del buf[: start - 1]  # one byte kept before the run, for its ``[``
            searched -= start - 1
            start = 1
            buf += more
    buf[start - 1] = 0x5B
    try:
        with memoryview(buf) as view:
            out += loads(view[start - 1 :])  # the last run, with the array's own ``]``
    except decode_error:
        raise _NotStreamable from None
    return out


__all__ = ["load_json"]
