"""The capture file: one per proxy run, one JSON line per forwarded request, written by a thread
of its own so the forwarding path only appends an :class:`Exchange` to a queue.

Why a thread rather than an asyncio task: turning a 20 MB request body and a long event stream
into a line (parse, assemble, serialise, write) takes tens of milliseconds of CPU and blocking
file I/O; on the event loop that would stall every other stream the proxy is forwarding.

File layout (``capture-<UTC time>-<pid>.jsonl``, mode 0600, in a directory of mode 0700):

- line 1: ``{"type": "capture_start", "time", "version", "upstreams": {"anthropic", "openai"}}``
- then one ``{"type": "exchange", "n", "time", "provider", "api", "method", "path", "status",
  "streamed", "duration_ms", "request", "response"}`` per request, appended and flushed at once
  so a viewer can follow the file. ``request`` is the body exactly as sent (embedded verbatim when
  it is one line of JSON); ``response`` has ``usage``, ``stop_reason``, ``content``, ``id`` and
  ``model`` as assembled by :mod:`.assemble`. Optional: ``request_note`` (body not JSON: it was
  forwarded untouched), ``response_error`` (the upstream's error body), ``upstream_error`` (the
  upstream could not be reached), ``client_disconnected``.

Headers are never written: not the client's, not the upstream's. The query string is not either.
"""

from __future__ import annotations

import os
import queue
import re
import sys
import threading
import time
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson

from .. import __version__
from .assemble import assemble

DIR_MODE = 0o700
#: What an API key looks like when an upstream error message quotes it, even masked (``sk-proj-****abcd``).
KEY_LIKE = re.compile(rb"\b(?:sk|rk|pk)-[A-Za-z0-9_*.\-]{6,}")
FILE_MODE = 0o600


@dataclass
class Exchange:
    """One forwarded request as the forwarding path saw it (bytes only; no headers)."""

    provider: str
    api: str
    method: str
    path: str
    request: bytes
    request_encoding: str | None = None
    started: float = field(default_factory=time.time)
    status: int | None = None
    streamed: bool = False
    content_encoding: str | None = None
    chunks: list[bytes] = field(default_factory=list)
    duration_ms: float | None = None
    client_disconnected: bool = False
    upstream_error: str | None = None
    #: The request's credential values (in memory only): redacted wherever an upstream echoes them.
    secrets: tuple[bytes, ...] = field(default=(), repr=False)


def utc(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def prepare_dir(directory: Path) -> Path:
    """``directory``, created owner-only when it does not exist. An existing directory keeps its
    mode (the capture file itself is created 0600, exclusively)."""
    if not directory.exists():
        directory.mkdir(mode=DIR_MODE, parents=True)
        os.chmod(directory, DIR_MODE)  # mkdir's mode is masked by the umask
    return directory


def new_capture_path(directory: Path) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    return directory / f"capture-{stamp}-{os.getpid()}.jsonl"


class CaptureWriter:
    """Owns the capture file and the thread that writes it. ``submit`` never blocks."""

    def __init__(self, directory: Path, upstreams: dict[str, str]) -> None:
        self.path = new_capture_path(prepare_dir(directory))
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, FILE_MODE)
        self._file = os.fdopen(fd, "ab")
        self._queue: queue.SimpleQueue[Exchange | None] = queue.SimpleQueue()
        self.count = 0
        self._write({"type": "capture_start", "time": utc(time.time()), "version": __version__, "upstreams": upstreams})
        self._thread = threading.Thread(target=self._run, name="capture-writer", daemon=True)
        self._thread.start()

    def submit(self, exchange: Exchange) -> None:
        self._queue.put(exchange)

    def close(self) -> None:
        """Write what is queued, then close the file."""
        self._queue.put(None)
        self._thread.join()
        self._file.close()

    def _run(self) -> None:
        while (exchange := self._queue.get()) is not None:
            self.count += 1
            try:
                self._write(record(exchange, self.count))
            except Exception as exc:  # a bad exchange must not stop the capture; say which, never its data
                sys.stderr.write(f"context-inspector proxy: could not record request {self.count} ({type(exc).__name__}).\n")

    def _write(self, line: dict[str, Any]) -> None:
        self._file.write(orjson.dumps(line) + b"\n")
        self._file.flush()  # one whole line at a time: a follower never waits on a buffer


def record(ex: Exchange, n: int) -> dict[str, Any]:
    """The capture line of one exchange."""
    line: dict[str, Any] = {
        "type": "exchange",
        "n": n,
        "time": utc(ex.started),
        "provider": ex.provider,
        "api": ex.api,
        "method": ex.method,
        "path": ex.path,
        "status": ex.status,
        "streamed": ex.streamed,
        "duration_ms": ex.duration_ms,
    }
    request, problem = _decoded(ex.request, ex.request_encoding)
    line["request"], note = request_value(request) if not problem else (None, problem)
    if note:
        line["request_note"] = note
    if ex.upstream_error:
        line["upstream_error"] = ex.upstream_error
    if ex.client_disconnected:
        line["client_disconnected"] = True
    if ex.status is None:
        return line
    body, problem = _decoded(b"".join(ex.chunks), ex.content_encoding)
    if problem:
        line["response_note"] = problem
    elif ex.status >= 400:
        for secret in ex.secrets:  # an "invalid token" error may echo the credential itself
            body = body.replace(secret, b"(redacted)")
        body = KEY_LIKE.sub(b"(redacted)", body)  # or part of a key
        try:
            line["response_error"] = orjson.loads(body)
        except orjson.JSONDecodeError:
            line["response_error"] = body[:4096].decode("utf-8", "replace")
    else:
        line["response"] = assemble(ex.api, body, ex.streamed)
    return line


def request_value(body: bytes) -> tuple[Any, str | None]:
    """The request body for the capture line: embedded byte for byte when it is JSON on one line,
    re-serialised when it spans lines, None and a note when it is not JSON."""
    if not body:
        return None, "empty request body"
    try:
        parsed = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        return None, f"the request body is not JSON ({exc}); its {len(body):,} bytes were forwarded untouched"
    if b"\n" in body or b"\r" in body:
        return parsed, None
    return orjson.Fragment(body.strip()), None


def _decoded(body: bytes, encoding: str | None) -> tuple[bytes, str | None]:
    enc = (encoding or "identity").strip().lower()
    if enc in ("identity", ""):
        return body, None
    if enc in ("gzip", "x-gzip", "deflate"):
        try:
            return zlib.decompressobj(47 if enc != "deflate" else zlib.MAX_WBITS).decompress(body), None
        except zlib.error:
            try:
                return zlib.decompress(body, -zlib.MAX_WBITS), None
            except zlib.error as exc:
                return b"", f"the body's {enc} encoding could not be decoded ({exc})"
    return b"", f"the body is {enc}-encoded, which the capture does not decode; it was forwarded untouched"
