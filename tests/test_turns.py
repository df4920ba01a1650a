"""Turns start at prompts a person (or the calling program) gave: what agents' harnesses put in
the user role belongs to the turn it is in (inspector.units, readers' ``Message.injected``).

Real transcripts pin the counts: each is the number of prompts its file records (Codex
``event_msg/user_message``, what a person typed in Claude Code, the SWE-agent task)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from inspector import load
from inspector.model import Message, Session, TextBlock, ToolCallBlock, ToolResultBlock
from inspector.units import INJECTED, INJECTED_MARKERS, build_view, injected_kind

REAL = Path(__file__).resolve().parent / "fixtures" / "real"


def prompts_and_kinds(path: Path):
    view = build_view(load(path))
    prompts = [t.user_index for t in view.turns if t.number > 0]
    return view, prompts, Counter(k for k in view.injected if k)


@pytest.mark.parametrize(
    "path, calls, prompts, kinds",
    [
        # SWE-agent/EnIGMA demo: the task, then 20 observations of 21 actions: one turn
        ("public/sweagent_ctf_i_got_id_demo.traj", 21, [1], {"observation": 20}),
        # mini-swe-agent 2.3 (tool-calling): the task, 64 calls on it
        ("public/minisweagent_pr854_astropy-12907.traj.json", 64, [1], {}),
        # Codex 0.40: <environment_context>, then the one prompt (one user_message event)
        ("public/agentcmd_rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl", 35, [1], {"environment_context": 1}),
        # Claude Code 2.0.26: /clear (caveat, command, its output), 4 prompts, 2 interruptions
        (
            "public/agentcmd_full-session-two.jsonl", 11, [3, 7, 15, 25],
            {"meta": 1, "command": 1, "command_output": 1, "interrupt": 2},
        ),
        # Claude Code 2.0.27: /clear, then 3 prompts
        ("claude_code/agentcmd_full-session-four.jsonl", 30, [3, 27, 31], {"meta": 1, "command": 1, "command_output": 1}),
        # Claude Code 2.1.14: one prompt, two stop-hook re-prompts (isMeta) inside its turn
        ("public/claude-reliability_coverage-test-fix.jsonl", 14, [0], {"meta": 2}),
        # Claude Code 2.0.76: 5 prompts, then /compact: summary, caveat, command, output
        (
            "claude_code/fasthooks_sample_main_transcript.jsonl", 12, [0, 4, 8, 12, 16],
            {"summary": 1, "meta": 1, "command": 1, "command_output": 1},
        ),
        # Gemini CLI: 3 prompts ("python" answers the model's question: a person typed it)
        ("public/agentcmd_session-2025-10-27T19-55-981c87cb.json", 15, [0, 6, 9], {}),
    ],
)
def test_real_sessions_have_one_turn_per_prompt(path, calls, prompts, kinds):
    view, found, found_kinds = prompts_and_kinds(REAL / path)
    assert len(view.calls) == calls
    assert found == prompts
    assert dict(found_kinds) == kinds
    assert all(view.flags[i] & INJECTED for i, k in enumerate(view.injected) if k)


def test_codex_fixture_harness_messages_and_compaction_replay_open_no_turn():
    view, prompts, kinds = prompts_and_kinds(REAL / "codex" / "rollout-2026-02-11T14-05-00-0195a3c2-7b1e-7f40-9d2a-41c8e07b5a19.jsonl")
    assert prompts == [4, 13]
    assert kinds == {"instructions": 1, "environment_context": 1, "compaction": 2}
    # the compaction (mid-session) stays in the turn it happened in
    assert [view.turn_of[i] for i in (10, 11, 12, 13)] == [1, 1, 1, 2]


def test_swe_agent_observation_stays_in_the_task_turn():
    view, prompts, kinds = prompts_and_kinds(REAL / "swe_agent" / "text__slugify-17.traj")
    assert prompts == [1] and kinds == {}  # observations are tool messages here
    view, prompts, kinds = prompts_and_kinds(REAL / "swe_agent" / "slugify-17.traj.json")
    assert prompts == [1] and kinds == {"observation": 1}


# ------------------------------------------------------------------------------------------
# the rule on small sessions


def msg(i: int, role: str, text: str = "", **fields) -> Message:
    return Message(index=i, role=role, content=[TextBlock(text=text)], **fields)


def turns_of(*messages: Message) -> list[tuple[int, int, int, int | None, int | None]]:
    view = build_view(Session(format="openai", messages=list(messages)))
    return [(t.number, t.start, t.stop, t.user_index, t.final_index) for t in view.turns]


def test_every_marker_is_recognised_after_leading_space_and_only_at_the_start():
    for prefix, kind in INJECTED_MARKERS:
        assert injected_kind("\n " + prefix + " ...") == kind
        assert injected_kind("see " + prefix) is None


def test_known_harness_texts_open_no_turn_in_any_format():
    # a Codex request captured as OpenAI chat: instructions and environment first, then the prompt
    assert turns_of(
        msg(0, "system", "You are Codex."),
        msg(1, "user", "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>run tests</INSTRUCTIONS>"),
        msg(2, "user", "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"),
        msg(3, "user", "fix the bug"),
        msg(4, "assistant", "done"),
        msg(5, "user", "[Request interrupted by user]"),
        msg(6, "user", "and the test"),
        msg(7, "assistant", "added"),
        msg(8, "user", "Stop hook feedback:\nlint failed"),
        msg(9, "assistant", "fixed the lint"),
    ) == [(0, 0, 3, None, None), (1, 3, 6, 3, 4), (2, 6, 10, 6, 9)]


def test_a_command_is_a_prompt_unless_local_output_answers_it():
    caveat = "<local-command-caveat>Caveat: The messages below were generated by the user while running local commands.</local-command-caveat>"
    command = "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>"
    view = build_view(
        Session(
            format="openai",
            messages=[
                msg(0, "user", caveat),
                msg(1, "user", command),
                msg(2, "user", "<local-command-stdout></local-command-stdout>"),
                msg(3, "user", "<command-name>/review</command-name>\n<command-args>42</command-args>"),
                msg(4, "user", "Review pull request 42.", injected="meta"),  # the command's expansion
                msg(5, "assistant", "Looks good."),
            ],
        )
    )
    assert view.injected == ["caveat", "command", "command_output", None, "meta", None]
    assert [(t.number, t.start, t.user_index) for t in view.turns] == [(0, 0, None), (1, 3, 3)]


def test_summary_stays_in_its_turn_and_a_turn_ending_with_harness_text_keeps_its_answer():
    assert turns_of(
        msg(0, "user", "refactor the parser"),
        msg(1, "assistant", "step one done"),
        msg(2, "user", "This session is being continued from a previous conversation. Summary: ...", starts_context=True),
        msg(3, "assistant", "finished"),
        msg(4, "user", "<system-reminder>todo list is empty</system-reminder>"),
    ) == [(1, 0, 5, 0, 3)]


def test_demonstrations_are_setup_and_a_session_with_no_prompt_takes_its_first_user_message():
    # SWE-agent: system, a demonstration, the task, an action and its observation
    assert turns_of(
        msg(0, "system", "You are an agent."),
        msg(1, "user", "Here is a demonstration: ...", injected="demonstration"),
        msg(2, "user", "Solve issue 7.", injected="observation"),
        msg(3, "assistant", "ls"),
        msg(4, "user", "file.py", injected="observation"),
    ) == [(0, 0, 2, None, None), (1, 2, 5, 2, None)]


def test_results_with_harness_text_stay_in_their_exchange_and_open_no_turn():
    call = ToolCallBlock(id="c1", name="bash", arguments="{}")
    view = build_view(
        Session(
            format="anthropic",
            messages=[
                msg(0, "user", "run it"),
                Message(index=1, role="assistant", content=[call]),
                Message(
                    index=2, role="user",
                    content=[TextBlock(text="[Request interrupted by user for tool use]"), ToolResultBlock(tool_call_id="c1", content="x")],
                ),
                msg(3, "assistant", "stopped"),
            ],
        )
    )
    assert [t.number for t in view.turns] == [1] and view.unit_of[1] == view.unit_of[2]
    assert view.injected[2] == "interrupt"
