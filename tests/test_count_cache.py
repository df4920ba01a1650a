"""Counting once and remembered: the disk cache of token counts (tokens.cache), bulk counting
through it and the shared pool (tokens.batch), and count_session built on them."""

from __future__ import annotations

import os
import time

import pytest

from inspector.model import Message, TextBlock, ToolCallBlock, ToolResultBlock
from inspector.tokens import batch, cache, count_session, get_counter
from inspector.tokens import pool as pool_mod

LONG = "The quick brown fox jumps over the lazy dog; " * 40  # 1,800 characters, 401 cl100k tokens


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CONTEXT_INSPECTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    cache.set_enabled(None)
    yield tmp_path / "counts"
    cache.set_enabled(None)


def _segments(directory):
    return sorted(directory.glob("*/seg-*.bin"))


def test_counts_match_the_tokenizer_and_are_written_once(cache_dir):
    enc = get_counter("cl100k_base")
    texts = [LONG, "hi", LONG + " Done.", LONG]
    assert batch.count_texts("cl100k_base", texts) == [enc.count(t) for t in texts] == [401, 1, 403, 401]
    (segment,) = _segments(cache_dir)
    assert segment.parent.name.startswith("cl100k_base-tiktoken")
    assert segment.stat().st_size == 16 + 16 * 3  # every distinct non-empty text is kept, "hi" too


def test_a_reopened_session_is_a_lookup(cache_dir, monkeypatch):
    batch.count_texts("cl100k_base", [LONG])
    cache.clear_memory()  # as a new process would

    def no_tokenizing(*args, **kwargs):
        raise AssertionError("counted again")

    monkeypatch.setattr(batch, "_count", lambda counter, texts, *a: [] if not texts else no_tokenizing())
    assert batch.count_texts("cl100k_base", [LONG]) == [401]


def test_a_record_of_another_length_is_not_taken(cache_dir):
    data = LONG.encode()
    table = {cache.key(data): cache.pack(len(data), 401)}
    assert cache.lookup(table, cache.key(data), len(data)) == 401
    assert cache.lookup(table, cache.key(data), len(data) + 1) is None


def test_no_cache_reads_and_writes_nothing(cache_dir, monkeypatch):
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    assert batch.count_texts("cl100k_base", [LONG]) == [401]
    assert not cache_dir.exists()


def test_a_torn_segment_is_ignored(cache_dir):
    batch.count_texts("cl100k_base", [LONG])
    (segment,) = _segments(cache_dir)
    segment.write_bytes(segment.read_bytes()[:-3])
    cache.clear_memory()
    assert cache.load(batch.namespace(get_counter("cl100k_base"))) == {}
    assert batch.count_texts("cl100k_base", [LONG]) == [401]


def test_segments_are_merged_under_the_cap(cache_dir, monkeypatch):
    monkeypatch.setattr(cache, "MAX_SEGMENTS", 3)
    for k in range(5):
        batch.count_texts("cl100k_base", [f"{k} {LONG}"])
    assert len(_segments(cache_dir)) <= 3
    cache.clear_memory()
    assert len(cache.load(batch.namespace(get_counter("cl100k_base")))) == 5
    monkeypatch.setattr(cache, "SIZE_CAP", 16 + 16 * 2)  # room for the newest segment only
    batch.count_texts("cl100k_base", [f"new {LONG}"])
    cache.clear_memory()
    assert len(cache.load(batch.namespace(get_counter("cl100k_base")))) == 1


def test_a_scaled_estimate_counts_its_base_through_the_cache(cache_dir):
    claude = get_counter("claude")
    assert batch.count_texts(claude, [LONG, "hi"]) == [claude.count(LONG), claude.count("hi")]
    assert _segments(cache_dir)[0].parent.name.startswith("o200k_base-")


def test_the_pool_counts_what_one_process_counts(cache_dir, monkeypatch):
    monkeypatch.setattr(batch, "PARALLEL_MIN_CHARS", 0)
    texts = [f"{k} {LONG}" for k in range(40)]
    enc = get_counter("cl100k_base")
    seen = []
    try:
        assert batch.count_texts("cl100k_base", texts, progress=lambda d, t: seen.append((d, t))) == [enc.count(t) for t in texts]
        assert pool_mod.shared_pool() is pool_mod.shared_pool()  # one pool for the process
    finally:
        pool_mod.shutdown()
    assert seen[-1] == (sum(map(len, texts)),) * 2


def test_on_a_first_open_the_workers_make_the_cache_keys_and_the_cache_is_the_same(cache_dir, monkeypatch):
    """Nothing remembered: the texts' cache keys are made by the workers that count them, not by
    this process, and what is stored is what this process would have stored."""
    monkeypatch.setattr(batch, "PARALLEL_MIN_CHARS", 0)
    texts = [f"{k} {LONG}" for k in range(40)] + ["short", "x" * 40]
    enc = get_counter("cl100k_base")
    try:
        pool_mod.shared_pool()  # forked before this process's key function is watched
        made_here = []
        key = cache.key
        monkeypatch.setattr(cache, "key", lambda data: made_here.append(data) or key(data))
        assert batch.count_texts("cl100k_base", texts) == [enc.count(t) for t in texts]
    finally:
        pool_mod.shutdown()
    assert made_here == []
    monkeypatch.setattr(cache, "key", key)
    cache.clear_memory()
    expected = {cache.key(t.encode()): cache.pack(len(t.encode()), enc.count(t)) for t in texts if len(t) >= cache.MIN_CHARS}
    assert cache.load(batch.namespace(enc)) == expected and len(expected) == 42  # "short" too


def test_a_process_whose_texts_the_pool_or_the_cache_counts_never_loads_the_tokenizer(cache_dir, monkeypatch):
    from inspector.tokens.counters import TiktokenCounter, _cl100k_encoding

    monkeypatch.setattr(batch, "PARALLEL_MIN_CHARS", 0)
    texts = [f"{k} {LONG}" for k in range(40)]
    fresh = TiktokenCounter("cl100k_base", _cl100k_encoding)  # the workers count with their own
    try:
        assert batch.count_texts(fresh, texts) == [get_counter("cl100k_base").count(t) for t in texts]
    finally:
        pool_mod.shutdown()
    assert not fresh.loaded
    assert batch.count_texts(fresh, texts, parallel=False) == batch.count_texts(fresh, texts)  # from the cache
    assert not fresh.loaded
    monkeypatch.setattr(batch, "PARALLEL_MIN_CHARS", 1 << 30)
    pool_mod.shared_pool()
    try:  # a few short texts go to workers already running, not to a tokenizer loaded here
        assert batch.count_texts(fresh, ["hello world", "a"]) == [2, 1] and not fresh.loaded
    finally:
        pool_mod.shutdown()
    assert batch.count_texts(fresh, ["hello world"]) == [2] and not fresh.loaded  # remembered on disk, short as it is
    assert batch.count_texts(fresh, ["hello there"]) == [2] and fresh.loaded  # not remembered, no pool: loaded here


def test_count_session_is_the_same_with_and_without_the_cache(cache_dir, monkeypatch):
    messages = [
        Message(index=0, role="user", content=[TextBlock(text=LONG)]),
        Message(index=1, role="assistant", content=[ToolCallBlock(id="c1", name="read", arguments='{"path": "a.py"}')]),
        Message(index=2, role="tool", content=[ToolResultBlock(tool_call_id="c1", content=LONG * 2)]),
    ]
    cold = count_session(messages)
    cache.clear_memory()
    warm = count_session(messages)
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    plain = count_session(messages)
    assert cold.counts == warm.counts == plain.counts
    assert [c.blocks for c in plain.counts] == [(401,), (1 + 7,), (801,)]


def test_a_pool_that_cannot_start_counts_in_place(cache_dir, monkeypatch):
    def refuse(*args, **kwargs):
        raise ValueError("bad value(s) in fds_to_keep")  # what a TUI's stand-in stderr caused

    pool_mod.shutdown()
    monkeypatch.setattr(pool_mod, "_IN_WORKER", False)
    monkeypatch.setattr(pool_mod, "ProcessPoolExecutor", refuse)
    monkeypatch.setattr(batch, "PARALLEL_MIN_CHARS", 0)
    assert batch.count_texts("cl100k_base", [LONG, f"x {LONG}"]) == [401, 402]
    assert pool_mod.shared_pool() is None  # and it is not tried again


def test_the_workers_are_forked_before_a_large_session_is_read(tmp_path, monkeypatch):
    import multiprocessing

    session = tmp_path / "s.jsonl"
    session.write_bytes(b"{}\n" * 100)
    pool_mod.shutdown()
    monkeypatch.setattr(pool_mod, "EARLY_START_BYTES", 301)
    before = len(multiprocessing.active_children())
    try:
        pool_mod.start_early(session)  # 300 bytes: counted in place, no workers
        assert len(multiprocessing.active_children()) == before
        monkeypatch.setattr(pool_mod, "EARLY_START_BYTES", 300)
        pool_mod.start_early(session)
        assert len(multiprocessing.active_children()) == before + pool_mod.workers()
        pool_mod.start_early(tmp_path / "missing.jsonl")  # reading it will name the problem
    finally:
        pool_mod.shutdown()


def test_a_killed_writers_temporary_file_goes_at_the_next_merge(cache_dir, monkeypatch):
    """A segment's temporary file left by a writer that was killed (``timeout -s KILL`` while
    the disk cache was being written) is removed when the segments are next merged, so the cache
    does not keep files its size cap never counts; a temporary file a live writer may still be
    filling (less than an hour old) is left alone."""
    monkeypatch.setattr(cache, "MAX_SEGMENTS", 2)
    batch.count_texts("cl100k_base", [f"0 {LONG}"])
    (namespace,) = cache_dir.iterdir()
    stale, live = namespace / ".tmp-killed.bin", namespace / ".tmp-live.bin"
    stale.write_bytes(b"CICOUNT1" + b"\0" * 4000)  # a torn write of a killed process
    live.write_bytes(b"CICOUNT1")
    hours_ago = time.time() - 2 * 3600
    os.utime(stale, (hours_ago, hours_ago))
    for k in (1, 2):  # the third segment makes a merge
        batch.count_texts("cl100k_base", [f"{k} {LONG}"])
    assert sorted(p.name for p in namespace.glob(".tmp-*")) == [".tmp-live.bin"]
    assert len(list(namespace.glob("seg-*.bin"))) == 1
    cache.clear_memory()
    assert len(cache.load(namespace.name)) == 3
