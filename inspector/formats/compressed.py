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


def zstd_head(path: Path, size: int) -> bytes:
    """The first ``size`` decompressed bytes, as :func:`~inspector.safeio.read_text_head` gives text."""
    with open_input(path) as fh:
        try:
            data = _reader(fh).read(size)
        except Exception as exc:  # zstandard.ZstdError and what a truncated frame raises
            raise _error(path, exc) from None
    return text_bytes(path, data, partial=True)


def zstd_lines(path: Path) -> Iterator[bytes]:
    """Every decompressed line (split at ``\\n``, newline left out; no piece after a final newline)."""
    with open_input(path) as fh:
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
