"""Gemini CLI 0.39+ writes its chat as an append-only log (``session-*.jsonl``): messages appended
again whole as they change, ``$rewindTo`` and ``$set`` checkpoints. The fixture follows the writer
(google-gemini/gemini-cli ``chatRecordingService.ts``, see PROVENANCE.md beside it)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from inspector.discover import find_sessions
from inspector.follow_dir import RewriteFollower, follower_for
from inspector.formats import detect, load
from inspector.units import build_view

LOG = Path(__file__).parent / "fixtures" / "constructed" / "gemini_cli_log" / "session-2026-08-20T10-00-3f2a9c1d.jsonl"


def test_log_is_detected_and_replayed_into_the_messages_the_cli_loads():
    assert detect(LOG).name == "gemini_cli"
    s = load(LOG)
    assert (s.agent, s.model, s.extra["kind"], s.extra["lastUpdated"]) == ("gemini-cli", "gemini-3-flash-preview", "main", "2026-08-20T10:02:12.000Z")
    assert [m.role[0] for m in s.messages] == list("uuatauatauuauataua")
    # g1 was appended twice (tokens, then its tool call): the last copy, at the first one's place
    assert [b.type for b in s.messages[2].content] == ["thinking", "tool_call"] and s.messages[2].source.line == 7
    assert (s.messages[3].tool_results[0].tool_call_id, s.messages[3].tool_results[0].content) == ("run_shell_command_1", "a.txt\nb.txt")
    assert [(x.where, x.reason) for x in s.skipped] == [
        ("line 11", "rewound (Gemini CLI $rewindTo at line 13)"),
        ("line 8", "tool results also recorded on their calls (Gemini CLI 0.44+ writes them twice)"),
        ("line 16", "tool results also recorded on their calls (Gemini CLI 0.44+ writes them twice)"),
        ("line 27", "info (a Gemini CLI notice, not sent to the model)"),
    ]
    calls = [m for m in s.messages if m.usage is not None]
    assert [(m.index, m.usage.input_tokens, m.usage.cache_read_input_tokens, m.usage.output_tokens) for m in calls] == [
        (2, 200, 1000, 50), (4, 190, 1100, 12), (6, 130, 1200, 18), (8, 60, 1300, 6), (17, 460, 0, 5)
    ]


def test_a_compression_checkpoint_starts_a_new_context():
    s = load(LOG)
    assert [m.index for m in s.messages if m.starts_context] == [9]
    start, summary = s.messages[9], s.messages[10]
    assert (start.source.line, start.source.json_path, start.injected, start.is_summary) == (26, "$.$set.messages[0]", "session_context", False)
    assert (summary.injected, summary.is_summary, summary.text.splitlines()[0]) == ("compaction", True, "<state_snapshot>")
    # the records setHistory() wrote just before the checkpoint (lines 19-25) show once, after it
    assert [m.source.line for m in s.messages[9:16]] == [26] * 7
    # kept turns lost their toolCalls: the call comes from the functionCall part, its result
    # from the functionResponse message, sent again in the new context
    call, result = s.messages[13].tool_calls[0], s.messages[14].tool_results[0]
    assert (call.id, call.name, call.arguments, result.tool_call_id, result.content) == ("read_file_2", "read_file", '{"file_path":"a.txt"}', "read_file_2", "hello")
    # the model replies the compression re-sent (11, 13, 15; 11 is the CLI's own acknowledgement)
    # are context, not model calls: the five calls are the five replies that recorded tokens
    assert [m.index for m in s.messages if m.resent] == [11, 13, 15]
    assert [c.message_index for c in build_view(s).calls] == [2, 4, 6, 8, 17]
    assert all(s.messages[c.message_index].usage for c in build_view(s).calls)


def test_log_is_discovered_beside_legacy_chats_and_followed(tmp_path):
    chats = tmp_path / "gemini" / "tmp" / "9c0b2a" / "chats"
    chats.mkdir(parents=True)
    target = chats / LOG.name
    (chats / f"{LOG.name}.tmp-4242").write_text("{}\n")  # the writer's temporary copy
    (chats / LOG.name[:-1]).write_text('{"sessionId":"old","projectHash":"h","messages":[]}')  # the .json a resume migrated
    lines = LOG.read_text().splitlines(keepends=True)
    target.write_text("".join(lines[:10]))
    found = find_sessions(claude_dir=tmp_path / "none", codex_home=tmp_path / "none", agent="gemini", dirs={"gemini": tmp_path / "gemini"})
    assert [(f.format, f.project, f.session_id, f.messages, Path(f.path).name) for f in found] == [
        ("gemini_cli", "9c0b2a", "3f2a9c1d-5b7e-4c1a-9d2e-8f0a1b2c3d4e", 5, LOG.name)
    ]
    follower = follower_for(target, "gemini_cli")
    assert isinstance(follower, RewriteFollower) and len(follower.session.messages) == 5
    with target.open("a") as fh:
        fh.write("".join(lines[10:]))
    update = follower.poll()
    assert (update.first, len(update.messages), update.notice) == (5, 13, None)


def test_sub_agent_chats_are_sidechains_keyed_by_agent_id(tmp_path):
    from inspector.formats.sidechain import open_sidechain, sidechain_ids

    s = load(LOG)
    agent = "7d1e5a20-9b4c-4f7e-8a11-2c3d4e5f6a7b"
    assert sidechain_ids(s) == [(agent, 2)]
    side = open_sidechain(s, agent)
    assert [(m.role, m.source.file, m.source.line) for m in side.messages] == [("user", f"{agent}.jsonl", 2), ("assistant", f"{agent}.jsonl", 3)]
    assert (side.messages[1].usage.input_tokens, side.messages[1].usage.output_tokens) == (800, 14)
    # the sub-agent's own file has no sidechains and is read as a session of its own
    assert load(LOG.parent / "3f2a9c1d-5b7e-4c1a-9d2e-8f0a1b2c3d4e" / f"{agent}.jsonl").extra["kind"] == "subagent"
    # the parent's tool call records which agent ran it
    chat = tmp_path / "session-x.jsonl"
    chat.write_text(
        '{"sessionId":"p","projectHash":"h"}\n'
        '{"id":"g","type":"gemini","content":"","toolCalls":[{"id":"c","name":"codebase_investigator","args":{},"agentId":"a1","status":"success","result":[]}]}\n'
    )
    assert load(chat).messages[0].tool_calls[0].extra == {"agentId": "a1"}


def test_a_recorded_count_below_zero_or_more_cached_than_input_is_not_a_count(tmp_path):
    # as the other readers (formats.reading.usage_from): a negative count, or more cached than the
    # whole input, contradicts itself and is left out (it read as input -5 and "not in file: -130")
    log = tmp_path / LOG.name
    lines = [
        '{"id":"z1","timestamp":"2026-08-20T10:09:00.000Z","type":"user","content":[{"text":"again"}]}',
        '{"id":"z2","timestamp":"2026-08-20T10:09:01.000Z","type":"gemini","content":"ok","tokens":{"input":-5,"output":-1,"cached":0,"thoughts":2,"total":1},"model":"gemini-3-flash-preview"}',
        '{"id":"z3","timestamp":"2026-08-20T10:09:02.000Z","type":"user","content":[{"text":"more"}]}',
        '{"id":"z4","timestamp":"2026-08-20T10:09:03.000Z","type":"gemini","content":"ok","tokens":{"input":100,"output":5,"cached":400,"thoughts":0,"total":105},"model":"gemini-3-flash-preview"}',
    ]
    log.write_text(LOG.read_text() + "\n".join(lines) + "\n")
    bad, cached = [m.usage for m in load(log).messages[-3::2]]
    assert (bad.input_tokens, bad.cache_read_input_tokens, bad.output_tokens) == (None, 0, 2)
    assert (cached.input_tokens, cached.cache_read_input_tokens, cached.output_tokens) == (None, 400, 5)


def test_a_patch_record_of_a_newer_cli_is_named_not_lost_silently(tmp_path):
    """Gemini CLI 0.6x logs carry ``{"$patch": {...}}`` records (third-party readers of v0.63.0
    list them beside ``$set`` and ``$rewindTo``); the writer was not available to read, so the
    record is reported as an error naming its line, not dropped as an unknown line."""
    meta = {"sessionId": "s1", "projectHash": "h", "startTime": "2026-11-01T10:00:00Z", "lastUpdated": "2026-11-01T10:00:00Z", "kind": "main"}
    lines = [meta, {"id": "u1", "timestamp": "2026-11-01T10:00:01Z", "type": "user", "content": [{"text": "hi"}]},
             {"$patch": {"updates": [{"id": "u1", "content": [{"text": "hello"}]}]}}]
    path = tmp_path / "session-2026-11-01T10-00-s1.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    s = load(path)
    assert [m.text for m in s.messages] == ["hi"]
    assert [(x.where, x.kind) for x in s.skipped if "$patch" in x.reason] == [("line 3", "error")]
