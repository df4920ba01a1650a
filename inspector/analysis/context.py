"""The input tokens a model call is sent, before any strategy: the one formula every view uses.

A call made after message ``stop - 1`` is sent the system messages before the last compaction
recorded before it (``start``) that a compaction does not replace
(:func:`~inspector.units.sent_across_starts`), every message from ``start`` to ``stop``, and the
request overhead (tool definitions, reply priming). Prefix sums make it O(1) per call.
:func:`visible_input` gives it for every recorded model call, :func:`next_call` for the call
the agent would make next (after the whole session).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..tokens import TokenTable
from ..units import SessionView, sent_across_starts
from .memo import kept, kept_list


def system_prefix(view: SessionView, table: TokenTable) -> list[int]:
    """``out[i]``: tokens of the messages among ``messages[:i]`` a call after a context start at
    ``i`` is still sent (its system messages: :func:`~inspector.units.sent_across_starts`)."""
    return list(_kept_system_prefix(view, table))


def system_prefix_at(view: SessionView, table: TokenTable, start: int) -> int:
    """``system_prefix(view, table)[start]`` without the copy: what a call after a context start
    at ``start`` is still sent of the messages before it."""
    return _kept_system_prefix(view, table)[start]


def leading_system_tokens(view: SessionView, table: TokenTable, stop: int) -> int:
    """Tokens of the system messages the session starts with, among ``messages[:stop]``, that
    every call after a context start is still sent: what requests on both sides of a
    compaction begin with."""
    total = 0
    for position, i in enumerate(sent_across_starts(view)):
        if i != position or i >= stop:
            break
        total += table.totals[i]
    return total


def _kept_system_prefix(view: SessionView, table: TokenTable) -> list[int]:
    return kept(view, table, "system_prefix", lambda: _system_prefix(view, table))


def _system_prefix(view: SessionView, table: TokenTable) -> list[int]:
    sent = bytearray(len(view))
    for i in sent_across_starts(view):
        sent[i] = 1
    out = [0] * (len(view) + 1)
    running = 0
    for i, (is_sent, tokens) in enumerate(zip(sent, table.totals)):
        if is_sent:
            running += tokens
        out[i + 1] = running
    return out


def visible_input(view: SessionView, table: TokenTable) -> list[int]:
    """Per model call: the messages the file shows it was sent plus the request overhead, in
    call order (the baseline without re-sent reasoning: :func:`.baseline.baseline_tokens`)."""
    return kept_list(view, table, "visible_input", lambda: _visible_input(view, table))


def _visible_input(view: SessionView, table: TokenTable) -> list[int]:
    prefix, system = table.prefix, _kept_system_prefix(view, table)
    out = []
    for call in view.calls:
        stop, start = call.message_index, min(call.context_start, call.message_index)
        out.append(table.overhead + system[start] + prefix[stop] - prefix[start])
    return out


@dataclass(frozen=True, slots=True)
class NextCall:
    """What the next model call would be sent."""

    tokens: int
    #: The message that starts its context (the last compaction the file records), or None.
    compaction_at: int | None


def next_call(view: SessionView, table: TokenTable) -> NextCall:
    """The input of the next model call: everything, unless the file records a compaction."""
    starts = [i for i, m in enumerate(view.messages) if m.starts_context]
    start = starts[-1] if starts else 0
    tokens = _kept_system_prefix(view, table)[start] + table.range_total(start, len(view)) + table.overhead
    return NextCall(tokens, start if starts else None)


def recorded_input(view: SessionView, call: int | None) -> int | None:
    """What the file recorded as the input of model call ``call`` (1-based; None: not recorded):
    ``Usage.context_tokens``, input plus cache reads and writes."""
    if call is None or not 1 <= call <= len(view.calls):
        return None
    usage = view.messages[view.calls[call - 1].message_index].usage
    return usage.context_tokens if usage is not None else None


__all__ = ["NextCall", "leading_system_tokens", "next_call", "recorded_input", "system_prefix", "system_prefix_at", "visible_input"]
