"""The one sanitiser for strings a view shows: session text and file names become inert.

Every string that comes from a session or a path is data. Before it reaches a terminal,
:func:`visible` replaces each character a terminal would act on, or that would hide or reorder
what is shown, with a visible escape:

- C0 controls but newline and tab (ESC of CSI/OSC sequences, BEL, backspace, CR...), DEL and the
  C1 controls: ``\\x1b``, ``\\x07``, ``\\r``;
- bidirectional overrides, embeddings, isolates and marks (U+202E reverses the rest of a line);
- zero-width characters (U+200B, U+2060, a byte-order mark U+FEFF inside text, the tag characters
  U+E0000..U+E007F that can smuggle invisible ASCII, ...), the line and
  paragraph separators, and lone surrogates (which cannot even be encoded for the terminal):
  ``\\u202e``, ``\\ud800``.

The glue of joined emoji is dropped instead: a zero-width joiner between two pictographs, the
variation selectors U+FE0E/U+FE0F and skin-tone modifiers.
Terminals disagree on how wide such a sequence is (tmux 3.3 draws U+2764 U+FE0F in one cell
where Rich counts two, a thumb with a skin tone in four where Rich counts two), and a row one
cell too wide breaks every column after it. Without the glue each pictograph is drawn on its own,
as wide on every terminal as Rich measures it (a family becomes its three people).

:func:`json_escape` makes the same characters ``\\uXXXX`` escapes in JSON text (stdlib ``json``
escapes only U+0000..U+001F). Pure functions, no I/O; used by the CLI (tables, error messages,
``sessions``), the JSON printer and the TUI (:mod:`inspector.tui.text`).
"""

from __future__ import annotations

import re

_NAMED = {"\r": "\\r"}
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_ZERO_WIDTH = "\u180e\u200b-\u200d\u2060-\u2065\ufeff\U000e0000-\U000e007f"
_SEPARATORS = "\u2028\u2029"
_UNSAFE = re.compile(
    f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}{_ZERO_WIDTH}{_SEPARATORS}\ud800-\udfff]"
)
_UNSAFE_IN_JSON = re.compile(f"[\x7f-\x9f{_BIDI}{_ZERO_WIDTH}{_SEPARATORS}\ud800-\udfff]")
_ZWJ = "\u200d"
_EMOJI_GLUE = re.compile("[\ufe0e\ufe0f\U0001f3fb-\U0001f3ff]")


def _pictograph(ch: str) -> bool:
    """Emoji and symbols a zero-width joiner may join."""
    cp = ord(ch)
    return cp >= 0x1F000 or 0x2600 <= cp <= 0x27BF or 0x2190 <= cp <= 0x21FF


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    cp = ord(ch)
    if cp < 0x100:
        return f"\\x{cp:02x}"
    return f"\\u{cp:04x}" if cp < 0x10000 else f"\\U{cp:08x}"


def _replace(m: re.Match[str]) -> str:
    ch = m.group()
    if ch == _ZWJ:
        s, i = m.string, m.start()
        if 0 < i < len(s) - 1 and _pictograph(s[i - 1]) and _pictograph(s[i + 1]):
            return ""
    return _escape(ch)


def visible(text: str) -> str:
    """``text`` with every unsafe character shown as an escape and joined emoji split into their
    pictographs; newlines and tabs kept."""
    if _EMOJI_GLUE.search(text):
        text = _EMOJI_GLUE.sub("", text)
    if not _UNSAFE.search(text):
        return text
    return _UNSAFE.sub(_replace, text)


def visible_line(text: str) -> str:
    """:func:`visible` for text that must stay on one line (an error message, which may quote a
    file name holding a line break): newlines and tabs are escaped too."""
    return visible(text).replace("\n", "\\n").replace("\t", "\\t")


def has_unsafe(text: str) -> bool:
    """True if :func:`visible` would change ``text``."""
    return _UNSAFE.search(text) is not None or _EMOJI_GLUE.search(text) is not None


def json_escape(json_text: str) -> str:
    """JSON text with DEL, C1 controls, bidi, zero-width, separator and lone surrogate characters written as
    ``\\uXXXX`` escapes (valid JSON, the same value; these characters only occur in strings)."""
    if json_text.isascii() and "\x7f" not in json_text:  # a flag read and a memchr, not a regex pass
        return json_text
    if not _UNSAFE_IN_JSON.search(json_text):
        return json_text
    return _UNSAFE_IN_JSON.sub(_json_escape_char, json_text)


def _json_escape_char(m: re.Match[str]) -> str:
    cp = ord(m.group())
    if cp < 0x10000:
        return f"\\u{cp:04x}"
    cp -= 0x10000
    return f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04x}"


__all__ = ["has_unsafe", "json_escape", "visible", "visible_line"]
