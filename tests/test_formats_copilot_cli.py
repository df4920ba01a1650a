"""GitHub Copilot CLI ``events.jsonl``: real excerpts of two public Copilot CLI 1.0.64 sessions
(tests/fixtures/real/copilot_cli/PROVENANCE.md) read into messages, pairs, models and skipped
events; a bad line, a file of no events, following a growing file and discovery."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import orjson
import pytest

import inspector
import inspector.formats.builtin  # noqa: F401  (registers the formats in their canonical order first)
from inspector.discover import find_sessions
from inspector.follow import Follower
from inspector.formats import SessionFormatError, detect, get_format, load
from inspector.model import TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from cli_helpers import run

REAL = Path(__file__).parent / "fixtures" / "real" / "copilot_cli"
START = REAL / "hooks_claude-sonnet-4.6_lines1-42.jsonl"
LATER = REAL / "hooks_claude-sonnet-4.6_lines278-289.jsonl"
PASS = REAL / "pass_gpt-5.3-codex-spark.jsonl"

HOOKS = "hook.start (a hook the CLI ran, not sent to the model)", "hook.end (a hook the CLI ran, not sent to the model)"
STARTED = "tool.execution_start (the call is read from its assistant.message)"
TURN = "assistant.turn_start (turn boundary)", "assistant.turn_end (turn boundary)"


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def test_the_format_is_detected_and_declares_its_facts():
    assert {detect(p).name for p in (START, LATER, PASS)} == {"copilot_cli"}
    fmt = get_format("copilot_cli")
    assert (fmt.provider, fmt.follow, fmt.suffix, fmt.discovery.agent, fmt.discovery.env) == ("openai", "stream", ".jsonl", "copilot", "COPILOT_HOME")


def test_a_session_start_system_prompt_user_message_and_calls_paired_with_their_results():
    s = load(START)
    assert (s.format, s.agent, s.agent_version, s.model, s.provider) == ("copilot_cli", "copilot-cli", "1.0.64", "claude-sonnet-4.6", "anthropic")
    assert s.extra == {"sessionId": "10fb4666-56f0-4352-90fc-715caf95b418", "startTime": "2026-06-25T01:50:34.040Z", "cwd": "/home/entity/projects/EntityProcess/agentv"}
    assert [(m.index, m.role, m.source.line) for m in s.messages] == [
        (0, "system", 5), (1, "user", 6), (2, "assistant", 10), (3, "tool", 16), (4, "assistant", 19), (5, "tool", 27),
        (6, "assistant", 31), (7, "tool", 38), (8, "tool", 41),
    ]  # fmt: skip
    system, user = s.messages[0], s.messages[1]
    assert system.text.startswith("You are the GitHub Copilot CLI, a terminal assistant built by GitHub.") and len(system.text) == 46217
    # the text the CLI sends (transformedContent), not the typed one
    assert user.text.startswith("<current_datetime>2026-06-25T03:50:44.763+02:00</current_datetime>\n\ninvestigate why i get")
    assert user.text.endswith("</system_reminder>") and user.injected is None
    first = s.messages[2]
    assert [type(b) for b in first.content] == [ThinkingBlock, ToolCallBlock]
    assert first.content[0].thinking == "Let me investigate the hook error by looking at the `.github/hooks/entire.json` file and understanding what's happening."
    assert first.tool_calls[0].arguments.startswith('{"command":"cat /home/entity/projects/EntityProcess/agentv/.github/hooks/entire.json')
    assert first.extra == {
        "id": "7991521f-ced3-430d-8251-cb60fc751bef", "timestamp": "2026-06-25T01:50:51.195Z", "messageId": "4eaa7b50-79db-4f2d-814c-8fe014564d30",
        "turnId": "0", "apiCallId": "msg_bdrk_01STdeZpePhau9NBqpxBfaiw", "encrypted_reasoning": True,
    }  # fmt: skip
    calls = [(m.index, m.usage.model, m.usage.output_tokens, m.usage.input_tokens) for m in s.messages if m.role == "assistant"]
    assert calls == [(2, "claude-sonnet-4.6", 174, None), (4, "claude-sonnet-4.6", 97, None), (6, "claude-sonnet-4.6", 274, None)]
    # two parallel calls; their results arrive in the other order, each paired by its id
    pairs = [(c.id, c.name) for m in s.messages for c in m.tool_calls]
    results = [(r.tool_call_id, r.name, r.is_error) for m in s.messages for r in m.tool_results]
    assert pairs == [
        ("toolu_bdrk_01SMxhwX6xh7yd7zJ2Mvkhq7", "bash"), ("toolu_bdrk_016Vhz9rZBJHNBAPu8Crj4h1", "bash"),
        ("toolu_bdrk_013h882T8SQbDaeiEQaz7YWX", "bash"), ("toolu_bdrk_01JfzENrPqc17GSHwJMF3UXJ", "bash"),
    ]  # fmt: skip
    assert results == [(pairs[0][0], "bash", False), (pairs[1][0], "bash", False), (pairs[3][0], "bash", False), (pairs[2][0], "bash", False)]
    assert s.messages[5].tool_results[0].content == "/home/entity/.local/bin/entire\nEntire CLI 0.7.6\nGo version: go1.26.4\nOS/Arch: linux/amd64\nexit: 0\n<shellId: 1 completed with exit code 0>"
    assert Counter(x.reason for x in s.skipped) == {
        HOOKS[0]: 9, HOOKS[1]: 9, STARTED: 4, TURN[0]: 3, TURN[1]: 3,
        "permission.requested (a permission prompt, not sent to the model)": 1, "permission.completed (a permission prompt, not sent to the model)": 1,
        "session.permissions_changed (session state, not sent to the model)": 1,
    }  # fmt: skip
    assert {x.kind for x in s.skipped} == {"ignored"} and len(s.skipped) == 42 - 9 - 2  # every line but the messages, start and model change
    assert [x.where for x in s.skipped if x.reason.startswith("permission.")] == ["line 23", "line 24"]


def test_a_notification_is_an_injected_user_message_and_a_failed_call_an_error_result():
    s = load(LATER)
    assert [(m.role, m.source.line, m.injected) for m in s.messages] == [("user", 2, "notification"), ("assistant", 3, None), ("tool", 8, None), ("tool", 11, None)]
    assert s.messages[0].text.startswith('<system_notification>\nShell command "Check worktrees for entire settings" (shellId: 30) has completed successfully.')
    assert [(c.name, c.arguments) for c in s.messages[1].tool_calls][0] == ("read_bash", '{"shellId":"30","delay":2}')
    failed, done = s.messages[2].tool_results[0], s.messages[3].tool_results[0]
    assert (failed.name, failed.is_error, failed.content.startswith("shellId: 30 was already stopped via stop_bash.")) == ("read_bash", True, True)
    assert (done.name, done.is_error, done.content) == ("bash", False, "dashboard-pr1500\nproject-coordinator\n<shellId: 31 completed with exit code 0>")
    # no session.start in the excerpt: the model is the messages' own
    assert (s.model, s.provider, s.agent_version, s.messages[1].usage.output_tokens) == ("claude-sonnet-4.6", "anthropic", None, 933)


def test_a_whole_run_its_selected_model_and_shutdown_totals():
    s = load(PASS)
    assert (s.model, s.provider, s.agent_version) == ("gpt-5.3-codex-spark", None, "1.0.64-1")
    assert [(m.role, m.source.line) for m in s.messages] == [("system", 4), ("user", 5), ("assistant", 9)]
    assert s.messages[2].content == [] and (s.messages[2].usage.model, s.messages[2].usage.output_tokens) == ("gpt-5.3-codex-spark", 101)
    shutdown = s.extra["shutdown"]
    assert (shutdown["currentTokens"], shutdown["systemTokens"], shutdown["toolDefinitionsTokens"], shutdown["conversationTokens"]) == (13225, 8702, 4426, 94)
    assert shutdown["modelMetrics"]["gpt-5.3-codex-spark"]["usage"]["inputTokens"] == 12847
    assert Counter(x.reason for x in s.skipped) == {HOOKS[0]: 4, HOOKS[1]: 4, TURN[0]: 1, TURN[1]: 1, "session.shutdown (totals read into the session's extra)": 1}


def test_the_system_prompt_recorded_again_is_read_once_and_a_changed_model_is_the_next_calls(tmp_path):
    lines = _lines(PASS)
    events = [orjson.loads(x) for x in lines]
    system, user, reply = (next(e for e in events if e["type"] == t) for t in ("system.message", "user.message", "assistant.message"))
    change = {"type": "session.model_change", "data": {"newModel": "claude-opus-4.8"}, "id": "m", "timestamp": "t", "parentId": None}
    other = {**system, "data": {**system["data"], "content": "Another prompt."}}
    later = {**reply, "data": {k: v for k, v in reply["data"].items() if k != "model"}}
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"\n".join(lines + [orjson.dumps(x) for x in (system, user, change, later, other, user)]) + b"\n")
    s = load(path)
    assert [(m.role, m.source.line) for m in s.messages] == [("system", 4), ("user", 5), ("assistant", 9), ("user", 17), ("assistant", 19), ("system", 20), ("user", 21)]
    assert [x.where for x in s.skipped if x.reason == "system.message (the same system prompt again)"] == ["line 16"]
    assert [m.usage.model for m in s.messages if m.usage] == ["gpt-5.3-codex-spark", "claude-opus-4.8"]
    assert (s.model, s.provider) == ("gpt-5.3-codex-spark", None)  # one call each: the first seen leads


def test_sub_agent_events_unrequested_results_and_unknown_events_are_skipped_with_their_reason(tmp_path):
    result = {"type": "tool.execution_complete", "data": {"toolCallId": "nobody", "success": True, "result": {"content": "x"}}, "id": "a", "timestamp": "t", "parentId": None}
    events = [
        {**result, "agentId": "agent-7"},
        {**result, "data": {**result["data"], "parentToolCallId": "task-1"}},
        result,
        {"type": "session.compaction_complete", "data": {"success": True, "summaryContent": "s"}, "id": "b", "timestamp": "t", "parentId": "a"},
        {"type": "brand.new", "data": {}, "id": "c", "timestamp": "t", "parentId": "b"},
    ]
    path = tmp_path / "events.jsonl"
    path.write_bytes(START.read_bytes() + b"".join(orjson.dumps(e) + b"\n" for e in events))
    s = load(path)
    assert len(s.messages) == 9
    assert [(x.where, x.reason) for x in s.skipped[-5:]] == [
        ("line 43", "tool.execution_complete (sub-agent agent-7: not in the main context)"),
        ("line 44", "tool.execution_complete (sub-agent of call task-1: not in the main context)"),
        ("line 45", "tool.execution_complete (a call no assistant message made)"),
        ("line 46", "session.compaction_complete (not applied: no public file shows what follows one)"),
        ("line 47", "brand.new (unknown event type)"),
    ]  # fmt: skip


def test_a_bad_line_is_reported_with_its_number_and_a_file_of_no_events_is_an_error(tmp_path):
    lines = _lines(PASS)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\n".join(lines[:5] + [b'{"type": "user.message", "da'] + lines[5:]) + b"\n")
    s = load(bad)
    assert [(m.role, m.source.line) for m in s.messages] == [("system", 4), ("user", 5), ("assistant", 10)]
    assert [(x.where, x.kind) for x in s.skipped if x.kind == "error"] == [("line 6", "error")]
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_bytes(b'{"type": "user.message", "data": {"content": 3}, "id": "x", "timestamp": "t", "parentId": null}\n')
    s = load(wrong, format="copilot_cli")
    assert (s.messages, [(x.where, x.reason) for x in s.skipped]) == ([], [("line 1", "malformed user.message event (TypeError: content is int, not a string)")])
    empty = tmp_path / "none.jsonl"
    empty.write_bytes(b'{"role": "user", "content": "hi"}\n')
    with pytest.raises(SessionFormatError, match=r"none\.jsonl.*line 1.*no Copilot CLI events found"):
        load(empty, format="copilot_cli")


def test_following_a_growing_file_gives_the_session_reading_it_does(tmp_path):
    body = START.read_bytes() + LATER.read_bytes()
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"")
    follower = Follower(path, "copilot_cli")
    seen: dict[int, str] = {}
    for start in range(0, len(body), 4093):
        with open(path, "ab") as fh:
            fh.write(body[start : start + 4093])
        update = follower.poll()
        assert update.first == len(seen)
        seen.update((m.index, m.role) for m in update.messages)
    whole = inspector.load(path)
    assert [m.model_dump() for m in follower.session.messages] == [m.model_dump() for m in whole.messages]
    assert follower.session.skipped == whole.skipped and len(seen) == len(whole.messages) == 13
    assert (follower.session.model, follower.session.provider) == ("claude-sonnet-4.6", "anthropic")


def test_sessions_are_discovered_under_copilot_home(tmp_path, monkeypatch):
    home = tmp_path / "copilot"
    folder = home / "session-state" / "10fb4666-56f0-4352-90fc-715caf95b418"
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_bytes(START.read_bytes())
    (folder / "workspace.yaml").write_text("id: x\n")
    monkeypatch.setenv("COPILOT_HOME", str(home))
    found = find_sessions(claude_dir=tmp_path / "none", codex_home=tmp_path / "none", agent="copilot-cli")
    assert [(f.agent, f.format, f.project, f.session_id, f.messages) for f in found] == [
        ("copilot", "copilot_cli", "/home/entity/projects/EntityProcess/agentv", "10fb4666-56f0-4352-90fc-715caf95b418", 4)
    ]
    assert found[0].path == folder / "events.jsonl"


def test_text_blocks_only_where_the_file_has_text():
    s = load(START)
    assert all(isinstance(b, (TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock)) for m in s.messages for b in m.content)
    assert [m.index for m in s.messages if any(isinstance(b, TextBlock) for b in m.content)] == [0, 1]


@pytest.mark.parametrize("path", [START, LATER, PASS], ids=lambda p: p.name)
def test_every_command_reads_the_real_files(capsys, tmp_path, path):
    for args in (("info",), ("plan",), ("replay", "--strategy", "fifo"), ("compare",)):
        code, out, err = run(capsys, args[0], str(path), *args[1:], "--json")
        assert (code, err) == (0, ""), args
    for target in ("openai", "anthropic"):
        code, out, err = run(capsys, "export", str(path), "--to", target, "-o", str(tmp_path / f"{target}.json"))
        assert code == 0, err
        assert json.loads((tmp_path / f"{target}.json").read_text())["messages"]


def test_a_file_of_no_events_exits_2_naming_it_and_its_line(capsys, tmp_path):
    path = tmp_path / "none.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n')
    code, out, err = run(capsys, "info", "--format", "copilot_cli", str(path))
    assert code == 2 and f"{path}, line 1: no Copilot CLI events found." in err


def test_the_tool_definitions_the_shutdown_record_states_are_the_part_not_in_the_file(capsys):
    """The file shows the system prompt but not the tool definitions; its shutdown record states
    their size (4,426 tokens). That is the first call's part not in the file ("stated"), not 0:
    8,795 counted + 4,426 = 13,221 against the 12,847 the same record gives as the call's input."""
    from inspector.cli.main import main

    s = load(PASS)
    assert s.extra["stated_hidden_tokens"] == [4426, "Copilot CLI's shutdown record: its tool definitions, 4,426 tokens (line 15)"]
    assert main(["replay", str(PASS), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    first = d["calls"][0]
    assert (first["baseline_tokens"], first["not_in_file"], first["predicted_tokens"]) == (8795, 4426, 13221)
    assert first["not_in_file_how"] == "stated: Copilot CLI's shutdown record: its tool definitions, 4,426 tokens (line 15)"
    assert d["fit"]["basis"] == "stated"
    assert load(LATER).extra.get("stated_hidden_tokens") is None  # no shutdown record: nothing stated
