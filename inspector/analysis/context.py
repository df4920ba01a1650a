"""The input tokens a model call is sent, before any strategy: the one formula every view uses.

A call made after message ``stop - 1`` is sent the system messages before the last compaction
recorded before it (``start``), every message from ``start`` to ``stop``, and the request
overhead (tool definitions, reply priming). Prefix sums make it O(1) per call.
:func:`visible_input` gives it for every recorded model call, :func:`next_call` for the call
the agent would make next (after the whole session).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..tokens import TokenTable
from ..units import SessionView
from .memo import kept, kept_list


def system_prefix(view: SessionView, table: TokenTable) -> list[int]:
    """``out[i]``: tokens of the system messages among ``messages[:i]``."""
    return list(_kept_system_prefix(view, table))


def _kept_system_prefix(view: SessionView, table: TokenTable) -> list[int]:
    return kept(view, table, "system_prefix", lambda: _system_prefix(view, table))


def _system_prefix(view: SessionView, table: TokenTable) -> list[int]:
    out = [0] * (len(view) + 1)
    running = 0
    for i, (role, tokens) in enumerate(zip(view.roles, table.totals)):
        if role == "system":
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


__all__ = ["NextCall", "next_call", "recorded_input", "system_prefix", "visible_input"]
