"""``thinking_prune``: remove thinking/reasoning blocks from older assistant messages.

Thinking blocks of assistant messages in every turn but the last ``thinking_keep_turns`` are
removed (Vercel AI SDK ``pruneMessages(reasoning: 'before-last-message')``, Anthropic
``clear_thinking_20251015`` with ``keep: thinking_turns``). The current turn is always kept
whole: Anthropic rejects a request whose latest assistant thinking was modified, and the final
assistant turn must start with its thinking block (strategies.md 9.3, rule 7). A message keeps
its other blocks, so no tool call loses its result.
"""

from __future__ import annotations

from ..model import ThinkingBlock
from .base import BlockEdit, Status, Working, reason
from .common import view_cache
from .params import Param
from .pipeline import register

NAME = "thinking_prune"
_WHY = "truncated by thinking_prune: thinking removed from a turn before the last {}"


@register(
    NAME,
    (Param("thinking_keep_turns", int, 1, "last turns whose thinking is kept (at least the current one)", unit="turns", ge=1),),
    "Removes thinking/reasoning blocks from assistant messages older than the last turns, as "
    "Anthropic's clear_thinking edit and the Vercel AI SDK do. Pair-safe and often large; the "
    "model loses its old reasoning and the cache breaks at the first edited message.",
    panel=False,
)
def thinking_prune(w: Working) -> None:
    keep = w.settings.thinking_keep_turns
    view = w.view
    starts = view_cache(view).turn_start
    first_kept = max(w.current_turn - keep + 1, 0)
    limit = min(starts.get(first_kept, 0), w.stop) if first_kept > 0 else 0
    messages, roles, live = view.messages, view.roles, w.live
    why = reason(_WHY, (keep,))
    for i in range(limit):
        if roles[i] != "assistant" or not live[i]:
            continue
        content = messages[i].content
        if all(isinstance(b, ThinkingBlock) for b in content):
            continue  # removing all would leave an empty message, which Anthropic rejects
        for k, block in enumerate(content):
            if isinstance(block, ThinkingBlock) and not w.block_edited(i, k, "remove"):
                before = w.block_tokens(i, k)
                w.edit(i, BlockEdit(k, "remove", None, before, 0, by=NAME), Status.TRUNCATED, why)
