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


RESULT_BEFORE_CALL = REAL / "claude_code" / "entireskills_cc2.1.108_result_before_call.jsonl"


def test_a_result_written_before_its_calls_line_stays_after_the_call():
    """Claude Code 2.1.108 wrote a tool result between the two lines of the response that calls it.
    The response's second line (parent: an earlier entry) was taken for a rewind and the result
    dropped, leaving the call unanswered: every later request invalid, its 4,382 tokens uncounted."""
    session = inspector.load(RESULT_BEFORE_CALL)
    shape = [(m.role, str(m.source), [type(b).__name__ for b in m.content]) for m in session.messages]
    assert shape == [
        ("assistant", "line 1", ["TextBlock", "ToolCallBlock"]),
        ("user", "line 2", ["ToolResultBlock"]),
        ("assistant", "line 5", ["TextBlock", "ToolCallBlock"]),
        ("user", "line 7", ["ToolResultBlock"]),
    ]
    read, result = session.messages[0].content[1], session.messages[1].content[0]
    assert (read.name, read.id, result.tool_call_id) == ("Read", "toolu_01QtydmiEKUQypkyc1QzDtX9", "toolu_01QtydmiEKUQypkyc1QzDtX9")
    assert session.messages[0].extra["lines"] == [1, 3]
    assert [(s.where, s.reason) for s in session.skipped] == [
        ("line 4", "attachment/task_reminder (no text the file holds reaches the model; not counted)"),
    ]
    analysis = inspector.analyze(session)
    assert [analysis.table.counts[m.index].total for m in session.messages] == [57, 4382, 88, 1703]
    assert inspector.plan(analysis).valid == {"openai": True, "anthropic": True}


def test_the_first_call_of_claude_code_2_1_100_on_starts_from_its_own_typical_size():
    """Nothing is recorded before call 1, so its part not in the file is the typical size of its
    version: 25,200 for 2.1.100+ (was the 2.1 median 29,900: 37,714 predicted, +14.2 %). The
    listings after the prompt are a message of their own: 3 tokens of framing more (7,814 before)."""
    from inspector.analysis.predict import predictions

    analysis = inspector.analyze(inspector.load(CLAUDE_2_1_210), None, "anthropic")  # as the commands count it
    first = predictions(analysis.view, analysis.table)[0]
    assert (first.baseline_tokens, first.recorded_tokens, first.predicted_tokens) == (7_817, 33_036, 33_017)
    assert first.fit.basis == "typical" and first.fit.how.startswith("typical: median first-call gap of 15 distinct public Claude Code 2.1.101-2.1.218")


QUEUED = REAL / "claude_code" / "entireskills_cc2.1.108_queued_command.jsonl"
EDITED = REAL / "claude_code" / "entireskills_cc2.1.119_edited_files.jsonl"


def test_a_queued_task_notification_is_model_input_after_the_tool_result():
    session = inspector.load(QUEUED)
    analysis = inspector.analyze(session, None, "anthropic")
    queued = session.messages[2]
    assert (queued.role, str(queued.source), queued.extra["record"], queued.injected) == ("user", "line 4", "attachment/queued_command", "attachment")
    assert queued.content[0].text.startswith("<task-notification>\n<task-id>a9e09c2ad6baabdf8</task-id>")
    assert [analysis.table.counts[m.index].total for m in session.messages] == [57, 342, 547, 22]
    assert [(s.where, s.reason) for s in session.skipped] == [("line 3", "queue-operation")]
    assert inspector.plan(analysis).valid == {"openai": True, "anthropic": True}


def test_edited_file_snippets_follow_the_prompt_as_their_own_message_and_date_change_stays_skipped():
    """The snippets are one isMeta message after the prompt (before: 7 blocks of the prompt)."""
    session = inspector.load(EDITED)
    analysis = inspector.analyze(session, None, "anthropic")
    prompt, edited = session.messages
    assert [b.extra.get("attachment") for b in prompt.content] == [None] and prompt.injected is None
    assert [b.extra.get("attachment") for b in edited.content] == ["edited_text_file"] * 7
    assert (edited.injected, edited.extra["record"], edited.extra["lines"]) == ("attachment", "attachment/edited_text_file", [3, 4, 5, 6, 7, 8, 9])
    assert edited.content[0].text.startswith('1\t{\n2\t  "name": "skills",\n3\t<<<<<<< HEAD')
    assert list(analysis.table.counts[0].blocks) == [10]
    assert list(analysis.table.counts[1].blocks) == [85, 350, 184, 220, 264, 93, 204]
    assert [(s.where, s.reason) for s in session.skipped] == [
        ("line 2", "attachment/date_change (no text the file holds reaches the model; not counted)"),
    ]
