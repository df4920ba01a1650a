"""The figures ``context-inspector info`` shows, as one JSON-ready dict (:func:`info_report`).

``info --json`` prints this dict, the CLI's Rich tables are drawn from it, and the fleet worker
takes each session's row from it, so the three always agree. The small builders the other reports
share (:func:`session_report`, :func:`counting_report`, :func:`usage_row`) live here too. Nothing
here prints, and nothing here imports Textual or Rich.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..model import ImageBlock, Message, Skipped, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from ..units import SessionView, UnitKind
from .breakdown import flag_counts, largest_messages, tool_tokens, unit_kinds
from .baseline import baseline_tokens
from .calibrate import CallUsage
from .context import next_call as visible_next_call
from .predict import next_call, predictions
from .session_facts import model_of, reader_copies
from .usage_rows import UsageRows
from .usage_rows import ratio as _ratio
from .window import session_window

if TYPE_CHECKING:  # pragma: no cover
    from .. import Analysis


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
        elif isinstance(block, ThinkingBlock) and (not parts or parts[-1] != "(thinking)"):
            parts.append("(thinking)")  # a run of thought parts (Gemini writes several) reads as one
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
    for i in largest_messages(table, largest, reader_copies(session)):
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


def bad_input_notice(path: str | None, skipped: Sequence[Skipped], start: int = 0) -> str | None:
    """One line for a viewer: the bad input among ``skipped[start:]`` (the first place and reason,
    and how many more), or None when there is none. Records ignored on purpose are not news."""
    errors = [item for item in skipped[start:] if item.kind == "error"]
    if not errors:
        return None
    first = errors[0]
    more = f" (and {len(errors) - 1} more bad record{'s' if len(errors) > 2 else ''})" if len(errors) > 1 else ""
    return (f"{path or 'the session'}: skipped {first.where}: {first.reason.rstrip('.')}{more}. "
            "'context-inspector info' lists them all.")


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
    messages = view.messages
    if all(messages[call.message_index].usage is None for call in view.calls):
        return None
    # the rows are built when read (a table shows a few dozen of 20,000+; usage_rows)
    rows = UsageRows(view, baseline_tokens(view, analysis.table), predictions(view, analysis.table))
    if not rows:
        return None
    return {
        "calls_with_usage": len(rows),
        "recorded_input_total": rows.recorded_total,
        "estimate_total": rows.estimate_total,
        "output_total": rows.output_total,
        "ratio": _ratio(rows.recorded_total, rows.estimate_total),
        "calls": rows,
    }


def unpriceable_calls(view: SessionView, model: str | None = None) -> list[int] | None:
    """The numbers of the session's model calls when none of them can be priced, else None.

    A call is priced as its model (``model``: ``--model``, else the call's, else the session's);
    without one every cost is null and no model is unknown. So when no model is given or
    recorded anywhere, and there is no sub-agent chain or recorded compaction to price apart,
    the money of ``info`` is these calls with null costs, known without pricing 300,000 calls
    one by one (:func:`~inspector.analysis.money.session_money` gives the same rows)."""
    from .session_facts import call_model, session_model

    session = view.session
    if model or session_model(session) or session.sidechains or session.format == "claude_code":
        return None
    messages = view.messages
    if any(call_model(messages[c.message_index]) for c in view.calls):
        return None
    return [c.number for c in view.calls]
