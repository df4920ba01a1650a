"""Claude Code attachment records written between a tool call and its result (real excerpt)."""

from __future__ import annotations

from pathlib import Path

import inspector
from inspector.model import TextBlock, ToolResultBlock
from inspector.providers import check

FIX = Path(__file__).parent / "fixtures" / "real" / "claude_code"
PRETOOL = FIX / "entiresem_cc2.1.218_pretooluse_context.jsonl"


def test_a_pre_tool_hooks_context_written_before_the_result_travels_after_the_result():
    """Claude Code 2.1.218 (entire-sem b9, lines 844-848): a PreToolUse hook's additional context
    is written between the Read call and its result. Claude Code merges the two user messages with
    the tool result first (the API rejects anything else); before, the reader sent the hook text
    as its own message between call and result, and both providers' checks refused the request."""
    session = inspector.load(PRETOOL)
    assert [(m.role, m.source.line) for m in session.messages] == [("assistant", 1), ("user", 3), ("assistant", 5)]
    merged = session.messages[1]
    assert [type(b) for b in merged.content] == [ToolResultBlock, TextBlock]
    assert merged.content[0].tool_call_id == "toolu_01FxdZD2JhaiN7KUYZSqaJ2t"
    assert merged.content[1].extra == {"attachment": "hook_additional_context"}
    assert merged.content[1].text.startswith("[vercel-plugin] Best practices auto-suggested")
    assert merged.extra["lines"] == [3, 4] and merged.injected == "attachment"
    assert check(session.messages) == {"openai": [], "anthropic": []}
    reasons = [s.reason for s in session.skipped]
    assert reasons == ["attachment/hook_success (no text the file holds reaches the model; not counted)"]


def test_followed_the_hook_text_waits_as_a_message_then_joins_the_result(tmp_path):
    """Followed line by line, the hook text is a message of its own until the result comes; then
    the update replaces it (from its index) by the merged message, as reading the file whole does."""
    from inspector.follow import Follower

    lines = PRETOOL.read_bytes().splitlines()
    live = tmp_path / "live.jsonl"
    live.write_bytes(b"\n".join(lines[:3]) + b"\n")
    follower = Follower(live, "claude_code")
    assert [m.source.line for m in follower.session.messages] == [1, 3]
    with open(live, "ab") as fh:
        fh.write(b"\n".join(lines[3:]) + b"\n")
    update = follower.poll()
    assert update.first == 1
    whole = inspector.load(PRETOOL)
    assert [(m.role, [type(b) for b in m.content]) for m in follower.session.messages] == \
        [(m.role, [type(b) for b in m.content]) for m in whole.messages]


def test_the_merged_hook_context_opens_no_turn(tmp_path):
    """The hook text is Claude Code's, not typed: joined to the tool result it must not make that
    message a person's interjection that opens a turn. Before, a prompt line put before the real
    excerpt gave 2 turns (the result message opening turn 2), and fifo protected only that second
    "turn" (entire-sem b9: 1 turn -> 2, fifo at 4,000 kept 76,563 tokens instead of 81,076)."""
    from inspector.units import build_view

    prompt = ('{"parentUuid":null,"isSidechain":false,"type":"user","uuid":"c18466c1-d13f-4eaf-bdcf-e95e07c0ab21",'
              '"message":{"role":"user","content":"Read the README"}}')
    live = tmp_path / "s.jsonl"
    live.write_bytes(prompt.encode() + b"\n" + PRETOOL.read_bytes())
    view = build_view(inspector.load(live))
    assert [m.source.line for m in view.session.messages] == [1, 2, 4, 6]
    assert view.turn_of == [1, 1, 1, 1] and len(view.turns) == 1
    assert view.injected == [None, None, "attachment", None]


PARALLEL_SKILL = FIX / "entireskills_cc2.1.156_parallel_skill_result.jsonl"


def test_a_parallel_calls_result_written_after_a_skills_body_joins_the_other_result():
    """Claude Code 2.1.156 (entireio/skills, lines 28-34): Skill and Bash called in one response,
    the skill's body (isMeta) written between the Skill's result and the Bash call and result.
    Before, the Bash result stood after the skill's text as a message of its own: both providers'
    checks refused the recorded history (missing result for the Bash call, then an orphan result)."""
    session = inspector.load(PARALLEL_SKILL)
    assert [(m.role, m.source.line, m.injected) for m in session.messages] == \
        [("assistant", 1, None), ("user", 3, None), ("user", 4, "meta")]
    results = session.messages[1]
    assert [b.tool_call_id for b in results.content] == ["toolu_016Pp8TJ5wU9NAXZCeCPJkd1", "toolu_01UaK4KVtZ89vtJpjqbhGbZh"]
    assert results.extra["lines"] == [3, 7]
    assert session.messages[2].content[0].text.startswith("Base directory for this skill:")
    assert check(session.messages) == {"openai": [], "anthropic": []}


def test_followed_the_parallel_result_joins_the_result_message_it_belongs_to(tmp_path):
    from inspector.follow import Follower

    lines = PARALLEL_SKILL.read_bytes().splitlines()
    live = tmp_path / "live.jsonl"
    live.write_bytes(b"\n".join(lines[:6]) + b"\n")
    follower = Follower(live, "claude_code")
    assert len(follower.session.messages) == 3
    with open(live, "ab") as fh:
        fh.write(lines[6] + b"\n")
    update = follower.poll()
    assert update.first == 1
    whole = inspector.load(PARALLEL_SKILL)
    assert [(m.role, m.content) for m in follower.session.messages] == [(m.role, m.content) for m in whole.messages]
