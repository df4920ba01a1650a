"""The one safe way in and out: open a session for reading, write an export.

Reading (:func:`open_input`, :func:`read_bytes`, :func:`read_head`, :func:`text_bytes`):

- only regular files are read: a FIFO, a device (``/dev/zero`` behind a symlink), a socket or a
  directory where a file is expected is refused up front with :class:`InputError`, checked on the
  opened descriptor (opened non-blocking, so even opening a FIFO never waits for a writer);
- reads are bounded: at most :data:`MAX_INPUT_BYTES`, else a clear error, never a MemoryError;
- text is handed to the readers as UTF-8 with ``\\n`` line ends: a UTF-8 byte-order mark is
  dropped, UTF-16 and UTF-32 (with a BOM, or recognised by their zero bytes) are transcoded,
  CR-only line ends become LF; bytes that are not UTF-8 are named as such with the byte offset and
  line (and a hint when they look like Latin-1);
- a symbolic link loop is named as one, not as "no such file".

Writing (:func:`write_atomic`): a temporary file in the target's directory, then ``os.replace``.
It refuses a target that is not a regular file (device, FIFO, socket, directory) and any file that
belongs to the session being read (:func:`belongs_to_session`), keeps an existing file's
permission bits and otherwise creates the file with ``0o666 & ~umask``.

:class:`InputError` is an ``OSError`` whose ``filename`` is the path and ``strerror`` one
sentence, so every caller that already reports an unreadable file reports these the same way.
No format knowledge lives here; stdlib only.
"""

from __future__ import annotations

import codecs
import errno
import os
import stat
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

#: The largest session file the inspector reads (1 GiB).
MAX_INPUT_BYTES = 1 << 30

_KINDS = (
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


class InputError(OSError):
    """A file the inspector will not read or write; ``str()`` is one paragraph naming it."""

    def __init__(self, path: str | Path, problem: str) -> None:
        super().__init__(errno.EINVAL, problem, str(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


def kind_of(mode: int) -> str | None:
    """What a non-regular file is ("a FIFO (named pipe)"...), or None for a regular file."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def _refuse_kind(path: str | Path, kind: str) -> InputError:
    return InputError(path, f"it is {kind}, not a regular file; the inspector reads only session files (and session directories), so it does not open it.")


def _os_error(path: str | Path, exc: OSError) -> OSError:
    if exc.errno == errno.ELOOP:
        return InputError(path, "it is a symbolic link loop (a link that points back to itself), so it names no file.")
    return exc


def check_input(path: str | Path, *, allow_dir: bool = True) -> None:
    """Raise InputError unless ``path`` is a regular file (or a directory when ``allow_dir``)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _os_error(path, exc) from None
    kind = kind_of(st.st_mode)
    if kind is not None and not (allow_dir and stat.S_ISDIR(st.st_mode)):
        raise _refuse_kind(path, kind)


def open_input(path: str | Path) -> BinaryIO:
    """``path`` opened for binary reading, after checking on the descriptor that it is a regular
    file. Opening never blocks (O_NONBLOCK, cleared before returning)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _os_error(path, exc) from None
    try:
        kind = kind_of(os.fstat(fd).st_mode)
        if kind is not None:
            raise _refuse_kind(path, kind)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _too_large(path: str | Path, cap: int) -> InputError:
    return InputError(path, f"it is larger than {cap:,} bytes, the most the inspector reads from one file.")


def read_bytes(path: str | Path, cap: int | None = None) -> bytes:
    """The whole file as bytes, at most ``cap`` (default :data:`MAX_INPUT_BYTES`) of them
    (InputError beyond that)."""
    cap = MAX_INPUT_BYTES if cap is None else cap
    with open_input(path) as fh:
        if os.fstat(fh.fileno()).st_size > cap:
            raise _too_large(path, cap)
        data = fh.read(cap + 1)
    if len(data) > cap:
        raise _too_large(path, cap)
    return data


#: The most read from a settings file (theme, keymap, presets, price overrides).
MAX_SETTINGS_BYTES = 4 << 20


def read_settings_text(path: str | Path) -> str:
    """A small settings file (theme, keymap, presets, prices) as text, through the same checks as a
    session: a FIFO or device is refused, never read; at most :data:`MAX_SETTINGS_BYTES`.
    UnicodeDecodeError when it is not UTF-8."""
    try:
        return read_bytes(path, MAX_SETTINGS_BYTES).decode("utf-8")
    except InputError as exc:
        kind = _kind_at(path)
        if kind is not None:
            raise InputError(path, f"it is {kind}, not a regular file, so it is not read.") from None
        raise


def _kind_at(path: str | Path) -> str | None:
    try:
        return kind_of(os.stat(path).st_mode)
    except OSError:
        return None


def read_head(path: str | Path, size: int) -> bytes:
    """The first ``size`` bytes of the file."""
    with open_input(path) as fh:
        return fh.read(size)


def read_line(path: str | Path, limit: int) -> bytes:
    """The first line of the file, at most ``limit`` bytes."""
    with open_input(path) as fh:
        return fh.readline(limit)


# --- text ------------------------------------------------------------------------------------

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def sniff_encoding(data: bytes) -> tuple[str, int]:
    """``(encoding, BOM length)`` of text that starts with ``data``: a BOM decides; without
    one, the zero bytes of JSON's ASCII first characters tell UTF-16/32 from UTF-8."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name, len(bom)
    if len(data) >= 4 and data[0] and data[1:4] == b"\0\0\0":
        return "utf-32-le", 0
    if len(data) >= 4 and data[:3] == b"\0\0\0" and data[3]:
        return "utf-32-be", 0
    if len(data) >= 2 and data[0] and not data[1] and data.count(0, 0, 64) * 3 >= min(len(data), 64):
        return "utf-16-le", 0
    if len(data) >= 2 and not data[0] and data[1] and data.count(0, 0, 64) * 3 >= min(len(data), 64):
        return "utf-16-be", 0
    return "utf-8", 0


def _utf8_error(path: str | Path, data: bytes, start: int) -> InputError:
    return _utf8_error_at(path, data.count(b"\n", 0, start) + 1, start, data[start : start + 1])


def _utf8_error_at(path: str | Path, line: int, start: int, bad: bytes) -> InputError:
    hint = ""
    if bad and 0xA0 <= bad[0] <= 0xFF:
        ch = bad.decode("latin-1")
        hint = f" (it looks like Latin-1 or Windows-1252 text: 0x{bad[0]:02x} would be {ch!r}); save it as UTF-8"
    return InputError(path, f"line {line}, byte offset {start}: byte 0x{bad.hex() or '??'} is not valid UTF-8{hint}. Session files are UTF-8 (or UTF-16/32 with a byte-order mark).")


def check_utf8(path: str | Path, data: bytes, chunk: int = 1 << 22) -> None:
    """InputError naming the byte offset and line of the first byte that is not UTF-8.
    Validates in chunks cut before a character's first byte, so it costs no large string."""
    if data.isascii():
        return
    at = 0
    while at < len(data):
        end = min(len(data), at + chunk)
        while end < len(data) and end > at + 1 and 0x80 <= data[end] <= 0xBF:
            end -= 1  # a continuation byte: cut before its character
        try:
            data[at:end].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _utf8_error(path, data, at + exc.start) from None
        at = end


def text_bytes(path: str | Path, data: bytes, *, partial: bool = False) -> bytes:
    """``data`` (the start of the file when ``partial``) as UTF-8 with LF line ends: BOM dropped,
    UTF-16/32 transcoded, CR-only line ends made LF. InputError when it is not valid text in its
    encoding (never for a ``partial`` head, which may end inside a character)."""
    encoding, skip = sniff_encoding(data)
    if encoding != "utf-8":
        try:
            text = codecs.getincrementaldecoder(encoding)().decode(data[skip:], final=not partial)
        except UnicodeDecodeError as exc:
            raise InputError(path, f"byte offset {skip + exc.start}: not valid {encoding.upper()} ({exc.reason}), though the file starts like {encoding.upper()} text.") from None
        data = text.removeprefix("\ufeff").encode("utf-8", "surrogatepass")
    elif skip:
        data = data[skip:]
    elif not partial:
        check_utf8(path, data)
    if b"\r" in data and b"\n" not in data:
        data = data.replace(b"\r", b"\n")
    return data


def read_text(path: str | Path, cap: int | None = None) -> bytes:
    """The whole file as UTF-8 bytes with LF line ends (see :func:`text_bytes`)."""
    return text_bytes(path, read_bytes(path, cap))


#: How much :func:`iter_text_lines` reads at a time: a block the processor's cache holds. With
#: 4 MB blocks, reading the 10k-message Claude Code and Codex files (22 MB) took 2-3 ms more
#: (10%, CPU, 2026-11-24): each block was fresh memory, and every line was cut from it after the
#: cache had let it go.
LINE_BLOCK_BYTES = 256 << 10
#: How far :func:`iter_text_lines` looks for the first newline; a file with none there (CR-only
#: line ends, or one long line) is read whole.
FIRST_LINE_BYTES = 4 << 20


def iter_text_lines(path: str | Path) -> Iterator[bytes]:
    """Every line of the file as :func:`read_text` would give it (split at ``\\n``, the newline
    left out; no piece after a final newline), read a block at a time: never the whole file and
    its lines in memory together. Plain UTF-8 with a newline in its first
    :data:`FIRST_LINE_BYTES` is validated as it is read (InputError names the line and byte
    offset, as :func:`read_text`'s); any other file (a BOM, UTF-16/32, CR-only line ends, one
    long line) is read whole by :func:`read_text`. (The lines of :func:`iter_text_runs`.)"""
    for buf, start, end in iter_text_runs(path):
        find = buf.find
        while start < end:
            stop = find(b"\n", start, end)
            if stop < 0:
                stop = end
            yield buf[start:stop]
            start = stop + 1


def iter_text_runs(path: str | Path) -> Iterator[tuple[bytes, int, int]]:
    """The file's lines (:func:`iter_text_lines`'s, checked the same way) as runs of whole lines,
    in order: ``(buf, start, end)``, ``buf[start:end]`` lines each ended by ``\\n`` but perhaps
    the run's last (the file's last line, or a line that was cut by a block's end, given alone),
    for a reader that takes a block's lines in one call. The lines are not counted (bytes.count
    goes a byte at a time: 1 ms a MB); a line number is counted only for an error."""
    with open_input(path) as fh:
        if os.fstat(fh.fileno()).st_size > MAX_INPUT_BYTES:
            raise _too_large(path, MAX_INPUT_BYTES)
        block = fh.read(LINE_BLOCK_BYTES)
        if b"\n" not in block and len(block) == LINE_BLOCK_BYTES:  # a long first line
            parts = [block]
            while len(parts) * LINE_BLOCK_BYTES < FIRST_LINE_BYTES and b"\n" not in parts[-1] and (more := fh.read(LINE_BLOCK_BYTES)):
                parts.append(more)
            block = b"".join(parts)
        whole = sniff_encoding(block[:4]) != ("utf-8", 0) or b"\n" not in block
        if whole:
            block = b""  # read_text's rewriting may apply: the whole-file way, below
        # pending: the pieces of a line cut by a block's end (joined once: a line longer than
        # many blocks is not copied again with each)
        read, pending, pending_at = len(block), [], 0
        while block:
            start, end = 0, block.find(b"\n")
            if pending:
                if end < 0:
                    pending.append(block)
                else:
                    pending.append(block[:end])
                    line = b"".join(pending)
                    _check_lines(path, line, 0, len(line), pending_at)
                    yield line, 0, len(line)
                    start = end + 1
            last = block.rfind(b"\n") + 1  # the end of the block's complete lines
            if start < last:
                _check_lines(path, block, start, last, read - len(block))
                yield block, start, last
                start = last
            if end >= 0 or not pending:
                pending, pending_at = [block[start:]] if start < len(block) else [], read - len(block) + start
            block = fh.read(LINE_BLOCK_BYTES)
            read += len(block)
            if read > MAX_INPUT_BYTES:
                raise _too_large(path, MAX_INPUT_BYTES)
        if pending:
            line = b"".join(pending)
            _check_lines(path, line, 0, len(line), pending_at)
            yield line, 0, len(line)
    if whole:
        data = read_text(path)
        yield data, 0, len(data)


def _check_lines(path: str | Path, block: bytes, start: int, end: int, offset: int) -> None:
    """InputError unless ``block[start:end]`` (whole lines, ``block`` at file offset ``offset``)
    is UTF-8; the error names the line, counted from the file's start."""
    if block.isascii():
        return
    try:
        with memoryview(block) as view:
            str(view[start:end], "utf-8")
    except UnicodeDecodeError as exc:
        at = start + exc.start
        raise _utf8_error_at(path, _line_at(path, offset + at), offset + at, block[at : at + 1]) from None


def _line_at(path: str | Path, offset: int) -> int:
    """The number of the line that holds byte ``offset`` of the file (1-based)."""
    lines = 1
    with open_input(path) as fh:
        while offset > 0 and (block := fh.read(min(offset, LINE_BLOCK_BYTES))):
            lines += block.count(b"\n")
            offset -= len(block)
    return lines


def read_text_head(path: str | Path, size: int) -> bytes:
    """The first ``size`` bytes as UTF-8 with LF line ends (a cut character is dropped)."""
    return text_bytes(path, read_head(path, size), partial=True)


# --- writing ---------------------------------------------------------------------------------


def _resolved(path: str | Path) -> Path:
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):  # a link loop
        return Path(os.path.abspath(path))


def _same(a: Path, b: Path) -> bool:
    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


class OutputError(OSError):
    """A target the inspector will not write; ``str()`` is one sentence naming it."""

    def __init__(self, path: str | Path, sentence: str) -> None:
        super().__init__(errno.EINVAL, sentence, str(path))

    def __str__(self) -> str:
        return str(self.strerror)


def belongs_to_session(target: str | Path, session_path: str | Path, files: Iterable[str] = ()) -> bool:
    """True if writing ``target`` could change the session at ``session_path``: the session file
    itself; anything inside it when it is a directory (Strands); its companions named
    ``<session name>-*`` (SQLite ``-wal``, ``-shm``, ``-journal``); anything in the directory
    named after it (Claude Code's ``<session>/subagents/``); and ``files``, the other files the
    reader read (relative to the session directory, or to the file's directory)."""
    t = _resolved(target)
    s = _resolved(session_path)
    if _same(t, s):
        return True
    if s.is_dir():
        base = s
        if s in t.parents:
            return True
    else:
        base = s.parent
        if t.parent == s.parent and t.name.startswith(s.name + "-"):
            return True
        if (s.parent / s.stem) in t.parents:
            return True
    for rel in files:
        if _same(t, _resolved(base / rel)):
            return True
    return False


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_atomic(target: str | Path, data: bytes, *, session_path: str | Path | None = None, session_files: Iterable[str] = ()) -> Path:
    """Write ``data`` to ``target`` atomically; returns the resolved path written.

    OutputError when the target is not a regular file, is a directory, lies in a directory that
    does not exist, or belongs to the session being read (:func:`belongs_to_session`)."""
    out = Path(target)
    if session_path is not None and belongs_to_session(out, session_path, session_files):
        what = "the session file being inspected" if _same(_resolved(out), _resolved(session_path)) else "a file of the session being inspected"
        raise OutputError(out, f"refusing to write the export to {out}: it is {what} ({_resolved(session_path)}); the inspector never modifies a session. Choose another output path.")
    try:
        st = os.stat(out)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(out, f"cannot write the export to {out}: {_os_error(out, exc).strerror}") from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(out, f"cannot write the export to {out}: it is a directory; give a file name.")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputError(out, f"refusing to write the export to {out}: it is {kind_of(st.st_mode)}, and the inspector writes exports only to regular files (never replacing a device, FIFO or socket). Use '-o -' for standard output.")
    final = _resolved(out)
    directory = final.parent
    if not directory.is_dir():
        raise OutputError(out, f"cannot write the export to {out}: directory {directory} does not exist.")
    mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".tmp", dir=directory)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return final


__all__ = [
    "MAX_INPUT_BYTES",
    "InputError",
    "OutputError",
    "belongs_to_session",
    "check_input",
    "check_utf8",
    "kind_of",
    "open_input",
    "read_bytes",
    "read_head",
    "read_line",
    "read_text",
    "iter_text_lines",
    "iter_text_runs",
    "read_text_head",
    "sniff_encoding",
    "text_bytes",
    "write_atomic",
]
