"""Recorded usage per call beside the estimate."""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector
from inspector.analysis.calibrate import CallUsage, call_usage
from inspector.model import Message, Session, TextBlock, Usage

ROLLOUT = next((Path(__file__).parent / "fixtures" / "real" / "codex").glob("rollout-*.jsonl"))


def test_codex_calls_recorded_and_estimated():
    a = inspector.analyze(inspector.load(ROLLOUT), encoding="cl100k_base")  # figures pinned under cl100k_base
    rows = call_usage(a.view, a.table)
    assert [(r.call, r.message_index, r.estimated, r.recorded) for r in rows] == [
        (1, 5, 154, 5120),
        (2, 8, 323, 7900),  # call 1 records reasoning_output_tokens 0: no re-sent reasoning counted
        (3, 10, 421, 8400),
        (4, 14, 167, 2600),  # after the compaction: the instructions and the new history, not the
        (5, 16, 298, 3100),  # permissions developer message before it (33 tokens)
    ]
    assert (rows[0].input_tokens, rows[0].cache_read_tokens, rows[0].cache_creation_tokens, rows[0].output_tokens) == (2048, 3072, None, 180)
    assert rows[0].ratio == pytest.approx(5120 / 154)


def _session(usages: list[Usage | None]) -> Session:
    messages = [Message(index=0, role="system", content=[TextBlock(text="Be brief.")])]
    for k, usage in enumerate(usages):
        messages.append(Message(index=0, role="user", content=[TextBlock(text=f"question {k} " * 10)]))
        messages.append(Message(index=0, role="assistant", content=[TextBlock(text="answer " * 5)], usage=usage))
    for i, m in enumerate(messages):
        m.index = i
    return Session(format="test", messages=messages)


def test_only_calls_with_a_recording_count():
    a = inspector.analyze(_session([Usage(input_tokens=100), None, Usage(input_tokens=50, cache_read_input_tokens=250)]), encoding="approx")
    rows = call_usage(a.view, a.table)
    assert [r.recorded for r in rows] == [100, None, 300]
    assert rows[1].ratio is None


def test_no_usage_no_ratio():
    a = inspector.analyze(_session([None, None]), encoding="approx")
    assert [r.recorded for r in call_usage(a.view, a.table)] == [None, None]
    assert CallUsage(1, 0, 0, 10, None, None, None, None).ratio is None
