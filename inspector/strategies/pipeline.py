"""Run a pipeline of strategies at one model call and freeze the result into a Plan.

The registry maps the CLI names (``fifo``, ``sliding_window``...) to :class:`StrategyDef`
objects; each strategy module registers itself, with the parameters it declares, through
:func:`register`.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..tokens import TokenTable
from ..units import ModelCall, SessionView, sent_across_starts
from . import params as _params
from .base import Plan, Reason, StageTotal, Status, Working, gc_paused
from .params import Param, SettingsBase


@dataclass(frozen=True)
class StrategyDef:
    name: str
    apply: Callable[[Working], None]
    #: The Settings fields this strategy reads, in the order people think of them.
    params: tuple[str, ...]
    #: Two sentences for the help screen and ``--help``: what it does, and its main trade-off.
    summary: str
    #: Listed in the TUI's strategy panel (with a number key). The strategies agent presets are
    #: built from are not: they come in through the presets.
    panel: bool = True


STRATEGIES: dict[str, StrategyDef] = {}


def register(name: str, params: Sequence[Param | str], summary: str, *, panel: bool = True):
    """Decorator: add ``apply(working)`` to the registry under ``name``, with the parameters it
    reads: :class:`Param` declarations, or names of parameters declared already (``"budget"``).
    Raises :class:`~inspector.strategies.params.ParamConflict` (a ValueError) on a parameter
    declared differently before, and ValueError on a name nobody declared."""
    declared = tuple(p for p in params if isinstance(p, Param))
    names = tuple(p.name if isinstance(p, Param) else p for p in params)
    missing = [n for n in names if n not in _params.PARAMS and n not in {p.name for p in declared}]
    if missing:
        raise ValueError(f"strategy {name!r} reads undeclared parameter(s): {', '.join(missing)}")

    def decorate(fn: Callable[[Working], None]) -> Callable[[Working], None]:
        _params.declare(name, declared)
        STRATEGIES[name] = StrategyDef(name, fn, names, summary, panel)
        return fn

    return decorate


def panel_strategies() -> tuple[str, ...]:
    """The strategies the TUI panel lists, in registry order."""
    return tuple(name for name, s in STRATEGIES.items() if s.panel)


def owners(param: str) -> tuple[str, ...]:
    """The strategies that read ``param``, in registry order."""
    return tuple(s.name for s in STRATEGIES.values() if param in s.params)


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


def context_start_of(view: SessionView, at_call: int | None) -> int:
    """First non-system message a call sees: a compaction recorded in the session hides
    everything before it. ``at_call=None``: the next call, after the whole session."""
    if at_call is not None:
        call = view.call_for(at_call)
        return call.context_start if call is not None else 0
    context_start = view.calls[-1].context_start if view.calls else 0
    first_unseen = view.calls[-1].message_index if view.calls else 0
    messages = view.session.messages
    for i in range(first_unseen, len(messages)):  # a compaction after the last call applies to the next
        if messages[i].starts_context:
            context_start = i
    return context_start


_BEFORE_COMPACTION = "before a compaction recorded in the session: no longer sent"


def history_of(view: SessionView, at_call: int | None) -> tuple[ModelCall | None, int, int, int]:
    """``(call, stop, current turn, context start)`` of the history model call ``at_call`` sees
    (None: the next call, after the whole session)."""
    call = view.call_for(at_call) if at_call is not None else None
    if call is not None:
        stop = call.message_index
        current_turn = call.turn
    else:
        stop = len(view)
        current_turn = view.turn_of[-1] if stop else 0
    return call, stop, current_turn, min(context_start_of(view, at_call), stop)


def start(
    view: SessionView, table: TokenTable, settings: SettingsBase, at_call: int | None, not_in_file: int = 0
) -> Working:
    """The history a call sees, before any strategy: everything before the call's message
    (or the whole session when ``at_call`` is None), minus what a recorded compaction removed.
    ``not_in_file``: the part of the request the file does not show, counted as overhead."""
    call, stop, current_turn, context_start = history_of(view, at_call)
    status = [Status.KEPT] * stop
    by: list[str | None] = [None] * stop
    reasons: list[Reason | str | None] = [None] * stop
    if context_start == 0:
        order: list = _positions(view)[:stop]
        live = bytearray(b"\x01") * stop
        running = table.overhead + not_in_file + table.prefix[stop]
    else:
        kept = sent_across_starts(view)
        order = kept[:bisect_left(kept, context_start)]
        order.extend(range(context_start, stop))
        live = bytearray(stop)
        for i in order:
            live[i] = 1
        for i in range(context_start):
            if not live[i]:
                status[i] = Status.DROPPED
                by[i] = "source"
                reasons[i] = _BEFORE_COMPACTION
        running = -1  # summed by Working
    return Working(
        view, table, settings, call, stop, current_turn, order, table.totals[:stop], status, by, reasons,
        live=live, running=running, not_in_file=not_in_file,
    )


#: The builder of a plan's first stage with its cut made (:mod:`.first_stage` registers it; it
#: returns None where the strategy has no such form, and the stage is applied as usual).
FIRST_STAGE: list[Callable[..., Working | None]] = []


def _positions(view: SessionView) -> list[int]:
    """``list(range(len(view)))``, built once per view: a history's order is a slice of it."""
    positions = view.__dict__.get("_positions")
    if positions is None:
        positions = view.__dict__["_positions"] = list(range(len(view)))
    return positions


def run(
    view: SessionView,
    table: TokenTable,
    names: tuple[str, ...],
    settings: SettingsBase,
    at_call: int | None = None,
    not_in_file: int = 0,
) -> tuple[Working, int, list[StageTotal]]:
    """Apply already-parsed strategy ``names``: ``(working, tokens_before, stages)``. Replay
    uses this directly; :func:`plan` freezes the result into a :class:`Plan`."""
    with gc_paused():
        w = FIRST_STAGE[0](names[0], view, table, settings, at_call, not_in_file) if names and FIRST_STAGE else None
        done = 1 if w is not None else 0  # the first stage was built with its cut made
        if w is None:
            w = start(view, table, settings, at_call, not_in_file)
        tokens_before = table.overhead + not_in_file + table.prefix[w.stop] if done else w.total()
        stages: list[StageTotal] = []
        for k, name in enumerate(names):
            strategy = STRATEGIES[name]
            before = tokens_before if k == 0 else w.total()
            if k >= done:
                strategy.apply(w)
            params = {p: getattr(settings, p) for p in strategy.params}
            stages.append(StageTotal(name, params, before, w.total()))
    return w, tokens_before, stages


def plan(
    view: SessionView,
    table: TokenTable,
    pipeline: Sequence[str] | str = (),
    settings: SettingsBase | None = None,
    at_call: int | None = None,
    not_in_file: int = 0,
) -> Plan:
    """Apply ``pipeline`` (strategy names, in order) to the history of model call ``at_call``
    (1-based; None means the next call, after the whole session). ``not_in_file``: what the
    call sends that the file does not show (:func:`inspector.analysis.predict.not_in_file_at`),
    in every total and trigger like the tool definitions."""
    names = parse_pipeline(pipeline)
    settings = settings or _params.settings_model()()
    w, tokens_before, stages = run(view, table, names, settings, at_call, not_in_file)
    return freeze(w, names, tokens_before, stages)


def freeze(w: Working, names: tuple[str, ...], tokens_before: int, stages: list[StageTotal]) -> Plan:
    """The :class:`Plan` of a working history ``names`` has been applied to."""
    view, table, settings, not_in_file = w.view, w.table, w.settings, w.not_in_file
    return Plan(
        view=view,
        table=table,
        pipeline=names,
        settings=settings,
        call=w.call,
        stop=w.stop,
        current_turn=w.current_turn,
        sequence=w.order,
        status=w.status,
        tokens=w.tokens,
        live=w.live,
        by=w.by,
        reasons=w.reasons,
        edits=w.edits,
        stages=stages,
        tokens_before=tokens_before,
        tokens_after=w.total(),
        not_in_file=not_in_file,
    )
