"""Claude Code attachment records whose text the model is sent and the file holds: an MCP server's
added instructions, a file's text (an @-mention; the files restored after a compaction) and the
invoked skills given again after a compaction. Structure of public 2.1.144-2.1.177 transcripts,
text made up. Before, they were skipped: the first call after a public 2.1.177 /compact was
predicted 37.5 % low (19,049 against 30,490), now 7.8 %."""

from __future__ import annotations

import orjson

import inspector


def _rec(uuid: str, parent: str | None, **fields) -> dict:
    return {"uuid": uuid, "parentUuid": parent, "sessionId": "s", "version": "2.1.177", "timestamp": "t", **fields}


def _load(tmp_path, rows):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(r) for r in rows) + b"\n")
    return inspector.load(path)


def test_restored_files_skills_and_mcp_instructions_are_counted(tmp_path):
    rows = [
        _rec("b", None, type="system", subtype="compact_boundary", compactMetadata={"trigger": "manual", "preTokens": 224_255}),
        _rec("s", "b", type="user", isCompactSummary=True, message={"role": "user", "content": "This session is being continued from a previous conversation."}),
        _rec("r", "s", type="attachment", attachment={"type": "compact_file_reference", "filename": "/w/PLAN.md", "displayPath": "PLAN.md"}),
        _rec("f", "r", type="attachment", attachment={"type": "file", "filename": "/w/a.md", "displayPath": "a.md", "content": {
            "type": "text", "file": {"filePath": "/w/a.md", "content": "# Design\nKeep it small.", "numLines": 2, "startLine": 1, "totalLines": 2}}}),
        _rec("i", "f", type="attachment", attachment={"type": "invoked_skills", "skills": [
            {"name": "verify", "path": "bundled:verify", "content": "Base directory for this skill: /tmp/verify"},
            {"name": "review", "path": "bundled:review", "content": "Review the diff."}]}),
        _rec("m", "i", type="attachment", attachment={"type": "mcp_instructions_delta", "addedNames": ["Linear"],
                                                       "addedBlocks": ["## Linear\nSend string values as text."], "removedNames": []}),
        _rec("p", "m", type="user", message={"role": "user", "content": "go on"}),
    ]
    session = _load(tmp_path, rows)
    summary, restored, prompt = session.messages
    assert summary.starts_context and prompt.injected is None and prompt.text == "go on"
    assert (restored.injected, restored.extra["record"], restored.extra["lines"]) == ("attachment", "attachment/file", [4, 5, 6])
    assert [(b.extra["attachment"], b.text) for b in restored.content] == [
        ("file", "# Design\nKeep it small."),
        ("invoked_skills", "Base directory for this skill: /tmp/verify\nReview the diff."),
        ("mcp_instructions_delta", "## Linear\nSend string values as text."),
    ]
    reasons = [s.reason for s in session.skipped if "attachment" in s.reason]
    assert reasons == ["attachment/compact_file_reference (no text the file holds reaches the model; not counted)"]


def test_a_file_attachment_without_text_is_skipped(tmp_path):
    image = {"type": "file", "filename": "/w/a.png", "content": {"type": "image", "file": {"base64": "AAAA"}}}
    session = _load(tmp_path, [_rec("p", None, type="user", message={"role": "user", "content": "look"}),
                               _rec("f", "p", type="attachment", attachment=image)])
    assert [m.text for m in session.messages] == ["look"]
    assert [s.reason for s in session.skipped] == ["attachment/file (no text the file holds reaches the model; not counted)"]
