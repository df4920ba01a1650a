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


@pytest.mark.parametrize("cut", [0.5, 0.999])
def test_a_truncated_zstd_file_is_one_error_not_a_shorter_session(tmp_path, cut):
    # zstandard's stream reader ends quietly where a truncated frame stops: the session read
    # would be shorter than the one recorded (or end in a half line) with no word of it.
    data = zstandard.ZstdCompressor(level=3).compress(ROLLOUT.read_bytes())
    cut_file = tmp_path / "rollout-cut.jsonl.zst"
    cut_file.write_bytes(data[: int(len(data) * cut)])
    with pytest.raises(InputError) as info:
        load(cut_file)
    assert str(info.value) == f"{cut_file}: the zstd stream ends inside a frame: the file is truncated, so the session it holds is incomplete."


def test_several_frames_and_a_skippable_frame_read_whole(tmp_path):
    raw = ROLLOUT.read_bytes()
    half = raw.index(b"\n", len(raw) // 2) + 1
    compressor = zstandard.ZstdCompressor(level=3, write_checksum=True)
    skippable = (0x184D2A50).to_bytes(4, "little") + (3).to_bytes(4, "little") + b"abc"
    packed = tmp_path / "rollout-frames.jsonl.zst"
    packed.write_bytes(compressor.compress(raw[:half]) + skippable + compressor.compress(raw[half:]))
    assert len(load(packed).messages) == 71
