"""Codex's own count of its context, the figure its auto-compaction compares with its limit.

openai/codex ``codex-rs/core/src/context_manager/history.rs`` ``get_total_token_usage``:

- the last call's ``last_token_usage.total_tokens`` (input **and** output, reasoning included);
- plus an estimate of the items recorded after the last model-generated item (tool outputs,
  user and developer messages): ``estimate_item_token_count``, the serialized item's bytes / 4
  rounded up (``approx_tokens_from_byte_count``);
- plus, unless the server said it already counted them (``server_reasoning_included``, the
  ``x-reasoning-included`` response header, which a rollout does not record; this assumes it
  did not: without that part no single limit fits the public 0.145 rollout, where Codex
  compacted after a count of 204,661 shown but not after 224,247), every reasoning item
  with ``encrypted_content`` before the last user-turn boundary (a user message that is not
  harness context, or a sub-agent's ``agent_message``): ``(len x 3/4 - 650) / 4`` tokens
  each (``estimate_reasoning_length``).

Codex checks it after every sampling request that needs a follow-up and before a turn
(``session/turn.rs``), before it records the prompt that comes next: the replay asks it before
every call with the history as it was at that check (the previous call's outputs, not the
prompt after them).

The file keeps each item's text, not its serialized JSON: the item is serialized again here
with the fields Codex writes (``type``, ``role``/``call_id``, the text), which can differ from
Codex's bytes by the ids and fields the reader drops. Rollouts whose reasoning blobs are
redacted (``"REDACTED"``, as in the public entire-graph checkpoints) lose the third part.
"""

from __future__ import annotations

import json
import math

from ..model import Message, TextBlock, ThinkingBlock, ToolResultBlock
from ..strategies.common import kept_on_view
from ..units import ModelCall, SessionView, injected_kind

#: ``estimate_reasoning_length``: base64 bytes x 3/4, minus 650 (saturating).
_BLOB_NUMERATOR, _BLOB_DENOMINATOR, _BLOB_OVERHEAD = 3, 4, 650
#: ``approx_tokens_from_byte_count``: 4 bytes a token, rounded up.
_BYTES_PER_TOKEN = 4


def tokens_of_bytes(n: int) -> int:
    return math.ceil(max(n, 0) / _BYTES_PER_TOKEN)


def reasoning_blob_tokens(encrypted: str) -> int:
    """Codex's estimate of one encrypted reasoning item (``estimate_reasoning_length``, then / 4)."""
    return tokens_of_bytes(max(len(encrypted) * _BLOB_NUMERATOR // _BLOB_DENOMINATOR - _BLOB_OVERHEAD, 0))


def _item_bytes(m: Message) -> int:
    """The bytes of ``m`` serialized as Codex's ResponseItem(s): one output per tool result, one
    message otherwise."""
    items = []
    for b in m.content:
        if isinstance(b, ToolResultBlock):
            items.append({"type": "function_call_output", "call_id": b.tool_call_id, "output": b.text})
    texts = [b.text for b in m.content if isinstance(b, TextBlock)]
    if texts or not items:
        role = "developer" if m.role == "system" else m.role
        items.append({"type": "message", "role": role, "content": [{"type": "input_text", "text": t} for t in texts]})
    return sum(len(json.dumps(i, ensure_ascii=False, separators=(",", ":")).encode("utf-8")) for i in items)


def _turn_boundary(m: Message) -> bool:
    """``is_user_turn_boundary``: a user message that is not harness context (a sub-agent's
    message included), not a tool output."""
    if m.role != "user" or m.only_tool_results:
        return False
    first = next((b.text for b in m.content if isinstance(b, TextBlock)), "")
    return injected_kind(first) is None


def codex_count(view: SessionView, previous: ModelCall, call: ModelCall) -> int | None:
    """What Codex counts at its check after call ``previous``, before ``call`` (or before the
    compaction the file records between them: the history ``previous`` belongs to, then); None
    when ``previous`` recorded no usage."""
    messages = view.messages
    usage = messages[previous.message_index].usage
    if usage is None or usage.context_tokens is None:
        return None
    total = usage.context_tokens + (usage.output_tokens or 0)
    end = call.context_start if call.context_start > previous.message_index else call.message_index
    # A prompt (and the context Codex injects with it) is recorded after the check: pending
    # input at the top of the next sampling loop, a new turn's input after its pre-turn check.
    end = next((i for i in range(previous.message_index + 1, end) if messages[i].role == "user" and not messages[i].only_tool_results), end)
    added = range(previous.message_index + 1, end)
    after = sum(tokens_of_bytes(_item_bytes(messages[i])) for i in added if messages[i].role != "assistant")
    start = previous.context_start
    facts = kept_on_view(view, "_codex_count", _Facts)
    boundary = facts.last_boundary[end]  # the last user-turn boundary in [start, end), if any
    reasoning = facts.reasoning[boundary] - facts.reasoning[start] if boundary >= start else 0
    return total + after + reasoning


class _Facts:
    """What :func:`codex_count` needs of the whole history, once per view, so that each call
    costs only the messages added since the previous one: ``last_boundary[i]`` is the last
    user-turn boundary before message ``i`` (-1: none), ``reasoning[i]`` Codex's estimate of
    the encrypted reasoning in ``messages[:i]``."""

    __slots__ = ("last_boundary", "reasoning")

    def __init__(self, view: SessionView) -> None:
        last, reasoning = [-1], [0]
        boundary = -1
        total = 0
        for i, m in enumerate(view.messages):
            if _turn_boundary(m):
                boundary = i
            for b in m.content:
                if isinstance(b, ThinkingBlock) and isinstance(blob := b.extra.get("encrypted_content"), str):
                    total += reasoning_blob_tokens(blob)
            last.append(boundary)
            reasoning.append(total)
        self.last_boundary = last
        self.reasoning = reasoning


__all__ = ["codex_count", "reasoning_blob_tokens", "tokens_of_bytes"]
