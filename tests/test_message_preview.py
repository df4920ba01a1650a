"""The preview a person recognises a message by (info's largest messages, the viewer's rows)."""

from __future__ import annotations


def test_a_message_preview_names_a_run_of_thought_parts_once():
    from inspector.analysis.info import message_preview
    from inspector.model import Message, TextBlock, ThinkingBlock

    message = Message(index=0, role="assistant", content=[ThinkingBlock(thinking="plan a"), ThinkingBlock(thinking="plan b"), TextBlock(text="I will write it."),
                                                 ThinkingBlock(thinking="check")])
    assert message_preview(message) == "(thinking) I will write it. (thinking)"
