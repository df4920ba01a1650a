"""Turn a Plan into the messages it would send: block edits applied, inserted messages built.

The session is never modified: edited messages are copies (``model_copy``) with new content
lists; untouched messages are the session's own objects. Truncated text is cut here, not while
planning (see :mod:`.truncate_results`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..model import Block, Message, TextBlock, ToolCallBlock, ToolResultBlock
from ..tokens import get_counter

if TYPE_CHECKING:  # pragma: no cover  (base imports this module: no import back at run time)
    from .base import BlockEdit, Inserted, Plan


def materialize(plan: Plan) -> list[Message]:
    """The history ``plan`` sends, in order, as messages."""
    messages = plan.view.messages
    edits = plan.edits
    encoding = plan.table.encoding
    out: list[Message] = []
    for slot in plan.sequence:
        if type(slot) is int:
            message = messages[slot]
            if slot in edits:
                message = apply_edits(message, edits[slot], encoding)
            out.append(message)
        else:
            out.append(inserted_message(slot))
    return out


def inserted_message(item: Inserted) -> Message:
    """A message for an :class:`Inserted` slot (``index`` -1: it has no place in the source)."""
    return Message(index=-1, role=item.role, content=[TextBlock(text=item.text)], starts_context=False)


def apply_edits(message: Message, edits: Sequence[BlockEdit], encoding: str) -> Message:
    """A copy of ``message`` with ``edits`` applied in order (the session's message untouched)."""
    content: list[Block] = list(message.content)
    for k in sorted({e.block for e in edits}):
        content[k] = apply_block_edits(content[k], [e for e in edits if e.block == k], encoding)
    return message.model_copy(update={"content": content})


def apply_block_edits(block: Block, edits: Sequence[BlockEdit], encoding: str) -> Block:
    """``block`` after ``edits`` (all for this block, in the order they were planned)."""
    for edit in edits:
        if edit.kind == "clear_input":
            assert isinstance(block, ToolCallBlock)
            block = block.model_copy(update={"arguments": edit.text if edit.text is not None else "{}"})
            continue
        assert isinstance(block, ToolResultBlock)
        if edit.kind == "clear":
            text = edit.text if edit.text is not None else ""
        elif edit.text is not None:
            text = edit.text
        else:
            text = truncated_text(block.text, edit, encoding)
        if edit.kind == "truncate" and not isinstance(block.content, str):
            block = block.model_copy(update={"content": text_replaced(block.content, text)})
        else:
            block = block.model_copy(update={"content": text})
    return block


def text_replaced(parts: Sequence[Block], text: str) -> list:
    """A result's parts with its text parts replaced by one part holding ``text`` (where the
    first text part was) and every image kept in place."""
    out: list = []
    placed = False
    for p in parts:
        if isinstance(p, TextBlock):
            if not placed:
                out.append(TextBlock(text=text))
                placed = True
        else:
            out.append(p)
    if not placed:
        out.insert(0, TextBlock(text=text))
    return out


def truncated_text(text: str, edit: BlockEdit, encoding: str) -> str:
    """The cut a ``truncate`` edit stands for: the first ``keep`` tokens (or characters) plus
    the marker."""
    if edit.unit == "chars":
        return text[: edit.keep] + edit.marker
    return get_counter(encoding).head(text, edit.keep) + edit.marker
