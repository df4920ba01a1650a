"""A session counted once: its structure (units, turns, model calls) and its token counts.

Every figure the views show is computed from an :class:`Analysis`; plan and replay against it
as often as you like without counting again.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Session
from ..strategies.base import gc_paused
from ..tokens import TokenTable, resolve
from ..tokens.table import start_count_session
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


def analyze(session: Session, encoding: str | None = None, profile: str = "openai", model: str | None = None) -> Analysis:
    """Group ``session`` into turns and units and count every message once.

    The counter is ``encoding`` when given, else the tokenizer of ``model`` (default: the model
    the file records), else by ``profile`` (:func:`inspector.tokens.resolve`)."""
    model = model or session.model
    counter = resolve(model, encoding, profile).counter
    # Neither step makes reference cycles, and a full pass of the cyclic collector over a large
    # session's objects cost a third of building its view. The view is built while the pool's
    # workers count (a large session's texts go there).
    with gc_paused():
        finish = start_count_session(session.messages, session.tools, encoding=counter, profile=profile, model=model)
        view = build_view(session)
        table = finish()
    return Analysis(session, view, table)


def of(view: SessionView, table: TokenTable) -> Analysis:
    """The Analysis a view and its token table already make (nothing is counted again)."""
    return Analysis(view.session, view, table)


__all__ = ["Analysis", "analyze", "of"]
