"""The reader registry, format detection and the one error type bad input raises.

A format module declares everything the rest of the program needs to know about it in one
:class:`Format` registered with :func:`register`: a ``detect`` function that scores a
:class:`Probe` (0 = not this format), a ``read`` function that returns a
:class:`~inspector.model.Session`, optionally a ``write`` function for round trips and exports,
the ``provider`` whose profile counts it and whose wire format exports it by default, how it can
be followed live (``follow``), and where an agent keeps its sessions (``discovery``). The
follower, session discovery, the CLI and the TUI read these facts; none of them lists formats.
Readers never write to the session file.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol


from ..model import Session
from ..safeio import InputError, check_input
from .discovery import Discovery
from .probe import FORMATS, Probe, SessionFormatError

class RecordStream(Protocol):
    """Incremental reader of an append-only (JSONL) format: fed one complete line at a time.

    The whole-file reader of such a format is "feed every line, then look at ``session``"; the
    live follower (:mod:`inspector.follow`) feeds lines as they are appended. A bad line never
    raises: it goes to ``session.skipped`` with its line number.
    """

    session: Session

    def feed(self, line: bytes, line_no: int) -> None:
        """Consume one line (without its newline); ``line_no`` is 1-based."""
        ...

    def take(self) -> tuple[int, list[Any]]:
        """``(first, messages)``: messages ``session.messages[first:]`` changed or appeared since
        the last ``take`` (``first == len`` when nothing did). A format that merges several lines
        into one message (Claude Code) reports the merged message again."""
        ...


#: How a format's sessions grow while an agent runs, which says how they are followed live:
#: ``stream`` an append-only file read line by line through ``Format.stream``; ``directory`` a new
#: file per message (Strands); ``sqlite`` new rows in a database (Agents SDK); ``rewrite`` the
#: whole file is written again on each change (Gemini CLI), so it is read again and compared.
FollowKind = Literal["stream", "directory", "sqlite", "rewrite"]

#: Providers whose token-count profile and export layout exist; other providers count as OpenAI.
COUNTED_PROVIDERS = ("openai", "anthropic")


@dataclass(frozen=True)
class Format:
    """One session format and every fact about it (one registry line per format)."""

    name: str
    description: str
    detect: Callable[[Probe], int]
    read: Callable[[Path], Session]
    write: Callable[[Session], str] | None = None
    #: Append-only on disk, so the TUI can follow it as it grows (kept for plugins: ``follow``
    #: says the same and more).
    appendable: bool = False
    #: File suffix for ``write`` output.
    suffix: str = ".json"
    #: For appendable formats: make a RecordStream for a path (the path names the session).
    stream: Callable[[Path], RecordStream] | None = None
    #: Whose model wrote it: the token-count profile and the default export target
    #: (``openai``, ``anthropic``, ``gemini``...).
    provider: str = "openai"
    #: How it can be followed live, or None when it cannot. Defaults to ``stream`` when the
    #: format gives a ``stream``.
    follow: FollowKind | None = None
    #: Where an agent keeps sessions of this format (None: it does not keep them in one place).
    discovery: Discovery | None = None

    def __post_init__(self) -> None:
        if self.follow is None and self.stream is not None:
            object.__setattr__(self, "follow", "stream")
        if self.follow == "stream" and self.stream is None:
            raise ValueError(f"format {self.name!r}: follow='stream' needs a stream function")
        if self.follow == "stream" and not self.appendable:
            object.__setattr__(self, "appendable", True)

    @property
    def profile(self) -> str:
        """The token-count profile: the provider's own where one exists, else ``openai``."""
        return self.provider if self.provider in COUNTED_PROVIDERS else "openai"




def register(fmt: Format) -> Format:
    FORMATS[fmt.name] = fmt
    return fmt


def provider_of(format_name: str) -> str:
    """The provider of a registered format (``openai`` for a name no format has)."""
    fmt = FORMATS.get(format_name)
    return fmt.provider if fmt is not None else "openai"


def profile_of(format_name: str) -> str:
    """The token-count profile for sessions of ``format_name``."""
    fmt = FORMATS.get(format_name)
    return fmt.profile if fmt is not None else "openai"


def session_provider(session: Session) -> str:
    """Where ``session``'s requests went: its own ``provider`` where the file says (a capture
    holds either), else its format's."""
    return session.provider or provider_of(session.format)


def session_profile(session: Session) -> str:
    """The token-count profile for ``session`` (:func:`session_provider`'s, where counted)."""
    provider = session_provider(session)
    return provider if provider in COUNTED_PROVIDERS else profile_of(session.format)


def follow_kind(format_name: str) -> FollowKind | None:
    """How sessions of ``format_name`` can be followed live, or None."""
    fmt = FORMATS.get(format_name)
    return fmt.follow if fmt is not None else None


def discoverable() -> list[Format]:
    """Registered formats whose sessions an agent keeps in known places, in registry order."""
    return [f for f in FORMATS.values() if f.discovery is not None]


#: What a detector raises on a field of an unexpected type (a dict where a string belongs is
#: unhashable in ``role in ROLES``): the file is then not that format, never a traceback.
DETECT_FIELD_ERRORS = (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError)


def _score(fmt: Format, probe: Probe) -> int:
    """``fmt.detect(probe)``, 0 when the detector trips over a wrongly typed field."""
    try:
        return fmt.detect(probe)
    except DETECT_FIELD_ERRORS:
        return 0


def detect(path: str | Path) -> Format:
    """The registered format that scores highest on ``path``; SessionFormatError if none does."""
    p = Path(path)
    if not p.exists() and not p.is_symlink():
        raise SessionFormatError(p, None, "no such file or directory.")
    check_input(p)
    probe = Probe(p)
    try:
        scored = sorted(((_score(fmt, probe), fmt.name) for fmt in FORMATS.values()), reverse=True)
    except InputError:
        raise  # already one paragraph naming the file and the cause
    except OSError as exc:
        raise SessionFormatError(p, None, f"cannot read it ({exc.strerror or exc}).") from exc
    if not scored or scored[0][0] <= 0:
        if not p.is_dir() and not probe.head.strip():
            raise SessionFormatError(p, "line 1", "the file is empty.", "a JSON or JSONL agent session")
        raise SessionFormatError(
            p,
            None,
            "this is not a session format the inspector recognises.",
            "a JSON list of chat messages (OpenAI), an object with 'messages' (OpenAI or Anthropic), "
            "or JSONL with one message per line",
        )
    return FORMATS[scored[0][1]]


def get_format(name: str) -> Format:
    try:
        return FORMATS[name]
    except KeyError:
        raise SessionFormatError(name, None, f"unknown format {name!r}.") from None


def load(path: str | Path, format: str | None = None) -> Session:
    """Read ``path`` into a Session, detecting the format unless ``format`` names one."""
    p = Path(path)
    with loading_heap():
        fmt = get_format(format) if format else detect(p)
        if not p.exists() and not p.is_symlink():
            raise SessionFormatError(p, None, "no such file or directory.")
        check_input(p)
        return fmt.read(p)


@contextmanager
def loading_heap() -> Iterator[None]:
    """No cyclic GC pass while a reader builds a session (every object it builds is kept, so each
    pass would rescan the growing heap for nothing), and the built session moved out of the
    collector's view afterwards (``gc.freeze``): re-enabling would otherwise start a full pass
    over millions of objects, and so would every later one. The session model holds no cycles,
    so reference counting still frees it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.enable()
