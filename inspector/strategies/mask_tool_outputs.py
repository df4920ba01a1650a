"""``mask_tool_outputs``: replace old tool outputs by a placeholder, protecting the newest ones.

The shape shared by OpenCode's prune, Gemini CLI's tool-output masking and Claude Code's
microcompact (presets.md section 2.1): walk the tool results from the newest back, skipping the
last ``mask_protect_turns`` turns; the newest ``mask_protect_tokens`` tokens of tool output are
protected (the result that crosses the line is the first one masked, as OpenCode counts), and
so are the newest ``mask_keep_results`` results when that is set (Claude Code keeps 5). The rest
is masked only if together they free at least ``mask_min_tokens`` (OpenCode 20,000, Gemini
30,000); otherwise nothing changes, which keeps the prompt cache valid.

Only results of ``mask_tools`` (empty: every tool) are masked, never those of
``mask_protected_tools``. The result's text becomes ``mask_placeholder``; the call and the result
block stay, so every pair stays valid for both providers. Results no bigger than the placeholder
are left alone.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Literal

from .base import BlockEdit, Status, Working, reason
from ..units import SessionView
from .common import count_text, current_turn_start, kept_on_view, protected_in_turn, view_cache
from .params import Param
from .pipeline import register

NAME = "mask_tool_outputs"
PLACEHOLDERS = ("[Old tool result content cleared]", "<tool_output_masked>", "[cleared]")
_WHY = (
    "cleared by mask_tool_outputs: {} output replaced by a placeholder (older than the newest {} tokens "
    "of tool output; {} tokens freed, at least {} required)"
)


def result_slots(w: Working, before: int) -> list[tuple[int, int, str, int]]:
    """The live tool results in messages before ``before``, oldest first, as
    ``(message, block, tool name, call message)``; results whose call is not live are skipped."""
    slots, messages = kept_on_view(w.view, "_result_slots", _all_slots)
    live = w.live
    return [s for s in slots[: bisect_left(messages, before)] if live[s[0]] and live[s[3]]]


def _all_slots(view: SessionView) -> tuple[list[tuple[int, int, str, int]], list[int]]:
    """Every tool result with its call, as :func:`result_slots` gives them, and each one's
    message (for bisection), once per view. A result comes after its call, so a result before a
    history's stop has its call in the history."""
    cache = view_cache(view)
    tool_names = view.tool_names
    out = [
        (where[0], where[1], tool_names[i][n], i)
        for i in cache.call_messages
        for n, where in enumerate(cache.call_results[i])
        if where is not None
    ]
    out.sort()
    return out, [s[0] for s in out]


@register(
    NAME,
    (
        Param(
            "mask_protect_tokens", int, 40_000, "newest tool-output tokens never masked", label="protect newest",
            unit="tokens", ge=0, step=5000, percent_step=True,
        ),
        Param(
            "mask_min_tokens", int, 20_000, "mask only if at least this many tokens can go", label="mask at least",
            unit="tokens", ge=0, step=5000, percent_step=True,
        ),
        Param("mask_keep_results", int | None, None, "newest tool results never masked (none: no count limit)", unit="results", ge=0),
        Param("mask_protect_turns", int, 2, "last turns whose tool outputs are never masked", unit="turns", ge=0),
        Param("mask_tools", tuple[str, ...], (), "tools whose outputs may be masked (empty: all)"),
        Param("mask_protected_tools", tuple[str, ...], (), "tools whose outputs are never masked"),
        Param(
            "mask_placeholder", Literal[PLACEHOLDERS], PLACEHOLDERS[0],  # type: ignore[valid-type]
            "text that replaces a masked output",
        ),
    ),
    "Replaces tool outputs older than the newest protected ones by a short placeholder, but only "
    "when enough can go (OpenCode prune, Gemini CLI masking, Claude Code microcompact). Calls "
    "and results stay paired; the old output itself is gone and the cache breaks at the first one.",
    panel=False,
)
def mask_tool_outputs(w: Working) -> None:
    s = w.settings
    before = _protected_from(w, s.mask_protect_turns)
    slots = result_slots(w, before)
    if not slots:
        return
    placeholder = s.mask_placeholder
    placeholder_tokens = count_text(w.table.encoding, placeholder)
    wanted, never = set(s.mask_tools), set(s.mask_protected_tools)
    seen_tokens = 0
    seen_results = 0
    planned: list[tuple[int, int, int, str]] = []
    freed = 0
    guarded = protected_in_turn(w).members
    for r, k, name, _call in reversed(slots):
        if r in guarded:  # never the prompt's or the latest exchange
            continue
        tokens = w.uncleared_tokens(r, k)
        if tokens is None:
            continue
        seen_tokens += tokens
        seen_results += 1
        if seen_tokens <= s.mask_protect_tokens:
            continue
        if s.mask_keep_results is not None and seen_results <= s.mask_keep_results:
            continue
        if (wanted and name not in wanted) or name in never or tokens <= placeholder_tokens:
            continue
        planned.append((r, k, tokens, name))
        freed += tokens - placeholder_tokens
    if not planned or freed < s.mask_min_tokens:
        return
    planned.reverse()
    for r, k, tokens, name in planned:
        why = reason(_WHY, (name, s.mask_protect_tokens, freed, s.mask_min_tokens))
        edit = BlockEdit(k, "clear", placeholder, tokens, placeholder_tokens, by=NAME)
        w.edit(r, edit, Status.CLEARED, why)


def _protected_from(w: Working, turns: int) -> int:
    """First message of the last ``turns`` turns (the history's end when ``turns`` is 0)."""
    if turns <= 0:
        return w.stop
    if turns == 1:
        return current_turn_start(w)
    starts = view_cache(w.view).turn_start
    turn = max(w.current_turn - turns + 1, 0)
    return min(starts.get(turn, 0), w.stop)
