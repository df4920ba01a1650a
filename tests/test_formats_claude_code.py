"""Claude Code transcript reader: block-per-line merging, main chain, sidechains, compaction,
skipped records, recorded usage per call, and incremental reading (RecordStream / Follower)."""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector
from inspector.follow import Follower
from inspector.formats import SessionFormatError, load
from inspector.formats import builtin  # noqa: F401  (registers every format)
from inspector.formats.base import FORMATS, Probe
from inspector.formats.claude_code import ClaudeCodeStream
from inspector.model import ThinkingBlock, ToolCallBlock, ToolResultBlock
from inspector.units import build_view

FIX = Path(__file__).parent / "fixtures" / "real" / "claude_code"
MAIN = FIX / "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13.jsonl"
REWIND = FIX / "rewind.jsonl"
SAMPLES = Path(inspector.__file__).parent / "sample_sessions"



@pytest.fixture(scope="module")
def session():
    return inspector.load(MAIN)


def test_detected_as_claude_code_and_nothing_else():
    scores = {name: fmt.detect(Probe(MAIN)) for name, fmt in FORMATS.items()}
    assert scores["claude_code"] == 95
    assert max(s for n, s in scores.items() if n != "claude_code") == 0


@pytest.mark.parametrize("sample", ["coding_agent.jsonl", "vendor_onboarding.json", "hr_leave_balance.json"])
def test_other_formats_score_zero(sample):
    assert FORMATS["claude_code"].detect(Probe(SAMPLES / sample)) == 0


def test_messages_in_main_chain(session):
    assert session.format == "claude_code"
    assert [m.role for m in session.messages] == [
        "user", "assistant", "user", "assistant", "user", "assistant",
        "user", "assistant", "user", "assistant",
        "user", "user", "assistant", "user", "assistant",
    ]  # fmt: skip
    assert [m.source.line for m in session.messages] == [3, 4, 7, 11, 12, 13, 16, 17, 23, 24, 26, 27, 29, 30, 31]
    assert [m.index for m in session.messages] == list(range(15))


def test_block_per_line_lines_merge_into_one_response(session):
    first = session.messages[1]
    assert [type(b) for b in first.content] == [ThinkingBlock, type(first.content[1]), ToolCallBlock, ToolCallBlock]
    assert first.content[1].text == "I'll read the test and the session class."
    assert [b.id for b in first.tool_calls] == ["toolu_01", "toolu_02"]
    assert first.tool_calls[0].arguments == '{"file_path":"/home/dev/shop/tests/test_auth.py"}'
    assert first.extra["lines"] == [4, 5, 6, 8]
    assert first.extra["message_id"] == "msg_01"
    # the result written between the two tool_use lines and the second result: one user message
    results = session.messages[2]
    assert [b.tool_call_id for b in results.content if isinstance(b, ToolResultBlock)] == ["toolu_01", "toolu_02"]
    assert results.extra["lines"] == [7, 9]


def test_recorded_usage_once_per_call(session):
    view = build_view(session)
    usage = [session.messages[c.message_index].usage for c in view.calls]
    assert [(u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens) for u in usage] == [
        (3, 131, 11000, 4200),  # output grew over four block lines; counted once
        (5, 210, 15300, 900),
        (2, 88, 16400, 350),
        (4, 64, 16700, 420),
        (6, 70, 17100, 300),
        (3, 120, 0, 6100),
        (2, 40, 6500, 200),
    ]
    assert [u.context_tokens for u in usage] == [15203, 16205, 16752, 17124, 17406, 6103, 6702]
    assert all(session.messages[i].usage is None for i in range(15) if session.messages[i].role == "user")


def test_replay_reports_recorded_tokens(session):
    report = inspector.replay(session).calls
    assert [c.recorded_tokens for c in report] == [15203, 16205, 16752, 17124, 17406, 6103, 6702]


def test_units_turns_and_calls(session):
    view = build_view(session)
    assert [(u.kind.value, u.indices) for u in view.units] == [
        ("user", (0,)),
        ("tool_exchange", (1, 2)),
        ("tool_exchange", (3, 4)),
        ("assistant", (5,)),
        ("user", (6,)),
        ("tool_exchange", (7, 8)),
        ("assistant", (9,)),
        ("summary", (10,)),
        ("user", (11,)),
        ("tool_exchange", (12, 13)),
        ("assistant", (14,)),
    ]
    assert [(t.number, t.start, t.stop) for t in view.turns] == [(1, 0, 6), (2, 6, 11), (3, 11, 15)]  # the summary is no prompt
    assert [(c.message_index, c.context_start) for c in view.calls] == [
        (1, 0), (3, 0), (5, 0), (7, 0), (9, 0), (12, 10), (14, 10)
    ]  # fmt: skip


def test_compaction_is_one_summary_message(session):
    summary = session.messages[10]
    assert summary.starts_context is True
    assert summary.text.startswith("This session is being continued from a previous conversation")
    assert summary.extra["compact_boundary"] == {"line": 25, "uuid": "cb1", "compactMetadata": {"trigger": "manual", "preTokens": 17470}}
    assert summary.extra["isCompactSummary"] is True
    plan = inspector.plan(session)
    status = {d.index: d.status.value for d in plan.decisions()}
    assert [status[i] for i in range(10)] == ["dropped"] * 10
    assert [status[i] for i in range(10, 15)] == ["kept"] * 5


def test_sidechains_kept_apart(session):
    assert list(session.sidechains) == ["a9f2", "acompact-7d1"]
    inline = session.sidechains["a9f2"]
    assert [m.role for m in inline] == ["user", "assistant", "user", "assistant"]
    assert [m.source.line for m in inline] == [18, 19, 20, 21]
    assert inline[1].usage.context_tokens == 3 + 9000 + 1200
    from_file = session.sidechains["acompact-7d1"]
    assert [str(m.source) for m in from_file] == [
        "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13/subagents/agent-acompact-7d1.jsonl, line 1",
        "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13/subagents/agent-acompact-7d1.jsonl, line 2",
    ]
    # sidechain calls are not calls of the main conversation
    assert len(build_view(session).calls) == 7


def test_skipped_records_with_reasons(session):
    assert [(s.where, s.reason, s.kind) for s in session.skipped] == [
        ("line 1", "summary", "ignored"),
        ("line 2", "file-history-snapshot", "ignored"),
        ("line 10", "progress", "ignored"),
        ("line 14", "system/turn_duration", "ignored"),
        ("line 15", "mystery-record (unknown record type)", "ignored"),
        ("line 22", "progress", "ignored"),
        ("line 28", "assistant/<synthetic> (API error reply)", "ignored"),
        ("line 32", "not valid JSON (unexpected end of data: line 1 column 36 (char 35))", "error"),
        ("line 33", "assistant (duplicate uuid, replayed entry)", "ignored"),
    ]
    assert session.extra["title"] == "Fix flaky login test"
    assert session.extra["cwd"] == "/home/dev/shop"
    assert session.extra["session_id"] == "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13"


def test_rewind_drops_the_abandoned_branch():
    s = load(REWIND)
    assert [m.text for m in s.messages] == [
        "Rename the date helper to parse_date.",
        "There are two date helpers: utils/dates.py:to_date and utils/time.py:to_date. Which one?",
        "Sorry, I meant the one in utils/time.py.",
        "Renamed utils/time.py:to_date to parse_date; no callers needed changes.",
    ]
    assert [m.index for m in s.messages] == [0, 1, 2, 3]
    assert [(x.where, x.reason) for x in s.skipped] == [
        ("line 3", "abandoned branch (rewound)"),
        ("line 4", "abandoned branch (rewound)"),
    ]


def test_agent_file_opened_alone_is_the_main_chain():
    s = load(FIX / "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13" / "subagents" / "agent-acompact-7d1.jsonl")
    assert [m.role for m in s.messages] == ["user", "assistant"]
    assert s.sidechains == {}
    assert s.messages[1].usage.context_tokens == 9 + 17470


def test_forced_on_a_non_claude_file_names_the_file(tmp_path):
    p = tmp_path / "chat.jsonl"
    p.write_text('{"role": "user", "content": "hi"}\n')
    with pytest.raises(SessionFormatError) as err:
        load(p, format="claude_code")
    assert str(err.value).startswith(f"{p}, line 1: no Claude Code transcript entries found. Expected JSONL lines")


def test_stream_reports_merged_message_again():
    lines = MAIN.read_bytes().split(b"\n")
    stream = ClaudeCodeStream(MAIN)
    for n in range(1, 5):  # summary, snapshot, prompt, thinking block of msg_01
        stream.feed(lines[n - 1], n)
    first, msgs = stream.take()
    assert first == 0 and [m.role for m in msgs] == ["user", "assistant"]
    stream.feed(lines[4], 5)  # text block of msg_01
    first, msgs = stream.take()
    assert first == 1 and len(msgs) == 1 and len(msgs[0].content) == 2
    assert stream.take() == (2, [])
    for n in (6, 7, 8):  # tool_use, result, tool_use of the same response
        stream.feed(lines[n - 1], n)
    first, msgs = stream.take()
    assert first == 1 and [len(m.content) for m in msgs] == [4, 1]


def test_follower_sees_appended_lines(tmp_path):
    lines = MAIN.read_bytes().split(b"\n")
    live = tmp_path / "live.jsonl"
    live.write_bytes(b"\n".join(lines[:4]) + b"\n")
    follower = Follower(live, "claude_code")
    assert len(follower.session.messages) == 2
    with open(live, "ab") as fh:
        fh.write(lines[4] + b"\n" + lines[5][:40])  # a block line and half of the next one
    update = follower.poll()
    assert (update.first, [len(m.content) for m in update.messages]) == (1, [2])
    with open(live, "ab") as fh:
        fh.write(lines[5][40:] + b"\n" + lines[6] + b"\n")
    update = follower.poll()
    assert update.first == 1
    assert [(m.role, len(m.content)) for m in update.messages] == [("assistant", 3), ("user", 1)]


def test_fields_of_unexpected_types_never_raise(tmp_path):
    p = tmp_path / "odd.jsonl"
    p.write_text(
        '{"type":"user","uuid":"a","parentUuid":null,"sessionId":"s","message":{"role":"user","content":"hi"}}\n'
        '{"type":"assistant","uuid":"b","parentUuid":"a","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"X","input":"raw"}],"usage":{"input_tokens":"7"}}}\n'
        '{"type":"user","uuid":"c","parentUuid":"b","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[1,{"type":"image","source":"?"}]}]}}\n'
        '{"type":"assistant","uuid":"d","parentUuid":"c","message":{"id":"m2","content":{"weird":true}}}\n'
        '{"type":"user","uuid":"e","parentUuid":"d","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","data":5}}]},"future":{"field":1}}\n'
    )
    s = load(p)
    assert [m.role for m in s.messages] == ["user", "assistant", "user", "assistant", "user"]
    assert s.messages[1].tool_calls[0].arguments == "raw"
    assert s.messages[1].usage.input_tokens is None
    assert s.messages[2].tool_results[0].content[0].text == "1"
    assert s.messages[3].content[0].raw == {"content": {"weird": True}}
    assert s.skipped == []


def test_attachment_text_sent_to_the_model_is_counted_with_its_prompt_or_as_its_own_message(tmp_path):
    """Claude Code 2.1.168+ attachment records (structure of the entire-graph 2.1.217 transcript,
    text made up): SessionStart hook output before the first prompt becomes an isMeta message;
    the listings after the prompt make one isMeta message of their own (before: they joined the
    prompt, which read as 4 blocks the person typed); tool hooks' empty successes stay skipped."""
    import json

    def rec(uuid, parent, **fields):
        return {"uuid": uuid, "parentUuid": parent, "sessionId": "s", "version": "2.1.217", "timestamp": "t", **fields}

    rows = [
        rec("a1", None, type="attachment", attachment={"type": "hook_success", "hookEvent": "SessionStart", "hookName": "SessionStart:startup", "content": "Use the docs."}),
        rec("a2", "a1", type="attachment", attachment={"type": "hook_system_message", "hookEvent": "SessionStart", "content": "Linked."}),
        rec("u1", "a2", type="user", message={"role": "user", "content": "fix it"}),
        rec("a3", "u1", type="attachment", attachment={"type": "skill_listing", "content": "- review: reviews code"}),
        rec("a4", "a3", type="attachment", attachment={"type": "deferred_tools_delta", "addedNames": ["WebFetch", "WebSearch"]}),
        rec("a5", "a4", type="attachment", attachment={"type": "hook_additional_context", "hookEvent": "UserPromptSubmit", "content": ["Repo is x."]}),
        rec("m1", "a5", type="assistant", requestId="r1", message={"id": "msg1", "role": "assistant", "model": "claude-opus-4-6", "content": [{"type": "text", "text": "Done."}],
                                                             "usage": {"input_tokens": 3, "output_tokens": 2, "cache_read_input_tokens": 100}}),
        rec("a6", "m1", type="attachment", attachment={"type": "hook_success", "hookEvent": "PostToolUse", "content": ""}),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    session = inspector.load(path)
    first, prompt, listings = session.messages[0], session.messages[1], session.messages[2]
    assert (first.role, first.extra["record"], first.extra["isMeta"]) == ("user", "attachment/hook_success", True)
    assert [(b.text, b.extra) for b in first.content] == [("Use the docs.", {"attachment": "hook_success"})]
    assert [(b.text, b.extra.get("attachment")) for b in prompt.content] == [("fix it", None)]
    assert (prompt.injected, "lines" in prompt.extra) == (None, False)
    assert (listings.injected, listings.extra["record"], listings.extra["isMeta"]) == ("attachment", "attachment/skill_listing", True)
    assert [(b.text, b.extra.get("attachment")) for b in listings.content] == [
        ("- review: reviews code", "skill_listing"), ("WebFetch\nWebSearch", "deferred_tools_delta"), ("Repo is x.", "hook_additional_context"),
    ]
    assert listings.extra["lines"] == [4, 5, 6] and [m.role for m in session.messages] == ["user", "user", "user", "assistant"]
    view = inspector.analyze(session, "cl100k_base").view
    assert [u.kind.value for u in view.units] == ["user", "user", "user", "assistant"]  # the listings: a unit of their own
    assert [t.user_index for t in view.turns] == [None, 1]  # in the prompt's turn, which they do not open
    reasons = [s.reason for s in session.skipped if "attachment" in s.reason]
    assert reasons == ["attachment/hook_system_message (no text the file holds reaches the model; not counted)",
                       "attachment/hook_success (no text the file holds reaches the model; not counted)"]


def test_a_sub_agent_transcript_opened_on_its_own_is_its_own_session():
    """A real sub-agent file not named agent-*.jsonl (fasthooks' sample): its entries are the
    conversation, not a sidechain of an empty main chain (before: 0 messages, "empty history")."""
    s = inspector.load(FIX / "fasthooks_sample_agent_sidechain.jsonl")
    assert [(m.role, m.source.line) for m in s.messages] == [("user", 1), ("assistant", 2)]
    assert s.messages[0].text == "Warmup"
    assert (s.sidechains, s.extra["agent_id"], s.model) == ({}, "af1ff21", "claude-haiku-4-5-20251001")
    assert inspector.validate(s.messages) == {"openai": [], "anthropic": []}


def test_a_sidechain_opens_as_a_session_with_its_own_context_plan_and_replay(session):
    from inspector.formats.sidechain import UnknownSidechain, open_sidechain, sidechain_ids

    assert sidechain_ids(session) == [("a9f2", 4), ("acompact-7d1", 2)]
    side = open_sidechain(session, "a9f2")
    assert [(m.index, m.role, m.source.line) for m in side.messages] == [
        (0, "user", 18), (1, "assistant", 19), (2, "user", 20), (3, "assistant", 21)
    ]  # fmt: skip
    assert (side.format, side.extra["sidechain"], side.sidechains) == ("claude_code", "a9f2", {})
    assert [c.recorded_tokens for c in inspector.replay(side).calls][0] == 3 + 9000 + 1200
    assert len(build_view(side).calls) == 2
    assert side.messages[0] is not session.sidechains["a9f2"][0]  # copies: the parent session is unchanged
    with pytest.raises(UnknownSidechain) as exc:
        open_sidechain(session, "nope")
    assert str(exc.value) == f"{MAIN} has no sidechain 'nope'; it has: a9f2 (4 messages), acompact-7d1 (2 messages)."


def test_session_fields_from_the_first_entry_holding_each_and_the_latest_version(tmp_path):
    def entry(n, **fields):
        return {"type": "user", "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n > 1 else None,
                "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]}, **fields}

    stream = ClaudeCodeStream(tmp_path / "s.jsonl")
    for n, fields in enumerate([
        {"sessionId": "", "session_id": "from-stream-json", "version": "2.0.1"},  # "" is no id: the other spelling
        {"cwd": 7, "gitBranch": "main"},  # not a string: not taken
        {"cwd": "/w", "sessionId": "later", "version": "2.0.9"},
        {"cwd": "/other", "gitBranch": "dev", "version": "2.0.3"},
        {},
    ], 1):
        stream.add(entry(n, **fields), n)
    s = stream.session
    assert {k: s.extra[k] for k in ("session_id", "cwd", "version", "git_branch")} == {
        "session_id": "from-stream-json", "cwd": "/w", "version": "2.0.1", "git_branch": "main"}
    assert s.agent_version == "2.0.3"  # the latest line's: a resumed session may run another CLI
