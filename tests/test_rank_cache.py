"""The built BPE ranks kept in the cache directory (:mod:`inspector.tokens.rank_cache`): the
same dict as the rank file gives, read back instead of rebuilt, never trusted when damaged, and
neither read nor written under ``--no-cache``."""

from __future__ import annotations

import hashlib
import marshal
import os
import subprocess
import sys

import pytest

from test_count_cache import cache_dir  # noqa: F401 (the fixture: a cache directory of the test's own)

from inspector.tokens import cache, rank_cache
from inspector.tokens.counters import _RANK_SHA256, _bundled_ranks

NAME = "cl100k_base"


@pytest.fixture
def ranks_dir(cache_dir):
    """The ranks' folder in the cache directory of this test (test_count_cache's fixture)."""
    return cache_dir.parent / "ranks"


def _never() -> dict[bytes, int]:
    raise AssertionError("built again though the kept ranks are intact")


def test_ranks_are_kept_once_and_read_back_without_building(ranks_dir):
    built = rank_cache.ranks(NAME, _RANK_SHA256[NAME], lambda: _bundled_ranks(NAME))
    kept = rank_cache.path(NAME, _RANK_SHA256[NAME])
    assert [p.name for p in ranks_dir.iterdir()] == [f"cl100k_base-223921b76ee99bde-m{marshal.version}.bin"] == [kept.name]
    again = rank_cache.ranks(NAME, _RANK_SHA256[NAME], _never)
    assert len(again) == 100_256
    assert list(again.items()) == list(built.items())


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "empty", "foreign", "checksummed, not ranks", "a byte missing"])
def test_damaged_ranks_are_built_again_and_rewritten(ranks_dir, damage):
    expected = rank_cache.ranks(NAME, _RANK_SHA256[NAME], lambda: _bundled_ranks(NAME))
    kept = rank_cache.path(NAME, _RANK_SHA256[NAME])
    data = bytearray(kept.read_bytes())
    if damage == "flip a byte":
        data[len(data) // 2] ^= 0x01
    elif damage == "truncate":
        data = data[: len(data) - 100]
    elif damage == "empty":
        data = bytearray()
    elif damage == "foreign":
        data = bytearray(b"CIRANKS1" + bytes(32) + marshal.dumps([1, 2, 3]))
    else:  # a whole file of this layout (a builder that went wrong wrote it): tiktoken panicked on it
        ranks = {b"a": 0, b"b": 1} if damage == "checksummed, not ranks" else {k: v for k, v in expected.items() if k != b"~"}
        payload = marshal.dumps(ranks)
        data = bytearray(b"CIRANKS1" + hashlib.sha256(payload).digest() + payload)
    kept.write_bytes(bytes(data))
    calls = []

    def build():
        calls.append(1)
        return _bundled_ranks(NAME)

    assert rank_cache.ranks(NAME, _RANK_SHA256[NAME], build) == expected
    assert calls == [1]
    assert rank_cache.ranks(NAME, _RANK_SHA256[NAME], _never) == expected  # written again, whole


def test_no_cache_neither_reads_nor_writes(ranks_dir):
    rank_cache.ranks(NAME, _RANK_SHA256[NAME], lambda: _bundled_ranks(NAME))
    cache.set_enabled(False)
    calls = []
    rank_cache.ranks(NAME, _RANK_SHA256[NAME], lambda: calls.append(1) or {b"a": 0})
    assert calls == [1]
    rank_cache.path(NAME, _RANK_SHA256[NAME]).unlink()
    rank_cache.ranks(NAME, _RANK_SHA256[NAME], lambda: {b"a": 0})
    assert list(ranks_dir.iterdir()) == []


def test_an_unwritable_cache_directory_still_gives_the_ranks(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("CONTEXT_INSPECTOR_CACHE_DIR", str(blocker))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    cache.set_enabled(None)
    assert len(rank_cache.ranks(NAME, _RANK_SHA256[NAME], lambda: _bundled_ranks(NAME))) == 100_256


def test_a_fresh_process_counts_the_same_from_kept_ranks(tmp_path):
    env = {**os.environ, "CONTEXT_INSPECTOR_CACHE_DIR": str(tmp_path)}
    env.pop(cache.NO_CACHE_ENV, None)
    code = (
        "from inspector.tokens import get_counter\n"
        "print(get_counter('o200k_base').count('The quick brown fox jumps over the lazy dog, twice: 12345.'),"
        " get_counter('cl100k_base').count('The quick brown fox jumps over the lazy dog, twice: 12345.'))\n"
    )
    outs = [subprocess.run([sys.executable, "-c", code.replace("twice", word)], env=env, capture_output=True, text=True, timeout=120)
            for word in ("twice", "thrice")]  # the second text is not in the count cache: the kept ranks count it
    assert [o.returncode for o in outs] == [0, 0], outs[1].stderr
    assert [o.stdout for o in outs] == ["16 16\n", "17 17\n"]  # as 4a16daa counts them, ranks parsed by tiktoken's loop
    assert sorted(p.name.split("-")[0] for p in (tmp_path / "ranks").iterdir()) == ["cl100k_base", "o200k_base"]
