"""Run a pipeline of strategies at one model call and freeze the result into a Plan.

The registry maps the CLI names (``fifo``, ``sliding_window``...) to :class:`StrategyDef`
objects; each strategy module registers itself with :func:`register`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..tokens import TokenTable
from ..units import SessionView
from .base import Plan, Reason, Settings, StageTotal, Status, Working


@dataclass(frozen=True)
class StrategyDef:
    name: str
    apply: Callable[[Working], None]
    #: The Settings fields this strategy reads, in the order people think of them.
    params: tuple[str, ...]
    #: Two sentences for the help screen and ``--help``: what it does, and its main trade-off.
    summary: str


STRATEGIES: dict[str, StrategyDef] = {}


def register(name: str, params: tuple[str, ...], summary: str):
    """Decorator: add ``apply(working)`` to the registry under ``name``."""

    def decorate(fn: Callable[[Working], None]) -> Callable[[Working], None]:
        STRATEGIES[name] = StrategyDef(name, fn, params, summary)
        return fn

    return decorate


class UnknownStrategy(ValueError):
    pass


def parse_pipeline(text: str | Sequence[str]) -> tuple[str, ...]:
    """``"tool_pruning,sliding_window"`` or a list of names -> a validated tuple of names."""
    names = [s.strip() for s in text.split(",")] if isinstance(text, str) else [s.strip() for s in text]
    names = [s for s in names if s and s != "none"]
    for name in names:
        if name not in STRATEGIES:
            raise UnknownStrategy(f"unknown strategy {name!r}; choose from: {', '.join(STRATEGIES)}")
    return tuple(names)


def start(view: SessionView, table: TokenTable, settings: Settings, at_call: int | None) -> Working:
    """The history a call sees, before any strategy: everything before the call's message
    (or the whole session when ``at_call`` is None), minus what a recorded compaction removed."""
    call = view.call_for(at_call) if at_call is not None else None
    if call is not None:
        stop = call.message_index
        current_turn = call.turn
        context_start = call.context_start
    else:
        stop = len(view)
        current_turn = view.turn_of[-1] if stop else 0
        context_start = view.calls[-1].context_start if view.calls else 0
        for i in range(len(view)):  # a compaction after the last call still applies to the next one
            if view.session.messages[i].starts_context:
                context_start = i
    tokens = table.totals[:stop]
    status = [Status.KEPT] * stop
    by: list[str | None] = [None] * stop
    reasons: list[Reason | str | None] = [None] * stop
    roles = view.roles
    order: list = []
    for i in range(stop):
        if i < context_start and roles[i] != "system":
            status[i] = Status.DROPPED
            by[i] = "source"
            reasons[i] = "before a compaction recorded in the session: no longer sent"
        else:
            order.append(i)
    return Working(view, table, settings, call, stop, current_turn, order, list(tokens), status, by, reasons)


def plan(
    view: SessionView,
    table: TokenTable,
    pipeline: Sequence[str] | str = (),
    settings: Settings | None = None,
    at_call: int | None = None,
) -> Plan:
    """Apply ``pipeline`` (strategy names, in order) to the history of model call ``at_call``
    (1-based; None means the next call, after the whole session)."""
    names = parse_pipeline(pipeline)
    settings = settings or Settings()
    w = start(view, table, settings, at_call)
    tokens_before = w.total()
    stages: list[StageTotal] = []
    for name in names:
        strategy = STRATEGIES[name]
        before = w.total()
        strategy.apply(w)
        params = {p: getattr(settings, p) for p in strategy.params}
        stages.append(StageTotal(name, params, before, w.total()))
    status = w.status
    tokens_after = [0 if status[i] is Status.DROPPED or status[i] is Status.SUMMARIZED else w.tokens[i] for i in range(w.stop)]
    return Plan(
        view=view,
        table=table,
        pipeline=names,
        settings=settings,
        call=w.call,
        stop=w.stop,
        current_turn=w.current_turn,
        sequence=w.order,
        status=status,
        tokens_after_of=tokens_after,
        by=w.by,
        reasons=w.reasons,
        edits=w.edits,
        stages=stages,
        tokens_before=tokens_before,
        tokens_after=w.total(),
    )
