"""LangChain message dumps: messages_to_dict and dumpd, tool calls not counted twice, tool
status, usage with cache details, remove/unknown types skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector
from inspector.formats import SessionFormatError, load
from inspector.formats import builtin  # noqa: F401  (registers every format)
from inspector.formats.base import FORMATS, Probe
from inspector.units import ORPHAN_CALL, build_view

FIX = Path(__file__).parent / "fixtures" / "real" / "langchain"
SAMPLES = Path(inspector.__file__).parent / "sample_sessions"


def test_detection():
    for name in ("history.json", "dumpd.json"):
        scores = {n: f.detect(Probe(FIX / name)) for n, f in FORMATS.items()}
        assert scores.pop("langchain") == 90
        assert max(scores.values()) <= 1
    for sample in ("vendor_onboarding.json", "hr_leave_balance.json"):
        assert FORMATS["langchain"].detect(Probe(SAMPLES / sample)) == 0


def test_messages_to_dict():
    s = load(FIX / "history.json")
    assert [(m.role, str(m.source)) for m in s.messages] == [
        ("system", "$[0]"), ("user", "$[1]"), ("assistant", "$[2]"), ("tool", "$[3]"), ("tool", "$[4]"),
        ("assistant", "$[5]"), ("tool", "$[6]"), ("assistant", "$[7]"), ("user", "$[9]"), ("user", "$[10]"), ("assistant", "$[11]"),
    ]  # fmt: skip
    first = s.messages[2]
    assert [b.type for b in first.content] == ["text", "tool_call", "tool_call"]  # tool_use blocks not doubled
    assert first.tool_calls[0].arguments == '{"sql":"SELECT region, growth FROM q3_growth ORDER BY growth DESC LIMIT 1"}'
    assert first.extra == {"id": "run-1", "model": "claude-sonnet-4-5"}
    results = [m.tool_results[0] for m in s.messages if m.role == "tool"]
    assert [(r.tool_call_id, r.is_error, r.name) for r in results] == [
        ("toolu_q1", False, "run_query"), ("toolu_q2", True, "run_query"), ("toolu_q3", False, "run_query")
    ]  # fmt: skip
    invalid = s.messages[10].tool_calls[0]
    assert invalid.extra["invalid"] is True and invalid.arguments.startswith('{"sql": "SELECT country')
    assert [(x.where, x.reason) for x in s.skipped] == [("$[8]", "remove"), ("$[12]", "developer_note (unknown message type)")]


def test_units_turns_calls_and_usage():
    s = load(FIX / "history.json")
    view = build_view(s)
    assert [(u.kind.value, u.indices) for u in view.units] == [
        ("system", (0,)), ("user", (1,)), ("tool_exchange", (2, 3, 4)), ("tool_exchange", (5, 6)),
        ("assistant", (7,)), ("summary", (8,)), ("user", (9,)), ("tool_exchange", (10,)),
    ]  # fmt: skip
    assert [(t.number, t.start, t.stop) for t in view.turns] == [(0, 0, 1), (1, 1, 9), (2, 9, 11)]  # the summary is no prompt
    assert view.flags[10] & ORPHAN_CALL
    usage = [s.messages[c.message_index].usage for c in view.calls]
    assert [(u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens, u.output_tokens) for u in usage] == [
        (250, 1800, 300, 96),
        (170, 2350, None, 60),
        (2610, None, None, 22),
        (2700, None, None, 31),
    ]
    assert [u.context_tokens for u in usage] == [2350, 2520, 2610, 2700]


def test_dumpd_constructors():
    s = load(FIX / "dumpd.json")
    assert [(m.role, m.text) for m in s.messages] == [("user", "What's 11 + 13?"), ("assistant", ""), ("tool", ""), ("assistant", "11 + 13 = 24.")]
    assert s.messages[1].tool_calls[0].arguments == '{"a":11,"b":13}'
    assert s.messages[2].tool_results[0].text == "24.0"
    assert s.messages[1].usage.context_tokens == 574


def test_not_a_message_names_the_path(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('[{"type": "human", "data": {"content": "hi"}}, {"kind": "ai"}]')
    with pytest.raises(SessionFormatError) as err:
        load(p, format="langchain")
    assert str(err.value).startswith(f"{p}, $[1]: not a LangChain message.")


def test_anthropic_cache_writes_split_by_lifetime_are_cache_writes():
    """langchain-anthropic 1.x (its own _create_usage_metadata wrote the fixture) reports the cache
    writes as ephemeral_5m/1h_input_tokens and sets cache_creation to 0. Before: the 900 written
    tokens were read as plain input (input 912, cache write 0) and priced as such."""
    path = Path(__file__).parent / "fixtures" / "constructed" / "langchain_cache_ttl" / "messages.json"
    usage = load(path).messages[2].usage
    assert (usage.input_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens, usage.cache_creation_1h_input_tokens,
            usage.output_tokens, usage.context_tokens) == (12, 1800, 900, 600, 25, 2712)
