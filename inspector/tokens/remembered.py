"""Counts of single texts (a strategy's marker, a role, a summary's pieces) remembered across
processes, so that a command whose session counts all come from the disk cache
(:mod:`.batch`) does not load the tokenizer for them either.

:class:`~inspector.tokens.counters.TiktokenCounter` asks :func:`lookup` before it loads its
encoding (the disk cache is exact: the same namespace and key as :mod:`.batch` writes), and
tells :func:`note` every count it makes one text at a time; those are written to the disk cache
when the process exits (one segment, only texts the cache does not hold yet). Measured on the
10k-message Codex file, counts on disk, a fresh process each: ``replay --json --strategy
summarize`` loaded o200k_base for the summary's role and pieces, 0.3-0.4 s of CPU.
"""

from __future__ import annotations

import atexit
from typing import TYPE_CHECKING

from . import cache

if TYPE_CHECKING:
    from .counters import TiktokenCounter

#: Texts kept per counter until the process exits: a long-lived process (a fleet worker, the
#: viewer) stops adding there, so its memory stays flat.
PENDING_CAP = 10_000

_pending: dict[str, dict[str, int]] = {}  # namespace -> {text: count}
_flush_registered = False


def _namespace(counter: TiktokenCounter) -> str:
    from .batch import namespace  # (batch imports the counters)

    return namespace(counter)


def lookup(counter: TiktokenCounter, text: str) -> int | None:
    """``text``'s count under ``counter`` from the disk cache, or None when it is not there."""
    if not cache.enabled():
        return None
    data = text.encode("utf-8", "surrogatepass")
    return cache.lookup(cache.load(_namespace(counter)), cache.key(data), len(data))


def note(counter: TiktokenCounter, text: str, count: int) -> None:
    """Remember that ``counter`` counted ``text`` as ``count`` (written at exit, :func:`flush`)."""
    global _flush_registered
    pending = _pending.get(counter.name)
    if pending is None:
        pending = _pending[counter.name] = {}
        if not _flush_registered:
            atexit.register(flush)
            _flush_registered = True
    if len(pending) < PENDING_CAP:
        pending[text] = count


def flush() -> None:
    """Write the counts noted so far that the disk cache does not hold yet, one segment per
    tokenizer, and forget them."""
    from .counters import get_counter

    pending = dict(_pending)
    _pending.clear()
    if not cache.enabled():
        return
    for name, counts in pending.items():
        ns = _namespace(get_counter(name))  # type: ignore[arg-type]
        table = cache.load(ns)
        new: dict[int, int] = {}
        for text, n in counts.items():
            data = text.encode("utf-8", "surrogatepass")
            k = cache.key(data)
            if cache.lookup(table, k, len(data)) is None:
                new[k] = cache.pack(len(data), n)
        cache.store(ns, new)


__all__ = ["PENDING_CAP", "flush", "lookup", "note"]
