"""The per-session worker: one session file in, its rows of every fleet table out.

The same function runs in a local process pool and as a Ray task, so both engines write the same
dataset. It reads and counts the session exactly as ``context-inspector info`` does (same format
detection, tokenizer and profile choice) and takes the session figures from the same
``info_report`` dict (:mod:`inspector.analysis.info`), so every fleet total is the sum of the
per-session ``info --json`` figures.
A session that cannot be read becomes an error result (file and reason), never a crash.
"""

from __future__ import annotations

import bisect
import gc
import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from . import money
from .diet import session_results

if TYPE_CHECKING:  # pragma: no cover
    from .. import Analysis


@dataclass(frozen=True)
class Task:
    """One session to process, with the stat key that decides whether a re-run skips it."""

    path: str
    size: int
    mtime_ns: int
    format: str | None = None
    strategies: tuple[str, ...] = ()
    budget: int | None = None  # the token budget strategies replay under (None: their own rules only)
    with_text: bool = False

    @property
    def session_id(self) -> str:
        return session_id(self.path)


@dataclass
class Result:
    """One session's outcome. ``lines`` holds each table's rows already encoded as JSON Lines
    (what the writer spools), so what crosses back to the writing process is a few bytes objects,
    not thousands of dicts to unpickle and encode there: the encoding work stays in the workers."""

    session_id: str
    path: str
    size: int
    mtime_ns: int
    lines: dict[str, bytes] = field(default_factory=dict)
    error: str | None = None


def session_id(path: str) -> str:
    return hashlib.blake2b(path.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def analyse(
    path: str,
    format: str | None = None,
    encoding: str | None = None,
    model: str | None = None,
    profile: str | None = None,
    sidechain: str | None = None,
) -> Analysis:
    """Read and count a session the way ``info`` does: the tokenizer of ``model`` (default: the
    recorded one) unless ``encoding`` is given, the format's default profile unless ``profile`` is;
    its sidechain ``sidechain`` instead of the main conversation when given."""
    import inspector

    from ..formats import session_profile
    from ..formats.sidechain import open_sidechain
    from ..tokens import resolve_or_fallback

    session = inspector.load(path, format)
    if sidechain is not None:
        session = open_sidechain(session, sidechain)
    profile = profile or session_profile(session)
    model = model or session.model
    resolution, _warning = resolve_or_fallback(model, encoding, profile)
    return inspector.analyze(session, resolution.counter, profile, model)


def run_task(task: Task) -> Result:
    """Process one session; an unreadable one is returned with ``error`` set. Any other failure
    is recorded the same way (labelled an internal error) so one odd file never stops a run over
    thousands."""
    from ..formats import SessionFormatError
    from ..tokens import EncodingUnavailable

    result = Result(task.session_id, task.path, task.size, task.mtime_ns)
    try:
        analysis = analyse(task.path, task.format)
        result.lines = encode_rows(session_rows(analysis, task))
    except (SessionFormatError, EncodingUnavailable, OSError, UnicodeDecodeError) as exc:
        result.error = str(exc) or type(exc).__name__
    except Exception as exc:  # noqa: BLE001  (reported per session, see the docstring)
        result.lines = {}
        result.error = f"internal error ({type(exc).__name__}): {exc}"
    finally:
        _forget_session()
    return result


def _forget_session() -> None:
    """Free what the session left behind before the next one: loading freezes the heap out of the
    cyclic collector (right for one session in a viewer), which in a worker that reads thousands
    kept every earlier session's leftover cycles alive (2.2 GB per worker after 1,000 sessions)."""
    gc.unfreeze()
    gc.collect()


def encode_rows(rows: dict[str, list[dict[str, Any]]]) -> dict[str, bytes]:
    """Each table's rows as JSON Lines."""
    return {table: b"".join(orjson.dumps(row) + b"\n" for row in items) for table, items in rows.items()}


def session_rows(analysis: Analysis, task: Task) -> dict[str, list[dict[str, Any]]]:
    from ..analysis.info import info_report

    sid = task.session_id
    info = info_report(analysis, largest=0)
    priced = money.recorded(analysis)
    calls = call_rows(analysis, sid, money.call_costs(priced))
    return {
        "sessions": [sessions_row(analysis, info, calls, task, money.session_cost(priced))],
        "calls": calls,
        "units": unit_rows(analysis, sid),
        "tools": tool_rows(analysis, sid, task.with_text),
        "strategies": strategy_rows(analysis, sid, task.strategies, task.budget),
    }


def sessions_row(analysis: Analysis, info: dict[str, Any], calls: list[dict[str, Any]], task: Task,
                 cost_usd: float | None = None) -> dict[str, Any]:
    from ..providers.exportable import trailing_call
    from ..providers.validate import validate_session

    tokens, usage, flags = info["tokens"], info["usage"] or {}, info["flags"]
    by_kind = tokens["by_unit_kind"]
    violations = validate_session(analysis.view)
    return {
        "session_id": task.session_id,
        "path": task.path,
        "format": info["session"]["format"],
        "model": analysis.session.model,
        "encoding": info["encoding"],
        "profile": info["profile"],
        "size_bytes": task.size,
        "mtime_ns": task.mtime_ns,
        "messages": info["session"]["messages"],
        "turns": info["session"]["turns"],
        "model_calls": info["session"]["model_calls"],
        "tokens_total": tokens["total"],
        "tokens_messages": tokens["messages"],
        "tokens_tool_definitions": tokens["tool_definitions"],
        **{f"tokens_{kind}": by_kind.get(kind, 0) for kind in ("system", "user", "assistant", "tool_exchange", "summary")},
        # the whole input (with what the file does not show), as the viewer's chart and 'before'
        "context_next_call": info["context_next_call"]["predicted_tokens"],
        "peak_context": peak_context(analysis),
        "compactions": sum(1 for m in analysis.session.messages if m.starts_context),
        "recorded_input_total": usage.get("recorded_input_total"),
        "output_total": usage.get("output_total"),
        "orphan_results": flags.get("orphan_result", 0),
        "orphan_calls": flags.get("orphan_call", 0),
        "truncated_in_source": flags.get("truncated_in_source", 0),
        "openai_violations": len(violations.get("openai", ())),
        "anthropic_violations": len(violations.get("anthropic", ())),
        # the provider's only break is the last message's unanswered tool call: the agent was running
        # it, or the run ended on it (the viewer's "awaiting a tool result"), not a history it refused
        **{f"{provider}_ends_on_tool_call": trailing_call(violations.get(provider, ()), analysis.session.messages) is not None
           for provider in ("openai", "anthropic")},
        "cost_usd": cost_usd,
    }


def peak_context(analysis: Analysis) -> int:
    """The largest whole input of any call: what the call recorded, else its prediction (the
    messages plus what the file does not show, fitted on earlier calls)."""
    from ..analysis.predict import predictions

    view = analysis.view
    peak = 0
    for call, prediction in zip(view.calls, predictions(view, analysis.table)):
        usage = view.messages[call.message_index].usage
        recorded = usage.context_tokens if usage is not None else None
        peak = max(peak, prediction.predicted_tokens if recorded is None else recorded)
    return peak


def call_rows(analysis: Analysis, sid: str, costs: dict[int, float | None] | None = None) -> list[dict[str, Any]]:
    from ..analysis.calibrate import call_usage

    view = analysis.view
    rows = []
    for row in call_usage(view, analysis.table):
        message = view.messages[row.message_index]
        out = {
            "session_id": sid,
            "call": row.call,
            "message_index": row.message_index,
            "turn": view.calls[row.call - 1].turn,
            "model": (message.usage.model if message.usage is not None else None) or analysis.session.model,
            "baseline_tokens": row.estimated,
            "recorded_tokens": row.recorded,
            "input_tokens": row.input_tokens,
            "cache_read_input_tokens": row.cache_read_tokens,
            "cache_creation_input_tokens": row.cache_creation_tokens,
            "output_tokens": row.output_tokens,
        }
        out["cost_usd"] = (costs or {}).get(row.call)
        rows.append(out)
    return rows


def unit_rows(analysis: Analysis, sid: str) -> list[dict[str, Any]]:
    """One row per unit, with the calls whose input held it: a unit is in a call's input when it
    comes before the call's message and after the call's last recorded compaction (system units
    stay across compactions, except those a compaction replaces: :func:`~inspector.units.sent_across_starts`)."""
    view, totals = analysis.view, analysis.table.totals
    call_positions = [c.message_index for c in view.calls]
    starts = [c.context_start for c in view.calls]  # non-decreasing: compactions only move forward
    from ..units import sent_across_starts

    carried = set(sent_across_starts(view))
    rows = []
    for unit in view.units:
        first = unit.indices[0]
        seen_from = bisect.bisect_right(call_positions, first)  # first call after the unit
        if unit.kind.value == "system" and first in carried:
            seen_to = len(call_positions)
        else:
            seen_to = bisect.bisect_right(starts, first)  # calls whose context starts at or before it
        in_context = max(0, seen_to - seen_from)
        rows.append(
            {
                "session_id": sid,
                "unit_id": unit.id,
                "kind": unit.kind.value,
                "turn": unit.turn,
                "first_index": first,
                "messages": len(unit.indices),
                "tokens": sum(totals[i] for i in unit.indices),
                "tool_names": list(dict.fromkeys(unit.tool_names)),
                "first_call": seen_from + 1 if in_context else None,
                "calls_in_context": in_context,
            }
        )
    return rows


def tool_rows(analysis: Analysis, sid: str, with_text: bool) -> list[dict[str, Any]]:
    return [
        {
            "session_id": sid,
            "tool": r.tool,
            "message_index": r.message_index,
            "block_index": r.block_index,
            "call_index": r.call_index,
            "call_tokens": r.call_tokens,
            "result_tokens": r.tokens,
            "result_chars": r.chars,
            "is_error": r.is_error,
            "unstructured_error": r.unstructured_error,
            "truncated": r.truncated,
            "structured": r.structured,
            "fields": list(r.fields),
            "unused_fields": list(r.unused_fields),
            "secrets": len(r.secrets),
            "secret_kinds": sorted({s.kind for s in r.secrets}),
            "secret_places": [f"{s.kind} at {s.source}, result line {s.line} column {s.column}: {s.redacted}" for s in r.secrets],
            "content_hash": r.content_hash,
            "text": r.text if with_text else None,
        }
        for r in session_results(analysis, keep_text=with_text)
    ]


def strategy_rows(analysis: Analysis, sid: str, strategies: tuple[str, ...], budget: int | None = None) -> list[dict[str, Any]]:
    """Per strategy (default settings, ``budget``): replayed input tokens of every call summed, the saving,
    and the provider rule violations of the history it would send at the last call."""
    if not strategies or not analysis.view.calls:
        return []
    import inspector

    rows = []
    last = len(analysis.view.calls)
    for name in strategies:
        result = inspector.replay(analysis, (name,), budget=budget)
        violations = inspector.plan(analysis, (name,), at_call=last, budget=budget).violations
        rows.append(
            {
                "session_id": sid,
                "strategy": name,
                # the whole input with no strategy (the part not in the file included), as compare's base
                "baseline_total": result.predicted_total,
                "total": result.total,
                "saving": result.saving,
                "openai_violations": len(violations.get("openai", ())),
                "anthropic_violations": len(violations.get("anthropic", ())),
                "saving_usd": money.saving_usd(analysis, name, result),
            }
        )
    return rows
