"""Turns, units, model calls and message flags (inspector.units)."""

from __future__ import annotations

import pytest

from inspector.model import Message, Session, TextBlock, ToolCallBlock, ToolResultBlock
from inspector.units import (
    _MARKER_HINTS,
    FINAL_ANSWER,
    ORPHAN_CALL,
    ORPHAN_RESULT,
    TRUNCATED_IN_SOURCE,
    TRUNCATION_MARKERS,
    UnitKind,
    build_view,
    has_truncation_marker,
)


def m(i: int, role: str, *blocks) -> Message:
    content = [TextBlock(text=b) if isinstance(b, str) else b for b in blocks]
    return Message(index=i, role=role, content=content)


def call(cid: str, name: str = "read_file") -> ToolCallBlock:
    return ToolCallBlock(id=cid, name=name, arguments="{}")


def result(cid: str, text: str = "ok") -> ToolResultBlock:
    return ToolResultBlock(tool_call_id=cid, content=text)


def view_of(*messages: Message):
    return build_view(Session(format="openai", messages=list(messages)))


def test_every_truncation_marker_passes_the_cheap_hints():
    for marker in TRUNCATION_MARKERS:
        assert any(h in marker for h in _MARKER_HINTS), marker
        assert has_truncation_marker(f"row 1\n{marker} 120 lines\nrow 2")
    assert not has_truncation_marker("a result that was truncated nowhere: all 40 rows")


def test_parallel_calls_and_results_in_one_user_message_form_one_exchange():
    v = view_of(
        m(0, "system", "be brief"),
        m(1, "user", "compare a.py and b.py"),
        m(2, "assistant", "Reading both.", call("c1"), call("c2")),
        m(3, "user", result("c2", "[... truncated 900 tokens ...]"), result("c1")),
        m(4, "assistant", "They differ in one line."),
    )
    assert [u.kind for u in v.units] == [UnitKind.SYSTEM, UnitKind.USER, UnitKind.TOOL_EXCHANGE, UnitKind.ASSISTANT]
    assert v.units[2].indices == (2, 3) and v.units[2].tool_names == ("read_file",)
    assert v.flags[3] == TRUNCATED_IN_SOURCE and v.flags[4] == FINAL_ANSWER
    assert [(t.number, t.start, t.stop, t.user_index, t.final_index) for t in v.turns] == [(0, 0, 1, None, None), (1, 1, 5, 1, 4)]
    assert [(c.number, c.message_index, c.turn) for c in v.calls] == [(1, 2, 1), (2, 4, 1)]


def test_results_with_typed_text_open_a_turn_but_stay_in_their_exchange():
    v = view_of(
        m(0, "user", "list the files"),
        m(1, "assistant", call("t1", "ls")),
        m(2, "user", result("t1", "a.py b.py"), "now delete b.py please"),
        m(3, "assistant", "Deleted b.py."),
    )
    assert v.turn_of == [1, 1, 2, 2]
    assert v.unit_of[1] == v.unit_of[2]
    assert [(t.number, t.user_index, t.final_index) for t in v.turns] == [(1, 0, None), (2, 2, 3)]


def test_a_turn_the_user_interrupted_has_no_final_answer():
    v = view_of(
        m(0, "user", "q1"),
        m(1, "assistant", "Let me check the file first."),
        m(2, "assistant", call("c1")),
        m(3, "tool", result("c1")),
        m(4, "user", "q2"),
        m(5, "assistant", "a2"),
    )
    assert [(t.number, t.final_index) for t in v.turns] == [(1, None), (2, 5)]


@pytest.mark.parametrize("last_answered", [True, False])
def test_reused_call_ids_pair_each_result_with_its_own_call(last_answered):
    msgs = []
    for turn in range(3):
        base = len(msgs)
        msgs += [m(base, "user", f"q{turn}"), m(base + 1, "assistant", call("call_0")),
                 m(base + 2, "tool", result("call_0")), m(base + 3, "assistant", f"a{turn}")]
    msgs += [m(12, "user", "q3"), m(13, "assistant", call("call_0"))]
    if last_answered:
        msgs.append(m(14, "tool", result("call_0")))
    v = view_of(*msgs)
    assert [v.unit_of[i] for i in (1, 2, 5, 6, 9, 10)] == [1, 1, 4, 4, 7, 7]
    assert v.flags[13] == (0 if last_answered else ORPHAN_CALL)
    assert not any(f & ORPHAN_CALL for f in v.flags[:13])


def test_orphans_load_and_are_flagged():
    v = view_of(m(0, "user", "hi"), m(1, "tool", result("gone")), m(2, "assistant", call("c9")))
    assert v.flags[1] == ORPHAN_RESULT and v.flags[2] == ORPHAN_CALL
    assert v.units[v.unit_of[1]].kind is UnitKind.TOOL_EXCHANGE
