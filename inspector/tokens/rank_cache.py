"""A tiktoken encoding's BPE ranks kept built on disk, so a fresh process that counts does not
build them again from the rank file (:func:`inspector.tokens.counters._bundled_ranks`).

Why: every process that counts a text the count cache does not hold (the first open of a
session, a count worker) builds its encoding. Measured 2026-11-24 on the 2-vCPU machine, CPU,
min of 5 (o200k_base): the gzipped rank file decompressed, hash-checked and parsed, 116 ms;
the same dict read back from this file with ``marshal``, its checksum checked, 40-45 ms. Building
tiktoken's ``CoreBPE`` from the dict (about 115 ms) is left either way.

Layout: ``<cache dir>/ranks/<encoding>-<rank file hash>-m<marshal version>.bin`` (the cache dir
is :func:`inspector.paths.cache_dir`): :data:`_MAGIC`, the SHA-256 of the payload, then the
payload, ``marshal.dumps`` of the ranks dict. The name carries the SHA-256 tiktoken expects of
the uncompressed rank file, so only ranks built from a file that matched it are ever read; a file
whose checksum does not match (torn, damaged, foreign), or whose dict lacks a rank for one of the
256 single bytes, is ignored and written again. One file per encoding (1.6 MB cl100k_base, 3.4 MB
o200k_base): outside the count cache's size cap, which bounds a number of counts that grows, while
these do not. Written to a temporary file and renamed (atomic); a read-only or full cache
directory is ignored. ``--no-cache``
(``CONTEXT_INSPECTOR_NO_CACHE``) turns it off like the count cache: nothing read, nothing written.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from .. import paths
from . import cache

_MAGIC = b"CIRANKS1"
_HEADER = len(_MAGIC) + 32  # magic, then the payload's SHA-256
#: Every byte on its own: byte-level BPE ranks hold each, and tiktoken panics (a Rust panic, not
#: an exception the CLI reports) on a text byte its ranks lack; a kept dict without them is not used.
_SINGLE_BYTES = tuple(bytes((i,)) for i in range(256))


def path(encoding: str, rank_sha256: str) -> Path:
    """Where the ranks of ``encoding`` built from the rank file with hash ``rank_sha256`` are kept."""
    return paths.cache_dir() / "ranks" / f"{encoding}-{rank_sha256[:16]}-m{marshal.version}.bin"


def ranks(encoding: str, rank_sha256: str, build: Callable[[], dict[bytes, int]]) -> dict[bytes, int]:
    """The ranks of ``encoding``: read from disk when kept there intact, else ``build()`` (then kept)."""
    if not cache.enabled():
        return build()
    where = path(encoding, rank_sha256)
    kept = _read(where)
    if kept is not None:
        return kept
    built = build()
    _write(where, built)
    return built


def _read(where: Path) -> dict[bytes, int] | None:
    try:
        data = where.read_bytes()
    except OSError:
        return None
    payload = memoryview(data)[_HEADER:]
    if data[: len(_MAGIC)] != _MAGIC or hashlib.sha256(payload).digest() != data[len(_MAGIC) : _HEADER]:
        return None
    try:
        value = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    if type(value) is not dict or not all(type(value.get(b)) is int for b in _SINGLE_BYTES):
        return None  # whole but not ranks (a builder that went wrong wrote it): built again
    return value


def _write(where: Path, built: dict[bytes, int]) -> None:
    payload = marshal.dumps(built)
    try:
        directory = paths.ensure(where.parent)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".bin", dir=directory)
    except OSError:
        return  # a read-only or full cache directory: the ranks are just not kept
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(_MAGIC + hashlib.sha256(payload).digest())
            fh.write(payload)
        os.replace(tmp, where)
        cache.remove_stale_temps(directory)  # a killed writer's, as the count cache does
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


__all__ = ["path", "ranks"]
