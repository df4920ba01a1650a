"""Session files stored zstd-compressed (``*.jsonl.zst``), read as the text they hold.

Codex (0.15x) compresses the rollouts it archives: ``archived_sessions/.../rollout-*.jsonl.zst``
(openai/codex ``codex-rs/rollout/src/compression.rs``; the plain ``.jsonl`` wins when both
exist). Detection sees the first decompressed bytes and line readers the decompressed lines, so
every format reads such a file as it reads the plain one. Decompressed text is held to
:data:`~inspector.safeio.MAX_INPUT_BYTES` like any input.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..safeio import MAX_INPUT_BYTES, InputError, open_input, text_bytes

#: The zstd frame magic number, little-endian.
MAGIC = b"\x28\xb5\x2f\xfd"
SUFFIX = ".zst"


def is_zstd(path: Path) -> bool:
    """The file is named ``*.zst`` and starts with a zstd frame."""
    if not path.name.endswith(SUFFIX) or path.is_dir():
        return False
    with open_input(path) as fh:
        return fh.read(4) == MAGIC


def _reader(fh):
    import zstandard

    return zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True)


def _error(path: Path, exc: Exception) -> InputError:
    return InputError(path, f"not a readable zstd file ({exc}).")


def _check_complete(path: Path, fh) -> None:
    if not _frames_complete(fh):
        fh.seek(0)
        reader = _reader(fh)
        try:  # damaged rather than cut short: the decompressor's own error says so
            while reader.read(1 << 20):
                pass
        except Exception as exc:
            raise _error(path, exc) from None
        raise InputError(path, "the zstd stream ends inside a frame: the file is truncated, so the session it holds is incomplete.")
    fh.seek(0)


def zstd_head(path: Path, size: int) -> bytes:
    """The first ``size`` decompressed bytes, as :func:`~inspector.safeio.read_text_head` gives text."""
    with open_input(path) as fh:
        _check_complete(path, fh)
        try:
            data = _reader(fh).read(size)
        except Exception as exc:  # zstandard.ZstdError and what a truncated frame raises
            raise _error(path, exc) from None
    return text_bytes(path, data, partial=True)


#: Skippable frames carry a magic number 0x184D2A50-0x184D2A5F, then their size (RFC 8878 3.1.2).
_SKIPPABLE = 0x184D2A50
_FCS_BYTES = (0, 2, 4, 8)
_DID_BYTES = (0, 1, 2, 4)


def _frames_complete(fh) -> bool:
    """Every frame in ``fh`` ends before the file does (RFC 8878 frame and block headers walked,
    nothing decompressed). zstandard's stream reader ends quietly where a truncated frame stops."""
    size = fh.seek(0, 2)
    pos = 0
    while pos < size:
        fh.seek(pos)
        head = fh.read(14)
        if len(head) < 8:
            return False
        magic = int.from_bytes(head[:4], "little")
        if magic & 0xFFFFFFF0 == _SKIPPABLE:
            pos += 8 + int.from_bytes(head[4:8], "little")
            continue
        if head[:4] != MAGIC:
            return True  # not a frame: the decompressor names that error itself
        fhd = head[4]
        single = fhd >> 5 & 1
        fcs = _FCS_BYTES[fhd >> 6] or single
        pos += 5 + (0 if single else 1) + _DID_BYTES[fhd & 3] + fcs
        while True:
            fh.seek(pos)
            block = fh.read(3)
            if len(block) < 3:
                return False
            header = int.from_bytes(block, "little")
            pos += 3 + (1 if header >> 1 & 3 == 1 else header >> 3)
            if header & 1:
                break
        pos += 4 if fhd >> 2 & 1 else 0
    return pos == size


def zstd_lines(path: Path) -> Iterator[bytes]:
    """Every decompressed line (split at ``\\n``, newline left out; no piece after a final newline)."""
    with open_input(path) as fh:
        _check_complete(path, fh)
        reader, pending, total = _reader(fh), b"", 0
        while True:
            try:
                chunk = reader.read(1 << 20)
            except Exception as exc:
                raise _error(path, exc) from None
            if not chunk:
                break
            total += len(chunk)
            if total > MAX_INPUT_BYTES:
                raise InputError(path, f"it decompresses to more than {MAX_INPUT_BYTES:,} bytes, more than the inspector reads.")
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
            yield from lines
        if pending:
            yield pending


__all__ = ["MAGIC", "is_zstd", "zstd_head", "zstd_lines"]
