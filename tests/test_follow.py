"""Live-follow of a growing JSONL file with a real temp file: partial lines, chunks, and stops."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

import inspector
import inspector.formats.builtin  # noqa: F401  (registers the formats in their canonical order first)
from inspector.follow import Follower, FollowUpdate
from inspector.formats import SessionFormatError, get_format

HEADER = b'{"type": "session", "version": 1}\n'


def line(role: str, text: str) -> bytes:
    return orjson.dumps({"role": role, "content": text}) + b"\n"


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(data)
        fh.flush()


@pytest.fixture
def session_file(tmp_path: Path) -> Path:
    path = tmp_path / "live.jsonl"
    path.write_bytes(HEADER + line("system", "You are terse.") + line("user", "hi"))
    return path


def test_initial_load_and_offset(session_file):
    f = Follower(session_file, "jsonl")
    assert [m.text for m in f.session.messages] == ["You are terse.", "hi"]
    assert f.offset == session_file.stat().st_size
    assert f.poll() == FollowUpdate(2, [], None, f.session)


def test_appended_lines_and_a_half_written_line(session_file):
    f = Follower(session_file, "jsonl")
    append(session_file, line("assistant", "hello"))
    update = f.poll()
    assert (update.first, [m.text for m in update.messages], update.notice, update.stopped) == (2, ["hello"], None, False)
    assert update.messages[0].source.line == 4

    append(session_file, b'{"role": "user", "con')
    update = f.poll()
    assert (update.first, update.messages) == (3, [])
    assert f.offset == session_file.stat().st_size  # the partial bytes were read, and are kept

    append(session_file, b'tent": "more"}\n')
    update = f.poll()
    assert [(m.index, m.text, m.source.line) for m in update.messages] == [(3, "more", 5)]
    assert f.session.skipped == []


def test_arbitrary_byte_chunks_give_the_same_session_as_reading_the_file(tmp_path):
    body = HEADER + b"".join(
        [
            line("system", "Sys prompt \u00e9\u00e8 \U0001f600"),
            line("user", "first question"),
            orjson.dumps({"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "ls", "arguments": "{}"}, {"id": "c2", "name": "cat", "arguments": '{"p": "a"}'}]}) + b"\n",
            orjson.dumps({"role": "tool", "tool_call_id": "c1", "content": "a\nb\n"}) + b"\n",
            b"{not json}\n",
            orjson.dumps({"role": "tool", "tool_call_id": "c2", "content": "x" * 300}) + b"\n",
            b"\n",
            line("assistant", "done"),
        ]
    )
    path = tmp_path / "chunks.jsonl"
    path.write_bytes(b"")
    f = Follower(path, "jsonl")
    seen: dict[int, str] = {}
    for start in range(0, len(body), 7):
        append(path, body[start : start + 7])
        update = f.poll()
        assert update.first == len(seen)
        for m in update.messages:
            seen[m.index] = m.role
    whole = inspector.load(path, format="jsonl")
    assert [m.model_dump() for m in f.session.messages] == [m.model_dump() for m in whole.messages]
    assert f.session.skipped == whole.skipped == whole.skipped[:1]
    assert whole.skipped[0].where == "line 6"
    assert list(seen.values()) == ["system", "user", "assistant", "tool", "tool", "assistant"]


def test_last_line_without_newline_is_shown_once(session_file):
    f = Follower(session_file, "jsonl")
    append(session_file, b'{"role": "assistant", "content": "no newline yet"}')
    update = f.poll()
    assert [m.text for m in update.messages] == ["no newline yet"]
    append(session_file, b"\n")
    assert f.poll().messages == []
    append(session_file, line("user", "next"))
    update = f.poll()
    assert [(m.index, m.source.line) for m in update.messages] == [(3, 5)]


def test_bad_appended_line_is_skipped_with_its_number(session_file):
    f = Follower(session_file, "jsonl")
    append(session_file, b'{"role": "robot"}\n' + line("assistant", "ok"))
    update = f.poll()
    assert [m.text for m in update.messages] == ["ok"]
    assert [(k.where, k.reason) for k in f.session.skipped] == [
        ("line 4", '$.role: expected "system", "user", "assistant" or "tool", found "robot".')
    ]


def _stopped_twice(f: Follower) -> FollowUpdate:
    first = f.poll()
    again = f.poll()
    assert first.stopped and again == first and first.messages == []
    assert [m.text for m in f.session.messages] == ["You are terse.", "hi"]
    return first


def test_truncated_file_stops_following(session_file):
    f = Follower(session_file, "jsonl")
    size = session_file.stat().st_size
    with open(session_file, "r+b") as fh:
        fh.truncate(10)
    update = _stopped_twice(f)
    assert update.notice == (
        f"{session_file} was truncated (it has 10 bytes, {size} had been read): "
        "keeping the 2 messages already loaded and no longer following it."
    )
    append(session_file, b"x" * size + b"\n" + line("user", "late"))
    assert f.poll().messages == []


def test_replaced_file_stops_following(session_file, tmp_path):
    f = Follower(session_file, "jsonl")
    other = tmp_path / "new.jsonl"
    other.write_bytes(HEADER + line("system", "other") + line("user", "other") + line("user", "third"))
    os.replace(other, session_file)
    update = _stopped_twice(f)
    assert update.notice == f"{session_file} was replaced by another file: keeping the 2 messages already loaded and no longer following it."


def test_deleted_file_stops_following(session_file):
    f = Follower(session_file, "jsonl")
    session_file.unlink()
    update = _stopped_twice(f)
    assert update.notice == f"{session_file} was deleted: keeping the 2 messages already loaded and no longer following it."


def test_file_rewritten_in_place_stops_following(session_file):
    f = Follower(session_file, "jsonl")
    data = session_file.read_bytes()
    with open(session_file, "r+b") as fh:  # same inode, same size, different bytes
        fh.write(data.replace(b"hi", b"yo"))
    update = _stopped_twice(f)
    assert update.notice.startswith(f"{session_file} was rewritten (the part already read changed): ")


def test_follower_takes_a_format_object(session_file):
    f = Follower(session_file, get_format("jsonl"))
    assert len(f.session.messages) == 2


def test_formats_that_cannot_be_followed(tmp_path):
    path = tmp_path / "s.json"
    path.write_text("[]")
    with pytest.raises(SessionFormatError) as info:
        Follower(path, "openai")
    assert info.value.problem == "the openai format cannot be followed live (it is not an append-only format)."
    with pytest.raises(SessionFormatError) as info:
        Follower(tmp_path / "missing.jsonl", "jsonl")
    assert info.value.problem == "no such file or directory."


@pytest.mark.parametrize("encoding, bom", [
    ("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-16-le", b""), ("utf-32-le", b"\xff\xfe\0\0"),
    ("utf-8", b"\xef\xbb\xbf"),
])
def test_follows_utf16_utf32_and_bom_files(tmp_path, encoding, bom):
    path = tmp_path / "live.jsonl"
    first = (HEADER + line("system", "You are terse.") + line("user", "h\u00e9llo \U0001F600")).decode()
    path.write_bytes(bom + first.encode(encoding))
    f = Follower(path, "jsonl")
    assert [m.text for m in f.session.messages] == ["You are terse.", "h\u00e9llo \U0001F600"]
    more = line("assistant", "r\u00e9ponse \U0001F600").decode().encode(encoding)
    append(path, more[:7])  # cut inside a character: it waits for its other bytes
    assert f.poll().messages == []
    append(path, more[7:])
    update = f.poll()
    assert (update.first, [m.text for m in update.messages], update.stopped) == (2, ["r\u00e9ponse \U0001F600"], False)
    assert f.offset == path.stat().st_size


def test_follows_a_file_with_cr_line_ends(tmp_path):
    path = tmp_path / "live.jsonl"
    path.write_bytes((HEADER + line("user", "hi")).replace(b"\n", b"\r"))
    f = Follower(path, "jsonl")
    assert [m.text for m in f.session.messages] == ["hi"]
    append(path, line("assistant", "hello").replace(b"\n", b"\r"))
    assert [m.text for m in f.poll().messages] == ["hello"]
