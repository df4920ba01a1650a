"""Decision parity with LangChain's own ``trim_messages`` (langchain-core, in the ``test`` extra).

Each of 1,000 generated histories (OpenAI-shaped: system prompts, human messages, AI messages
with parallel tool calls, tool messages, final answers) is trimmed by
``langchain_core.messages.trim_messages`` and by the ``trim_messages`` strategy under every
option combination the strategy exposes (strategy first/last, allow_partial, include_system,
start_on, end_on), with a fixed per-message token counter (the inspector's own count of each
message). The kept messages must be identical, orphaned tool results included.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

lc = pytest.importorskip("langchain_core.messages")

from inspector.analysis.planning import CheckedPlan
from inspector import analyze  # noqa: E402
from inspector.model import Message, Session, TextBlock, ToolCallBlock, ToolResultBlock  # noqa: E402
from inspector.strategies import Settings, plan  # noqa: E402
from inspector.strategies.trim_messages import TYPES  # noqa: E402

LC_TYPES = {"none": None, "human": "human", "ai": "ai", "tool": "tool", "system": "system", "human_or_tool": ("human", "tool")}
COMBINATIONS = [
    *(("last", inc, start, end, part) for inc, start, end, part in itertools.product((False, True), TYPES, TYPES, (False, True))),
    *(("first", False, "none", end, part) for end, part in itertools.product(TYPES, (False, True))),
]


@st.composite
def histories(draw) -> Session:
    messages: list[Message] = []
    ids = itertools.count(1)

    def add(role: str, content: list) -> None:
        messages.append(Message(index=len(messages), role=role, content=content))

    def text() -> str:
        return "w " * draw(st.integers(0, 60))

    if draw(st.booleans()):
        add("system", [TextBlock(text="system " + text())])
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.integers(0, 9)) == 0:
            add("system", [TextBlock(text="reminder " + text())])
        add("user", [TextBlock(text="ask " + text())])
        for _ in range(draw(st.integers(0, 3))):
            calls = [ToolCallBlock(id=f"call_{next(ids)}", name="bash", arguments="{}") for _ in range(draw(st.integers(1, 3)))]
            add("assistant", ([TextBlock(text=text())] if draw(st.booleans()) else []) + calls)
            for c in calls:
                add("tool", [ToolResultBlock(tool_call_id=c.id, content=text())])
        if draw(st.booleans()):
            add("assistant", [TextBlock(text="done " + text())])
    return Session(format="inspector", messages=messages)


def to_langchain(session: Session) -> list:
    out = []
    for m in session.messages:
        mid = str(m.index)
        if m.role == "system":
            out.append(lc.SystemMessage(m.text, id=mid))
        elif m.role == "user":
            out.append(lc.HumanMessage(m.text, id=mid))
        elif m.role == "assistant":
            calls = [{"id": c.id, "name": c.name, "args": {}} for c in m.tool_calls]
            out.append(lc.AIMessage(m.text, tool_calls=calls, id=mid))
        else:
            out.append(lc.ToolMessage(m.tool_results[0].text, tool_call_id=m.tool_results[0].tool_call_id, id=mid))
    return out


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(histories(), st.data())
def test_trim_messages_keeps_exactly_what_langchain_keeps(session, data):
    analysis = analyze(session, "approx", "openai")
    totals = analysis.table.totals
    counter = lambda messages: sum(totals[int(m.id)] for m in messages)  # noqa: E731
    lc_messages = to_langchain(session)
    max_tokens = data.draw(st.integers(0, sum(totals) + 10))
    for strategy, include_system, start_on, end_on, partial in COMBINATIONS:
        expected = lc.trim_messages(
            lc_messages, max_tokens=max_tokens, token_counter=counter, strategy=strategy, allow_partial=partial,
            include_system=include_system, start_on=LC_TYPES[start_on], end_on=LC_TYPES[end_on],
        )
        s = Settings(
            budget=max_tokens, trim_strategy=strategy, trim_include_system=include_system, trim_start_on=start_on,
            trim_end_on=end_on, allow_partial=partial,
        )
        p = plan(analysis.view, analysis.table, ("trim_messages",), s)
        kept = [i for i in p.sequence if type(i) is int]
        assert kept == [int(m.id) for m in expected], (strategy, include_system, start_on, end_on, partial, max_tokens)


def test_an_orphaned_tool_result_is_reproduced_and_reported():
    """LangChain #33245: strategy last with a budget cutting between a call and its results."""
    session = Session(format="inspector", messages=[
        Message(index=0, role="user", content=[TextBlock(text="list files")]),
        Message(index=1, role="assistant", content=[ToolCallBlock(id="c1", name="ls", arguments="{}"), ToolCallBlock(id="c2", name="ls", arguments="{}")]),
        Message(index=2, role="tool", content=[ToolResultBlock(tool_call_id="c1", content="a")]),
        Message(index=3, role="tool", content=[ToolResultBlock(tool_call_id="c2", content="b")]),
        Message(index=4, role="assistant", content=[TextBlock(text="two files")]),
    ])
    analysis = analyze(session, "approx", "openai")
    budget = sum(analysis.table.totals[2:])
    p = plan(analysis.view, analysis.table, ("trim_messages",), Settings(budget=budget))
    assert [i for i in p.sequence if type(i) is int] == [2, 3, 4]
    assert [v.rule for v in CheckedPlan.of(p).violations["openai"]] == ["orphan_result", "orphan_result"]
    lc_kept = lc.trim_messages(to_langchain(session), max_tokens=budget, token_counter=lambda ms: sum(analysis.table.totals[int(m.id)] for m in ms))
    assert [m.id for m in lc_kept] == ["2", "3", "4"]
