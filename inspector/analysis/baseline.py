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

import re
from functools import lru_cache

from ..model import Message
from ..tokens import MessageCount, TokenTable
from ..units import SessionView
from .context import visible_input
from .memo import kept, kept_list
from .session_facts import continues_context

#: Models whose earlier turns' reasoning stays in the input (the tool loop's reasoning is not
#: dropped at the next user message). Measured, not fitted: on the Codex 0.144.3 (gpt-5.6-terra)
#: and 0.145 (gpt-5.6-sol) rollouts the recorded input grows across a user prompt by the visible
#: text plus the previous call's ``reasoning_output_tokens`` (e.g. +2,042 = 974 visible + 1,057
#: reasoning; +1,284 = 764 + 516), whereas on gpt-5-codex (0.40) and gpt-5.5 (0.136) it falls by
#: the turn's reasoning (-20,218 = 354 visible - 20,572 dropped).
REASONING_KEPT_ACROSS_TURNS = ("gpt-5.6",)

#: Claude keeps thinking blocks of earlier assistant turns in context from Opus 4.5 on (Anthropic's
#: extended-thinking docs: "Starting with Claude Opus 4.5, thinking blocks from previous assistant
#: turns are preserved in model context by default"); earlier models and Sonnet/Haiku 4.5 strip them.
#: Seen in the 2.1.42 (claude-opus-4-6) transcript: a new prompt after a thinking answer grows the
#: recorded input by +1,668 against +651 of visible text.
#: Models whose reasoning is not counted as sent back, not even within a tool loop: Gemini returns
#: thought summaries and an opaque signature, and the client sends no thought text again.
#: Measured on six public Gemini CLI 0.11 chats (gemini-2.5-pro, 16 steps within a turn): after a
#: call that produced 2,952 thought tokens and a write_file call, the next call's recorded input
#: grew by 545 (the call and its result); 14 of the 16 steps grew by none of the thoughts. The
#: other two grew by about the previous call's thoughts (+313 for 319, +119 for 128), both where
#: that next call produced no thoughts itself, which a prediction cannot know beforehand.
REASONING_NOT_RESENT = ("gemini",)

_CLAUDE_VERSION = re.compile(r"(?<![0-9])([0-9]{1,2})(?![0-9])")


@lru_cache(maxsize=256)
def _keeps_reasoning(model: str | None) -> bool:
    name = (model or "").lower().rsplit("/", 1)[-1]
    if name.startswith(REASONING_KEPT_ACROSS_TURNS):
        return True
    if not name.startswith("claude"):
        return False
    version = tuple(int(p) for p in _CLAUDE_VERSION.findall(name)[:2])
    return bool(version) and (version >= (5,) or ("opus" in name and version >= (4, 5)))


def call_reasoning(message: Message, count: MessageCount) -> int:
    """The reasoning tokens one call produced (what later calls re-send).

    Codex records them (``Usage.reasoning_tokens``). Claude's thinking blocks hold a summary or
    nothing (newer Claude Code writes only the signature) while the full thinking is what is
    billed and sent back, so when the recorded ``output_tokens`` exceed the counted visible
    output (text and tool calls) the difference is the thinking; otherwise (older Claude Code
    writes a partial ``output_tokens`` such as 8) the readable thinking text is counted.
    """
    usage = message.usage
    if usage is not None and usage.reasoning_tokens is not None:
        return usage.reasoning_tokens
    if count.thinking == 0 and not any(b.type == "thinking" for b in message.content):
        return 0
    visible = count.total - count.framing
    hidden = usage.output_tokens - visible if usage is not None and usage.output_tokens is not None else 0
    return max(count.thinking, hidden)


def resent_reasoning(view: SessionView, table: TokenTable) -> list[int]:
    """Per call: reasoning tokens of earlier calls *in the same turn* that this call re-sends.

    Within a tool loop both providers send the model's earlier reasoning back: Codex re-sends
    its encrypted reasoning items, Anthropic bills the thinking blocks of the current assistant
    turn as input. Earlier turns' reasoning is dropped, so each turn starts again from 0, except
    for the models of :data:`REASONING_KEPT_ACROSS_TURNS` (only a compaction resets them).

    A call's own reasoning is :func:`call_reasoning`.
    """
    return list(_resent(view, table))


def _resent(view: SessionView, table: TokenTable) -> list[int]:
    return kept(view, table, "resent_reasoning", lambda: _resent_reasoning(view, table))


def _produced(view: SessionView, table: TokenTable) -> list[int]:
    return kept(view, table, "produced_reasoning", lambda: _produced_reasoning(view, table))


def _resent_reasoning(view: SessionView, table: TokenTable) -> list[int]:
    out: list[int] = []
    running = 0
    resets = kept(view, None, "reasoning_resets", lambda: _reasoning_resets(view))
    for produced, reset in zip(_produced(view, table), resets):
        if reset:
            running = 0
        out.append(running)
        running += produced
    return out


def produced_reasoning(view: SessionView, table: TokenTable) -> list[int]:
    """Per call: the reasoning tokens it produced that later calls re-send (:func:`call_reasoning`;
    0 for the models of :data:`REASONING_NOT_RESENT`)."""
    return list(_produced(view, table))


def _produced_reasoning(view: SessionView, table: TokenTable) -> list[int]:
    messages, counts = view.messages, table.counts
    out: list[int] = []
    model = view.session.model  # a call that names no model: the last one named, or the session's
    for c in view.calls:
        message = messages[c.message_index]
        model = message.usage.model if message.usage is not None and message.usage.model else model
        out.append(0 if _drops_reasoning(model) else call_reasoning(message, counts[c.message_index]))
    return out


def _drops_reasoning(model: str | None) -> bool:
    return (model or "").lower().rsplit("/", 1)[-1].startswith(REASONING_NOT_RESENT)


def reasoning_resets(view: SessionView) -> list[bool]:
    """Per call: whether the reasoning re-sent to it starts again from 0 (a compaction, or a new
    turn of a model that drops earlier turns' reasoning)."""
    return kept_list(view, None, "reasoning_resets", lambda: _reasoning_resets(view))


def _reasoning_resets(view: SessionView) -> list[bool]:
    messages = view.messages
    out: list[bool] = []
    turn, start, model = None, None, None
    for call in view.calls:
        usage = messages[call.message_index].usage
        model = usage.model if usage is not None and usage.model else model  # a call with no usage: the last model
        compacted = call.context_start != start and not continues_context(messages[call.context_start])
        out.append(compacted or (call.turn != turn and not _keeps_reasoning(model)))
        turn, start = call.turn, call.context_start
    return out


def next_resent_reasoning(view: SessionView, table: TokenTable, context_start: int) -> int:
    """The reasoning the call after the whole session would re-send: what the last call carried
    plus what it produced, unless a compaction (``context_start``: where the next call's context
    starts) or a new turn of a model that drops earlier reasoning lies between them."""
    if not view.calls:
        return 0
    last = view.calls[-1]
    if context_start != last.context_start and not continues_context(view.messages[context_start]):
        return 0
    next_turn = view.turn_of[-1] if len(view) else last.turn
    model = None
    for call in reversed(view.calls):
        usage = view.messages[call.message_index].usage
        if usage is not None and usage.model:
            model = usage.model
            break
    if next_turn != last.turn and not _keeps_reasoning(model):
        return 0
    return _resent(view, table)[-1] + _produced(view, table)[-1]


def baseline_tokens(view: SessionView, table: TokenTable) -> list[int]:
    """The input tokens of every model call without pruning, in call order."""
    return kept_list(view, table, "baseline_tokens", lambda: [
        v + r for v, r in zip(visible_input(view, table), _resent(view, table))])


__all__ = ["REASONING_KEPT_ACROSS_TURNS", "REASONING_NOT_RESENT", "baseline_tokens", "call_reasoning", "next_resent_reasoning",
           "produced_reasoning", "reasoning_resets", "resent_reasoning", "visible_input"]
