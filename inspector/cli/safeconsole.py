"""The Rich console every CLI table is drawn on: no session string reaches the terminal raw.

Cells are plain :class:`rich.text.Text` (never markup), but a Text still carries ESC, BEL, bidi
overrides and zero-width characters through to the terminal. :class:`SafeConsole` passes the text
of every plain segment through :func:`inspector.textsafe.visible` just before it is written, so
whatever builds a table (``info``, ``plan``, ``sessions``...) cannot forget to. Control segments
Rich makes itself (cursor moves, the live progress bar) are left alone.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.segment import Segment

from ..textsafe import visible


class SafeConsole(Console):
    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        safe = (seg if seg.control else Segment(visible(seg.text), seg.style) for seg in buffer)
        return super()._render_buffer(safe)


__all__ = ["SafeConsole"]
