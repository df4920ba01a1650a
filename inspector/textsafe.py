"""The one sanitiser for strings a view shows: session text and file names become inert.

Every string that comes from a session or a path is data. Before it reaches a terminal,
:func:`visible` replaces each character a terminal would act on, or that would hide or reorder
what is shown, with a visible escape:

- C0 controls but newline and tab (ESC of CSI/OSC sequences, BEL, backspace, CR...), DEL and the
  C1 controls: ``\\x1b``, ``\\x07``, ``\\r``;
- bidirectional overrides, embeddings, isolates and marks (U+202E reverses the rest of a line);
- zero-width characters (U+200B, U+2060, a byte-order mark U+FEFF inside text, ...), the line and
  paragraph separators, and lone surrogates (which cannot even be encoded for the terminal):
  ``\\u202e``, ``\\ud800``.

A zero-width joiner between two pictographs (a joined emoji such as a family) is kept: it is
how the emoji is written, and the terminal draws it as one glyph.

:func:`json_escape` makes the same characters ``\\uXXXX`` escapes in JSON text (stdlib ``json``
escapes only U+0000..U+001F). Pure functions, no I/O; used by the CLI (tables, error messages,
``sessions``), the JSON printer and the TUI (:mod:`inspector.tui.text`).
"""

from __future__ import annotations

import re

_NAMED = {"\r": "\\r"}
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_ZERO_WIDTH = "\u180e\u200b-\u200d\u2060-\u2065\ufeff"
_SEPARATORS = "\u2028\u2029"
_UNSAFE = re.compile(
    f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}{_ZERO_WIDTH}{_SEPARATORS}\ud800-\udfff]"
)
_UNSAFE_IN_JSON = re.compile(f"[\x7f-\x9f{_BIDI}{_ZERO_WIDTH}{_SEPARATORS}\ud800-\udfff]")
_ZWJ = "\u200d"


def _pictograph(ch: str) -> bool:
    """Emoji and symbols a zero-width joiner may join (and the variation selector after one)."""
    cp = ord(ch)
    return cp >= 0x1F000 or 0x2600 <= cp <= 0x27BF or cp == 0xFE0F or 0x2190 <= cp <= 0x21FF


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    cp = ord(ch)
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"


def _replace(m: re.Match[str]) -> str:
    ch = m.group()
    if ch == _ZWJ:
        s, i = m.string, m.start()
        if 0 < i < len(s) - 1 and _pictograph(s[i - 1]) and _pictograph(s[i + 1]):
            return ch
    return _escape(ch)


def visible(text: str) -> str:
    """``text`` with every unsafe character shown as an escape; newlines and tabs kept."""
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_replace, text)


def has_unsafe(text: str) -> bool:
    """True if :func:`visible` would change ``text`` (a joined emoji's joiner counts)."""
    return _UNSAFE.search(text) is not None


def json_escape(json_text: str) -> str:
    """JSON text with DEL, C1 controls, bidi, zero-width, separator and lone surrogate characters written as
    ``\\uXXXX`` escapes (valid JSON, the same value; these characters only occur in strings)."""
    if not _UNSAFE_IN_JSON.search(json_text):
        return json_text
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text)


__all__ = ["has_unsafe", "json_escape", "visible"]
