"""Recorded usage pinned to the call it measures, on public transcripts (tests/fixtures/real/public,
provenance there): Codex 0.40, Claude Code 2.0/2.1, mini-swe-agent 2.3."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.formats import load
from inspector.model import ImageBlock, ThinkingBlock, ToolResultBlock

PUBLIC = Path(__file__).parent / "fixtures" / "real" / "public"
CODEX_040 = PUBLIC / "agentcmd_rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl"
CC_2014 = PUBLIC / "claude-reliability_coverage-test-fix.jsonl"
CC_2026 = PUBLIC / "agentcmd_full-session-two.jsonl"
MINI = PUBLIC / "minisweagent_pr854_astropy-12907.traj.json"


def calls(session):
    return [m for m in session.messages if m.role == "assistant"]


def test_codex_040_token_count_goes_to_the_response_after_it():
    s = load(CODEX_040)
    assert (s.agent, s.agent_version, s.model) == ("codex", "0.40.0", "gpt-5-codex")
    a = calls(s)
    # every call has its own figure: the first one (written before any response) included, and
    # the last one (written before the file's last response) too
    assert len(a) == 35 and all(m.usage is not None for m in a)
    # (line of the response, recorded input, output, reasoning) for the first calls and the last
    got = [(m.source.line, m.usage.context_tokens, m.usage.output_tokens, m.usage.reasoning_tokens) for m in a]
    assert got[:4] == [(8, 2899, 100, 64), (14, 3095, 37, 0), (20, 3212, 38, 0), (26, 3330, 39, 0)]
    assert got[-1] == (208, 28389, 1817, 896)
    first = a[0].usage
    assert (first.input_tokens, first.cache_read_input_tokens, first.model) == (2899 - 2560, 2560, "gpt-5-codex")
    assert not [x for x in s.skipped if "token_count (no model call" in x.reason]
    # the environment context the model saw is a message, not dropped
    assert "<environment_context>" in s.messages[0].text


def test_codex_040_follow_gives_the_same_usage(tmp_path):
    from inspector.follow import Follower

    target = tmp_path / CODEX_040.name
    lines = CODEX_040.read_bytes().splitlines(keepends=True)
    target.write_bytes(b"".join(lines[:7]))  # up to and including the first token_count
    follower = Follower(target, "codex")
    assert calls(follower.session) == []
    with open(target, "ab") as fh:
        fh.write(b"".join(lines[7:]))
    follower.poll()
    assert [m.usage for m in calls(follower.session)] == [m.usage for m in calls(load(CODEX_040))]


@pytest.mark.parametrize(
    "path, version, model, first, last, count",
    [
        (CC_2014, "2.1.14", "claude-opus-4-5-20251101", (3, 3, 15289, 3257, 3), (38, 0, 22628, 271, 1), 14),
        (CC_2026, "2.0.26", "claude-sonnet-4-5-20250929", (7, 3, 13168, 10793, 7), (41, 4, 36371, 536, 1), 11),
    ],
)
def test_claude_code_usage_once_per_call(path, version, model, first, last, count):
    s = load(path)
    assert (s.agent, s.agent_version, s.model) == ("claude_code", version, model)
    a = calls(s)
    assert len(a) == count  # one per message.id, however many lines the response took
    row = lambda m: (m.source.line, m.usage.input_tokens, m.usage.cache_read_input_tokens, m.usage.cache_creation_input_tokens, m.usage.output_tokens)  # noqa: E731
    assert (row(a[0]), row(a[-1])) == (first, last)
    assert {m.usage.model for m in a} == {model}


def test_claude_code_image_in_a_tool_result_has_its_size():
    s = load(CC_2026)
    images = [p for m in s.messages for b in m.content if isinstance(b, ToolResultBlock) and isinstance(b.content, list) for p in b.content if isinstance(p, ImageBlock)]
    assert [(i.media_type, i.width, i.height) for i in images] == [("image/png", 600, 134)]


def test_mini_swe_agent_2_exit_message_and_usage():
    s = load(MINI)
    assert (s.agent, s.agent_version, s.model) == ("mini-swe-agent", "2.3.0", "deepseek-v4-flash")
    a = calls(s)
    assert len(a) == 64 and len(s.messages) == 129
    u = a[0].usage
    assert (u.input_tokens, u.cache_read_input_tokens, u.output_tokens, u.model) == (25, 1664, 76, "deepseek-v4-flash")
    assert (a[-1].usage.context_tokens, a[-1].usage.output_tokens) == (35424, 79)
    assert (s.skipped[-1].where, s.skipped[-1].kind) == ("$.messages[129]", "ignored")
    assert s.skipped[-1].reason.startswith("exit (")


def test_mini_swe_agent_reasoning_content_is_a_thinking_block(tmp_path):
    import json

    doc = {
        "trajectory_format": "mini-swe-agent-1.1",
        "info": {"mini_version": "2.3.0"},
        "messages": [
            {"role": "user", "content": "fix it"},
            {"role": "assistant", "content": "ok", "reasoning_content": "think first",
             "extra": {"response": {"model": "m1", "usage": {"prompt_tokens": 10, "completion_tokens": 3}}}},
            {"role": "exit", "content": "", "extra": {"exit_status": "Submitted"}},
        ],
    }  # fmt: skip
    path = tmp_path / "t.traj.json"
    path.write_text(json.dumps(doc))
    s = load(path)
    m = s.messages[1]
    assert [type(b).__name__ for b in m.content] == ["ThinkingBlock", "TextBlock"]
    assert isinstance(m.content[0], ThinkingBlock) and m.content[0].thinking == "think first"
    assert (m.usage.input_tokens, m.usage.output_tokens, m.usage.model, s.model) == (10, 3, "m1", "m1")
