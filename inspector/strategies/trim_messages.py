"""``trim_messages``: LangChain's ``langchain_core.messages.trim_messages``, reproduced exactly.

Keeps whole messages whose tokens (the messages only: trim_messages is given no tool
definitions) fit ``budget``, with LangChain's options and its known edge cases (strategies.md
2.1 and 9.2, items 10-14): no pair awareness, so ``trim_strategy="last"`` can keep tool results
whose call was cut (LangChain #33245), and the system message is kept only with
``trim_include_system`` when it is the first message. ``trim_start_on`` / ``trim_end_on`` drop
messages until the kept history starts / ends on that type (``human``, ``ai``, ``tool``,
``system``; ``human_or_tool`` is the tutorials' ``("human", "tool")``). Message types follow
LangChain: a user message carrying tool results is a ``tool`` message.

``allow_partial`` keeps whole messages here: LangChain's partial cut only fits when a shorter
message counts fewer tokens, so with a per-message counter it never adds a part (the parity
test in tests/test_langchain_parity.py uses such a counter); with a content counter it would
add the part of one more message this strategy does not. Run it first in a pipeline: it
trims source messages only.
"""

from __future__ import annotations

from typing import Literal

from .base import Working, reason
from .params import Param
from .pipeline import register

NAME = "trim_messages"
TYPES = ("none", "human", "ai", "tool", "system", "human_or_tool")
_BUDGET = "dropped by trim_messages (strategy={}): outside the {} messages that fit max_tokens {}"
_START = "dropped by trim_messages: before the first kept message of type {}"
_END = "dropped by trim_messages: after the last message of type {}"


def message_type(w: Working, i: int) -> str:
    """LangChain's ``message.type`` for source message ``i``."""
    role = w.view.roles[i]
    if role == "tool" or (role == "user" and w.view.result_ids[i]):
        return "tool"
    return {"system": "system", "user": "human", "assistant": "ai"}[role]


def _matches(kind: str, wanted: str) -> bool:
    return kind in ("human", "tool") if wanted == "human_or_tool" else kind == wanted


@register(
    NAME,
    (
        "budget",
        Param("trim_strategy", Literal["last", "first"], "last", "keep the last or the first messages that fit"),
        Param("trim_include_system", bool, False, "keep a leading system message (strategy last)", label="include system"),
        Param("trim_start_on", Literal[TYPES], "none", "kept history starts on this message type (strategy last)", label="start on"),  # type: ignore[valid-type]
        Param("trim_end_on", Literal[TYPES], "none", "kept history ends on this message type", label="end on"),  # type: ignore[valid-type]
        Param("allow_partial", bool, False, "LangChain allow_partial (whole messages kept; see the module doc)"),
    ),
    "LangChain's trim_messages: keeps the last (or first) whole messages that fit max_tokens, "
    "optionally starting or ending on a message type. Reproduced exactly, edge cases included: "
    "it does not know tool pairs, so it can keep a tool result whose call it cut.",
    panel=False,
)
def trim_messages(w: Working) -> None:
    s = w.settings
    if s.budget is None:
        return
    if s.trim_strategy == "first" and (s.trim_start_on != "none" or s.trim_include_system):
        return  # LangChain raises ValueError for these combinations
    seq = [i for i in w.order if type(i) is int]
    if not seq:
        return
    tokens = w.tokens
    drops: dict[int, object] = {}

    def end_trim(items: list[int], wanted: str, why) -> None:
        while items and not _matches(message_type(w, items[-1]), wanted):
            drops[items.pop()] = why

    if s.trim_strategy == "first":
        kept = _prefix_fitting(seq, tokens, s.budget)
        for i in seq[len(kept):]:
            drops[i] = reason(_BUDGET, ("first", len(kept), s.budget))
        if s.trim_end_on != "none":
            end_trim(kept, s.trim_end_on, reason(_END, (s.trim_end_on,)))
    else:
        rest = list(seq)
        if s.trim_end_on != "none":
            end_trim(rest, s.trim_end_on, reason(_END, (s.trim_end_on,)))
        system: list[int] = []
        budget = s.budget
        if s.trim_include_system and rest and message_type(w, rest[0]) == "system":
            system = [rest.pop(0)]
            budget = max(0, budget - tokens[system[0]])
        newest_first = _prefix_fitting(rest[::-1], tokens, budget)
        for i in rest[: len(rest) - len(newest_first)]:
            drops[i] = reason(_BUDGET, ("last", len(newest_first), s.budget))
        if s.trim_start_on != "none":
            end_trim(newest_first, s.trim_start_on, reason(_START, (s.trim_start_on,)))
    if drops:
        order = sorted(drops)
        w.drop_many(order, NAME, [drops[i] for i in order])


def _prefix_fitting(items: list[int], tokens: list[int], budget: int) -> list[int]:
    """The longest prefix of ``items`` whose tokens sum to at most ``budget``."""
    total = 0
    for n, i in enumerate(items):
        total += tokens[i]
        if total > budget:
            return items[:n]
    return list(items)
