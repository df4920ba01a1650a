"""A JSON file parsed with bounded memory when it is one large array (a bare list of messages).

orjson parses a whole document at once: the file's bytes, orjson's own buffers and the parsed
values are all alive together, about 3.3x the file at the peak. :func:`load_json` reads the file
in blocks instead and parses an array's elements one at a time: the peak is the parsed values and
one block.

Elements are cut at ``}`` ``,`` ``{`` (JSON whitespace between): a cut inside a string or inside
a nested object gives a piece orjson rejects, and the piece is extended to the next cut. Each
element is therefore a complete JSON value that orjson accepted and the separators between them
are exactly ``,``, so the result is what ``orjson.loads`` of the whole file returns. Anything else
(an object at the top, text that is not plain UTF-8, an element with many nested objects, bad
JSON) is parsed whole, as before, so errors and their line numbers are orjson's on the whole file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import orjson

from ..safeio import MAX_INPUT_BYTES, open_input, read_text, sniff_encoding

#: Below this size the whole-file parse is cheap enough.
STREAM_FROM_BYTES = 8 << 20
BLOCK_BYTES = 4 << 20
#: Failed cuts allowed within one element before giving up on streaming (each costs a parse of
#: the piece so far, so many nested objects in one element would make it quadratic).
MAX_FAILED_CUTS = 16

_WS = b" \t\n\r"
_CUT = re.compile(rb"\}[ \t\n\r]*,[ \t\n\r]*\{")


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


def _array_elements(path: Path) -> list[Any]:
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    out: list[Any] = []
    with open_input(path) as fh:
        buf = bytearray(fh.read(BLOCK_BYTES))
        if sniff_encoding(bytes(buf[:4])) != ("utf-8", 0) or b"\r" in buf:
            raise _NotStreamable  # a BOM, UTF-16/32 or CR line ends: read_text's rewriting applies
        start = len(buf) - len(buf.lstrip(_WS))
        if buf[start : start + 1] != b"[":
            raise _NotStreamable
        start += 1
        start += len(buf) - start - len(buf[start:].lstrip(_WS))
        if buf[start : start + 1] != b"{":
            raise _NotStreamable  # an empty array, or one of something other than objects
        failed, searched = 0, start
        view = memoryview(buf)  # pieces are parsed in place, not copied
        while True:
            cut = _CUT.search(buf, searched)
            if cut is not None:
                try:
                    out.append(loads(view[start : cut.start() + 1]))
                except decode_error:
                    failed += 1
                    if failed > MAX_FAILED_CUTS:
                        raise _NotStreamable from None
                    searched = cut.start() + 1
                    continue
                start = searched = cut.end() - 1
                failed = 0
                continue
            more = fh.read(BLOCK_BYTES)
            if not more:
                break
            if b"\r" in more:
                raise _NotStreamable
            view.release()  # a bytearray with a view on it cannot be resized
            del buf[:start]
            searched -= start
            start = 0
            buf += more
            view = memoryview(buf)
        view.release()
    tail = bytes(buf[start:]).rstrip(_WS)
    if not tail.endswith(b"]"):
        raise _NotStreamable
    try:
        out.append(loads(tail[:-1]))
    except decode_error:
        raise _NotStreamable from None
    return out


__all__ = ["load_json"]
