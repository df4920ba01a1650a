"""A pipeline's call total where the file shows more than the call was sent (inspector.analysis.agent_removed).

The real fixture (Claude Code 2.1.17, PROVENANCE beside it) records a fall of the input from
138,395 to 95,864 at call 30 with no compaction record: from call 31 on the fitted not-in-file
offset is negative (the file shows ~17,000 tokens the agent no longer sent). fifo at budget 8,000
used to subtract those tokens a second time: call 32 came out at -7,218."""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector
from inspector.analysis.agent_removed import credited, removed_per_call
from inspector.strategies import STRATEGIES
from inspector.strategies.params import settings_model

FIXTURES = Path(__file__).parent / "fixtures"
CLEARED = FIXTURES / "real" / "claude_code" / "entire_cc2.1.17_unrecorded_clear.jsonl"
SAMPLES = Path(inspector.__file__).parent / "sample_sessions"


@pytest.fixture(scope="module")
def cleared():
    session = inspector.load(CLEARED)
    return inspector.analyze(session, None, "anthropic", session.model)


def test_the_rule_saves_only_beyond_what_the_agent_had_removed():
    assert credited(7_447, 115_077, 0) == 7_447  # nothing removed: the plan's own total
    assert credited(-7_218, 119_562, 17_139) == 9_921  # saving 126,780 - 17,139 already gone
    assert credited(110_000, 119_562, 17_139) == 119_562  # saving 9,562 < 17,139: nothing saved
    assert credited(125_000, 119_562, 17_139) == 125_000  # a pipeline that adds tokens keeps its total


def test_the_offset_is_negative_from_the_call_after_the_unrecorded_fall(cleared):
    from inspector.analysis.predict import predictions

    p = predictions(cleared.view, cleared.table)
    assert [(c.call, c.baseline_tokens, c.recorded_tokens, c.predicted_tokens) for c in p[29:33]] == [
        (30, 112_360, 95_864, 139_683), (31, 131_573, 114_434, 115_077),
        (32, 136_701, 119_395, 119_562), (33, 139_679, 122_308, 122_373)]
    assert removed_per_call(cleared.view, cleared.table)[28:] == [0, 0, 16_496, 17_139, 17_306]


def test_fifo_at_8000_no_longer_goes_below_zero(cleared):
    settings = settings_model()(budget=8000)
    rows = inspector.replay(cleared, ("fifo",), settings=settings).calls
    assert [(c.call, c.tokens, c.saving) for c in rows[28:]] == [
        (29, 35_358, 103_004), (30, 32_695, 106_988), (31, 23_943, 91_134), (32, 9_921, 109_641), (33, 12_899, 109_474)]
    # the plan at a call keeps its own figure (overhead, the negative offset and what fifo kept)
    plan = inspector.plan(cleared, ("fifo",), at_call=32, settings=settings)
    assert plan.tokens_after == -7_218
    assert credited(plan.tokens_after, plan.tokens_before, 17_139) == rows[31].tokens


def test_money_and_compare_read_the_same_call_totals(cleared):
    from inspector.analysis.money import replay_requests

    settings = settings_model()(budget=8000)
    rows = inspector.compare(cleared, [("fifo",)], settings=settings, shared=True)
    fifo = rows[1]
    assert fifo.tokens_last_call == 12_899
    assert [t for t, _ in replay_requests(fifo.replay)][30:] == [23_943, 9_921, 12_899]


def _sessions() -> list[Path]:
    found = sorted(p for p in SAMPLES.iterdir() if p.suffix in (".json", ".jsonl"))
    found += sorted(p for p in (FIXTURES / "real").rglob("*.jsonl"))
    return found


@pytest.mark.parametrize("path", _sessions(), ids=lambda p: p.name)
def test_no_pipeline_call_total_is_negative(path):
    """Every strategy and compare's pipelines, at budgets 8,000 and 50,000, as ``compare --json``
    replays them: no call total below 0, so no saving above the call's prediction."""
    from inspector.cli.main import COMPARE_PIPELINES

    try:
        session = inspector.load(path)
    except Exception:  # a sidecar file no reader takes on its own
        pytest.skip("not a session")
    analysis = inspector.analyze(session)
    if not analysis.view.calls:
        pytest.skip("no model call")
    pipelines = [(name,) for name in STRATEGIES] + [tuple(p.split(",")) for p in COMPARE_PIPELINES]
    for budget in (8000, 50000):
        rows = inspector.compare(analysis, pipelines, settings=settings_model()(budget=budget), shared=True)
        low = min((c.tokens, row.name, c.call) for row in rows for c in row.replay.calls if c.kind == "call")
        assert low[0] >= 0, f"{low} at budget {budget}"
        assert min(row.tokens_last_call for row in rows) >= 0
