"""Counts of single texts (a strategy's marker, a role, a summary's pieces) remembered across
processes, so that a command whose session counts all come from the disk cache
(:mod:`.batch`) does not load the tokenizer for them either.

:class:`~inspector.tokens.counters.TiktokenCounter` asks :func:`lookup` before it loads its
encoding (the disk cache is exact: the same namespace and key as :mod:`.batch` writes), and
tells :func:`note` every count it makes one text at a time; those are written to the disk cache
when the process exits (one segment, only texts the cache does not hold yet). The heads it cuts
(:func:`lookup_head`, :func:`note_head`: a summary's line cut at its cap, a truncated result)
are remembered the same way. Measured on the
10k-message Codex file, counts on disk, a fresh process each: ``replay --json --strategy
summarize`` loaded o200k_base for the summary's role, pieces and cut line, 0.3-0.4 s of CPU.
"""

from __future__ import annotations

import atexit

from . import cache

#: Texts kept per counter until the process exits: a long-lived process (a fleet worker, the
#: viewer) stops adding there, so its memory stays flat.
PENDING_CAP = 10_000

#: tokenizer name -> {text: its count, (text, max_tokens): its head's length in characters}
_pending: dict[str, dict[str | tuple[str, int], int]] = {}  # (by tiktoken encoding name)
_flush_registered = False


def lookup(encoding: str, text: str) -> int | None:
    """``text``'s count under tiktoken ``encoding`` from the disk cache, or None when it is not there."""
    if not cache.enabled():
        return None
    return cache.lookup(cache.load(cache.namespace(encoding)), *_text_key(text))


def note(encoding: str, text: str, count: int) -> None:
    """Remember that ``encoding`` counts ``text`` as ``count`` (written at exit, :func:`flush`)."""
    _remember(encoding, text, count)


def _text_key(text: str) -> tuple[int, int]:
    data = text.encode("utf-8", "surrogatepass")
    return cache.key(data), len(data)


def _remember(encoding: str, what: str | tuple[str, int], value: int) -> None:
    global _flush_registered
    pending = _pending.get(encoding)
    if pending is None:
        pending = _pending[encoding] = {}
        if not _flush_registered:
            atexit.register(flush)
            _flush_registered = True
    if len(pending) < PENDING_CAP:
        pending[what] = value


# A head (:meth:`~inspector.tokens.counters.TiktokenCounter.head`, what a strategy keeps of a text
# it cuts) is kept in the same table under the key of ``_HEAD + str(max_tokens) + "\0" + text``
# with the text's own UTF-8 length and, as its "count", the head's length in characters: only a
# head that is a prefix of the text (a cut inside a character decodes to something else, which
# is never remembered). No text's count shares such a key: the length check would need a text
# as long as the text it was cut from that is also that text with the prefix before it.
_HEAD = b"\0head\0"


def _head_key(text: str, max_tokens: int) -> tuple[int, int]:
    data = text.encode("utf-8", "surrogatepass")
    return cache.key(_HEAD + str(max_tokens).encode() + b"\0" + data), len(data)


def lookup_head(encoding: str, text: str, max_tokens: int) -> str | None:
    """The head of ``text`` within ``max_tokens`` tokens of ``encoding`` from the disk cache, or
    None when it is not there."""
    if not cache.enabled():
        return None
    k, length = _head_key(text, max_tokens)
    chars = cache.lookup(cache.load(cache.namespace(encoding)), k, length)
    return None if chars is None else text[:chars]


def note_head(encoding: str, text: str, max_tokens: int, head: str) -> None:
    """Remember the head of ``text`` within ``max_tokens`` tokens of ``encoding`` (a prefix of
    ``text`` only)."""
    if text.startswith(head):
        _remember(encoding, (text, max_tokens), len(head))


def flush() -> None:
    """Write the counts and heads noted so far that the disk cache does not hold yet, one
    segment per tokenizer, and forget them. (Copies first: a thread may still be counting.)"""
    noted = [(name, dict(counts)) for name, counts in list(_pending.items())]
    _pending.clear()
    if not cache.enabled():
        return
    for name, counts in noted:
        ns = cache.namespace(name)
        table = cache.load(ns)
        new: dict[int, int] = {}
        for text, n in counts.items():
            # a head: (text, max_tokens) -> its length in characters
            k, length = _head_key(*text) if type(text) is tuple else _text_key(text)
            if cache.lookup(table, k, length) is None:
                new[k] = cache.pack(length, n)
        cache.store(ns, new)


__all__ = ["PENDING_CAP", "flush", "lookup", "lookup_head", "note", "note_head"]
