"""The first call of a Gemini CLI session: before any recorded usage, the part the file does not
show is the typical Gemini CLI size, not 0 (before: -99.5% on every public session's first call)."""

from __future__ import annotations

from pathlib import Path

import inspector
from inspector.analysis.baseline import produced_reasoning, resent_reasoning
from inspector.analysis.predict import predictions, resent_at, typical_for

GEMINI = Path(__file__).parent / "fixtures" / "real" / "public" / "agentcmd_session-2025-10-27T19-55-981c87cb.json"


def test_a_gemini_sessions_first_call_starts_from_the_typical_gemini_cli_prefix():
    assert typical_for("gemini-cli", None).tokens == 12_100
    analysis = inspector.analyze(inspector.load(GEMINI), "cl100k_base")
    first, second = predictions(analysis.view, analysis.table)[:2]
    assert (first.fit.basis, first.recorded_tokens) == ("typical", 5_377)
    assert first.predicted_tokens == first.baseline_tokens + 12_100
    assert second.fit.basis == "recorded" and second.predicted_tokens - second.baseline_tokens == 5_377 - first.baseline_tokens


def test_gemini_thoughts_are_not_counted_as_re_sent():
    """Gemini CLI sends no thought back, not even within a tool loop: call 14 of this chat produced
    2,952 thought tokens and call 15's recorded input grew by 545 (its write_file call and result).
    Counting them as re-sent predicted 12,152 for call 15 (+32 %) and 4,386 of reasoning in the
    next call."""
    analysis = inspector.analyze(inspector.load(GEMINI), "cl100k_base")
    view, table = analysis.view, analysis.table
    assert resent_reasoning(view, table) == [0] * 15 and produced_reasoning(view, table) == [0] * 15
    calls = predictions(view, table)
    assert [c.recorded_tokens for c in calls[13:]] == [8_653, 9_198]
    assert calls[14].predicted_tokens == 9_213 and calls[14].baseline_tokens - calls[13].baseline_tokens == 560
    assert max(abs(c.error) for c in calls[1:]) < 0.025
    assert resent_at(view, table, None) == 0
