"""The JSON-ready dicts behind every command: ``info``, ``plan``, ``replay`` and ``compare``.

Each command builds one of these dicts; ``--json`` prints it and :mod:`inspector.cli.render`
draws the Rich tables from the same dict, so both outputs always show the same numbers.
``--calibrate`` is a :class:`Calibration` passed to the builders: it scales the estimates as they
go into the dict, never the TokenTable or the plans.
Nothing here prints, and nothing here imports Textual.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..analysis.calibrate import CallUsage, calibration_factor, call_usage, scale
from ..model import ImageBlock, Message, Skipped, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from ..units import FLAG_NAMES, UnitKind
from .money_report import replay_money

if TYPE_CHECKING:  # pragma: no cover
    from .. import Analysis
    from ..analysis.money import Money
    from ..analysis.replay import Replay
    from ..strategies import Plan, Settings

#: Formats written by Anthropic models' tooling: counted with the ``anthropic`` profile by default.
ANTHROPIC_FORMATS = frozenset({"anthropic", "claude_code", "claude_trace"})

UNIT_KINDS = tuple(kind.value for kind in UnitKind)


def default_profile(format_name: str) -> str:
    return "anthropic" if format_name in ANTHROPIC_FORMATS else "openai"


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


@dataclass(frozen=True, slots=True)
class Calibration:
    """How ``--calibrate`` scales the inspector's token estimates: ``cal(tokens)``.

    A view over the report numbers only: the TokenTable and the plans stay in the inspector's own
    counts (strategies decide on those). Without ``--calibrate``, or with nothing recorded to
    calibrate against, ``cal(tokens)`` is ``tokens``. Recorded figures are never scaled.
    """

    requested: bool = False
    factor: float | None = None  # calibration_factor: sum(recorded) / sum(estimated)
    calls: int = 0  # model calls with both a recording and an estimate
    note: str | None = None  # why nothing was scaled, when --calibrate was given in vain

    def __call__(self, tokens: int) -> int:
        return scale(tokens, self.factor)

    def total(self, values: Iterable[int]) -> int:
        """The sum of the scaled values, so a column of calibrated figures adds up to its footer."""
        return sum(map(self, values))

    def report(self) -> dict[str, Any] | None:
        if not self.requested:
            return None
        return {"factor": self.factor, "calls": self.calls, "note": self.note}


NO_CALIBRATION = Calibration()


def calibration(analysis: Analysis, requested: bool = True) -> Calibration:
    """The factor from the usage the session recorded, or a note that there is none."""
    if not requested:
        return NO_CALIBRATION
    view, table = analysis.view, analysis.table
    factor = calibration_factor(view, table)
    if not factor:  # None: no call recorded usage; 0: every recording says 0 input tokens
        what = "no input token usage for any model call" if factor is None else "0 input tokens for every model call"
        return Calibration(
            requested=True,
            note=f"Nothing to calibrate against: {analysis.session.path} records {what}, "
            "so the figures are the inspector's own estimates.",
        )
    calls = sum(1 for row in call_usage(view, table) if row.recorded is not None and row.estimated > 0)
    return Calibration(requested=True, factor=factor, calls=calls)


def session_report(analysis: Analysis) -> dict[str, Any]:
    view = analysis.view
    return {
        "path": analysis.session.path,
        "format": analysis.session.format,
        "messages": len(view),
        "turns": sum(1 for turn in view.turns if turn.number > 0),
        "model_calls": len(view.calls),
    }


def _unit_name(analysis: Analysis, index: int) -> tuple[str, int]:
    view = analysis.view
    uid = view.unit_of[index]
    return view.units[uid].kind.value, uid


# ------------------------------------------------------------------------------------------
# info


def info_report(analysis: Analysis, largest: int = 10, cal: Calibration = NO_CALIBRATION) -> dict[str, Any]:
    """Everything ``context-inspector info`` shows (token estimates scaled by ``cal``)."""
    session, view, table = analysis.session, analysis.view, analysis.table
    messages = session.messages
    totals = table.totals
    n = len(view)

    by_kind = {kind: 0 for kind in UNIT_KINDS}
    count_by_kind = {kind: 0 for kind in UNIT_KINDS}
    for unit in view.units:
        kind = unit.kind.value
        count_by_kind[kind] += 1
        by_kind[kind] += sum(totals[i] for i in unit.indices)
    by_kind = {kind: cal(tokens) for kind, tokens in by_kind.items()}
    message_tokens = sum(by_kind.values())  # == table.prefix[n] uncalibrated
    tool_definitions, reply_priming = cal(table.tools), cal(table.reply_priming)
    total = message_tokens + tool_definitions + reply_priming

    order = sorted(range(n), key=lambda i: (-totals[i], i))[:largest]
    largest_rows = []
    for i in order:
        unit, uid = _unit_name(analysis, i)
        largest_rows.append(
            {
                "index": i,
                "role": view.roles[i],
                "unit": unit,
                "unit_id": uid,
                "turn": view.turn_of[i],
                "tokens": cal(totals[i]),
                "tools": list(dict.fromkeys(view.tool_names[i])),
                "preview": message_preview(messages[i]),
            }
        )

    tools: dict[str, dict[str, int]] = {}

    def tool_row(name: str) -> dict[str, int]:
        return tools.setdefault(name, {"calls": 0, "results": 0, "call_tokens": 0, "result_tokens": 0})

    name_of_call: dict[str, str] = {}
    for i, message in enumerate(messages):
        counts = table.counts[i].blocks
        for k, block in enumerate(message.content):
            if isinstance(block, ToolCallBlock):
                name_of_call[block.id] = block.name
                row = tool_row(block.name)
                row["calls"] += 1
                row["call_tokens"] += counts[k]
            elif isinstance(block, ToolResultBlock):
                row = tool_row(name_of_call.get(block.tool_call_id) or block.name or "?")
                row["results"] += 1
                row["result_tokens"] += counts[k]
    for row in tools.values():
        row["call_tokens"], row["result_tokens"] = cal(row["call_tokens"]), cal(row["result_tokens"])
    tool_rows = [
        {"tool": name, **row, "tokens": row["call_tokens"] + row["result_tokens"]}
        for name, row in tools.items()
    ]
    tool_rows.sort(key=lambda r: (-r["tokens"], r["tool"]))

    flags = Counter()
    for f in view.flags:
        for bit, name in FLAG_NAMES.items():
            if f & bit:
                flags[name] += 1

    return {
        "session": session_report(analysis),
        "encoding": table.encoding,
        "exact": table.exact,
        "profile": table.profile,
        "calibration": cal.report(),
        "tokens": {
            "total": total,
            "messages": message_tokens,
            "tool_definitions": tool_definitions,
            "reply_priming": reply_priming,
            "by_unit_kind": by_kind,
            "units_by_kind": count_by_kind,
        },
        "context_next_call": next_call_tokens(analysis, cal),
        "largest_messages": largest_rows,
        "tools": tool_rows,
        "tool_definitions": len(session.tools),
        "flags": {name: flags.get(name, 0) for name in FLAG_NAMES.values()},
        "usage": usage_report(analysis, cal),
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


def _context_starts(analysis: Analysis) -> list[int]:
    """Indices of recorded compactions (messages that start a new context)."""
    return [i for i, m in enumerate(analysis.session.messages) if m.starts_context]


def _estimate(analysis: Analysis, system_prefix: list[int], context_start: int, stop: int) -> int:
    """Input tokens of a request made of messages[:stop] after a compaction at context_start:
    the system prompts before the compaction, everything from it on, and the overhead."""
    table = analysis.table
    return system_prefix[context_start] + table.range_total(context_start, stop) + table.overhead


def _system_prefix(analysis: Analysis) -> list[int]:
    prefix = [0]
    for role, tokens in zip(analysis.view.roles, analysis.table.totals):
        prefix.append(prefix[-1] + (tokens if role == "system" else 0))
    return prefix


def next_call_tokens(analysis: Analysis, cal: Calibration = NO_CALIBRATION) -> dict[str, Any]:
    """What the next model call would be sent: everything, unless the file records a compaction."""
    starts = _context_starts(analysis)
    start = starts[-1] if starts else 0
    tokens = _estimate(analysis, _system_prefix(analysis), start, len(analysis.view))
    return {"tokens": cal(tokens), "compaction_at": start if starts else None}


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


def usage_report(analysis: Analysis, cal: Calibration = NO_CALIBRATION) -> dict[str, Any] | None:
    """Recorded usage next to our estimate for every call that recorded it; None when none did.
    ``ratio`` is recorded / estimate (as shown: calibrated under ``--calibrate``), per call and over
    all of them."""
    view = analysis.view
    rows = []
    for row in call_usage(view, analysis.table):
        if row.recorded is None:
            continue
        estimate = cal(row.estimated)
        rows.append(
            {
                "call": row.call,
                "message_index": row.message_index,
                "turn": view.calls[row.call - 1].turn,
                **usage_row(row),
                "estimate": estimate,
                "ratio": _ratio(row.recorded, estimate),
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


def violations_report(plan: Plan) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for provider, items in plan.violations.items():
        out[provider] = [{"index": v.index, "message": v.message, "source": v.source, "rule": v.rule} for v in items]
    return out


def plan_report(analysis: Analysis, plan: Plan, cal: Calibration = NO_CALIBRATION) -> dict[str, Any]:
    """The ``plan --json`` object (issue 3): a decision for every message the call saw. Token
    figures are scaled by ``cal``; ``fits`` and the reasons stay in the counts the plan was made on."""
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
                    "tokens_after": cal(d.tokens_after),
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
                "tokens": cal(d.tokens),
                "status": d.status.value,
                "tokens_after": cal(d.tokens_after),
                "by": d.by,
                "reason": d.reason,
            }
        )
    call = plan.call
    return {
        "session": session_report(analysis),
        "encoding": analysis.table.encoding,
        "profile": analysis.table.profile,
        "at_call": call.number if call is not None else None,
        "current_turn": plan.current_turn,
        "pipeline": pipeline_report(plan.pipeline, plan.settings),
        "calibration": cal.report(),
        "budget": plan.budget,
        "fits": None if plan.budget is None else plan.tokens_after <= plan.budget,
        "tokens_before": cal(plan.tokens_before),
        "tokens_after": cal(plan.tokens_after),
        "saving": cal(plan.tokens_before) - cal(plan.tokens_after),
        "saving_pct": round(plan.saving_pct, 1),
        "overhead": cal(analysis.table.overhead),
        "stages": [
            {"strategy": s.strategy, "tokens_before": cal(s.tokens_before), "tokens_after": cal(s.tokens_after)}
            for s in plan.stages
        ],
        "messages": rows,
        "violations": violations_report(plan),
    }


# ------------------------------------------------------------------------------------------
# replay


def replay_report(
    analysis: Analysis, result: Replay, pipeline: list[dict[str, Any]], cal: Calibration = NO_CALIBRATION,
    money: Money | None = None,
) -> dict[str, Any]:
    """The ``replay --json`` object: per model call, the baseline and the pruned input tokens
    (scaled by ``cal``; the totals are sums of the figures shown), and what the file recorded for
    the call (``recorded_tokens`` = input + cache read + cache write, the parts apart, ``ratio`` =
    recorded / baseline as shown; None where nothing was recorded)."""
    recorded = {row.call: row for row in call_usage(analysis.view, analysis.table)}
    money_calls, sidechain_calls, money_totals = replay_money(money) if money is not None else ({}, [], {})
    calls = []
    for c in result.calls:
        row = recorded[c.call]
        baseline = cal(c.baseline_tokens)
        calls.append(
            {
                "call": c.call,
                "message_index": c.message_index,
                "turn": c.turn,
                "baseline_tokens": baseline,
                "tokens": cal(c.tokens),
                "recorded_tokens": row.recorded,
                "input_tokens": row.input_tokens,
                "cache_read_input_tokens": row.cache_read_tokens,
                "cache_creation_input_tokens": row.cache_creation_tokens,
                "ratio": _ratio(row.recorded, baseline),
                **money_calls.get(c.call, {}),
            }
        )
    with_usage = [c for c in calls if c["recorded_tokens"] is not None]
    recorded_total = sum(c["recorded_tokens"] for c in with_usage) if with_usage else None
    return {
        "session": session_report(analysis),
        "encoding": analysis.table.encoding,
        "profile": analysis.table.profile,
        "pipeline": pipeline,
        "calibration": cal.report(),
        "calls": calls,
        "baseline_total": sum(c["baseline_tokens"] for c in calls),
        "total": sum(c["tokens"] for c in calls),
        "savings_pct": round(result.savings_pct, 1),
        "recorded_total": recorded_total,
        "ratio": _ratio(recorded_total, sum(c["baseline_tokens"] for c in with_usage)),
        **money_totals,
        **({"sidechain_calls": sidechain_calls} if money is not None else {}),
    }
