"""Width and height of a base64 PNG, GIF or JPEG image, read from its header without decoding it all.

Token estimates for images depend on their size; files carry the pixels only as base64, so the
readers look at the first few kilobytes. Anything unrecognised gives ``None``.
"""

from __future__ import annotations

import base64
import binascii
import struct

#: Base64 characters decoded at most (48 KiB of image bytes): enough for JPEG headers with EXIF.
HEAD_CHARS = 64 * 1024


def split_data_url(url: str) -> tuple[str | None, str] | None:
    """``data:image/png;base64,AAAA`` -> ``("image/png", "AAAA")``; None for anything else."""
    if not url.startswith("data:"):
        return None
    header, sep, payload = url.partition(",")
    if not sep or not header.endswith(";base64"):
        return None
    media_type = header[5:-7] or None
    return media_type, payload


def image_size(b64: str) -> tuple[int, int] | None:
    """``(width, height)`` of a base64-encoded PNG, GIF or JPEG, or None."""
    head = b64[:HEAD_CHARS]
    head = head[: len(head) - len(head) % 4]
    try:
        data = base64.b64decode(head, validate=False)
    except (binascii.Error, ValueError):
        return None
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24 and data[12:16] == b"IHDR":
        w, h = struct.unpack(">II", data[16:24])
        return w, h
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        w, h = struct.unpack("<HH", data[6:10])
        return w, h
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    return None


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i = 2
    n = len(data)
    while i + 4 <= n:
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
            i += 2
            continue
        (length,) = struct.unpack(">H", data[i + 2 : i + 4])
        if marker in _SOF:
            if i + 9 > n:
                return None
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return w, h
        i += 2 + length
    return None
