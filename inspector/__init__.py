"""context-inspector: see an LLM agent's context as the model sees it, and what pruning does to it.

Library API (no Textual import)::

    import inspector
    session = inspector.load("sample_sessions/coding_agent.jsonl")
    analysis = inspector.analyze(session)            # units, turns and token counts, once
    plan = inspector.plan(analysis, "tool_pruning,sliding_window", budget=8000, window_turns=5)
    for d in plan.decisions():
        print(d.index, d.status.value, d.tokens, "->", d.tokens_after, d.reason)
    report = inspector.replay(analysis, "tool_pruning")

Flow: ``formats`` -> ``model`` -> ``units`` -> ``tokens`` -> ``strategies`` -> ``providers`` -> ``analysis``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .model import Message, Session
from .tokens import TokenTable, count_session, resolve
from .units import SessionView, build_view

__version__ = "0.1.0"


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


def load(path: str | Path, format: str | None = None) -> Session:
    """Read a session file (format detected by content unless ``format`` is given)."""
    from . import formats as _formats
    from .formats import builtin  # noqa: F401  (registers the built-in readers)

    return _formats.load(path, format)


def analyze(session: Session, encoding: str | None = None, profile: str = "openai", model: str | None = None) -> Analysis:
    """Group ``session`` into turns and units and count every message once.

    The counter is ``encoding`` when given, else the tokenizer of ``model`` (default: the model
    the file records), else by ``profile`` (:func:`inspector.tokens.resolve`)."""
    model = model or session.model
    counter = resolve(model, encoding, profile).counter
    table = count_session(session.messages, session.tools, encoding=counter, profile=profile, model=model)
    return Analysis(session, build_view(session), table)


def _as_analysis(target: Session | Analysis, encoding: str | None, profile: str) -> Analysis:
    return target if isinstance(target, Analysis) else analyze(target, encoding, profile)


def plan(
    target: Session | Analysis,
    pipeline: str | list[str] | tuple[str, ...] = (),
    *,
    at_call: int | None = None,
    encoding: str | None = None,
    profile: str = "openai",
    **settings: Any,
):
    """Apply a pipeline (``"tool_pruning,sliding_window"`` or a list of names) and return a Plan.

    Keyword arguments are :class:`~inspector.strategies.Settings` fields (``budget=8000``,
    ``window_turns=5``...). Pass an :class:`Analysis` to plan repeatedly without recounting.
    The plan's totals include what the call sent that the file does not show
    (:func:`inspector.analysis.predict.not_in_file_at`).
    """
    from .analysis.predict import not_in_file_at
    from .strategies import Settings, plan as _plan
    from .strategies import builtin  # noqa: F401  (registers the built-in strategies)

    a = _as_analysis(target, encoding, profile)
    hidden = not_in_file_at(a.view, a.table, at_call)
    return _plan(a.view, a.table, pipeline, Settings(**settings), at_call, hidden)



def replay(
    target: Session | Analysis,
    pipeline: str | list[str] | tuple[str, ...] = (),
    *,
    encoding: str | None = None,
    profile: str = "openai",
    **settings: Any,
):
    """For every model call: the input tokens it had and what it would have had under ``pipeline``."""
    from .analysis.replay import replay as _replay
    from .strategies import Settings
    from .strategies import builtin  # noqa: F401

    a = _as_analysis(target, encoding, profile)
    return _replay(a.view, a.table, pipeline, Settings(**settings))


__all__ = ["Analysis", "Message", "Session", "analyze", "load", "plan", "replay", "__version__"]
