"""Token counts remembered on disk, keyed by content hash: reopening a session, or meeting the
same tool result in another session (or another fleet worker), costs a lookup instead of a
tokenizer pass.

Layout: ``<cache dir>/counts/<namespace>/seg-*.bin`` (the cache dir is
:func:`inspector.paths.cache_dir`). The namespace names the tokenizer and its version
(``o200k_base-tiktoken0.14.0-v1``), so counts of one tokenizer never answer for another. A
segment holds records of ``(key, packed)``: ``key`` is the first 8 bytes of the BLAKE2b hash of
the UTF-8 text, ``packed`` is ``utf8_length << 32 | count``; a lookup must match both the hash and
the length. Each writer adds its new counts as one new segment, written to a temporary file and
renamed (atomic: readers never see half a file, concurrent writers never overwrite each other).
When the namespace holds more than :data:`MAX_SEGMENTS` segments or :data:`SIZE_CAP` bytes, they
are merged into one, the oldest dropped first to stay under the cap; a merge also removes the
temporary file of a writer that was killed (older than :data:`STALE_TEMP_SECONDS`).

Disabled with ``CONTEXT_INSPECTOR_NO_CACHE=1`` (the CLI's ``--no-cache``) or :func:`set_enabled`.
Nothing is written until there is something to write; an unwritable cache directory is ignored.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from array import array
from pathlib import Path

from .. import paths

NO_CACHE_ENV = "CONTEXT_INSPECTOR_NO_CACHE"
FORMAT_VERSION = 1
#: Total bytes of one namespace's segments before the oldest are dropped (16 bytes a count).
SIZE_CAP = 64 * 1024 * 1024
MAX_SEGMENTS = 32
#: A segment's temporary file older than this was left by a writer that was killed (a live
#: writer renames its own within a second): the next merge removes it.
STALE_TEMP_SECONDS = 3600
#: Texts shorter than this are not kept on disk: only the empty text, which counts 0 without the
#: tokenizer. A short text costs a 16-byte record, and leaving it out cost far more: a process
#: whose every other count the disk answered still loaded the tokenizer (0.3-0.5 s for o200k_base)
#: or waited for a worker to, to count a tool name or a two-word reply (``replay --json`` on a
#: 10k Codex session, before 2026-11-24, when this was 32).
MIN_CHARS = 1
_MAGIC = b"CICOUNT1"

#: Counts kept in memory per namespace beyond what was read from disk: a long-lived process (a
#: fleet worker reading thousands of sessions) stops adding there, so its memory stays flat; the
#: disk keeps every count for the next process.
MEMORY_CAP = 200_000

_enabled: bool | None = None
_loaded: dict[str, dict[int, int]] = {}


def enabled() -> bool:
    if _enabled is not None:
        return _enabled
    return os.environ.get(NO_CACHE_ENV, "") in ("", "0")


def set_enabled(on: bool | None) -> None:
    """Turn the disk cache on or off for this process (None: back to the environment's say)."""
    global _enabled
    _enabled = on
    _loaded.clear()


def namespace(encoding: str) -> str:
    """The namespace of a tiktoken encoding's counts: its name, tiktoken's version and this
    cache's format (``o200k_base-tiktoken0.14.0-v1``)."""
    import tiktoken

    return f"{encoding}-tiktoken{getattr(tiktoken, '__version__', 'unknown')}-v{FORMAT_VERSION}"


def key(data: bytes) -> int:
    """The cache key of a text's UTF-8 bytes."""
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def _directory(namespace: str) -> Path:
    return paths.cache_dir() / "counts" / namespace


def _segments(directory: Path) -> list[Path]:
    try:
        return sorted(directory.glob("seg-*.bin"), key=lambda p: (p.stat().st_mtime_ns, p.name))
    except OSError:
        return []


def _read_segment(path: Path) -> tuple[array, array] | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) < 16 or data[:8] != _MAGIC:
        return None
    n = int.from_bytes(data[8:16], "little")
    if len(data) != 16 + 16 * n:
        return None  # a torn or foreign file: ignored
    keys, packed = array("Q"), array("Q")
    keys.frombytes(data[16 : 16 + 8 * n])
    packed.frombytes(data[16 + 8 * n :])
    return keys, packed


def _write_segment(directory: Path, table: dict[int, int]) -> None:
    keys = array("Q", table.keys())
    packed = array("Q", table.values())
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".bin", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + len(keys).to_bytes(8, "little"))
            fh.write(keys.tobytes())
            fh.write(packed.tobytes())
        os.replace(tmp, directory / f"seg-{os.getpid()}-{os.urandom(6).hex()}.bin")
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def load(namespace: str) -> dict[int, int]:
    """Every count remembered under ``namespace`` (read from disk once per process)."""
    table = _loaded.get(namespace)
    if table is None:
        table = {}
        if enabled():
            for seg in _segments(_directory(namespace)):
                read = _read_segment(seg)
                if read is not None:
                    table.update(zip(*read))
        _loaded[namespace] = table
    return table


def lookup(table: dict[int, int], k: int, utf8_length: int) -> int | None:
    packed = table.get(k)
    if packed is None or packed >> 32 != utf8_length:
        return None
    return packed & 0xFFFFFFFF


def pack(utf8_length: int, count: int) -> int:
    return utf8_length << 32 | count


def store(namespace: str, new: dict[int, int]) -> None:
    """Remember ``new`` (key -> :func:`pack`) on disk as one segment, then merge if needed."""
    if not new or not enabled():
        return
    table = load(namespace)
    if len(table) + len(new) <= MEMORY_CAP:
        table.update(new)
    directory = _directory(namespace)
    try:
        paths.ensure(directory)
        _write_segment(directory, new)
        _compact(directory)
    except OSError:
        pass  # a read-only or full cache directory: counting still works, it is just not kept


def _compact(directory: Path) -> None:
    segments = _segments(directory)
    sizes = []
    for seg in segments:
        try:
            sizes.append(seg.stat().st_size)
        except OSError:
            sizes.append(0)
    if len(segments) <= MAX_SEGMENTS and sum(sizes) <= SIZE_CAP:
        return
    kept, total = [], 0
    for seg, size in zip(reversed(segments), reversed(sizes)):  # newest first
        if total + size > SIZE_CAP:
            break
        kept.append(seg)
        total += size
    merged: dict[int, int] = {}
    for seg in reversed(kept):
        read = _read_segment(seg)
        if read is not None:
            merged.update(zip(*read))
    if merged:
        _write_segment(directory, merged)
    for seg in segments:
        try:
            seg.unlink()
        except OSError:
            pass
    remove_stale_temps(directory)


def remove_stale_temps(directory: Path) -> None:
    """Remove the temporary files in ``directory`` left by writers that were killed."""
    too_old = time.time() - STALE_TEMP_SECONDS
    try:
        temps = list(directory.glob(".tmp-*.bin"))
    except OSError:
        return
    for tmp in temps:
        try:
            if tmp.stat().st_mtime < too_old:
                tmp.unlink()
        except OSError:
            pass


def clear_memory() -> None:
    """Forget what this process read from disk (tests; another process may have written)."""
    _loaded.clear()


__all__ = ["MIN_CHARS", "NO_CACHE_ENV", "SIZE_CAP", "clear_memory", "enabled", "key", "load", "lookup", "namespace", "pack", "remove_stale_temps", "set_enabled",
           "store"]
