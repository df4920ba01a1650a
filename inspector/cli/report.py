"""The JSON-ready dicts behind every command: ``info``, ``plan``, ``replay`` and ``compare``.

Each command builds one of these dicts; ``--json`` prints it and :mod:`inspector.cli.render`
draws the Rich tables from the same dict, so both outputs always show the same numbers.
Every report carries the inspector's own count (``baseline``) and the whole input a call had,
the part the file does not show included (``predicted_tokens``, :mod:`inspector.analysis.predict`).
Nothing here prints, and nothing here imports Textual.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..analysis.breakdown import flag_counts, largest_messages, tool_tokens, unit_kinds
from ..analysis.calibrate import CallUsage, call_usage
from ..analysis.idle import idle_reason
from ..analysis.context import next_call as visible_next_call
from ..analysis.predict import next_call, predictions, tokenizer_label
from ..analysis.session_facts import model_of
from ..analysis.window import session_window
from ..model import ImageBlock, Message, Session, Skipped, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from ..units import UnitKind
from .money_report import compare_money, replay_money

if TYPE_CHECKING:  # pragma: no cover
    from .. import Analysis
    from ..analysis.compare import CompareRow
    from ..analysis.money import Money
    from ..analysis.replay import Replay
    from ..analysis.planning import CheckedPlan
    from ..strategies import Settings




def default_profile(session: Session) -> str:
    """The token-count profile of the session's provider (``inspector.formats.session_profile``)."""
    from ..formats import session_profile

    return session_profile(session)


# ------------------------------------------------------------------------------------------
# text helpers


def preview(text: str, width: int = 60) -> str:
    """One line of ``text`` for a table cell: control characters removed, whitespace collapsed."""
    cleaned = []
    for ch in text[: width * 4]:
        if ch in "\n\r\t":
            cleaned.append(" ")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co"):
            continue
        else:
            cleaned.append(ch)
    line = " ".join("".join(cleaned).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def message_preview(message: Message, width: int = 60) -> str:
    """What a person would recognise the message by: its text, else its tool calls or results."""
    parts: list[str] = []
    for block in message.content:
        if isinstance(block, TextBlock) and block.text.strip():
            parts.append(block.text)
        elif isinstance(block, ToolCallBlock):
            parts.append(f"{block.name}({block.arguments})")
        elif isinstance(block, ToolResultBlock):
            parts.append(("error: " if block.is_error else "") + block.text)
        elif isinstance(block, ImageBlock):
            parts.append(f"[image {block.media_type or ''}]".replace(" ]", "]"))
        elif isinstance(block, ThinkingBlock):
            parts.append("(thinking)")
        if sum(len(p) for p in parts) > width * 2:
            break
    return preview(" ".join(parts), width)


# ------------------------------------------------------------------------------------------
# shared pieces


def session_report(analysis: Analysis) -> dict[str, Any]:
    view = analysis.view
    out = {
        "path": analysis.session.path,
        "format": analysis.session.format,
        "messages": len(view),
        "turns": sum(1 for turn in view.turns if turn.number > 0),
        "model_calls": len(view.calls),
    }
    if "sidechain" in analysis.session.extra:  # opened with --sidechain
        out["sidechain"] = analysis.session.extra["sidechain"]
    return out


def _unit_name(analysis: Analysis, index: int) -> tuple[str, int]:
    view = analysis.view
    uid = view.unit_of[index]
    return view.units[uid].kind.value, uid


# ------------------------------------------------------------------------------------------
# info


def info_report(analysis: Analysis, largest: int = 10) -> dict[str, Any]:
    """Everything ``context-inspector info`` shows."""
    session, view, table = analysis.session, analysis.view, analysis.table
    messages = session.messages
    totals = table.totals

    by_kind, count_by_kind = unit_kinds(view, table)
    message_tokens = sum(by_kind.values())  # == table.prefix[n]
    nxt = next_call(view, table)
    by_kind[UnitKind.NOT_IN_FILE.value] = nxt.not_in_file
    tool_definitions, reply_priming = table.tools, table.reply_priming
    total = message_tokens + nxt.not_in_file + tool_definitions + reply_priming
    # --model (the table's model when it is not the file's) sets the window as it sets the tokenizer
    override = table.model if table.model and table.model != model_of(session) and table.model != session.model else None
    window = session_window(session, override)

    largest_rows = []
    for i in largest_messages(table, largest):
        unit, uid = _unit_name(analysis, i)
        largest_rows.append(
            {
                "index": i,
                "role": view.roles[i],
                "unit": unit,
                "unit_id": uid,
                "turn": view.turn_of[i],
                "tokens": totals[i],
                "tools": list(dict.fromkeys(view.tool_names[i])),
                "preview": message_preview(messages[i]),
            }
        )

    tool_rows = [
        {
            "tool": name,
            "calls": row.calls,
            "results": row.results,
            "call_tokens": row.call_tokens,
            "result_tokens": row.result_tokens,
            "tokens": row.call_tokens + row.result_tokens,
        }
        for name, row in tool_tokens(session, table).items()
    ]
    tool_rows.sort(key=lambda r: (-r["tokens"], r["tool"]))

    return {
        "session": session_report(analysis),
        **counting_report(analysis),
        "profile": table.profile,
        "model": override or nxt.model or window.model,
        "window": {"tokens": window.tokens, "source": window.source, "reserved": window.reserved,
                   "reserved_note": window.reserved_note, "budget": window.budget},
        "fit": nxt.fit.as_dict(),
        "tokens": {
            "total": total,
            "messages": message_tokens,
            "not_in_file": nxt.not_in_file,
            "not_in_file_how": nxt.fit.how,
            "tool_definitions": tool_definitions,
            "reply_priming": reply_priming,
            "by_unit_kind": by_kind,
            "units_by_kind": count_by_kind,
        },
        "context_next_call": next_call_tokens(analysis),
        "largest_messages": largest_rows,
        "tools": tool_rows,
        "tool_definitions": len(session.tools),
        "flags": flag_counts(view),
        "usage": usage_report(analysis),
        "sidechains": {key: len(chain) for key, chain in session.sidechains.items()},
        "skipped": skipped_report(session.skipped),
    }


#: How many places ``skipped.ignored_at`` names per reason.
FIRST_PLACES = 3


def skipped_report(skipped: Sequence[Skipped]) -> dict[str, Any]:
    """What the reader left out: records ignored on purpose as counts per reason (most frequent
    first), with the first few places each was seen; bad input listed one by one."""
    counts: Counter[str] = Counter()
    places: dict[str, list[str]] = {}
    errors = []
    for item in skipped:
        if item.kind == "error":
            errors.append({"where": item.where, "reason": item.reason})
            continue
        counts[item.reason] += 1
        seen = places.setdefault(item.reason, [])
        if len(seen) < FIRST_PLACES:
            seen.append(item.where)
    order = sorted(places, key=lambda reason: -counts[reason])  # stable: ties keep file order
    return {
        "ignored": {reason: counts[reason] for reason in order},
        "ignored_at": {reason: places[reason] for reason in order},
        "errors": errors,
    }


def counting_report(analysis: Analysis) -> dict[str, Any]:
    """Which tokenizer counted and whether its counts are exact for the session's model: one
    label for every report (``encoding``, ``exact``, ``tokenizer``)."""
    from ..tokens import resolve

    table = analysis.table
    r = resolve(table.model or next_call(analysis.view, table).model, table.encoding, table.profile)
    return {"encoding": table.encoding, "exact": r.exact, "tokenizer": r.label}


def next_call_tokens(analysis: Analysis) -> dict[str, Any]:
    """What the next model call would be sent: everything, unless the file records a compaction;
    ``predicted_tokens`` adds the part the file does not show (inspector.analysis.predict)."""
    visible = visible_next_call(analysis.view, analysis.table)
    predicted = next_call(analysis.view, analysis.table).predicted_tokens
    return {"tokens": visible.tokens, "predicted_tokens": predicted, "compaction_at": visible.compaction_at}


def _ratio(recorded: int | None, estimate: int) -> float | None:
    """recorded / estimate, rounded for display (None without a recording or an estimate)."""
    if recorded is None or estimate <= 0:
        return None
    return round(recorded / estimate, 3)


def usage_row(row: CallUsage) -> dict[str, Any]:
    """The recorded side of one model call: the total the model read and its parts. A cache
    figure the file did not record stays None (not 0)."""
    return {
        "input_tokens": row.input_tokens,
        "cache_read_input_tokens": row.cache_read_tokens,
        "cache_creation_input_tokens": row.cache_creation_tokens,
        "output_tokens": row.output_tokens,
        "recorded": row.recorded,
    }


def usage_report(analysis: Analysis) -> dict[str, Any] | None:
    """Recorded usage next to our estimate for every call that recorded it; None when none did.
    ``ratio`` is recorded / estimate (the inspector's count of what the file shows), per call and
    over all of them; ``predicted`` is the call's whole input fitted on earlier calls only."""
    view = analysis.view
    predicted = predictions(view, analysis.table)
    rows = []
    for row in call_usage(view, analysis.table):
        if row.recorded is None:
            continue
        estimate = row.estimated
        rows.append(
            {
                "call": row.call,
                "message_index": row.message_index,
                "turn": view.calls[row.call - 1].turn,
                **usage_row(row),
                "estimate": estimate,
                "ratio": _ratio(row.recorded, estimate),
                "predicted": predicted[row.call - 1].predicted_tokens,
            }
        )
    if not rows:
        return None
    recorded_total = sum(r["recorded"] for r in rows)
    estimate_total = sum(r["estimate"] for r in rows)
    return {
        "calls_with_usage": len(rows),
        "recorded_input_total": recorded_total,
        "estimate_total": estimate_total,
        "output_total": sum(r["output_tokens"] or 0 for r in rows),
        "ratio": _ratio(recorded_total, estimate_total),
        "calls": rows,
    }


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


def plan_report(analysis: Analysis, plan: CheckedPlan) -> dict[str, Any]:
    """The ``plan --json`` object (issue 3): a decision for every message the call saw. The
    totals include what the call sent that the file does not show (``not_in_file``)."""
    view = analysis.view
    inserted = iter(plan.inserted)
    rows = []
    for d in plan.decisions():
        if d.index is None:
            ins = next(inserted)
            rows.append(
                {
                    "index": None,
                    "role": ins.role,
                    "unit": ins.kind,
                    "unit_id": None,
                    "turn": None,
                    "tokens": 0,
                    "status": d.status.value,
                    "tokens_after": d.tokens_after,
                    "by": d.by,
                    "reason": d.reason,
                    "simulated": ins.simulated,
                    "replaces": list(ins.replaces),
                }
            )
            continue
        unit, uid = _unit_name(analysis, d.index)
        rows.append(
            {
                "index": d.index,
                "role": view.roles[d.index],
                "unit": unit,
                "unit_id": uid,
                "turn": view.turn_of[d.index],
                "tokens": d.tokens,
                "status": d.status.value,
                "tokens_after": d.tokens_after,
                "by": d.by,
                "reason": d.reason,
            }
        )
    call = plan.call
    return {
        "session": session_report(analysis),
        **counting_report(analysis),
        "profile": analysis.table.profile,
        "at_call": call.number if call is not None else None,
        "current_turn": plan.current_turn,
        "pipeline": pipeline_report(plan.pipeline, plan.settings),
        "budget": plan.budget,
        "fits": None if plan.budget is None else plan.tokens_after <= plan.budget,
        "tokens_before": plan.tokens_before,
        "tokens_after": plan.tokens_after,
        "saving": plan.tokens_before - plan.tokens_after,
        "saving_pct": round(plan.saving_pct, 1),
        "overhead": analysis.table.overhead,
        "not_in_file": plan.not_in_file,
        "stages": [
            {"strategy": s.strategy, "tokens_before": s.tokens_before, "tokens_after": s.tokens_after,
             "idle_reason": idle_reason(plan, s)}
            for s in plan.stages
        ],
        "messages": rows,
        "violations": violations_report(plan),
    }


# ------------------------------------------------------------------------------------------
# replay


def replay_report(analysis: Analysis, result: Replay, pipeline: list[dict[str, Any]], money: Money | None = None) -> dict[str, Any]:
    """The ``replay --json`` object: per model call, the baseline and the pruned input tokens
    (the totals are sums of the figures shown), and what the file recorded for
    the call (``recorded_tokens`` = input + cache read + cache write, the parts apart, ``ratio`` =
    recorded / baseline as shown; None where nothing was recorded)."""
    recorded = {row.call: row for row in call_usage(analysis.view, analysis.table)}
    fits = {p.call: p.fit for p in predictions(analysis.view, analysis.table)}
    money_calls, sidechain_calls, money_totals = replay_money(money) if money is not None else ({}, [], {})
    calls = []
    for c in result.calls:
        row = recorded[c.call] if c.kind == "call" else None  # a summary call is not in the file
        calls.append(
            {
                "call": c.call,
                "message_index": c.message_index,
                "turn": c.turn,
                "model": c.model,
                "tokenizer": tokenizer_label(analysis.table, c.model),
                "baseline_tokens": c.baseline_tokens,
                "not_in_file": c.not_in_file,
                "not_in_file_how": fits[c.call].how if c.kind == "call" else None,
                "predicted_tokens": c.predicted_tokens,
                "tokens": c.tokens,
                "recorded_tokens": row.recorded if row else None,
                "input_tokens": row.input_tokens if row else None,
                "cache_read_input_tokens": row.cache_read_tokens if row else None,
                "cache_creation_input_tokens": row.cache_creation_tokens if row else None,
                "ratio": _ratio(row.recorded, c.baseline_tokens) if row else None,
                "kind": c.kind,
                "compacted_by": c.compacted_by,
                **money_calls.get(c.call, {}),
            }
        )
    with_usage = [c for c in calls if c["recorded_tokens"] is not None]
    recorded_total = sum(c["recorded_tokens"] for c in with_usage) if with_usage else None
    return {
        "session": session_report(analysis),
        **counting_report(analysis),
        "profile": analysis.table.profile,
        "pipeline": pipeline,
        "fit": next_call(analysis.view, analysis.table).fit.as_dict(),
        "calls": calls,
        "baseline_total": sum(c["baseline_tokens"] for c in calls),
        "predicted_total": sum(c["predicted_tokens"] for c in calls),
        "total": sum(c["tokens"] for c in calls),
        "savings_pct": round(result.savings_pct, 1),
        "recorded_total": recorded_total,
        "ratio": _ratio(recorded_total, sum(c["baseline_tokens"] for c in with_usage)),
        **money_totals,
        **({"sidechain_calls": sidechain_calls} if money is not None else {}),
    }


# ------------------------------------------------------------------------------------------
# compare


def compare_report(
    analysis: Analysis, settings: Settings, rows: Sequence[CompareRow], baseline_money: Money, moneys: Sequence[Money]
) -> dict[str, Any]:
    """The ``compare --json`` object: one row per pipeline with its tokens at the last call and
    its replay total (both with what the file does not show), its saving, its validity and its
    money (``moneys[i]`` is row i's, :func:`~inspector.cli.money_report.compare_money`)."""
    last = analysis.view.calls[-1].number if analysis.view.calls else None
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
                "valid": row.plan.valid,
                "violations": {provider: len(items) for provider, items in row.plan.violations.items()},
                **compare_money(baseline_money, money),
            }
            for row, money in zip(rows, moneys)
        ],
        "prices_as_of": baseline_money.prices_as_of,
    }
