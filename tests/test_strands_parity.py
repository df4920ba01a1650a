"""Decision parity with Strands Agents' own ``SlidingWindowConversationManager`` (strands-agents,
in the ``test`` extra): on 1,000 generated Bedrock-shaped histories (user text, assistant text
and tool uses, user messages carrying tool results, sometimes with text) and window sizes 0-14,
``apply_management`` and the ``strands_sliding_window`` strategy keep the same messages."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

strands_window = pytest.importorskip("strands.agent.conversation_manager")

from inspector import analyze  # noqa: E402
from inspector.model import Message, Session, TextBlock, ToolCallBlock, ToolResultBlock  # noqa: E402
from inspector.strategies import Settings, plan  # noqa: E402


@st.composite
def histories(draw) -> Session:
    messages: list[Message] = []
    ids = itertools.count(1)

    def add(role: str, content: list) -> None:
        messages.append(Message(index=len(messages), role=role, content=content, content_form="blocks"))

    if draw(st.booleans()):
        add("system", [TextBlock(text="system")])
    for _ in range(draw(st.integers(0, 5))):
        add("user", [TextBlock(text="ask")])
        for _ in range(draw(st.integers(0, 4))):
            calls = [ToolCallBlock(id=f"t{next(ids)}", name="shell", arguments="{}") for _ in range(draw(st.integers(1, 2)))]
            add("assistant", ([TextBlock(text="let me look")] if draw(st.booleans()) else []) + calls)
            extra = [TextBlock(text="note")] if draw(st.integers(0, 4)) == 0 else []
            add("user", [ToolResultBlock(tool_call_id=c.id, content="out") for c in calls] + extra)
        if draw(st.booleans()):
            add("assistant", [TextBlock(text="done")])
    return Session(format="inspector", messages=messages)


def to_strands(session: Session) -> list[dict]:
    out = []
    for m in session.messages:
        if m.role == "system":
            continue
        content = []
        for b in m.content:
            if isinstance(b, TextBlock):
                content.append({"text": b.text})
            elif isinstance(b, ToolCallBlock):
                content.append({"toolUse": {"toolUseId": b.id, "name": b.name, "input": {}}})
            else:
                content.append({"toolResult": {"toolUseId": b.tool_call_id, "status": "success", "content": [{"text": b.text}]}})
        out.append({"role": m.role, "content": content, "_index": m.index})
    return out


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories(), st.integers(0, 14))
def test_strands_sliding_window_keeps_exactly_what_strands_keeps(session, window):
    messages = to_strands(session)
    agent = SimpleNamespace(messages=messages)
    strands_window.SlidingWindowConversationManager(window_size=window).apply_management(agent)
    expected = [m["_index"] for m in agent.messages]
    a = analyze(session, "approx", "anthropic")
    p = plan(a.view, a.table, ("strands_sliding_window",), Settings(window_messages=window))
    kept = [i for i in p.sequence if type(i) is int and a.view.roles[i] != "system"]
    assert kept == expected, window
