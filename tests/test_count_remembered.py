"""Texts counted one at a time (a strategy's marker, a role) are remembered on disk at exit, and
looked up there before a counter loads its encoding (tokens.remembered)."""

from __future__ import annotations

import pytest

from inspector.tokens import batch, cache, get_counter, remembered
from inspector.tokens.counters import TiktokenCounter, _cl100k_encoding


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    remembered.flush()  # what earlier tests noted goes to their folder, not to this one
    monkeypatch.setenv("CONTEXT_INSPECTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    cache.set_enabled(None)
    cache.clear_memory()
    yield tmp_path / "counts"
    remembered.flush()
    cache.set_enabled(None)
    cache.clear_memory()


def _fresh() -> TiktokenCounter:
    return TiktokenCounter("cl100k_base", _cl100k_encoding)


def test_a_text_counted_alone_is_found_on_disk_by_the_next_process_without_the_encoding(cache_dir):
    first = _fresh()
    assert first.count("[... 1,234 tokens truncated]") == 9 and first.loaded
    remembered.flush()
    (segment,) = cache_dir.glob("*/seg-*.bin")
    assert segment.parent.name == batch.namespace(first)
    assert segment.stat().st_size == 16 + 16  # one record
    cache.clear_memory()  # as a new process would
    second = _fresh()
    assert second.count("[... 1,234 tokens truncated]") == 9 and not second.loaded
    assert second.count("something never counted") == 3 and second.loaded


def test_the_exit_store_writes_only_what_the_disk_cache_lacks(cache_dir):
    batch.count_texts("cl100k_base", ["hello world"], parallel=False)  # stored by the bulk count
    counter = _fresh()
    assert counter.count("hello world") == 2 and not counter.loaded  # a lookup, not noted again
    assert counter.count("hello there") == 2 and counter.loaded
    assert counter.count("hello world") == 2  # counted (loaded now), noted, already on disk
    before = sorted(cache_dir.glob("*/seg-*.bin"))
    remembered.flush()
    (new,) = sorted(set(cache_dir.glob("*/seg-*.bin")) - set(before))
    assert new.stat().st_size == 16 + 16  # "hello there" only
    remembered.flush()  # nothing left to write: no empty segment
    assert len(list(cache_dir.glob("*/seg-*.bin"))) == len(before) + 1


def test_without_the_cache_nothing_is_looked_up_or_written(cache_dir, monkeypatch):
    monkeypatch.setenv(cache.NO_CACHE_ENV, "1")
    counter = _fresh()
    assert counter.count("hello there") == 2 and counter.loaded
    remembered.flush()
    assert not cache_dir.exists()
    assert get_counter("cl100k_base").count("hello there") == 2


def test_a_head_cut_alone_is_found_on_disk_without_the_encoding(cache_dir):
    text = "The quick brown fox jumps over the lazy dog"
    first = _fresh()
    assert first.head(text, 4) == "The quick brown fox" and first.head(text, 40) == text
    remembered.flush()
    cache.clear_memory()
    second = _fresh()
    assert second.head(text, 4) == "The quick brown fox" and second.head(text, 40) == text
    assert not second.loaded
    assert second.head(text, 3) == "The quick brown" and second.loaded  # another limit: cut here


def test_a_head_that_is_not_a_prefix_is_not_remembered(cache_dir):
    text = "\N{SLIGHTLY SMILING FACE}\N{SLIGHTLY SMILING FACE} and more"  # two tokens per face
    first = _fresh()
    assert first.head(text, 1) == "\N{REPLACEMENT CHARACTER}"  # half a face: not a prefix
    assert first.head(text, 2) == "\N{SLIGHTLY SMILING FACE}"
    remembered.flush()
    cache.clear_memory()
    second = _fresh()
    assert second.head(text, 2) == "\N{SLIGHTLY SMILING FACE}" and not second.loaded
    assert second.head(text, 1) == "\N{REPLACEMENT CHARACTER}" and second.loaded
