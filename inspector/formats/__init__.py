"""Readers and writers for session files, and format detection.

Importing this package registers every built-in format. ``load(path)`` detects the format by
content; ``load(path, format="anthropic")`` forces one.
"""

from .base import FORMATS, Format, Probe, SessionFormatError, detect, get_format, load, register
from . import builtin  # noqa: E402,F401  (registers the built-in formats, in a fixed order)

__all__ = ["FORMATS", "Format", "Probe", "SessionFormatError", "detect", "get_format", "load", "register"]
