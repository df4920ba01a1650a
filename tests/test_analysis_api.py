"""The public analysis API the views call: next call, default budget, compare, validate, export."""

from __future__ import annotations

import pytest

import inspector
from inspector.analysis.planning import CheckedPlan
from inspector.cli.samples import sample_path
from inspector.strategies import Plan, plan as strategies_plan



@pytest.fixture(scope="module")
def coding():
    return inspector.analyze(inspector.load(sample_path("coding_agent.jsonl")))


@pytest.fixture(scope="module")
def questions():
    # the seed's cl100k_base figures (the file records gpt-4.1, counted with o200k_base by default)
    return inspector.analyze(inspector.load(sample_path("three_questions.json")), encoding="cl100k_base")


def test_next_call_is_the_unpruned_plan_with_the_part_not_in_the_file(coding, questions):
    nxt = inspector.next_call(coding)
    # 3,855 shown in the file from the recorded compaction on, plus 547 inferred from call 35's usage
    assert (nxt.baseline_tokens, nxt.not_in_file, nxt.predicted_tokens) == (3855, 547, 4402)
    assert inspector.plan(coding).tokens_before == nxt.predicted_tokens
    plain = inspector.next_call(questions)  # nothing recorded, no typical size for a request body
    assert (plain.baseline_tokens, plain.not_in_file) == (9507, 0)
    assert plain.baseline_tokens == questions.table.overhead + questions.table.prefix[-1]


def test_default_budget_is_what_the_window_lets_the_agent_fill(coding, questions):
    assert inspector.default_budget(coding) == 200_000  # no model in the file: the stated default
    assert inspector.default_budget(questions) == 1_000_000  # gpt-4.1's window (genai-prices)
    assert inspector.default_budget(questions.session) == 1_000_000


def test_compare_gives_the_baseline_then_each_pipeline(questions):
    rows = inspector.compare(questions, ["fifo", "tool_pruning,sliding_window"], budget=8000)
    assert [(r.name, r.plan.tokens_after, r.saving_pct) for r in rows] == [
        ("none", 9429, 0.0),
        ("fifo", 5046, 15.9),
        ("tool_pruning,sliding_window", 2178, 71.2),
    ]
    assert [r.plan.call.number for r in rows] == [len(questions.view.calls)] * 3
    assert rows[2].replay.total == inspector.replay(questions, "tool_pruning,sliding_window", budget=8000).total


def test_the_public_plan_carries_validity_and_strategies_plans_do_not(questions):
    raw = strategies_plan(questions.view, questions.table, ("fifo",))
    assert type(raw) is Plan and not hasattr(raw, "valid")
    checked = inspector.plan(questions, "fifo")
    assert isinstance(checked, CheckedPlan)
    assert checked.sequence == raw.sequence and checked.valid == {"openai": True, "anthropic": True}
    assert CheckedPlan.of(raw).status is raw.status  # fields shared, not copied


def test_validate_and_export_through_the_public_api(questions):
    p = inspector.plan(questions, "fifo", budget=0, pair_safe=False)
    found = inspector.validate(p)
    assert set(found) == {"openai", "anthropic"}
    assert inspector.validate(p, "anthropic") == found["anthropic"]
    assert [v.rule for v in inspector.validate(p.messages_after(), "openai")] == [v.rule for v in found["openai"]]
    with pytest.raises(ValueError, match="unknown provider 'bedrock'; choose one of: openai, anthropic"):
        inspector.validate(p, "bedrock")  # type: ignore[arg-type]
    body = inspector.export(inspector.plan(questions), "anthropic")
    assert body["system"] and all(m["role"] in ("user", "assistant") for m in body["messages"])
