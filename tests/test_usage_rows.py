"""``info``'s recorded-usage rows are built when read (analysis.usage_rows): the same rows, in the
same order, as one dict per call built at once, through every way a report reads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import inspector
from inspector.analysis.baseline import baseline_tokens
from inspector.analysis.calibrate import call_usage
from inspector.analysis.info import usage_report
from inspector.analysis.predict import predictions
from inspector.analysis.usage_rows import UsageRows
from inspector.cli.jsonout import json_text

SAMPLES = Path(__file__).resolve().parent.parent / "sample_sessions"
CLAUDE = Path(__file__).resolve().parent / "fixtures" / "real" / "claude_code" / "agentcmd_full-session-four.jsonl"


def eager_rows(analysis) -> list[dict]:
    """The rows as info built them before: one dict per call that recorded usage."""
    view, table = analysis.view, analysis.table
    predicted = predictions(view, table)
    return [
        {"call": r.call, "message_index": r.message_index, "turn": view.calls[r.call - 1].turn,
         "input_tokens": r.input_tokens, "cache_read_input_tokens": r.cache_read_tokens,
         "cache_creation_input_tokens": r.cache_creation_tokens, "output_tokens": r.output_tokens,
         "recorded": r.recorded, "estimate": r.estimated,
         "ratio": None if r.recorded is None or r.estimated <= 0 else round(r.recorded / r.estimated, 3),
         "predicted": predicted[r.call - 1].predicted_tokens}
        for r in call_usage(view, table) if r.recorded is not None
    ]


@pytest.mark.parametrize("path", [SAMPLES / "coding_agent.jsonl", CLAUDE])
def test_rows_read_every_way_equal_the_eager_rows(path):
    analysis = inspector.analyze(inspector.load(path), "cl100k_base")
    expected = eager_rows(analysis)
    report = usage_report(analysis)
    rows = report["calls"]
    assert isinstance(rows, UsageRows) and len(expected) > 10
    assert list(rows) == expected and rows == expected
    assert (len(rows), rows[0], rows[-1], rows[3:7], rows[-3:]) == (len(expected), expected[0], expected[-1], expected[3:7], expected[-3:])
    with pytest.raises(IndexError):
        rows[len(expected)]
    assert report["recorded_input_total"] == sum(r["recorded"] for r in expected)
    assert report["estimate_total"] == sum(r["estimate"] for r in expected)
    assert report["output_total"] == sum(r["output_tokens"] or 0 for r in expected)
    # --json writes them as the list they stand for
    assert json.loads(json_text({"usage": report}))["usage"]["calls"] == expected


def test_no_rows_without_recorded_usage():
    analysis = inspector.analyze(inspector.load(SAMPLES / "three_questions.json"), "cl100k_base")
    rows = UsageRows(analysis.view, baseline_tokens(analysis.view, analysis.table), predictions(analysis.view, analysis.table))
    assert (len(rows), list(rows), rows.recorded_total) == (0, [], 0)
    assert usage_report(analysis) is None


def test_cost_rows_equal_the_dicts_of_every_priced_call():
    from inspector.analysis.money import session_money
    from inspector.analysis.usage_rows import CostRows

    analysis = inspector.analyze(inspector.load(CLAUDE), "cl100k_base")
    calls = session_money(analysis.view, analysis.table).calls
    expected = [{"call": c.call, "sidechain": c.sidechain, "model": c.model,
                 "recorded_cost": None if c.recorded_cost is None else c.recorded_cost.as_json()} for c in calls]
    rows = CostRows(calls)
    assert len(expected) > 10 and any(r["recorded_cost"] for r in expected)
    assert list(rows) == expected and rows[-2:] == expected[-2:]
    assert rows.priced == sum(r["recorded_cost"] is not None for r in expected)
    # the dollars are the same floats, written the same way
    assert json_text(list(rows)) == json_text(expected)


def _chat_without_model(tmp_path, pairs: int):
    path = tmp_path / "chat.jsonl"
    lines = ['{"role": "system", "content": "You are helpful."}']
    for i in range(pairs):
        lines += [f'{{"role": "user", "content": "question {i}"}}', f'{{"role": "assistant", "content": "answer {i}"}}']
    path.write_text("\n".join(lines) + "\n")
    return inspector.analyze(inspector.load(path), "cl100k_base")


def test_info_money_of_a_session_naming_no_model_is_known_without_pricing(tmp_path):
    from inspector.analysis.info import unpriceable_calls
    from inspector.analysis.money import session_money
    from inspector.cli.money_report import info_money, unpriced_info_money

    analysis = _chat_without_model(tmp_path, 40)
    numbers = unpriceable_calls(analysis.view)
    assert numbers == list(range(1, 41))
    fast, priced = unpriced_info_money(numbers), info_money(session_money(analysis.view, analysis.table))
    assert json_text(fast) == json_text(priced)
    assert fast["calls"][3] == {"call": 4, "sidechain": None, "model": None, "recorded_cost": None}


def test_calls_are_priced_once_a_model_is_named(tmp_path):
    from inspector.analysis.info import unpriceable_calls

    analysis = _chat_without_model(tmp_path, 3)
    assert unpriceable_calls(analysis.view, "gpt-4o") is None  # --model
    analysis.view.session.model = "gpt-4o"
    assert unpriceable_calls(analysis.view) is None
    # a file naming its models (Claude Code) is always priced
    assert unpriceable_calls(inspector.analyze(inspector.load(CLAUDE), "cl100k_base").view) is None


REAL = Path(__file__).resolve().parent / "fixtures" / "real" / "claude_code"


@pytest.mark.parametrize("path, model", [
    (REAL / "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13.jsonl", None),  # a sub-agent, and a recorded compaction (its acompact loaded)
    (CLAUDE, None),
    (CLAUDE, "my-private-model-7"),  # every call unknown to the price data
])
def test_info_money_priced_as_it_goes_is_info_money_of_session_money(path, model):
    """``info`` prices the recorded costs without keeping a row or Cost per call
    (recorded_info_money): the same dict, the same JSON, as from the whole session_money."""
    from inspector.analysis.money import MoneyOptions, session_money
    from inspector.cli.money_report import info_money, recorded_info_money

    analysis = inspector.analyze(inspector.load(path), "cl100k_base")
    options = MoneyOptions(model=model)
    money = session_money(analysis.view, analysis.table, options=options)
    kinds = {c.kind for c in money.calls}
    streamed, whole = recorded_info_money(analysis.view, analysis.table, options), info_money(money)
    assert json_text(streamed) == json_text(whole)
    assert streamed["calls_priced"] == sum(c.recorded_cost is not None for c in money.calls)
    if path.name.startswith("3f2b9c1e"):
        assert kinds == {"call", "compaction"} and [r["sidechain"] for r in streamed["calls"]][-3:] == ["acompact-7d1", "a9f2", "a9f2"]
        assert streamed["recorded_cost_sidechains"] is not None
    if model:
        assert streamed["unknown_models"] == [model] and streamed["recorded_cost_total"] is None
    else:
        assert streamed["recorded_cost_total"] > 0 and streamed["unknown_models"] == []
