"""OpenAI Responses input items: grouping of one response's output items, call_id links,
reasoning, custom and hosted tool calls, the opaque compaction item, request fields."""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector
from inspector.formats import SessionFormatError, load
from inspector.formats import builtin  # noqa: F401  (registers every format)
from inspector.formats.base import FORMATS, Probe
from inspector.model import RawBlock, TextBlock, ThinkingBlock, ToolCallBlock
from inspector.units import build_view

REQUEST = Path(__file__).parent / "fixtures" / "real" / "openai_responses" / "request.json"
SAMPLES = Path(inspector.__file__).parent / "sample_sessions"


@pytest.fixture(scope="module")
def session():
    return load(REQUEST)


def test_detection(tmp_path):
    scores = {n: f.detect(Probe(REQUEST)) for n, f in FORMATS.items()}
    assert scores.pop("openai_responses") == 85
    assert max(scores.values()) < 85
    bare = tmp_path / "items.json"
    bare.write_text('[{"role": "user", "content": "hi"}, {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}]')
    assert FORMATS["openai_responses"].detect(Probe(bare)) == 85
    for sample in ("vendor_onboarding.json", "hr_leave_balance.json", "three_questions.json"):
        assert FORMATS["openai_responses"].detect(Probe(SAMPLES / sample)) == 0


def test_messages_and_sources(session):
    assert [(m.role, str(m.source)) for m in session.messages] == [
        ("system", "$.instructions"),
        ("user", "$.input[0]"),
        ("assistant", "$.input[1]"),
        ("tool", "$.input[4]"),
        ("tool", "$.input[5]"),
        ("assistant", "$.input[6]"),
        ("tool", "$.input[8]"),
        ("user", "$.input[9]"),
        ("user", "$.input[10]"),
        ("assistant", "$.input[11]"),
        ("assistant", "$.output[0]"),
    ]
    first = session.messages[2]
    assert [type(b) for b in first.content] == [ThinkingBlock, ToolCallBlock, ToolCallBlock]
    assert [c.id for c in first.tool_calls] == ["call_41", "call_43"]
    assert [m.tool_results[0].tool_call_id for m in session.messages[3:5]] == ["call_43", "call_41"]  # out of order
    assert session.messages[4].tool_results[0].text == '{"version":"4.2.0","changes":["invoice PDFs"]}'
    patch = session.messages[5].tool_calls[0]
    assert (patch.name, patch.arguments.splitlines()[1]) == ("apply_patch", "*** Update File: CHANGELOG.md")
    search = session.messages[9].content[0]
    assert isinstance(search, RawBlock) and search.text == "billing 4.3.0 pypi"
    assert isinstance(session.messages[9].content[1], TextBlock)


def test_compaction_item_starts_the_context(session):
    compaction = session.messages[7]
    assert compaction.starts_context and isinstance(compaction.content[0], RawBlock)
    assert compaction.content[0].text == ""
    view = build_view(session)
    assert [(u.kind.value, u.indices) for u in view.units] == [
        ("system", (0,)), ("user", (1,)), ("tool_exchange", (2, 3, 4)), ("tool_exchange", (5, 6)),
        ("summary", (7,)), ("user", (8,)), ("assistant", (9,)), ("assistant", (10,)),
    ]  # fmt: skip
    assert [(t.number, t.start, t.stop) for t in view.turns] == [(0, 0, 1), (1, 1, 8), (2, 8, 11)]  # the compaction item is no prompt
    assert [(c.message_index, c.context_start) for c in view.calls] == [(2, 0), (5, 0), (9, 7), (10, 7)]


def test_request_fields_tools_usage_and_skipped(session):
    assert [t.name for t in session.tools] == ["get_release", "apply_patch"]
    assert session.tools[0].parameters["required"] == ["version"]
    assert session.extra["model"] == "gpt-5.1"
    u = session.messages[10].usage
    assert (u.input_tokens, u.cache_read_input_tokens, u.output_tokens, u.context_tokens) == (426, 1024, 6, 1450)
    assert [(s.where, s.reason, s.kind) for s in session.skipped] == [
        ("$.input[13]", "item_reference", "ignored"),
        ("$.input[14]", "hologram_call_v2 (unknown item type)", "ignored"),
    ]


def test_bad_json_names_line_and_column(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('[{"role": "user",\n  "content": }]')
    with pytest.raises(SessionFormatError) as err:
        load(p, format="openai_responses")
    assert str(err.value).startswith(f"{p}, line 2, column 14: not valid JSON (")
