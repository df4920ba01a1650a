"""A segment's temporary file left by a writer that was killed (``timeout -s KILL`` while the
disk cache was being written) is removed when the segments are next merged, so the cache does
not keep files its size cap never counts; a temporary file a live writer may still be filling
(less than an hour old) is left alone."""

from __future__ import annotations

import os
import time

import pytest

from inspector.tokens import batch, cache

LONG = "The quick brown fox jumps over the lazy dog; " * 40


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CONTEXT_INSPECTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    cache.set_enabled(None)
    yield tmp_path / "counts"
    cache.set_enabled(None)


def test_a_killed_writers_temporary_file_goes_at_the_next_merge(cache_dir, monkeypatch):
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
