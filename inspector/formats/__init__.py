"""Readers and writers for session files, and format detection.

Importing this package registers every built-in format, then those installed plugins provide
(entry point group ``context_inspector.formats``, see :mod:`inspector.plugins`). ``load(path)`` detects the format by
content; ``load(path, format="anthropic")`` forces one.
"""

from .base import FORMATS, Format, Probe, SessionFormatError, detect, get_format, load, register
from . import builtin  # noqa: E402,F401  (registers the built-in formats, in a fixed order)
from ..plugins import FORMATS_GROUP, load_group

load_group(FORMATS_GROUP, FORMATS)

__all__ = ["FORMATS", "Format", "Probe", "SessionFormatError", "detect", "get_format", "load", "register"]
