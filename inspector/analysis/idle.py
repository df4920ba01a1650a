"""Why a strategy that is on changes nothing at a call, and what keeps a row nobody touched.

Kept here, beside the plans, rather than in each strategy module so that the strategies stay
pure functions of their settings (and their modules stay small). One explainer per strategy
name, ``explain(plan, stage) -> sentence | None``; plugins add theirs with :func:`register_idle`.
A strategy without one gets a plain "changes nothing at this call". Nothing here prints.
"""

from __future__ import annotations

from collections.abc import Callable

from ..strategies import Plan, Status
from ..strategies.base import StageTotal

IdleExplainer = Callable[[Plan, StageTotal], "str | None"]

IDLE: dict[str, IdleExplainer] = {}


def register_idle(name: str) -> Callable[[IdleExplainer], IdleExplainer]:
    """Decorator: ``explain(plan, stage)`` says why strategy ``name`` changed nothing."""

    def decorate(fn: IdleExplainer) -> IdleExplainer:
        IDLE[name] = fn
        return fn

    return decorate


def stage_changed(plan: Plan, stage: StageTotal) -> bool:
    return stage.tokens_before != stage.tokens_after or any(b == stage.strategy for b in plan.by[:plan.stop])


def idle_reason(plan: Plan, stage: StageTotal) -> str | None:
    """The sentence for a stage that changed nothing (None when it changed something)."""
    if stage_changed(plan, stage):
        return None
    explain = IDLE.get(stage.strategy)
    return (explain(plan, stage) if explain is not None else None) or "changes nothing at this call"


def idle_reasons(plan: Plan) -> dict[str, str]:
    """Strategy name -> why it changed nothing, for every idle stage of ``plan``."""
    out = {}
    for stage in plan.stages:
        why = idle_reason(plan, stage)
        if why is not None:
            out[stage.strategy] = why
    return out


def kept_reason(plan: Plan, index: int) -> str:
    """Why a kept row nobody touched is kept: what protects it, when something does."""
    view = plan.view
    if view.roles[index] == "system":
        return "kept: the system prompt is never dropped"
    if view.turn_of[index] == plan.current_turn:
        return "kept: part of the current turn, which no strategy drops"
    if not plan.pipeline:
        return "kept: no strategy is on"
    return "kept: no strategy touched it"


# --- the built-in strategies -----------------------------------------------------------------

def _budget(plan: Plan, stage: StageTotal) -> str:
    budget = plan.settings.budget
    if budget is None:
        return "no budget set: nothing to fit"
    return f"budget {budget:,} not exceeded at {stage.tokens_before:,}"


for _name in ("fifo", "summarize", "trim_messages"):
    register_idle(_name)(_budget)


@register_idle("clear_tool_uses")
def _clear(plan: Plan, stage: StageTotal) -> str | None:
    trigger = plan.settings.trigger
    if stage.tokens_before <= trigger:
        return f"trigger {trigger:,} not reached at {stage.tokens_before:,}"
    return None


def _earlier_turns(plan: Plan) -> int:
    turns = {t for i, t in enumerate(plan.view.turn_of[:plan.stop]) if t > 0 and plan.status[i] is not Status.DROPPED}
    return len(turns)


@register_idle("sliding_window")
def _window(plan: Plan, stage: StageTotal) -> str | None:
    s = plan.settings
    if s.window_mode == "turns":
        turns = _earlier_turns(plan)
        return f"window of {s.window_turns:,} turns covers all {turns:,}"
    messages = sum(1 for i in range(plan.stop) if plan.view.roles[i] != "system" and plan.status[i] is not Status.DROPPED)
    return f"window of {s.window_messages:,} messages covers all {messages:,}"


@register_idle("tool_pruning")
def _pruning(plan: Plan, stage: StageTotal) -> str | None:
    if _earlier_turns(plan) <= 1:
        return "no earlier turn to prune: the history is the current turn"
    return "no earlier turn has tool exchanges or intermediate answers to drop"


@register_idle("truncate_results")
def _truncate(plan: Plan, stage: StageTotal) -> str | None:
    s = plan.settings
    if s.truncate_unit == "chars":
        return f"no tool result over {4 * s.max_result_tokens:,} characters"
    return f"no tool result over {s.max_result_tokens:,} tokens"


__all__ = ["IDLE", "IdleExplainer", "idle_reason", "idle_reasons", "kept_reason", "register_idle", "stage_changed"]
