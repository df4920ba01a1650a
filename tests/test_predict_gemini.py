"""The first call of a Gemini CLI session: before any recorded usage, the part the file does not
show is the typical Gemini CLI size, not 0 (before: -99.5% on every public session's first call)."""

from __future__ import annotations

from pathlib import Path

import inspector
from inspector.analysis.predict import predictions, typical_for

GEMINI = Path(__file__).parent / "fixtures" / "real" / "public" / "agentcmd_session-2025-10-27T19-55-981c87cb.json"


def test_a_gemini_sessions_first_call_starts_from_the_typical_gemini_cli_prefix():
    assert typical_for("gemini-cli", None).tokens == 12_100
    analysis = inspector.analyze(inspector.load(GEMINI), "cl100k_base")
    first, second = predictions(analysis.view, analysis.table)[:2]
    assert (first.fit.basis, first.recorded_tokens) == ("typical", 5_377)
    assert first.predicted_tokens == first.baseline_tokens + 12_100
    assert second.fit.basis == "recorded" and second.predicted_tokens - second.baseline_tokens == 5_377 - first.baseline_tokens
