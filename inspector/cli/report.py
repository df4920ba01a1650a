"""The JSON-ready dicts behind every command: ``info``, ``plan``, ``replay`` and ``compare``.

Each command builds one of these dicts; ``--json`` prints it and :mod:`inspector.cli.render`
draws the Rich tables from the same dict, so both outputs always show the same numbers.
Every report carries the inspector's own count (``baseline``) and the whole input a call had,
the part the file does not show included (``predicted_tokens``, :mod:`inspector.analysis.predict`).
Nothing here prints, and nothing here imports Textual.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..analysis.agent_removed import plan_total
from ..analysis.idle import idle_reason
from ..analysis.info import (  # noqa: F401  (the info builders, re-exported for the CLI)
    FIRST_PLACES,
    _ratio,
    _unit_name,
    counting_report,
    info_report,
    message_preview,
    next_call_tokens,
    preview,
    session_report,
    skipped_report,
    usage_report,
    usage_row,
)
from ..analysis.predict import next_call, predictions, resent_at, tokenizer_label
from ..model import Session, Usage
from ..strategies.base import Status
from .jsonout import LazyRows
from .money_report import CallMoney, compare_money, replay_money

if TYPE_CHECKING:  # pragma: no cover
    from .. import Analysis
    from ..analysis.compare import CompareRow
    from ..analysis.money import Money, MoneyTotals
    from ..analysis.replay import Replay
    from ..analysis.planning import CheckedPlan
    from ..strategies import Settings




def default_profile(session: Session) -> str:
    """The token-count profile of the session's provider (``inspector.formats.session_profile``)."""
    from ..formats import session_profile

    return session_profile(session)


# ------------------------------------------------------------------------------------------
# plan


def pipeline_report(pipeline: Sequence[str], settings: Settings) -> list[dict[str, Any]]:
    """``[{strategy, params}]``: each stage with the settings it reads."""
    from ..strategies import STRATEGIES

    return [
        {"strategy": name, "params": {p: _jsonable(getattr(settings, p)) for p in STRATEGIES[name].params}}
        for name in pipeline
    ]


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return list(value)
    return value


def violations_report(plan: CheckedPlan) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for provider, items in plan.violations.items():
        out[provider] = [{"index": v.index, "message": v.message, "source": v.source, "rule": v.rule} for v in items]
    return out


class PlanRows(LazyRows):
    """The ``messages`` of a plan report: one dict per message the call saw (and per inserted
    message), built when read from the plan's lists. A table reads a few dozen rows of a
    600,000-message plan and ``--json`` streams them in chunks: all 600,000 as dicts were 13.6 s
    and 340 MB, their decisions alone (every reason rendered) 5 s."""

    def __init__(self, analysis: Analysis, plan: CheckedPlan) -> None:
        view = analysis.view
        self._plan = plan
        self._roles, self._turn_of, self._unit_of = view.roles, view.turn_of, view.unit_of
        # the enum values once per unit and per status, not once per row (Enum.value is a descriptor call)
        self._kind_of_unit = [u.kind.value for u in view.units]
        self._status_value = {s: s.value for s in Status}
        self._order = plan.order()
        self._totals = plan.table.totals

    def __len__(self) -> int:
        return len(self._order)

    def row(self, k: int) -> dict[str, Any]:
        return self.rows(k, k + 1)[0]

    @staticmethod
    def row_of_inserted(x) -> dict[str, Any]:
        """The row of a message a strategy inserted (a summary, a placeholder)."""
        return {
            "index": None,
            "role": x.role,
            "unit": x.kind,
            "unit_id": None,
            "turn": None,
            "tokens": 0,
            "status": Status.INSERTED.value,
            "tokens_after": x.tokens,
            "by": x.by,
            "reason": x.reason,
            "simulated": x.simulated,
            "replaces": list(x.replaces),
        }

    def rows(self, start: int, stop: int) -> list[dict[str, Any]]:
        """Rows ``start:stop`` in one pass (``--json`` writes 600,000): a message's decision
        (:meth:`Plan.decision`'s fields, read without building the Decision)."""
        plan = self._plan
        reason = plan.reason
        roles, turn_of, unit_of, kind_of_unit, totals = self._roles, self._turn_of, self._unit_of, self._kind_of_unit, self._totals
        status, status_value, live, tokens, by = plan.status, self._status_value, plan.live, plan.tokens, plan.by
        out = []
        for x in self._order[start:stop]:
            if type(x) is not int:
                out.append(self.row_of_inserted(x))
                continue
            uid = unit_of[x]
            out.append({
                "index": x,
                "role": roles[x],
                "unit": kind_of_unit[uid],
                "unit_id": uid,
                "turn": turn_of[x],
                "tokens": totals[x],
                "status": status_value[status[x]],
                "tokens_after": tokens[x] if live[x] else 0,
                "by": by[x],
                "reason": reason(x),
            })
        return out

    def run_key(self, k: int) -> tuple[str, str | None]:
        """Row ``k``'s status and stage, without building the row (tables cut runs by it)."""
        x = self._order[k]
        if type(x) is not int:
            return Status.INSERTED.value, x.by
        return self._status_value[self._plan.status[x]], self._plan.by[x]

    def sums(self, start: int, stop: int) -> tuple[int, int, int | None, int | None]:
        """Tokens before and after over rows ``start:stop``, and the first and last message index."""
        totals, after = self._plan.table.totals, self._plan.tokens_after_of
        part = self._order[start:stop]
        indices = [x for x in part if type(x) is int]
        inserted_after = sum(x.tokens for x in part if type(x) is not int)
        return (sum(totals[i] for i in indices), sum(after[i] for i in indices) + inserted_after,
                indices[0] if indices else None, indices[-1] if indices else None)


def plan_report(analysis: Analysis, plan: CheckedPlan) -> dict[str, Any]:
    """The ``plan --json`` object (issue 3): a decision for every message the call saw. The
    totals include what the call sent that the file does not show (``not_in_file``); the total
    and the saving are replay's (:func:`~inspector.analysis.agent_removed.plan_total`), with the
    plan's own total beside them and ``agent_removed_note`` saying why where they differ.
    ``messages`` is a :class:`PlanRows` (a sequence of dicts)."""
    rows = PlanRows(analysis, plan)
    call = plan.call
    total = plan_total(plan)
    return {
        "session": session_report(analysis),
        **counting_report(analysis),
        "profile": analysis.table.profile,
        "at_call": call.number if call is not None else None,
        "current_turn": plan.current_turn,
        "pipeline": pipeline_report(plan.pipeline, plan.settings),
        "budget": plan.budget,
        "fits": None if plan.budget is None else total.tokens_after <= plan.budget,
        "tokens_before": total.tokens_before,
        "tokens_after": total.tokens_after,
        "saving": total.saving,
        "saving_pct": round(total.saving_pct, 1),
        "plan_tokens_after": total.plan_tokens_after,
        "agent_removed": total.agent_removed,
        "agent_removed_note": total.note,
        "overhead": analysis.table.overhead,
        "not_in_file": plan.not_in_file,
        # the part of not_in_file that is earlier calls' reasoning sent again (the rows count it 0)
        "resent_reasoning": resent_at(analysis.view, analysis.table, call.number if call is not None else None),
        "stages": [
            {"strategy": s.strategy, "tokens_before": total.shown(s.tokens_before), "tokens_after": total.shown(s.tokens_after),
             "idle_reason": idle_reason(plan, s)}
            for s in plan.stages
        ],
        "messages": rows,
        "violations": violations_report(plan),
        "pending_tool_call": pending_report(plan),
    }


def pending_report(plan) -> dict[str, Any] | None:
    """When the history's only fault is a last tool call the file has no result for yet (an agent
    still running it): that message, its call ids and the last recorded call, whose request is
    complete; else None."""
    from ..providers.exportable import pending_tool_call, run_end

    pending = pending_tool_call(plan, "openai") or pending_tool_call(plan, "anthropic")
    if pending is None:
        return None
    index, ids = pending
    return {"message": index, "ids": list(ids), "last_recorded_call": len(plan.view.calls), "run_ended": run_end(plan, index)}


# ------------------------------------------------------------------------------------------
# replay


class ReplayRows(LazyRows):
    """The ``calls`` of a replay report: one dict per call, built when read (a table reads 201
    of 300,000; ``--json`` streams them), with the sums a table's cut row shows."""

    def __init__(self, analysis: Analysis, result: Replay, money_calls: CallMoney | dict[tuple[int, str], dict[str, Any]]) -> None:
        self._calls = result.calls
        self._table = analysis.table
        # per call, read when a row is built: no 300,000 usage rows or dicts keyed by call
        self._messages, self._view_calls = analysis.view.messages, analysis.view.calls
        self._predictions = predictions(analysis.view, analysis.table)  # in call order (kept on the view)
        self._money = money_calls
        self._labels: dict[str | None, str] = {}  # the tokenizer label per model, resolved once

    def __len__(self) -> int:
        return len(self._calls)

    def _usage(self, c) -> Usage | None:
        """The usage the file recorded for replayed call ``c`` (None: a summary call, which is
        not in the file, or nothing recorded)."""
        if c.kind != "call":
            return None
        return self._messages[self._view_calls[c.call - 1].message_index].usage

    def usage(self, c) -> Usage | None:
        """The usage the file recorded for replayed call ``c`` with its total (``context_tokens``), else None."""
        u = self._usage(c)
        return u if u is not None and u.context_tokens is not None else None

    def row(self, k: int) -> dict[str, Any]:
        c = self._calls[k]
        u = self._usage(c)
        label = self._labels.get(c.model)
        if label is None:
            label = self._labels[c.model] = tokenizer_label(self._table, c.model)
        return {
            "call": c.call,
            "message_index": c.message_index,
            "turn": c.turn,
            "model": c.model,
            "tokenizer": label,
            "baseline_tokens": c.baseline_tokens,
            "not_in_file": c.not_in_file,
            "not_in_file_how": self._predictions[c.call - 1].fit.how if c.kind == "call" else None,
            "predicted_tokens": c.predicted_tokens,
            "tokens": c.tokens,
            "recorded_tokens": u.context_tokens if u else None,
            "input_tokens": u.input_tokens if u else None,
            "cache_read_input_tokens": u.cache_read_input_tokens if u else None,
            "cache_creation_input_tokens": u.cache_creation_input_tokens if u else None,
            "ratio": _ratio(u.context_tokens, c.baseline_tokens) if u else None,
            "kind": c.kind,
            "compacted_by": c.compacted_by,
            **self._money.get((c.call, c.kind), {}),
        }

    def sums(self, start: int, stop: int) -> dict[str, int | None]:
        """Calls ``start:stop`` summed: the keys of a row that hold tokens; a recorded figure
        over the calls that have it (None when none has)."""
        part = self._calls[start:stop]
        out: dict[str, int | None] = {
            "baseline_tokens": sum(c.baseline_tokens for c in part),
            "predicted_tokens": sum(c.predicted_tokens for c in part),
            "tokens": sum(c.tokens for c in part),
        }
        usages = [u for c in part if (u := self._usage(c)) is not None]
        for key, attr in (("recorded_tokens", "context_tokens"), ("cache_read_input_tokens", "cache_read_input_tokens"),
                          ("cache_creation_input_tokens", "cache_creation_input_tokens")):
            values = [getattr(u, attr) for u in usages if getattr(u, attr) is not None]
            out[key] = sum(values) if values else None
        return out


def replay_report(analysis: Analysis, result: Replay, pipeline: list[dict[str, Any]], money: Money | None = None) -> dict[str, Any]:
    """The ``replay --json`` object: per model call, the baseline and the pruned input tokens
    (the totals are sums of the figures shown), and what the file recorded for
    the call (``recorded_tokens`` = input + cache read + cache write, the parts apart, ``ratio`` =
    recorded / baseline as shown; None where nothing was recorded). ``calls`` is a
    :class:`ReplayRows` (a sequence of dicts)."""
    money_calls, sidechain_calls, money_totals = replay_money(money) if money is not None else ({}, [], {})
    calls = ReplayRows(analysis, result, money_calls)
    with_usage = [(c, u) for c in result.calls if (u := calls.usage(c)) is not None]
    recorded_total = sum(u.context_tokens for _, u in with_usage) if with_usage else None
    return {
        "session": session_report(analysis),
        **counting_report(analysis),
        "profile": analysis.table.profile,
        "pipeline": pipeline,
        "fit": next_call(analysis.view, analysis.table).fit.as_dict(),
        "calls": calls,
        "baseline_total": result.baseline_total,  # from a stateless replay's columns, no row built
        "predicted_total": result.predicted_total,
        "total": result.total,
        "savings_pct": round(result.savings_pct, 1),
        "recorded_total": recorded_total,
        "ratio": _ratio(recorded_total, sum(c.baseline_tokens for c, _ in with_usage)),
        **money_totals,
        **({"sidechain_calls": sidechain_calls} if money is not None else {}),
    }


# ------------------------------------------------------------------------------------------
# compare


def compare_report(
    analysis: Analysis, settings: Settings, rows: Sequence[CompareRow], baseline_money: Money, moneys: Sequence[Money | MoneyTotals]
) -> dict[str, Any]:
    """The ``compare --json`` object: one row per pipeline with its tokens at the last call and
    its replay total (both with what the file does not show), its saving, its validity and its
    money (``moneys[i]`` is row i's, :func:`~inspector.cli.money_report.compare_money`)."""
    from ..analysis.money import money_totals

    last = analysis.view.calls[-1].number if analysis.view.calls else None
    base = money_totals(baseline_money)  # once: summing 22,000 calls per row took ~0.02 s a row at 50k
    return {
        "session": session_report(analysis),
        **counting_report(analysis),
        "profile": analysis.table.profile,
        "at_call": last,
        "settings": {k: _jsonable(v) for k, v in settings.model_dump().items()},
        "rows": [
            {
                **({"preset": row.preset} if row.preset else {}),
                "pipeline": row.name,
                "tokens_last_call": row.tokens_last_call,
                "replay_total": row.replay.total,
                "saving_pct": row.saving_pct,
                "valid": row.valid,
                "violations": row.violations,
                "validity_scope": row.validity_scope,
                **({"invalid_calls": {p: list(c) for p, c in row.invalid_calls.items()}} if row.every_call else {}),
                **compare_money(base, money),
            }
            for row, money in zip(rows, moneys)
        ],
        "prices_as_of": baseline_money.prices_as_of,
        "cache_model": {"policy": baseline_money.cache_policy, "prefix_tokens": baseline_money.prefix_tokens},
    }
