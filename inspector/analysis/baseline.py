"""Baseline input per model call: the inspector's own count of what the file shows was sent.

For model call k (the k-th assistant message) the baseline is

- every message before it, from the last compaction recorded before it (system messages
  always), as counted in the :class:`~inspector.tokens.TokenTable` (content plus the profile's
  per-message framing), plus the request overhead (tool definitions, reply priming);
- plus the reasoning re-sent within the current turn (:func:`resent_reasoning`).

It is never fitted to recorded usage: it is the test of the per-message counting. What the file
does not show at all (the agent's own system prompt and tool definitions) is not in it.
"""

from __future__ import annotations

from ..tokens import TokenTable
from ..units import SessionView
from .context import visible_input


def resent_reasoning(view: SessionView, table: TokenTable) -> list[int]:
    """Per call: reasoning tokens of earlier calls *in the same turn* that this call re-sends.

    Within a tool loop both providers send the model's earlier reasoning back: Codex re-sends
    its encrypted reasoning items, Anthropic bills the thinking blocks of the current assistant
    turn as input. Earlier turns' reasoning is dropped, so each turn starts again from 0.

    A call's own reasoning is ``Usage.reasoning_tokens`` where the file recorded it (Codex: the
    text is encrypted, only the count is known), else the count of its readable thinking text.
    """
    out: list[int] = []
    turn, start, running = None, None, 0
    for call, reasoning in zip(view.calls, call_reasoning(view, table)):
        if call.turn != turn or call.context_start != start:  # a new turn, or a compaction
            turn, start, running = call.turn, call.context_start, 0
        out.append(running)
        running += reasoning
    return out


def call_reasoning(view: SessionView, table: TokenTable) -> list[int]:
    """Per call: the reasoning tokens it produced (re-sent to the later calls of its turn), the
    recorded ``Usage.reasoning_tokens`` where the file has it, else its readable thinking's count."""
    messages = view.messages
    out = []
    for call in view.calls:
        usage = messages[call.message_index].usage
        if usage is not None and usage.reasoning_tokens is not None:
            out.append(usage.reasoning_tokens)
        else:
            out.append(table.counts[call.message_index].thinking)
    return out


def baseline_tokens(view: SessionView, table: TokenTable) -> list[int]:
    """The input tokens of every model call without pruning, in call order."""
    return [v + r for v, r in zip(visible_input(view, table), resent_reasoning(view, table))]


__all__ = ["baseline_tokens", "call_reasoning", "resent_reasoning", "visible_input"]
