"""``clear_tool_uses``: Anthropic's ``clear_tool_uses_20250919`` context edit, simulated.

When the request is over ``trigger`` input tokens (strictly more, as LangChain's
``ClearToolUsesEdit`` with an int trigger), every tool use except the ``keep`` most recent has
its result replaced by the placeholder ``[cleared]`` (LangChain's placeholder; Anthropic does
not publish its own). The ``tool_use`` / ``tool_result`` blocks stay, so every pair stays valid.

- ``keep`` counts tool uses (calls), the newest first, whatever their tool: a parallel batch of
  three uses the whole default ``keep=3``.
- ``exclude_tools``: uses of these tools are never cleared (they still count for ``keep``).
- ``clear_tool_inputs``: the call's input is cleared too (arguments become ``{}``).
- ``clear_at_least``: Anthropic semantics, all or nothing: if clearing everything eligible frees
  fewer tokens than this, nothing is cleared (LangChain instead stops early once reached).
- Results already no bigger than the placeholder are left alone (nothing to gain), as are uses
  whose result is not in the history.
- It acts inside the current turn as anywhere else (an autonomous agent makes hundreds of tool
  uses on one prompt), but never clears the latest exchange, the uses the call answers, nor the
  exchange the turn's prompt carries results for, whatever ``keep`` says
  (:func:`~inspector.strategies.common.protected_in_turn`).
"""

from __future__ import annotations

from bisect import bisect_left

from .base import BlockEdit, Reason, Status, Working, reason
from .common import count_text, protected_in_turn, view_cache
from .params import Param
from .pipeline import register

_new_tuple = tuple.__new__

NAME = "clear_tool_uses"
PLACEHOLDER = "[cleared]"
_RESULT = "cleared by clear_tool_uses: {} result replaced by [cleared] while {} > trigger {} (keeps the last {} tool uses)"
_INPUT = "cleared by clear_tool_uses: {} input replaced by {{}} while {} > trigger {} (keeps the last {} tool uses)"


@register(
    NAME,
    (
        Param(
            "trigger", int, 100_000, "input tokens that trigger clearing", label="trigger at", unit="tokens", ge=0,
            step=10_000, percent_step=True,
        ),
        Param("keep", int, 3, "most recent tool uses kept", label="keep tool uses", unit="tool uses", ge=0),
        Param("clear_at_least", int, 0, "apply only if it frees this much", unit="tokens", ge=0, step=1000),
        Param("exclude_tools", tuple[str, ...], (), "tools whose results are never cleared"),
        Param("clear_tool_inputs", bool, False, "also clear the calls' inputs", label="clear inputs"),
    ),
    "Once the request passes the trigger, replaces the results of all but the most recent tool "
    "uses with a [cleared] placeholder, as Anthropic's clear_tool_uses edit does, inside the "
    "current turn too but never the latest exchange. Calls and "
    "results stay paired and the conversation is intact, but old tool output is gone and the "
    "prompt cache is invalidated from the first cleared result on.",
)
def clear_tool_uses(w: Working) -> None:
    s = w.settings
    total = w.running
    if total <= s.trigger:
        return
    view = w.view
    cache = view_cache(view)
    call_ids, tool_names = view.call_ids, view.tool_names
    live, stop, edits = w.live, w.stop, w.edits
    call_messages = [i for i in cache.call_messages[: bisect_left(cache.call_messages, stop)] if live[i]]
    eligible = sum(map(len, map(call_ids.__getitem__, call_messages))) - s.keep
    if eligible <= 0:
        return
    encoding = w.table.encoding
    placeholder_tokens = count_text(encoding, PLACEHOLDER)
    empty_input_tokens = count_text(encoding, "{}")
    excluded = set(s.exclude_tools)
    guarded = protected_in_turn(w).members
    call_results = cache.call_results
    reasons: dict[tuple[str, str], Reason] = {}
    result_why: dict[str, Reason] = {}  # the same reasons by tool name: the hot loop's lookup
    planned: list[tuple[int, BlockEdit, Reason]] = []
    add = planned.append
    freed = 0
    seen = 0
    for i in call_messages:
        names = tool_names[i]
        for n, where in enumerate(call_results[i]):
            if seen == eligible:
                break
            seen += 1
            if where is None:
                continue
            name = names[n]
            if excluded and name in excluded:
                continue
            r, rk = where
            if r >= stop or not live[r] or r in guarded:
                continue  # the result is not in this history, or the call needs it
            before = w.uncleared_tokens(r, rk)
            if before is None or before <= placeholder_tokens:
                continue
            why = result_why.get(name)
            if why is None:
                why = result_why[name] = reasons[("result", name)] = reason(_RESULT, (name, total, s.trigger, s.keep))
            add((r, _new_tuple(BlockEdit, (rk, "clear", PLACEHOLDER, before, placeholder_tokens, 0, "tokens", "", NAME)), why))
            freed += before - placeholder_tokens
            if s.clear_tool_inputs:
                k = cache.call_blocks[i][n]  # built on first use: only this option needs it
                if w.block_edited(i, k, "clear_input"):
                    continue
                before_input = w.block_tokens(i, k)
                after_input = count_text(encoding, name) + empty_input_tokens
                if before_input > after_input:
                    why = reasons.get(("input", name))
                    if why is None:
                        why = reasons[("input", name)] = reason(_INPUT, (name, total, s.trigger, s.keep))
                    planned.append((i, BlockEdit(k, "clear_input", "{}", before_input, after_input, by=NAME), why))
                    freed += before_input - after_input
        if seen == eligible:
            break
    if not planned or freed < s.clear_at_least:
        return
    tokens, status, by, reasons_ = w.tokens, w.status, w.by, w.reasons
    cleared = Status.CLEARED
    for i, edit, why in planned:
        listed = edits.get(i)
        if listed is None:
            edits[i] = [edit]
        else:
            listed.append(edit)
        tokens[i] += edit.tokens_after - edit.tokens_before
        status[i] = cleared
        by[i] = NAME
        reasons_[i] = why
    w.running -= freed
