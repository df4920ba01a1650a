"""Live-follow an append-only session file (JSONL) as an agent writes it. No Textual here.

:class:`Follower` loads the file through its format's RecordStream from byte 0 and remembers how
many bytes it has read. Each :meth:`Follower.poll` reads only the bytes appended since, feeds the
complete lines, and keeps a half-written last line until its newline arrives (a last line that
already parses as a whole JSON object is fed at once, so a file without a final newline still
shows its last message; the newline that completes it later is not fed twice).

The encoding is read from the first bytes as for a whole file (:func:`inspector.safeio.sniff_encoding`):
a UTF-8 byte-order mark is skipped, UTF-16/32 text is decoded incrementally (a character cut
between two polls waits for its other bytes) and fed as UTF-8, and a file whose lines end in CR
alone has them read as line ends.

A file that was deleted, replaced by another file (new inode), truncated, or rewritten in place
(the bytes already read changed) stops the follower: the update carries a notice saying what
happened, what was loaded is kept, and every later poll returns no messages and the same notice.
"""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass
from pathlib import Path

import orjson

from .formats.base import Format, RecordStream, SessionFormatError, get_format
from .formats.jsondoc import paused_gc
from .model import Message, Session
from .safeio import open_input, sniff_encoding

#: Bytes before the read offset re-read on each poll to notice a file rewritten in place.
TAIL_CHECK = 64


@dataclass(frozen=True)
class FollowUpdate:
    """What one poll found: ``messages`` is ``session.messages[first:]`` (new or changed ones)."""

    first: int
    messages: list[Message]
    notice: str | None
    session: Session
    stopped: bool = False


class Follower:
    """Tails ``path`` with the RecordStream of ``fmt`` (a format name or a :class:`Format`)."""

    def __init__(self, path: str | Path, fmt: str | Format) -> None:
        self.path = Path(path)
        self.format = _resolve(fmt)
        if self.format.stream is None:
            raise SessionFormatError(
                self.path, None, f"the {self.format.name} format cannot be followed live (it is not an append-only format)."
            )
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            raise SessionFormatError(self.path, None, "no such file or directory.") from None
        self.stream: RecordStream = self.format.stream(self.path)
        self._identity = (st.st_dev, st.st_ino)
        #: Bytes of the file consumed so far (complete lines plus the pending partial line).
        self.offset = 0
        self._pending = b""
        self._pending_fed = False
        self._lines_done = 0
        self._tail = b""
        self._decoder: codecs.IncrementalDecoder | None = None
        self._cr_only: bool | None = None  # None: no line end seen yet
        self.stopped = False
        self.notice: str | None = None
        with paused_gc():
            self.poll()

    @property
    def session(self) -> Session:
        return self.stream.session

    def poll(self) -> FollowUpdate:
        """Read what was appended since the last poll."""
        if self.stopped:
            return self._stopped_update()
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return self._stop("was deleted")
        if (st.st_dev, st.st_ino) != self._identity:
            return self._stop("was replaced by another file")
        if st.st_size < self.offset:
            return self._stop(f"was truncated (it has {st.st_size} bytes, {self.offset} had been read)")
        try:
            with open_input(self.path) as fh:
                fst = os.fstat(fh.fileno())
                if (fst.st_dev, fst.st_ino) != self._identity:
                    return self._stop("was replaced by another file")
                if self._tail:
                    fh.seek(self.offset - len(self._tail))
                    if fh.read(len(self._tail)) != self._tail:
                        return self._stop("was rewritten (the part already read changed)")
                else:
                    fh.seek(self.offset)
                data = fh.read()
        except FileNotFoundError:
            return self._stop("was deleted")
        if data and self.offset == 0:
            if len(data) < 4:
                data = b""  # too little to tell the encoding: wait for more
            else:
                data = self._start(data)
        if data:
            self.offset += len(data)
            self._tail = (self._tail + data)[-TAIL_CHECK:]
            self._consume(self._as_utf8(data))
        first, messages = self.stream.take()
        return FollowUpdate(first, list(messages), None, self.session)

    def _start(self, head: bytes) -> bytes:
        """Decide the encoding from the file's first bytes; the byte-order mark is read, not fed."""
        encoding, bom = sniff_encoding(head)
        if encoding != "utf-8":
            self._decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
        self.offset = bom
        self._tail = head[:bom]
        return head[bom:]

    def _as_utf8(self, data: bytes) -> bytes:
        if self._decoder is not None:
            data = self._decoder.decode(data).encode("utf-8", "surrogatepass")
        # a CRLF file whose first chunk ends between CR and LF would read as CR-only: its lines
        # then come with an empty line after each, which the stream skips
        if self._cr_only is None and (b"\n" in data or b"\r" in data):
            self._cr_only = b"\n" not in data
        if self._cr_only:
            data = data.replace(b"\r", b"\n")
        return data

    def _consume(self, data: bytes) -> None:
        lines = (self._pending + data).split(b"\n")
        self._pending = lines.pop()
        for line in lines:
            self._lines_done += 1
            if self._pending_fed:  # this line was fed while its newline was still missing
                self._pending_fed = False
                continue
            self.stream.feed(line, self._lines_done)
        if self._pending and not self._pending_fed and self._pending.rstrip().endswith(b"}"):
            try:
                orjson.loads(self._pending)
            except orjson.JSONDecodeError:
                return
            self.stream.feed(self._pending, self._lines_done + 1)
            self._pending_fed = True

    def _stop(self, what: str) -> FollowUpdate:
        self.stopped = True
        n = len(self.session.messages)
        self.notice = (
            f"{self.path} {what}: keeping the {n} message{'s' if n != 1 else ''} already loaded "
            f"and no longer following it."
        )
        return self._stopped_update()

    def _stopped_update(self) -> FollowUpdate:
        return FollowUpdate(len(self.session.messages), [], self.notice, self.session, True)


def _resolve(fmt: str | Format) -> Format:
    if isinstance(fmt, Format):
        return fmt
    from .formats import builtin  # noqa: F401  (registers the built-in formats)

    return get_format(fmt)
