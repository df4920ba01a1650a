"""The bundled sample sessions: each loads cleanly with the exact shape the docs and demos rely on."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import inspector
from inspector.cli.samples import DEFAULT_SAMPLE, sample_path, sample_paths, samples_dir
from inspector.model import ToolResultBlock
from inspector.units import SUMMARY, UnitKind, build_view
from inspector.providers.validate import validate_session

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_sessions"

# name: (format, messages, turns, model calls)
EXPECTED = {
    "vendor_onboarding.json": ("openai", 26, 3, 12),
    "hr_leave_balance.json": ("anthropic", 15, 3, 7),
    "coding_agent.jsonl": ("jsonl", 80, 9, 35),
    "three_questions.json": ("openai", 23, 3, 11),
    "measured_three_questions.json": ("openai", 23, 3, 11),
}


def load(name: str):
    session = inspector.load(SAMPLES / name)
    return session, build_view(session)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_loads_with_expected_shape(name):
    session, view = load(name)
    fmt, messages, turns, calls = EXPECTED[name]
    assert session.format == fmt
    assert len(session.messages) == messages
    assert sum(1 for t in view.turns if t.number > 0) == turns
    assert len(view.calls) == calls
    assert session.skipped == []
    assert not any(view.flags[i] & 3 for i in range(len(view)))  # no orphan results or calls
    assert {k: [str(v) for v in vs] for k, vs in validate_session(view).items()} == {"openai": [], "anthropic": []}


def test_every_sample_is_listed_and_the_default_exists():
    assert sorted(p.name for p in sample_paths()) == sorted(EXPECTED)
    assert sample_path().name == DEFAULT_SAMPLE
    # in a checkout the package's sample folder is the repository's
    assert samples_dir().resolve() == SAMPLES.resolve()


def test_vendor_onboarding_lookup_not_found_then_create():
    session, view = load("vendor_onboarding.json")
    first_result = session.messages[3].tool_results[0]
    assert json.loads(first_result.text)["status"] == "not_found"
    assert view.tool_names[2] == ("lookup_vendor",)
    created = [i for i, names in enumerate(view.tool_names) if names == ("create_vendor",)]
    assert created == [8, 9]
    assert len(session.tools) == 9
    # one parallel batch: the W-9 request and the security review
    assert view.tool_names[10] == ("request_tax_form", "open_security_review")
    assert view.units[view.unit_of[10]].indices == (10, 11, 12)


def test_hr_leave_balance_error_result_and_large_query():
    session, view = load("hr_leave_balance.json")
    assert session.messages[0].role == "system"
    error = session.messages[3].tool_results[0]
    assert error.is_error and json.loads(error.text)["error"] == "not_found"
    # parallel calls answered by two tool_result blocks in one user message
    assert view.call_ids[4] == tuple(r.tool_call_id for r in session.messages[5].tool_results)
    assert len(view.call_ids[4]) == 2
    a = inspector.analyze(session, "cl100k_base", profile="anthropic")
    query = session.messages[9]
    assert isinstance(query.content[0], ToolResultBlock) and view.tool_names[9] == ("query_hr_database",)
    assert a.table.counts[9].blocks[0] == 7303  # several thousand tokens
    assert json.loads(query.content[0].text)["row_count"] == 98


def test_coding_agent_turns_parallel_calls_and_summary():
    session, view = load("coding_agent.jsonl")
    assert len(session.tools) == 6
    parallel = [i for i, ids in enumerate(view.call_ids) if len(ids) > 1]
    assert parallel == [2, 5, 26, 37, 47, 64, 71]
    assert view.tool_names[71] == ("edit_file", "edit_file", "edit_file")
    summary = [i for i in range(len(view)) if view.flags[i] & SUMMARY]
    assert summary == [45]
    assert session.messages[45].starts_context
    assert view.unit_kind(45) is UnitKind.SUMMARY
    assert session.messages[45].text.startswith("[Earlier conversation summary]:")
    # calls after the compaction see the context from the summary on
    assert [c.context_start for c in view.calls[19:22]] == [0, 45, 45]
    reads = [i for i, names in enumerate(view.tool_names) if names == ("read_file",) and view.roles[i] == "tool"]
    a = inspector.analyze(session)
    assert len(reads) == 8 and min(a.table.totals[i] for i in reads) > 400
    assert all(m.usage is not None for m in session.messages if m.role == "assistant")


def test_three_questions_resends_tool_history():
    session, view = load("three_questions.json")
    assert [t.user_index for t in view.turns if t.number > 0] == [1, 9, 17]
    assert [c.turn for c in view.calls] == [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3]
    a = inspector.analyze(session, encoding="cl100k_base")  # the seed's figure (gpt-4.1's o200k_base: 3,648)
    # the biggest result of turn 1 is part of every later call's input
    assert a.table.totals[7] == 3668
    assert all(c.message_index > 7 for c in view.calls[3:])


def test_committed_samples_match_the_generator():
    spec = importlib.util.spec_from_file_location("make_samples", SAMPLES / "make_samples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (SAMPLES / "vendor_onboarding.json").read_text() == module.pretty(module.vendor_onboarding()) + "\n"
    assert (SAMPLES / "three_questions.json").read_text() == module.pretty(module.three_questions()) + "\n"
    assert (SAMPLES / "hr_leave_balance.json").read_text() == module.pretty(module.hr_leave_balance()) + "\n"
    lines = "\n".join(module.dumps(line) for line in module.coding_agent()) + "\n"
    assert (SAMPLES / "coding_agent.jsonl").read_text() == lines
