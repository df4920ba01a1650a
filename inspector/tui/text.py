"""Session text made safe to draw: control sequences shown escaped, never interpreted.

Session content is data. It reaches the screen only as plain strings inside Rich ``Segment``s
or ``Text`` objects (never markup), and only after :func:`clean` has replaced every terminal
control character (ESC of ANSI/OSC sequences, other C0/C1 controls, DEL, bidi overrides) with a
visible escape such as ``\\x1b``, so a tool result cannot colour, move or retitle the terminal.
"""

from __future__ import annotations

from ..textsafe import visible

#: Previews never look at more of a message than this (a megabyte message previews instantly).
PREVIEW_SCAN = 600


def clean(text: str) -> str:
    """``text`` with control characters replaced by visible escapes; newlines and tabs kept."""
    return visible(text)


def one_line(text: str, limit: int = 240) -> str:
    """The start of ``text`` on one line: line breaks shown as ``⏎``, whitespace runs collapsed,
    controls escaped, capped at ``limit`` characters. Looks at most at PREVIEW_SCAN characters."""
    head = text[:PREVIEW_SCAN]
    line = " ⏎ ".join(" ".join(part.split()) for part in head.split("\n") if part.strip())
    line = clean(line)
    if len(line) > limit:
        return line[: limit - 1] + "…"
    if len(text) > PREVIEW_SCAN:
        line += " …"
    return line


def expand_tabs(line: str, size: int = 4) -> str:
    return line.expandtabs(size) if "\t" in line else line
