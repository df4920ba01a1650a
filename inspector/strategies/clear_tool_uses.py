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
"""

from __future__ import annotations

from .base import BlockEdit, Reason, Status, Working
from .common import count_text, view_cache
from .pipeline import register

NAME = "clear_tool_uses"
PLACEHOLDER = "[cleared]"
_RESULT = "cleared by clear_tool_uses: {} result of {} tokens replaced by [cleared] while {} > trigger {} (keeps the last {} tool uses)"
_INPUT = "cleared by clear_tool_uses: {} input of {} tokens replaced by {{}} while {} > trigger {} (keeps the last {} tool uses)"


@register(
    NAME,
    ("trigger", "keep", "clear_at_least", "exclude_tools", "clear_tool_inputs"),
    "Once the request passes the trigger, replaces the results of all but the most recent tool "
    "uses with a [cleared] placeholder, as Anthropic's clear_tool_uses edit does. Calls and "
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
    live = w.live
    call_ids, result_ids, tool_names = view.call_ids, view.result_ids, view.tool_names
    # Where each live result sits: call id -> (message, block).
    result_at: dict[str, tuple[int, int]] = {}
    uses: list[tuple[int, int, str, str]] = []  # (message, block, id, name), oldest first
    result_blocks = cache.result_blocks
    call_blocks = cache.call_blocks
    for i in w.order:
        if type(i) is not int:
            continue
        ids = call_ids[i]
        if ids:
            names = tool_names[i]
            for n, k in enumerate(call_blocks[i]):
                uses.append((i, k, ids[n], names[n]))
        ids = result_ids[i]
        if ids:
            for n, k in enumerate(result_blocks[i]):
                result_at.setdefault(ids[n], (i, k))
    eligible = uses[: max(0, len(uses) - s.keep)]
    if not eligible:
        return
    encoding = w.table.encoding
    placeholder_tokens = count_text(encoding, PLACEHOLDER)
    empty_input_tokens = count_text(encoding, "{}")
    excluded = set(s.exclude_tools)
    planned: list[tuple[int, BlockEdit, Reason]] = []
    freed = 0
    for i, k, call_id, name in eligible:
        if name in excluded:
            continue
        where = result_at.get(call_id)
        if where is None or not live[where[0]]:
            continue
        r, rk = where
        if w.block_edited(r, rk, "clear"):
            continue
        before = w.block_tokens(r, rk)
        if before <= placeholder_tokens:
            continue
        args = (name, before, total, s.trigger, s.keep)
        planned.append((r, BlockEdit(rk, "clear", PLACEHOLDER, before, placeholder_tokens, by=NAME), Reason(_RESULT, args)))
        freed += before - placeholder_tokens
        if s.clear_tool_inputs and not w.block_edited(i, k, "clear_input"):
            before_input = w.block_tokens(i, k)
            after_input = count_text(encoding, name) + empty_input_tokens
            if before_input > after_input:
                reason = Reason(_INPUT, (name, before_input, total, s.trigger, s.keep))
                planned.append((i, BlockEdit(k, "clear_input", "{}", before_input, after_input, by=NAME), reason))
                freed += before_input - after_input
    if not planned or freed < s.clear_at_least:
        return
    for i, edit, reason in planned:
        w.edit(i, edit, Status.CLEARED, reason)
