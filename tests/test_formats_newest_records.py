"""Record types of the newest Claude Code (2.1.210+) and Codex (0.144+) files, on trimmed real files:
each is skipped with the reason it holds no model input, none as an "unknown record type"."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import inspector

REAL = Path(__file__).parent / "fixtures" / "real"
CLAUDE_2_1_210 = REAL / "claude_code" / "entiregraph_cc2.1.210_first_call.jsonl"
CODEX_0_145 = REAL / "compactions" / "entiregraph_codex0.145.0-alpha.18_two-compactions.jsonl"


def test_claude_code_2_1_210_mode_and_file_history_delta_are_bookkeeping():
    session = inspector.load(CLAUDE_2_1_210)
    skipped = [(s.where, s.reason) for s in session.skipped if s.reason in ("mode", "file-history-delta")]
    assert skipped == [("line 2", "mode"), ("line 15", "mode"), ("line 23", "file-history-delta")]
    assert {s.kind for s in session.skipped} == {"ignored"}
    assert not [s for s in session.skipped if "unknown" in s.reason]


def test_codex_0_145_state_records_are_skipped_with_their_reason():
    session = inspector.load(CODEX_0_145)
    reasons = Counter(s.reason for s in session.skipped)
    world = "world_state (a snapshot of AGENTS.md and the environment; the messages hold what the model was sent)"
    meta = "inter_agent_communication_metadata (whether a sub-agent message starts a turn)"
    assert reasons[world] == 5 and reasons[meta] == 41
    assert [s.where for s in session.skipped if s.reason == world] == ["line 7", "line 578", "line 591", "line 1168", "line 1651"]
    assert not [s for s in session.skipped if "unknown" in s.reason]
