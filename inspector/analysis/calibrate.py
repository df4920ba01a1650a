"""Recorded usage next to the inspector's estimate, call by call.

Claude Code, Codex, OpenHands, recent Strands, LangChain and mini-swe-agent files record the
input tokens of each model call (``Message.usage`` on the assistant message of that call). The
estimate for call k is its baseline input from :func:`inspector.analysis.baseline.baseline_tokens` (the
messages it saw plus tool definitions and reply priming). The recorded side is
``Usage.context_tokens``: input plus cache reads plus cache writes, so cached input is not missed.

The two differ for known reasons: the agent's own system prompt and tool definitions are usually
not in the file, and a different tokenizer. :mod:`inspector.analysis.predict` turns the
difference into ``predicted_tokens`` call by call (it replaced the single recorded / estimated
ratio ``--calibrate`` once applied). Pure functions, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..tokens import TokenTable
from ..units import SessionView
from .baseline import baseline_tokens


@dataclass(frozen=True, slots=True)
class CallUsage:
    call: int  # 1-based model call number
    message_index: int
    estimated: int  # the inspector's count of the call's input
    recorded: int | None  # Usage.context_tokens the file recorded, if any
    input_tokens: int | None  # uncached input
    cache_read_tokens: int | None
    cache_creation_tokens: int | None
    output_tokens: int | None

    @property
    def ratio(self) -> float | None:
        """recorded / estimated for this call (None without a recording or an estimate)."""
        if self.recorded is None or self.estimated <= 0:
            return None
        return self.recorded / self.estimated


def call_usage(view: SessionView, table: TokenTable) -> list[CallUsage]:
    """One row per model call: estimate, recorded total and its parts (cache kept apart)."""
    rows = []
    for call, estimate in zip(view.calls, baseline_tokens(view, table)):
        usage = view.messages[call.message_index].usage
        rows.append(
            CallUsage(
                call=call.number,
                message_index=call.message_index,
                estimated=estimate,
                recorded=usage.context_tokens if usage is not None else None,
                input_tokens=usage.input_tokens if usage is not None else None,
                cache_read_tokens=usage.cache_read_input_tokens if usage is not None else None,
                cache_creation_tokens=usage.cache_creation_input_tokens if usage is not None else None,
                output_tokens=usage.output_tokens if usage is not None else None,
            )
        )
    return rows


__all__ = ["CallUsage", "call_usage"]
