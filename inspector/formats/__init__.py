"""Readers and writers for session files, and format detection.

Importing this package registers every built-in format, then those installed plugins provide
(entry point group ``context_inspector.formats``, see :mod:`inspector.plugins`). ``load(path)``
detects the format by content; ``load(path, format="anthropic")`` forces one. Each format's facts
(provider, follow kind, discovery) are on its :class:`Format`; ``provider_of(session.format)``
asks for one.
"""

from .base import (
    FORMATS,
    Format,
    FollowKind,
    Probe,
    SessionFormatError,
    detect,
    discoverable,
    follow_kind,
    get_format,
    load,
    profile_of,
    session_profile,
    session_provider,
    provider_of,
    register,
)
from .discovery import Discovery, SessionDetails
from . import builtin  # noqa: E402,F401  (registers the built-in formats, in a fixed order)
from ..plugins import FORMATS_GROUP, load_group

load_group(FORMATS_GROUP, FORMATS)

__all__ = [
    "FORMATS",
    "Discovery",
    "FollowKind",
    "Format",
    "Probe",
    "SessionDetails",
    "SessionFormatError",
    "detect",
    "discoverable",
    "follow_kind",
    "get_format",
    "load",
    "profile_of",
    "session_profile",
    "session_provider",
    "provider_of",
    "register",
]
