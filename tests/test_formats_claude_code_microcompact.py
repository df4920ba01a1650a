"""Claude Code's microcompact (``system``/``microcompact_boundary``, 2.1.x) clears old tool
results in what every later call sends, but leaves them whole in the transcript: the record
lists the cleared ``compactedToolIds`` and an estimate of the tokens freed. The lines below are
constructed to the shape of the real records (entireio/cli, MIT, branch entire/checkpoints/v1,
``38/ecf75f2f1d/0/full.jsonl`` line 343, Claude Code 2.1.17); the marker text is Claude Code's
``TIME_BASED_MC_CLEARED_MESSAGE``. On that file the call after the boundary recorded 77,063 input
tokens: predicted 136,423 (+77 %) with the results whole, 73,278 (-4.9 %) with them cleared."""

from __future__ import annotations

import json
from functools import partial


from claude_code_builders import entry, reply
from inspector.formats import load
from inspector.units import build_view

CLEARED = "[Old tool result content cleared]"


_entry = partial(entry, version="2.1.20", timestamp="2026-01-28T23:00:00.000Z")
_call = partial(reply, model="claude-opus-4-5", stop_reason="tool_use")


def _use(tid):
    return [{"type": "tool_use", "id": tid, "name": "Read", "input": {"file_path": f"/w/{tid}.py"}}]


def _result(tid, text):
    return {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": text}]}


BOUNDARY = {
    "parentUuid": "r2", "isSidechain": False, "userType": "external", "cwd": "/w", "sessionId": "s", "version": "2.1.20",
    "type": "system", "subtype": "microcompact_boundary", "content": "Context microcompacted", "isMeta": False,
    "timestamp": "2026-01-28T23:04:24.327Z", "uuid": "mc1", "level": "info",
    "microcompactMetadata": {"trigger": "auto", "preTokens": 78208, "tokensSaved": 38535,
                             "compactedToolIds": ["toolu_1", "toolu_gone"], "clearedAttachmentUUIDs": []},
}


def _lines():
    return [
        _entry("u1", None, "user", {"role": "user", "content": "read both files"}),
        _entry("a1", "u1", "assistant", _call("msg_1", _use("toolu_1"), 5000), requestId="req_1"),
        _entry("r1", "a1", "user", _result("toolu_1", "line\n" * 3000)),
        _entry("a2", "r1", "assistant", _call("msg_2", _use("toolu_2"), 8000), requestId="req_2"),
        _entry("r2", "a2", "user", _result("toolu_2", "short")),
        BOUNDARY,
        _entry("a3", "mc1", "assistant", _call("msg_3", [{"type": "text", "text": "done"}], 5030), requestId="req_3"),
    ]


def _session(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in _lines()))
    return load(path)


def test_calls_after_a_microcompact_send_the_listed_results_cleared(tmp_path):
    s = _session(tmp_path)
    # the five messages before the boundary, then the context the next call sent: their copies,
    # toolu_1's result cleared, then the reply
    assert [(m.role, m.source.line, m.starts_context, m.resent) for m in s.messages] == [
        ("user", 1, False, False), ("assistant", 2, False, False), ("user", 3, False, False),
        ("assistant", 4, False, False), ("user", 5, False, False),
        ("user", 1, True, False), ("assistant", 2, False, True), ("user", 3, False, False),
        ("assistant", 4, False, True), ("user", 5, False, False),
        ("assistant", 7, False, False),
    ]
    assert s.messages[2].tool_results[0].text == "line\n" * 3000  # what calls 1 and 2 were sent
    assert s.messages[7].tool_results[0].text == CLEARED
    assert s.messages[9].tool_results[0].text == "short"  # not listed: sent whole
    first = s.messages[5]
    assert first.is_summary is False and first.text == "read both files"
    assert first.extra["microcompact_boundary"] == {
        "line": 6, "uuid": "mc1", "microcompactMetadata": BOUNDARY["microcompactMetadata"], "cleared": 1}
    assert all(m.extra.get("microcompact_copy") for m in s.messages[5:10])


def test_a_microcompact_copy_is_context_not_a_model_call(tmp_path):
    view = build_view(_session(tmp_path))
    assert [(c.message_index, c.context_start) for c in view.calls] == [(1, 0), (3, 0), (10, 5)]
    # the copied prompt opens no turn: the call after the boundary continues turn 1
    assert ([t.number for t in view.turns], [c.turn for c in view.calls]) == ([1], [1, 1, 1])


def test_the_predicted_input_after_a_microcompact_drops_by_the_cleared_result(tmp_path):
    import inspector
    from inspector.analysis.predict import predictions

    s = _session(tmp_path)
    analysis = inspector.analyze(s, "o200k_base")
    calls = predictions(analysis.view, analysis.table)
    counts = analysis.table.counts
    full, cleared = counts[2].total, counts[7].total
    assert (full, cleared) == (6004, 11)  # 3,000 x 'line\n' and the marker, 4 framing each
    # the fit carries the latest residual across a microcompact (the agent's hidden prefix is
    # unchanged): call 3's prediction is call 2's recorded input less what the clearing freed
    assert [c.recorded_tokens for c in calls] == [5003, 8003, 5033]
    assert calls[2].baseline_tokens - calls[1].baseline_tokens == cleared - full + counts[3].total + counts[4].total
    assert calls[2].fit.basis == "recorded" and calls[2].fit.anchor[0] == 2


def test_a_microcompact_whose_tool_ids_are_not_in_the_file_changes_nothing(tmp_path):
    lines = _lines()
    lines[5] = {**BOUNDARY, "microcompactMetadata": {**BOUNDARY["microcompactMetadata"], "compactedToolIds": ["toolu_gone"]}}
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    s = load(path)
    assert [m.source.line for m in s.messages] == [1, 2, 3, 4, 5, 7]
    assert [(k.where, k.reason) for k in s.skipped if k.where == "line 6"] == [
        ("line 6", "system/microcompact_boundary (none of its 1 compactedToolIds is in the file)")]


def test_session_wide_figures_count_the_file_once_not_the_copies(tmp_path):
    import inspector
    from inspector.analysis.info import info_report

    s = _session(tmp_path)
    analysis = inspector.analyze(s, "o200k_base")
    report = info_report(analysis)
    totals = analysis.table.totals
    held = [0, 1, 2, 3, 4, 10]  # the messages the file holds; 5-9 are the reader's copies
    assert report["tokens"]["messages"] == sum(totals[i] for i in held)
    assert [row["index"] for row in report["largest_messages"]] == sorted(held, key=lambda i: (-totals[i], i))
    assert [(row["tool"], row["calls"], row["results"]) for row in report["tools"]] == [("Read", 2, 2)]


def test_a_microcompact_a_compaction_supersedes_before_any_call_adds_nothing(tmp_path):
    """Claude Code 2.1.20 (entireio/cli 25/730c662552, lines 371-372) wrote a microcompact and,
    50 s later with no call between, an auto compaction: the summary replaced the context."""
    lines = _lines()[:6] + [
        {"parentUuid": "mc1", "type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "uuid": "b1",
         "sessionId": "s", "compactMetadata": {"trigger": "auto", "preTokens": 176700}},
        _entry("s1", "b1", "user", {"role": "user", "content": "This session is being continued from a previous conversation."}, isCompactSummary=True),
        _entry("a3", "s1", "assistant", _call("msg_3", [{"type": "text", "text": "done"}], 5030), requestId="req_3"),
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    s = load(path)
    assert [(m.source.line, m.starts_context) for m in s.messages] == [(1, False), (2, False), (3, False), (4, False), (5, False), (8, True), (9, False)]
    assert [(k.where, k.reason) for k in s.skipped if k.where == "line 6"] == [
        ("line 6", "system/microcompact_boundary (superseded by the compaction at line 7 before any call)")]


def test_a_file_ending_on_a_microcompact_has_the_next_call_see_it(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in _lines()[:6]))
    s = load(path)
    assert len(s.messages) == 10 and s.messages[5].starts_context and s.messages[7].tool_results[0].text == CLEARED


def test_a_microcompact_is_not_priced_as_a_compaction_summary_call(tmp_path):
    """A microcompact clears results in the client: no model call summarises anything, so money
    lists no summary call for it (a compact_boundary's, which Claude Code makes, is priced). Before:
    the copy that starts the context was priced as 'the summary call of the compaction after call 2'
    (the real 2.1.17 two-microcompact file: 3 summary calls, $0.366, where it records 1)."""
    import inspector
    from inspector.analysis.money import session_money

    analysis = inspector.analyze(_session(tmp_path))
    money = session_money(analysis.view, analysis.table)
    assert [(c.call, c.kind) for c in money.calls] == [(1, "call"), (2, "call"), (3, "call")]
    assert not any("summary call of the compaction" in note for note in money.notes)
