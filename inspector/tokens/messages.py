"""Per-message counts: what one message adds to a request's input under a counter and a profile.

Thinking blocks are shown with their size (``MessageCount.thinking``) but add nothing to the
message's total: both providers drop earlier turns' reasoning from the prompt. Reasoning that
*is* re-sent (within the current tool loop) is added per model call by
:mod:`inspector.analysis.baseline`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from ..model import ImageBlock, Message, RawBlock, TextBlock, ThinkingBlock, ToolCallBlock, ToolDefinition, ToolResultBlock
from .counters import Counter
from .framing import Profile


@dataclass(frozen=True, slots=True)
class MessageCount:
    """Tokens of one message. ``blocks[k]`` is the content of ``message.content[k]`` alone (0 for
    thinking); ``framing`` is everything around the content (per-message and per-block wrappers);
    ``thinking`` is the tokens of the message's readable thinking text, not in ``total``."""

    total: int
    framing: int
    blocks: tuple[int, ...]
    thinking: int = 0


def count_message(message: Message, counter: Counter, profile: Profile) -> MessageCount:
    framing = profile.per_message
    if profile.count_role:
        framing += counter.count(message.role)
    if message.name:
        framing += counter.count(message.name) + profile.per_name
    blocks: list[int] = []
    thinking = 0
    for block in message.content:
        if isinstance(block, TextBlock):
            blocks.append(counter.count(block.text))
        elif isinstance(block, ToolCallBlock):
            framing += profile.per_tool_call
            blocks.append(counter.count(block.name) + counter.count(block.arguments))
        elif isinstance(block, ToolResultBlock):
            framing += profile.per_tool_result
            if isinstance(block.content, str):
                blocks.append(counter.count(block.content))
            else:
                blocks.append(
                    sum(
                        counter.count(p.text) if isinstance(p, TextBlock) else profile.image_tokens(p)
                        for p in block.content
                    )
                )
        elif isinstance(block, ImageBlock):
            blocks.append(profile.image_tokens(block))
        elif isinstance(block, ThinkingBlock):
            blocks.append(0)
            if not block.redacted:
                thinking += counter.count(block.thinking)
        elif isinstance(block, RawBlock):
            blocks.append(counter.count(block.text))
        else:  # pragma: no cover - the Block union is closed
            raise TypeError(f"unknown block {type(block).__name__}")
    return MessageCount(framing + sum(blocks), framing, tuple(blocks), thinking)


def count_tool_definitions(tools: Sequence[ToolDefinition], counter: Counter, profile: Profile) -> int:
    """Tokens of the tool definitions sent with every request (0 when there are none)."""
    if not tools:
        return 0
    total = profile.tools_system_prompt
    for tool in tools:
        total += profile.per_tool_definition + counter.count(tool.name) + counter.count(tool.description)
        total += counter.count(json.dumps(tool.parameters, separators=(",", ":"), ensure_ascii=False))
    return total
