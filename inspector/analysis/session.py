"""A session counted once: its structure (units, turns, model calls) and its token counts.

Every figure the views show is computed from an :class:`Analysis`; plan and replay against it
as often as you like without counting again.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Session
from ..tokens import DEFAULT_ENCODING, TokenTable, count_session
from ..units import SessionView, build_view


@dataclass
class Analysis:
    """A session with its structure and token counts computed once; plan against it many times."""

    session: Session
    view: SessionView
    table: TokenTable

    @property
    def encoding(self) -> str:
        return self.table.encoding

    @property
    def profile(self) -> str:
        return self.table.profile


def analyze(session: Session, encoding: str = DEFAULT_ENCODING, profile: str = "openai") -> Analysis:
    """Group ``session`` into turns and units and count every message once."""
    return Analysis(session, build_view(session), count_session(session.messages, session.tools, encoding=encoding, profile=profile))


def of(view: SessionView, table: TokenTable) -> Analysis:
    """The Analysis a view and its token table already make (nothing is counted again)."""
    return Analysis(view.session, view, table)


__all__ = ["Analysis", "analyze", "of"]
