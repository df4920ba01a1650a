"""Counting many texts at once: each distinct text once, remembered ones looked up on disk
(:mod:`.cache`), the rest on every core (:mod:`.pool`) when there is enough of it.

:func:`count_texts` is the one entry point (``count_session`` and the fleet workers use it).
Exact tiktoken counters go through the cache and the pool; a counter scaled from one (Claude's
estimate) counts its base that way; other counters (chars/4, ctok) count in place.
"""

from __future__ import annotations

import copy
from array import array
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, wait
from concurrent.futures.process import BrokenProcessPool

from . import cache
from .counters import Counter, ScaledCounter, TiktokenCounter, get_counter
from .pool import pool_running, shared_pool, workers

#: Below this many characters of uncounted text the pool is not worth its start-up and transfer.
PARALLEL_MIN_CHARS = 2_000_000


class Cancelled(Exception):
    """``cancelled()`` said stop."""


def namespace(counter: TiktokenCounter) -> str:
    """The cache namespace of a tiktoken counter: its name and tiktoken's version."""
    return cache.namespace(counter.name)


def tiktoken_base(counter: Counter) -> TiktokenCounter | None:
    """The tiktoken counter ``counter`` counts with (itself, or the base of a scaled estimate)."""
    if isinstance(counter, TiktokenCounter):
        return counter
    if isinstance(counter, ScaledCounter) and isinstance(counter._base, TiktokenCounter):
        return counter._base
    return None


def count_texts(
    name_or_counter: str | Counter,
    texts: Sequence[str],
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    parallel: bool = True,
) -> list[int]:
    """The token count of each of ``texts`` under a counter (a name :func:`get_counter` accepts,
    or a counter). ``progress(done_chars, total_chars)`` reports the counting still to do;
    ``cancelled()`` returning True stops with :class:`Cancelled`."""
    counter = get_counter(name_or_counter) if isinstance(name_or_counter, str) else name_or_counter
    fetched = prefetch(counter, texts, progress=progress, cancelled=cancelled, parallel=parallel)
    return [fetched.count(t) for t in texts]


def counts_of(
    counter: TiktokenCounter,
    texts: Sequence[str],
    *,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    parallel: bool = True,
) -> dict[str, int]:
    """``{text: count}`` for every distinct text (see :func:`count_texts`)."""
    return start_counts(counter, texts, parallel=parallel).result(progress, cancelled)


class Counting:
    """Counts of many texts under way (:func:`start_counts`): remembered ones looked up, the
    rest sent to the pool's workers when they go there; :meth:`result` waits for them (or counts
    them here). The caller may do other work in between, while the workers count."""

    def __init__(self, counter: TiktokenCounter, ns: str, known: dict[str, int], pending: list[str],
                 keys: Sequence[int] | None, lengths: Sequence[int], parallel: bool, keyed: int = 0) -> None:
        self._counter = counter
        self._ns = ns
        self._known = known
        self._pending = pending
        # the cache keys of the first texts of ``pending``; None: not made yet (a first open, where
        # nothing is looked up): the workers make the ``keyed`` first texts' keys as they count them
        self._keys = keys
        self._lengths = lengths
        self._keyed = len(keys) if keys is not None else keyed
        total = sum(map(len, pending))
        self._futures: dict | None = None
        self._chunks = 0
        # workers already running (started early for a large session) count even a few texts
        # when this process would otherwise load the tokenizer for them (23-48 MB, more while it
        # builds)
        on_pool = total >= PARALLEL_MIN_CHARS or (bool(pending) and pool_running() and not counter.loaded)
        pool = shared_pool() if parallel and on_pool else None
        if pool is not None:
            try:
                self._futures, self._chunks = _submit(pool, counter, pending, total, 0 if keys is not None else keyed)
            except (BrokenProcessPool, OSError, ValueError, RuntimeError):  # workers could not start
                self._futures = None

    def result(
        self,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> dict[str, int]:
        """``{text: count}`` for every text; ``cancelled()`` returning True raises :class:`Cancelled`."""
        pending = self._pending
        submitted = None if self._futures is None else (self._futures, self._chunks)
        self._futures = None  # the futures hold the workers' results: not past this call
        keys, lengths = array("Q"), array("Q")  # what the workers made (when self._keys is None)
        counts = _count(self._counter, pending, progress, cancelled, submitted, (keys, lengths))
        del submitted
        known = self._known
        known.update(zip(pending, counts))
        if self._keys is not None:
            keys, lengths = self._keys, self._lengths
        elif len(keys) != self._keyed:  # counted here, not by the workers
            keys, lengths = _keys_of(pending[: self._keyed])
        new = {k: cache.pack(length, n) for k, length, n in zip(keys, lengths, counts)}
        cache.store(self._ns, new)
        return known


def start_counts(counter: TiktokenCounter, texts: Sequence[str], *, parallel: bool = True) -> Counting:
    """Start counting every distinct one of ``texts`` (:class:`Counting`)."""
    ns = namespace(counter)
    use_cache = cache.enabled()
    table = cache.load(ns) if use_cache else {}
    # nothing remembered (a first open): no text is looked up, so their keys are made later, by the
    # workers that count them (0.4 s of this process's time for 600,000 texts)
    defer = not table
    known: dict[str, int] = {}
    pending: list[str] = []  # texts to count; the first ``len(keys)`` of them go to the cache
    keys = array("Q")  # held while the workers count: 8 bytes a text, not a list's 40
    lengths = array("Q")
    short: list[str] = []
    key, lookup, min_chars = cache.key, cache.lookup, cache.MIN_CHARS if use_cache else 1 << 62
    for text in dict.fromkeys(texts):
        if len(text) >= min_chars:
            if defer:
                pending.append(text)
                continue
            data = text.encode("utf-8", "surrogatepass")
            k = key(data)
            if table:  # nothing remembered (a first open): no lookups
                hit = lookup(table, k, len(data))
                if hit is not None:
                    known[text] = hit
                    continue
            keys.append(k)
            lengths.append(len(data))
            pending.append(text)
        else:
            short.append(text)
    keyed = len(pending)
    pending += short
    return Counting(counter, ns, known, pending, None if defer else keys, lengths, parallel, keyed)


def _keys_of(texts: Sequence[str]) -> tuple[array, array]:
    """The cache key and UTF-8 length of each of ``texts``."""
    keys, lengths = array("Q"), array("Q")
    key = cache.key
    for text in texts:
        data = text.encode("utf-8", "surrogatepass")
        keys.append(key(data))
        lengths.append(len(data))
    return keys, lengths


def _count(
    counter: TiktokenCounter, texts: list[str], progress, cancelled, submitted: tuple[dict, int] | None,
    made: tuple[array, array] | None = None,
) -> list[int]:
    """The counts of ``texts``: collected from the workers they were ``submitted`` to (the cache
    keys and lengths they made are added to ``made``), else (or when the workers died) counted here."""
    total = sum(map(len, texts))
    if submitted is not None:
        try:
            counts, keys, lengths = _collect(*submitted, total, progress, cancelled)
            if made is not None:
                made[0].extend(keys)
                made[1].extend(lengths)
            return counts
        except (BrokenProcessPool, OSError, ValueError, RuntimeError):  # workers died
            pass
    return _count_here(counter, texts, total, progress, cancelled)


def _submit(pool, counter: TiktokenCounter, texts: list[str], total: int, keyed: int = 0) -> tuple[dict, int]:
    """Send ``texts`` to the pool in chunks; the first ``keyed`` texts' cache keys are made there too."""
    chunks = _chunks(texts, max(64 * 1024, total // (workers() * 16)))
    futures = {}
    start = 0
    for i, chunk in enumerate(chunks):
        future = pool.submit(_count_chunk, counter.name, chunk, max(0, min(len(chunk), keyed - start)))
        futures[future] = (i, sum(map(len, chunk)))
        start += len(chunk)
    return futures, len(chunks)


def _collect(futures: dict, chunks: int, total: int, progress, cancelled) -> tuple[list[int], array, array]:
    results: list[list[int] | tuple[list[int], bytes, bytes] | None] = [None] * chunks
    done_chars = 0
    pending = set(futures)
    try:
        while pending:
            finished, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
            for f in finished:
                i, size = futures[f]
                results[i] = f.result()
                done_chars += size
            if cancelled is not None and cancelled():
                raise Cancelled
            if progress is not None and finished:
                progress(done_chars, total)
    finally:
        for f in pending:
            f.cancel()
    counts: list[int] = []
    keys, lengths = array("Q"), array("Q")
    for part in results:
        if type(part) is tuple:  # counts, then the keys and lengths of the chunk's first texts
            counts += part[0]
            keys.frombytes(part[1])
            lengths.frombytes(part[2])
        else:
            counts += part  # type: ignore[arg-type]
    return counts, keys, lengths


def _count_here(
    counter: TiktokenCounter,
    texts: list[str],
    total: int,
    progress: Callable[[int, int], None] | None,
    cancelled: Callable[[], bool] | None,
) -> list[int]:
    out: list[int] = []
    if not texts:
        return out
    done = 0
    # the encoding itself, not ``counter.count``: these texts are not on disk, and the caller
    # stores their counts there (count() would look each up and note it for the exit's store)
    encode = counter._enc.encode_ordinary
    for i, text in enumerate(texts):
        out.append(len(encode(text)) if text else 0)
        done += len(text)
        if i % 256 == 255:
            if cancelled is not None and cancelled():
                raise Cancelled
            if progress is not None:
                progress(done, total)
    return out


def _chunks(texts: list[str], size: int) -> list[list[str]]:
    chunks: list[list[str]] = []
    current: list[str] = []
    chars = 0
    for text in texts:
        current.append(text)
        chars += len(text)
        if chars >= size:
            chunks.append(current)
            current, chars = [], 0
    if current:
        chunks.append(current)
    return chunks


def _count_chunk(name: str, texts: list[str], keyed: int = 0) -> list[int] | tuple[list[int], bytes, bytes]:
    """In a pool worker: the counts of ``texts`` (the encoding is loaded once per worker); with
    ``keyed``, also the cache keys and UTF-8 lengths of the first ``keyed`` texts."""
    encode = get_counter(name)._enc.encode_ordinary  # type: ignore[attr-defined]
    counts = [len(encode(t)) if t else 0 for t in texts]
    if not keyed:
        return counts
    keys, lengths = _keys_of(texts[:keyed])
    return counts, keys.tobytes(), lengths.tobytes()  # bytes: no Python int per key on either side


class Prefetched:
    """A counter that answers from counts made in bulk (:func:`prefetch`), falling back to the
    counter it stands for on a text it was not given. Same name, label and exactness."""

    def __init__(self, counter: TiktokenCounter, counts: dict[str, int]) -> None:
        self._counter = counter
        self._counts = counts
        self.name = counter.name
        self.label = counter.label
        self.exact = counter.exact

    def count(self, text: str) -> int:
        n = self._counts.get(text)
        if n is None:
            n = self._counts[text] = self._counter.count(text)
        return n

    def head(self, text: str, max_tokens: int) -> str:
        return self._counter.head(text, max_tokens)


def prefetch(counter: Counter, texts: Sequence[str], **kw) -> Counter:
    """``counter`` with every one of ``texts`` already counted in bulk (cache, pool); a counter
    that does not count with tiktoken is returned as it is."""
    progress, cancelled = kw.pop("progress", None), kw.pop("cancelled", None)
    return start_prefetch(counter, texts, **kw)(progress, cancelled)


def start_prefetch(counter: Counter, texts: Sequence[str], *, parallel: bool = True) -> Callable[..., Counter]:
    """:func:`prefetch` in two steps: the counting starts now (on the pool's workers when it goes
    there) and the returned ``finish(progress=None, cancelled=None)`` waits for it and gives the
    counter; work done in between overlaps the workers'."""
    base = tiktoken_base(counter)
    if base is None:
        return lambda progress=None, cancelled=None: counter
    counting = start_counts(base, texts, parallel=parallel)

    def finish(progress: Callable[[int, int], None] | None = None, cancelled: Callable[[], bool] | None = None) -> Counter:
        fetched = Prefetched(base, counting.result(progress, cancelled))
        if base is counter:
            return fetched
        scaled = copy.copy(counter)
        scaled._base = fetched  # type: ignore[union-attr]
        return scaled

    return finish


__all__ = ["Cancelled", "Counting", "Prefetched", "count_texts", "counts_of", "namespace", "prefetch", "start_counts",
           "start_prefetch", "tiktoken_base"]
