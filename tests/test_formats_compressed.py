"""zstd-compressed sessions (``*.jsonl.zst``: Codex archives rollouts that way) read exactly as the
plain file; a damaged one is one error naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest
import zstandard

from inspector.formats import detect, load
from inspector.formats.compressed import is_zstd
from inspector.safeio import InputError

ROLLOUT = Path(__file__).parent / "fixtures" / "real" / "codex" / "agentcmd_rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl"


def test_a_compressed_rollout_reads_as_the_plain_one(tmp_path):
    packed = tmp_path / f"{ROLLOUT.name}.zst"
    packed.write_bytes(zstandard.ZstdCompressor(level=3).compress(ROLLOUT.read_bytes()))
    assert is_zstd(packed) and not is_zstd(ROLLOUT)
    assert detect(packed).name == "codex"
    plain, compressed = load(ROLLOUT), load(packed)
    assert len(compressed.messages) == len(plain.messages) == 71
    assert [(m.role, m.source.line, m.text) for m in compressed.messages] == [(m.role, m.source.line, m.text) for m in plain.messages]
    assert [m.usage for m in compressed.messages] == [m.usage for m in plain.messages]


def test_a_damaged_zstd_file_is_one_error_naming_it(tmp_path):
    bad = tmp_path / "rollout-x.jsonl.zst"
    bad.write_bytes(b"\x28\xb5\x2f\xfd" + b"garbage-not-a-frame")
    with pytest.raises(InputError) as info:
        load(bad)
    assert str(info.value) == f"{bad}: not a readable zstd file (zstd decompress error: Dictionary mismatch)."
