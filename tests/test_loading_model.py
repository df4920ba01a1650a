"""Loading at parse speed: the cheap model_construct builds what pydantic's builds, the flags a
view computes lazily are the flags computed at once, and loading leaves no GC work behind."""

from __future__ import annotations

import gc
from pathlib import Path

from pydantic import BaseModel

from inspector import load
from inspector.model import Message, SourceRef, TextBlock, ToolResultBlock, Usage
from inspector.units import TRUNCATED_IN_SOURCE, build_view, has_truncation_marker

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions"


def _pydantic(cls, **values):
    return BaseModel.model_construct.__func__(cls, **values)


def test_model_construct_builds_what_pydantic_builds():
    cases = [
        (TextBlock, {"text": "hi"}),
        (TextBlock, {"text": "hi", "extra": {"cache_control": {"type": "ephemeral"}}}),
        (ToolResultBlock, {"tool_call_id": "c1", "content": "ok"}),
        (SourceRef, {"line": 3}),
        (Usage, {"input_tokens": 5, "model": "gpt-5"}),
        (Message, {"index": 2, "role": "user", "content": [], "extra": {"ts": 1}}),
    ]
    for cls, values in cases:
        ours, theirs = cls.model_construct(**values), _pydantic(cls, **values)
        assert ours == theirs
        assert list(ours.__dict__) == list(theirs.__dict__)  # same fields, same order
        assert ours.model_dump() == theirs.model_dump()
    a, b = Message.model_construct(index=0, role="user"), Message.model_construct(index=1, role="user")
    assert a.content is not b.content and a.extra is not b.extra  # factories run per object


def test_model_construct_with_a_missing_required_field_or_an_unknown_key_is_pydantic_s():
    assert TextBlock.model_construct().__dict__ == _pydantic(TextBlock).__dict__  # no "text", as pydantic leaves it
    assert TextBlock.model_construct(text="x", bogus=1).__dict__ == {"type": "text", "text": "x", "extra": {}}


def test_a_copy_of_a_constructed_message_is_independent():
    m = Message.model_construct(index=0, role="user", content=[TextBlock.model_construct(text="a")])
    copy = m.model_copy(update={"index": 5})
    assert (m.index, copy.index) == (0, 5) and copy.content == m.content


def _eager_truncation(session) -> list[bool]:
    return [any(has_truncation_marker(r.text) for r in m.tool_results) for m in session.messages]


def test_lazy_flags_are_the_flags_computed_at_once():
    for path in sorted(SAMPLES.glob("*.json*")):
        session = load(path)
        eager = _eager_truncation(session)
        view = build_view(session)
        row = len(view) // 2
        assert bool(view.flags[row] & TRUNCATED_IN_SOURCE) == eager[row]  # one row read first
        assert [bool(f & TRUNCATED_IN_SOURCE) for f in view.flags] == eager
        assert view.flags == list(view.flags) and view.flags[-1] == list(view.flags)[-1]
        assert view.flags[1:4] == list(view.flags)[1:4]


def test_a_marked_result_is_flagged_when_read():
    session = load(SAMPLES / "three_questions.json")
    results = [i for i, m in enumerate(session.messages) if m.tool_results]
    target = results[0]
    session.messages[target].content[0].content = "[... truncated 4000 characters]"
    view = build_view(session)
    assert view.flags[target] & TRUNCATED_IN_SOURCE
    assert sum(bool(f & TRUNCATED_IN_SOURCE) for f in view.flags) == 1


def test_a_loaded_session_is_out_of_the_collector_s_view():
    gc.collect()
    gc.unfreeze()
    before = gc.get_freeze_count()
    session = load(SAMPLES / "vendor_onboarding.json")
    assert gc.isenabled()
    assert gc.get_freeze_count() > before
    assert id(session.messages[0]) not in {id(o) for o in gc.get_objects()}  # frozen: never scanned
    gc.unfreeze()
