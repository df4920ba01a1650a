"""A JSONL file read a block at a time gives exactly the lines of the whole-file read, and the
same error, naming the same line and byte offset, for bytes that are not UTF-8."""

from __future__ import annotations

import random

import pytest

from inspector import safeio
from inspector.safeio import InputError, iter_text_lines, read_text


def _whole_file_lines(path) -> list[bytes]:
    data, out, start = read_text(path), [], 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        out.append(data[start:end])
        start = end + 1
    return out


def _cases() -> list[bytes]:
    fixed = [b"", b"\n", b"a", b"a\n", b"a\nb", b"\n\n\nx\n", "é\nü✓\n".encode(), b"a\r\nb\r\n",
             b"a\rb\r",  # CR-only line ends: rewritten to LF by the whole-file way
             "\ufeffa\nb\n".encode(), "a\nb\n".encode("utf-16")]
    rng = random.Random(5)
    return fixed + [bytes(rng.choice(b"ab\n\r") for _ in range(rng.randint(0, 60))) + "é✓".encode() * rng.randint(0, 1)
                    for _ in range(200)]


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64])
def test_the_lines_are_the_whole_file_s(tmp_path, monkeypatch, block):
    monkeypatch.setattr(safeio, "LINE_BLOCK_BYTES", block)
    path = tmp_path / "s.jsonl"
    for data in _cases():
        path.write_bytes(data)
        assert list(iter_text_lines(path)) == _whole_file_lines(path), data


@pytest.mark.parametrize("block", [1, 3, 7, 64])
@pytest.mark.parametrize("data", [b"ab\ncd\xff\nx\n", b"ab\nc\xc3", b"\xe9\nab\xe9z\n", b"\n\nabc\xe2\x82\n"])
def test_bytes_that_are_not_utf8_are_named_as_the_whole_file_read_names_them(tmp_path, monkeypatch, block, data):
    monkeypatch.setattr(safeio, "LINE_BLOCK_BYTES", block)
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    with pytest.raises(InputError) as whole:
        read_text(path)
    with pytest.raises(InputError) as streamed:
        list(iter_text_lines(path))
    assert str(streamed.value) == str(whole.value)
    assert "is not valid UTF-8" in str(streamed.value)


def test_a_bad_byte_deep_in_the_file_is_named_by_line_and_offset(tmp_path, monkeypatch):
    monkeypatch.setattr(safeio, "LINE_BLOCK_BYTES", 16)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"a": 1}\n' * 10 + b'{"a": "\xff"}\n')
    with pytest.raises(InputError) as err:
        list(iter_text_lines(path))
    assert str(err.value).startswith(f"{path}: line 11, byte offset 97: byte 0xff is not valid UTF-8 (it looks like Latin-1")


def test_a_first_line_longer_than_a_block_is_still_read_a_block_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setattr(safeio, "LINE_BLOCK_BYTES", 16)
    monkeypatch.setattr(safeio, "FIRST_LINE_BYTES", 64)
    path = tmp_path / "s.jsonl"
    lines = [b"x" * 50, b"y" * 40, b"", b"z" * 3]  # the first newline after three blocks
    path.write_bytes(b"\n".join(lines) + b"\n")

    def whole(*_args):
        raise AssertionError("read whole")

    monkeypatch.setattr(safeio, "read_text", whole)
    assert list(iter_text_lines(path)) == lines


def test_a_file_with_no_newline_in_its_first_line_bytes_is_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(safeio, "LINE_BLOCK_BYTES", 16)
    monkeypatch.setattr(safeio, "FIRST_LINE_BYTES", 64)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"a" * 70 + b"\nb\n")
    read, calls = safeio.read_text, []
    monkeypatch.setattr(safeio, "read_text", lambda *args: calls.append(args) or read(*args))
    assert list(iter_text_lines(path)) == [b"a" * 70, b"b"]
    assert len(calls) == 1  # one long line, as far as the first 64 bytes tell: the whole-file way
