"""Where a session's tokens are: by unit kind, by tool, the largest messages, the flags raised,
and a call's window by category before and after a pipeline (:func:`window_categories`).

The figures ``info`` reports (before any ``--calibrate`` scaling, which the view applies).
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..model import Session
from ..tokens import TokenTable
from ..units import FLAG_NAMES, SessionView, UnitKind
from .session_facts import reader_copies

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


#: The categories a message of the file falls in (its unit's kind), in this order: the first
#: entries of every view's category list.
MESSAGE_CATEGORIES = ("system", "user", "assistant", "tool_exchange", "summary")


def inserted_category(kind: str) -> str:
    """The category of a message a strategy inserts: a summary, or a placeholder that stands in
    for tool output (counted with the tool exchanges)."""
    return "summary" if kind == "summary" else "tool_exchange"


def window_categories(
    members: Sequence[Sequence[int]],
    tokens: Callable[[int], int],
    tokens_after: Callable[[int], int],
    inserted: Iterable[tuple[str, int]] = (),
    *,
    not_sent: Iterable[tuple[int, int]] = (),
    before: Sequence[int] | None = None,
) -> tuple[list[int], list[int]]:
    """``(before, after)``: tokens per :data:`MESSAGE_CATEGORIES` entry of the messages a call
    sends, without and with a pipeline. ``members[c]``: the indices of category ``c``'s messages
    the call saw; ``tokens(i)`` / ``tokens_after(i)``: message ``i``'s tokens before and as the
    pipeline sends it (0: dropped); ``inserted``: ``(kind, tokens)`` of each message a strategy
    added (after only); ``not_sent``: ``(index, category)`` of messages in ``members`` the call
    sends neither way (the agent compacted them away before it); ``before``: the before sums when
    the caller keeps them (the viewer, per call), else summed here. The TUI's gauge and window
    view and the HTML report's window section all take their figures from here."""
    after = [sum(map(tokens_after, idx)) for idx in members]  # at C speed: 50,000 messages in ~2 ms
    before = list(before) if before is not None else [sum(map(tokens, idx)) for idx in members]
    for i, code in not_sent:
        before[code] -= tokens(i)
        after[code] -= tokens_after(i)
    for kind, count in inserted:
        after[MESSAGE_CATEGORIES.index(inserted_category(kind))] += count
    return before, after


def unit_kinds(view: SessionView, table: TokenTable) -> tuple[dict[str, int], dict[str, int]]:
    """``(tokens, units)`` per unit kind, every kind listed (in :data:`UNIT_KINDS` order)."""
    totals = table.totals
    tokens = {kind: 0 for kind in UNIT_KINDS}
    units = {kind: 0 for kind in UNIT_KINDS}
    kinds = [unit.kind.value for unit in view.units]
    per_unit = [0] * len(kinds)
    for uid, count in zip(view.unit_of, totals):  # each message is in exactly one unit
        per_unit[uid] += count
    copies = reader_copies(view.session)
    copied_units = set()
    if copies:  # a reader's copy is the file's message again: counted once, at its own place
        for i in copies:
            per_unit[view.unit_of[i]] -= totals[i]
        copied_units = {view.unit_of[i] for i in copies} - {view.unit_of[i] for i in range(len(totals)) if i not in copies}
    for uid, (kind, count) in enumerate(zip(kinds, per_unit)):
        if uid not in copied_units:
            units[kind] += 1
        tokens[kind] += count
    return tokens, units


def largest_messages(table: TokenTable, n: int, skip: frozenset[int] = frozenset()) -> list[int]:
    """Indices of the ``n`` largest messages, largest first (ties: earlier first), but ``skip``."""
    totals = table.totals
    indices = range(len(totals)) if not skip else [i for i in range(len(totals)) if i not in skip]
    return heapq.nsmallest(n, indices, key=lambda i: (-totals[i], i))


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
    copies = reader_copies(session)
    for i, message in enumerate(session.messages):
        content = message.content
        if (len(content) == 1 and content[0].type == "text") or i in copies:  # most messages of a chat: no tools
            continue
        counts = table.counts[i].blocks
        for k, block in enumerate(content):
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
    for f, n in Counter(view.flags).items():  # a few distinct masks, counted at C speed
        for bit, name in FLAG_NAMES.items():
            if f & bit:
                out[name] += n
    return out


__all__ = ["CATEGORY_LABELS", "MESSAGE_CATEGORIES", "UNIT_KINDS", "ToolTokens", "flag_counts", "inserted_category",
           "largest_messages", "tool_tokens", "unit_kinds", "window_categories"]
