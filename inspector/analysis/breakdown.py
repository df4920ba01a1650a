"""Where a session's tokens are: by unit kind, by tool, the largest messages, the flags raised.

The figures ``info`` reports (before any ``--calibrate`` scaling, which the view applies).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from ..model import Session
from ..tokens import TokenTable
from ..units import FLAG_NAMES, SessionView, UnitKind

UNIT_KINDS = tuple(kind.value for kind in UnitKind)

#: The one name of each category of a call's input, as every view shows it (TUI gauge and
#: window view, HTML report): key -> label. "overhead" is tool definitions + reply priming.
CATEGORY_LABELS = {
    "system": "system",
    "user": "prompts",
    "assistant": "answers",
    "tool_exchange": "tool exchanges",
    "summary": "summaries",
    "not_in_file": "not in file",
    "overhead": "tool defs + framing",
}


def unit_kinds(view: SessionView, table: TokenTable) -> tuple[dict[str, int], dict[str, int]]:
    """``(tokens, units)`` per unit kind, every kind listed (in :data:`UNIT_KINDS` order)."""
    totals = table.totals
    tokens = {kind: 0 for kind in UNIT_KINDS}
    units = {kind: 0 for kind in UNIT_KINDS}
    kinds = [unit.kind.value for unit in view.units]
    per_unit = [0] * len(kinds)
    for uid, count in zip(view.unit_of, totals):  # each message is in exactly one unit
        per_unit[uid] += count
    for kind, count in zip(kinds, per_unit):
        units[kind] += 1
        tokens[kind] += count
    return tokens, units


def largest_messages(table: TokenTable, n: int) -> list[int]:
    """Indices of the ``n`` largest messages, largest first (ties: earlier first)."""
    totals = table.totals
    return heapq.nsmallest(n, range(len(totals)), key=lambda i: (-totals[i], i))


@dataclass(slots=True)
class ToolTokens:
    calls: int = 0
    results: int = 0
    call_tokens: int = 0
    result_tokens: int = 0


def tool_tokens(session: Session, table: TokenTable) -> dict[str, ToolTokens]:
    """Calls, results and their tokens per tool name, in order of first appearance. A result is
    the tool of the call it answers ("?" when neither that call nor the result names one)."""
    tools: dict[str, ToolTokens] = {}
    name_of_call: dict[str, str] = {}
    for i, message in enumerate(session.messages):
        counts = table.counts[i].blocks
        for k, block in enumerate(message.content):
            kind = block.type  # the type tag: isinstance on a pydantic class costs ~1 us
            if kind == "tool_call":
                name_of_call[block.id] = block.name
                row = tools.setdefault(block.name, ToolTokens())
                row.calls += 1
                row.call_tokens += counts[k]
            elif kind == "tool_result":
                row = tools.setdefault(name_of_call.get(block.tool_call_id) or block.name or "?", ToolTokens())
                row.results += 1
                row.result_tokens += counts[k]
    return tools


def flag_counts(view: SessionView) -> dict[str, int]:
    """How many messages carry each flag (:data:`~inspector.units.FLAG_NAMES`), every flag listed."""
    out = {name: 0 for name in FLAG_NAMES.values()}
    for f in view.flags:
        if f:
            for bit, name in FLAG_NAMES.items():
                if f & bit:
                    out[name] += 1
    return out


__all__ = ["CATEGORY_LABELS", "UNIT_KINDS", "ToolTokens", "flag_counts", "largest_messages", "tool_tokens", "unit_kinds"]
