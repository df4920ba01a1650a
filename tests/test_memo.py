"""Per-call figures are computed once per (view, table) (inspector.analysis.memo): what info asks
for three or four times, and every plan of a replay asks again, is one pass over the calls."""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector
import inspector.analysis.session
from inspector.analysis import baseline, predict
from inspector.analysis.baseline import baseline_tokens, resent_reasoning
from inspector.analysis.info import info_report
from inspector.analysis.money import session_money
from inspector.tokens import count_session
from inspector.units import build_view

FOUR = Path(__file__).parent / "fixtures" / "real" / "claude_code" / "agentcmd_full-session-four.jsonl"


@pytest.fixture()
def four():
    return inspector.analyze(inspector.load(str(FOUR)))


def test_info_and_money_count_each_call_once(four, monkeypatch):
    seen: list[int] = []
    original = baseline.call_reasoning

    def counting(message, count):
        seen.append(message.index)
        return original(message, count)

    monkeypatch.setattr(baseline, "call_reasoning", counting)
    info_report(four)
    session_money(four.view, four.table)
    predict.predictions(four.view, four.table)
    assert len(four.view.calls) == 30
    assert sorted(seen) == sorted(c.message_index for c in four.view.calls)  # each call once, not 3-5 times


def test_kept_lists_are_copies(four):
    first = baseline_tokens(four.view, four.table)
    first[0] = -1
    resent_reasoning(four.view, four.table).clear()
    assert baseline_tokens(four.view, four.table)[0] != -1
    assert len(resent_reasoning(four.view, four.table)) == 30


def test_another_table_is_counted_again(four):
    other = count_session(four.session.messages, four.session.tools, encoding="o200k_base", profile=four.table.profile)
    fresh = inspector.analysis.session.Analysis(four.session, build_view(four.session), other)
    assert baseline_tokens(four.view, four.table) != baseline_tokens(four.view, other)
    assert baseline_tokens(four.view, other) == baseline_tokens(fresh.view, other)
