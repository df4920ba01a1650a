"""Loading at parse speed: the compact records keep pydantic's API, the flags a
view computes lazily are the flags computed at once, and loading leaves no GC work behind."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from pydantic import ValidationError

from inspector import load
from inspector.model import (
    Message,
    Session,
    Skipped,
    SourceRef,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    Usage,
    new_message,
    new_skipped,
    new_source,
    new_text,
    new_tool_call,
    new_tool_result,
    new_usage,
)
from inspector.units import TRUNCATED_IN_SOURCE, build_view, has_truncation_marker

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions"


def test_records_keep_pydantic_s_api():
    block = TextBlock.model_construct(text="hi", extra={"cache_control": {"type": "ephemeral"}})
    assert block == TextBlock(text="hi", extra={"cache_control": {"type": "ephemeral"}})
    # the dump pydantic made: the base's extra first, then the discriminator, then the fields
    assert list(block.model_dump()) == ["extra", "type", "text"]
    m = Message(index=2, role="user", content=[block], usage=Usage(input_tokens=5), extra={"ts": 1})
    assert m.model_dump() == {
        "index": 2, "role": "user",
        "content": [{"extra": {"cache_control": {"type": "ephemeral"}}, "type": "text", "text": "hi"}],
        "name": None,
        "usage": {"input_tokens": 5, "output_tokens": None, "cache_read_input_tokens": None,
                  "cache_creation_input_tokens": None, "model": None, "reasoning_tokens": None,
                  "cache_creation_1h_input_tokens": None, "speed": None},
        "source": {"line": None, "json_path": None, "file": None},
        "content_form": "string", "starts_context": False, "injected": None, "is_summary": None, "resent": False, "extra": {"ts": 1},
    }
    assert Message.model_validate(m.model_dump()) == m
    assert Usage(input_tokens=5).model_dump(exclude_none=True) == {"input_tokens": 5}
    assert list(m.model_dump(exclude={"content", "usage"}, mode="json"))[:3] == ["index", "role", "name"]
    with pytest.raises(TypeError):
        m.model_dump(by_alias=True)  # an option the records do not have fails, never silently ignored
    a, b = Message(index=0, role="user"), Message(index=1, role="user")
    assert a.content is not b.content and a.extra is not b.extra  # factories run per object
    assert hash(SourceRef(line=3)) == hash(SourceRef(line=3))  # frozen in pydantic: hashable


def test_a_session_validates_its_messages_from_dicts_as_pydantic_did():
    session = Session(format="openai", messages=[
        {"index": 0, "role": "tool", "content": [{"type": "tool_result", "tool_call_id": "c1",
                                                  "content": [{"type": "text", "text": "ok"}]}]},
    ])
    result = session.messages[0].content[0]
    assert isinstance(result, ToolResultBlock) and isinstance(result.content[0], TextBlock)
    assert result.text == "ok"
    assert Session.model_validate(session.model_dump()) == session
    with pytest.raises(ValidationError, match="no field 'bogus'"):
        Session(format="openai", messages=[{"index": 0, "role": "user", "bogus": 1}])


def test_a_record_has_no_room_for_unknown_fields():
    with pytest.raises(TypeError):
        TextBlock(text="x", bogus=1)
    with pytest.raises(AttributeError):
        TextBlock(text="x").bogus = 1  # slotted: no per-object dict


def test_the_positional_makers_build_the_records_init_builds():
    source = new_source(4, "$[3]", "f.json")
    assert source == SourceRef(line=4, json_path="$[3]", file="f.json") and hash(source) == hash(SourceRef(line=4, json_path="$[3]", file="f.json"))
    call = new_tool_call("c1", "grep", '{"q": 1}', {"k": 1})
    assert call == ToolCallBlock(id="c1", name="grep", arguments='{"q": 1}', extra={"k": 1})
    result = new_tool_result("c1", "found", {}, name="grep")
    assert result == ToolResultBlock(tool_call_id="c1", content="found", name="grep") and result.is_error is False
    m = new_message(3, "assistant", [new_text("hi", {}), call], source, "string", {"ts": 1}, usage=Usage(input_tokens=5))
    assert m == Message(index=3, role="assistant", content=[TextBlock(text="hi"), call], usage=Usage(input_tokens=5),
                        source=source, extra={"ts": 1})
    assert m.model_dump() == Message.model_validate(m.model_dump()).model_dump()  # every slot was set
    a, b = new_text("a", {}), new_message(0, "user", [], source, "null", {})
    assert (b.name, b.starts_context, b.injected, b.is_summary) == (None, False, None, None)
    assert new_usage(5, 7, 100, 20, 10, 3, "m") == Usage(
        input_tokens=5, output_tokens=7, cache_read_input_tokens=100, cache_creation_input_tokens=20,
        cache_creation_1h_input_tokens=10, reasoning_tokens=3, model="m")
    with pytest.raises(TypeError):
        new_text("a", {}, bogus=1)


def test_a_skipped_entry_is_a_record_with_pydantic_s_api():
    """Skipped is a slotted record (a Codex rollout skips a third of its records): built, dumped,
    compared, hashed, copied and validated from dicts as the pydantic model it was."""
    entry = new_skipped("line 7", "event_msg/exec_command_end", "ignored")
    assert entry == Skipped(where="line 7", reason="event_msg/exec_command_end", kind="ignored")
    assert hash(entry) == hash(Skipped(where="line 7", reason="event_msg/exec_command_end", kind="ignored"))
    assert len({entry, Skipped(where="line 7", reason="event_msg/exec_command_end", kind="ignored")}) == 1
    assert Skipped(where="line 1", reason="not valid JSON").kind == "error"
    assert list(entry.model_dump()) == ["where", "reason", "kind"]
    assert entry.model_copy(update={"where": "a.jsonl, line 7"}).where == "a.jsonl, line 7"
    session = Session(format="codex", skipped=[entry, {"where": "line 9", "reason": "turn_context", "kind": "ignored"}])
    assert session.skipped[1] == Skipped(where="line 9", reason="turn_context", kind="ignored")
    assert session.model_dump()["skipped"][0] == {"where": "line 7", "reason": "event_msg/exec_command_end", "kind": "ignored"}
    assert Session.model_validate(session.model_dump()) == session
    with pytest.raises(ValidationError, match="no field 'line'"):
        Session(format="codex", skipped=[{"where": "line 9", "reason": "x", "line": 9}])


def test_a_source_names_its_place_as_before():
    """``str(SourceRef)`` (a skipped entry's ``where``): its fast path for a bare line gives
    what the general one gives."""
    assert [str(s) for s in (SourceRef(line=3), SourceRef(line=0), SourceRef(line=3, file="f.jsonl"), SourceRef(line=2, file=""),
                             SourceRef(json_path="$.a"), SourceRef(line=4, json_path="$"), SourceRef(line=5, json_path=""), SourceRef())] == [
        "line 3", "line 0", "f.jsonl, line 3", "line 2", "$.a", "line 4, $", "line 5", "?"]


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
