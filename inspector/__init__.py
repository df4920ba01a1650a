"""context-inspector: see an LLM agent's context as the model sees it, and what pruning does to it.

Library API (no Textual import)::

    import inspector
    session = inspector.load("sample_sessions/coding_agent.jsonl")
    analysis = inspector.analyze(session)            # units, turns and token counts, once
    plan = inspector.plan(analysis, "tool_pruning,sliding_window", budget=8000, window_turns=5)
    for d in plan.decisions():
        print(d.index, d.status.value, d.tokens, "->", d.tokens_after, d.reason)
    print(plan.valid)                                # {"openai": True, "anthropic": True}
    report = inspector.replay(analysis, "tool_pruning")
    body = inspector.export(plan, "anthropic")       # the request body

Flow: ``formats`` -> ``model`` -> ``units`` -> ``tokens`` -> ``strategies`` -> ``providers`` -> ``analysis``.
Every figure a view shows comes from the functions here (or :mod:`inspector.analysis`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .analysis.session import Analysis, analyze
from .model import Message, Session

if TYPE_CHECKING:  # pragma: no cover
    from .analysis.compare import CompareRow, ProgressFor
    from .analysis.predict import CallPrediction
    from .analysis.planning import CheckedPlan
    from .analysis.replay import Replay
    from .providers import Provider
    from .strategies import Plan
    from .strategies.params import SettingsBase as Settings

__version__ = "0.1.0"

Pipeline = str | Sequence[str]


def load(path: str | Path, format: str | None = None) -> Session:
    """Read a session file (format detected by content unless ``format`` is given)."""
    from . import formats as _formats

    return _formats.load(path, format)


def _as_analysis(target: Session | Analysis, encoding: str | None, profile: str) -> Analysis:
    return target if isinstance(target, Analysis) else analyze(target, encoding, profile)


def _settings(settings: Settings | None, params: dict[str, Any], analysis: Analysis | None = None) -> Settings:
    """``settings`` with ``params`` over them; with neither settings nor a ``budget`` given, the
    session's default budget (what the commands and the viewer plan with: :func:`default_budget`)."""
    from .analysis.planning import settings_of
    from .analysis.window import with_default_budget

    made = settings_of(settings, params)
    if settings is None and analysis is not None:
        made = with_default_budget(made, analysis.session, set(params))
    return made


def plan(
    target: Session | Analysis,
    pipeline: Pipeline = (),
    *,
    at_call: int | None = None,
    settings: Settings | None = None,
    encoding: str | None = None,
    profile: str = "openai",
    **params: Any,
) -> CheckedPlan:
    """Apply a pipeline (``"tool_pruning,sliding_window"`` or a list of names) at model call
    ``at_call`` (None: the next call) and return its plan, with ``.violations``/``.valid``.

    Keyword arguments are :class:`~inspector.strategies.Settings` fields (``budget=8000``,
    ``window_turns=5``...), applied over ``settings``. With neither ``settings`` nor ``budget``,
    the budget is the session's default (:func:`default_budget`, as the commands and the viewer
    plan; ``budget=None``: none). Pass an :class:`Analysis` to plan repeatedly without recounting."""
    from .analysis.planning import plan as _plan

    a = _as_analysis(target, encoding, profile)
    return _plan(a, pipeline, _settings(settings, params, a), at_call)


def replay(
    target: Session | Analysis,
    pipeline: Pipeline = (),
    *,
    settings: Settings | None = None,
    calls: Sequence[int] | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
    shared: bool = False,
    encoding: str | None = None,
    profile: str = "openai",
    **params: Any,
) -> Replay:
    """For every model call (or the 1-based ``calls``): the input tokens it had and what it
    would have had under ``pipeline``. ``workers > 1`` forks (callers without threads only).
    ``shared``: every call also gets its shared prefix with the previous call's request (what
    money prices: pass it when the replay is priced next)."""
    from .analysis.replay import replay as _replay

    a = _as_analysis(target, encoding, profile)
    return _replay(a.view, a.table, pipeline, _settings(settings, params, a), calls=calls, progress=progress, workers=workers,
                   shared=shared)


def compare(
    target: Session | Analysis,
    pipelines: Sequence[Pipeline],
    *,
    settings: Settings | None = None,
    presets: Sequence[tuple[str, Settings]] = (),
    progress_for: ProgressFor | None = None,
    workers: int = 1,
    shared: bool = False,
    price: Callable[..., Any] | None = None,
    encoding: str | None = None,
    profile: str = "openai",
    **params: Any,
) -> list[CompareRow]:
    """The baseline and each pipeline side by side: plan at the last call, replay over all.
    ``presets``: one ``(name, settings)`` per pipeline, run with its own settings. ``shared``:
    each replay knows every call's shared prefix, as money prices it (``replay(..., shared=True)``).
    ``price(pipeline, settings, replay)``: kept as each row's ``money`` (a forked worker prices its own)."""
    from .analysis.compare import compare as _compare
    from .strategies import parse_pipeline

    names = [parse_pipeline(p) for p in pipelines]
    a = _as_analysis(target, encoding, profile)
    return _compare(a, names, _settings(settings, params, a),
                    presets=presets, progress_for=progress_for, workers=workers, shared=shared, price=price)


def validate(target: Plan | Sequence[Message], provider: Provider | None = None) -> Any:
    """The provider rules ``target`` (a plan, or messages as sent) breaks: a list of
    :class:`~inspector.providers.Violation` for ``provider``, or a dict for every provider."""
    from .providers import check

    return check(target, provider)


def export(target: Plan | Analysis, provider: Provider) -> dict[str, Any]:
    """The request body ``provider`` accepts, holding the history ``target`` sends."""
    from .providers.export import export_request

    return export_request(target, provider)


def next_call(target: Analysis) -> CallPrediction:
    """The next model call: ``predicted_tokens`` (its whole input, fitted on the recorded calls),
    ``not_in_file``, ``model`` and the ``fit``, before any strategy."""
    from .analysis.predict import next_call as _next_call

    return _next_call(target.view, target.table)


def default_budget(target: Session | Analysis) -> int:
    """The budget a viewer starts with: what the model's window lets the agent fill before it
    compacts (:func:`inspector.analysis.window.default_budget`)."""
    from .analysis.window import default_budget as _default_budget

    return _default_budget(target.session if isinstance(target, Analysis) else target)


__all__ = [
    "Analysis",
    "Message",
    "Session",
    "__version__",
    "analyze",
    "compare",
    "default_budget",
    "export",
    "load",
    "next_call",
    "plan",
    "replay",
    "validate",
]
