"""Per-call baseline on real transcripts: visible input plus reasoning re-sent within the turn."""

from __future__ import annotations

from pathlib import Path

import inspector
from inspector.analysis.baseline import baseline_tokens, resent_reasoning, visible_input
from inspector.analysis.replay import baseline_tokens, replay

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
CODEX = REAL / "codex" / "agentcmd_rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl"
CLAUDE = REAL / "claude_code" / "fasthooks_sample_main_transcript.jsonl"


def codex_with_reasoning(counts: dict[int, int]):
    """The Codex fixture with ``Usage.reasoning_tokens`` set per call (as the reader will), 0 elsewhere."""
    session = inspector.load(CODEX)
    calls = [m for m in session.messages if m.role == "assistant"]
    for number, m in enumerate(calls, 1):
        if m.usage is not None:
            m.usage.reasoning_tokens = counts.get(number, 0)
    return inspector.analyze(session, model="gpt-5-codex")


def test_codex_recorded_reasoning_is_re_sent_to_every_later_call_of_the_turn():
    a = codex_with_reasoning({1: 64, 10: 64})
    assert a.table.encoding == "o200k_base" and a.table.exact
    assert len(a.view.calls) == 35 and {c.turn for c in a.view.calls} == {1}  # one prompt (its <environment_context> is turn 0)
    assert visible_input(a.view, a.table)[:5] == [334, 425, 524, 604, 720]
    resent = resent_reasoning(a.view, a.table)
    assert resent[:3] == [0, 64, 64] and resent[9] == 64 and resent[10:12] == [128, 128]
    assert baseline_tokens(a.view, a.table)[:3] == [334, 489, 588]
    assert baseline_tokens(a.view, a.table) == baseline_tokens(a.view, a.table)


def test_codex_recorded_reasoning_wins():
    # the reader records each call's reasoning_output_tokens (64 at call 1, then 0): those win
    a = inspector.analyze(inspector.load(CODEX), model="gpt-5-codex")
    assert resent_reasoning(a.view, a.table)[:4] == [0, 64, 64, 64]


def test_codex_without_recorded_reasoning_uses_recorded_output_beyond_the_visible_text():
    session = inspector.load(CODEX)
    for m in session.messages:
        if m.usage is not None:
            m.usage.reasoning_tokens = None  # as a file that does not record it
    a = inspector.analyze(session, model="gpt-5-codex")
    assert [a.table.counts[c.message_index].thinking for c in a.view.calls[:3]] == [8, 7, 9]
    # reasoning = recorded output_tokens - counted visible output, when larger than the summary
    assert resent_reasoning(a.view, a.table)[:4] == [0, 77, 90, 103]


def test_claude_thinking_counts_within_the_tool_loop_and_resets_at_the_next_prompt():
    a = inspector.analyze(inspector.load(CLAUDE), profile="anthropic", model="claude-haiku-4-5-20251001")
    assert (a.table.encoding, a.table.exact) == ("claude", False)
    view = a.view
    assert [c.turn for c in view.calls] == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 5, 5]
    assert [a.table.counts[c.message_index].thinking for c in view.calls] == [55, 125, 152, 20, 22, 50, 50, 37, 679, 24, 19, 60]
    # call 3 recorded output 231 against 28 visible: its thinking is 203, not the 152 of its summary;
    # calls whose partial output_tokens (1, 8) fall below the visible output count the summary
    assert resent_reasoning(view, a.table) == [0, 55, 0, 203, 0, 22, 0, 50, 0, 864, 888, 965]
    assert visible_input(view, a.table) == [16, 455, 640, 693, 753, 876, 942, 990, 1066, 1236, 1540, 1737]
    # a pipeline's figure keeps the re-sent reasoning too, so it is not counted as a saving
    r = replay(view, a.table, "tool_pruning")
    assert [c.baseline_tokens - (c.tokens - c.not_in_file) for c in r.calls][:2] == [0, 0]
    assert r.calls[1].baseline_tokens == 455 + 55


def test_reasoning_of_earlier_turns_stays_for_gpt_5_6_and_claude_opus_4_5_on():
    from inspector.analysis.baseline import _keeps_reasoning

    kept = ["gpt-5.6-sol", "openai/gpt-5.6-terra", "claude-opus-4-5-20251101", "claude-opus-4-6", "claude-fable-5"]
    dropped = ["gpt-5.5", "gpt-5-codex", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001", "claude-opus-4-1", None]
    assert [_keeps_reasoning(m) for m in kept] == [True] * 5
    assert [_keeps_reasoning(m) for m in dropped] == [False] * 6
    a = inspector.analyze(inspector.load(CLAUDE), profile="anthropic", model="claude-haiku-4-5-20251001")
    for m in a.view.messages:
        if m.usage is not None:
            m.usage.model = "claude-opus-4-6"
    # the same calls as an Opus 4.6 session: nothing resets at a prompt
    assert resent_reasoning(a.view, a.table) == [0, 55, 180, 383, 403, 425, 475, 525, 562, 1426, 1450, 1527]
