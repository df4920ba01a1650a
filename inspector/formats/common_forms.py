"""The message forms nearly every chat-style file writes, built in a few comparisons.

A system, user or assistant message with string content; an assistant message with tool calls
(and string or null content); a tool result with string or null content, answering a string
``tool_call_id``: nothing else on the message. The OpenAI reader and the inspector's JSONL reader
(:mod:`.openai_chat`, :mod:`.jsonl`) try :func:`common_message` first and take their general path
for every other form (or a value of an unexpected type), which builds the same records for these
forms (``tests/test_reader_common_forms.py``); at 10k messages this is about a third of each
reader's own time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model import Message, SourceRef, ToolCallBlock, new_message, new_text, new_tool_result

_TEXT_ROLES = frozenset({"system", "user", "assistant"})


def common_message(
    d: Any, index: int, source: SourceRef, tool_call: Callable[[Any], ToolCallBlock | None]
) -> Message | None:
    """The message ``d`` in one of the common forms, or None. ``tool_call(call)``: the block of
    a call in the reader's common call form, None for any other (then the message is None)."""
    if type(d) is not dict:
        return None
    # the keys are checked by their number and the values' types (a str or a list is present;
    # a None content may be absent): comparing d.keys() to a set costs several times more
    size = len(d)
    role = d.get("role")
    content = d.get("content")
    if size == 2:
        if type(content) is not str or type(role) is not str or role not in _TEXT_ROLES:
            return None
        blocks = [new_text(content, {})]
        form = "string"
    elif size != 3 or (content is None and "content" not in d):
        return None
    elif "tool_calls" in d:
        calls = d["tool_calls"]
        if role != "assistant" or type(calls) is not list or not calls:
            return None
        if type(content) is str:
            blocks, form = [new_text(content, {})], "string"
        elif content is None:
            blocks, form = [], "null"
        else:
            return None
        for call in calls:
            block = tool_call(call)
            if block is None:
                return None
            blocks.append(block)
    elif "tool_call_id" in d:
        call_id = d["tool_call_id"]
        if role != "tool" or type(call_id) is not str:
            return None
        if type(content) is str:
            form = "string"
        elif content is None:
            content, form = "", "null"
        else:
            return None
        blocks = [new_tool_result(call_id, content, {})]
    else:
        return None
    return new_message(index, role, blocks, source, form, {})


__all__ = ["common_message"]
