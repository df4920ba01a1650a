"""OpenHands V1 conversations (software-agent-sdk): the directory layout, messages as the SDK's
View sends them, parallel calls, terminal observations, the condensation's view, recorded usage
per response, the active branch of the event tree, and bad input."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import inspector
from inspector.analysis.predict import predictions
from inspector.cli.main import main
from inspector.cli.report import default_profile
from inspector.formats import load
from inspector.formats.base import FORMATS, Probe, SessionFormatError
from inspector.formats.openhands_v1 import DISCOVERY
from inspector.units import build_view

CONV = Path(__file__).parent / "fixtures" / "constructed" / "openhands_v1" / "5f1e2d3c4b5a69788796a5b4c3d2e1f0"
EVENTS = CONV / "events"


def eid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def _events() -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(EVENTS.iterdir())]


@pytest.fixture
def conv(tmp_path: Path) -> Path:
    return Path(shutil.copytree(CONV, tmp_path / CONV.name))


def test_detection_of_the_directory_its_events_and_base_state():
    for path in (CONV, EVENTS, CONV / "base_state.json"):
        scores = {n: f.detect(Probe(path)) for n, f in FORMATS.items()}
        assert scores.pop("openhands_v1") == 95
        assert max(scores.values()) <= 1, path
    one_event = next(EVENTS.iterdir())
    assert FORMATS["openhands_v1"].detect(Probe(one_event)) == 0


def test_messages_as_the_sdk_sends_them():
    s = load(CONV)
    assert (s.format, s.agent, s.model, s.provider) == ("openhands_v1", "openhands", "claude-sonnet-4-5-20250929", "anthropic")
    assert s.extra["llm_model"] == "anthropic/claude-sonnet-4-5-20250929"
    files = [str(m.source).split("event-")[1][:5] for m in s.messages]
    assert [(m.role, f) for m, f in zip(s.messages, files)] == [
        ("system", "00000"), ("user", "00001"), ("assistant", "00002"), ("tool", "00003"),
        ("assistant", "00004"), ("tool", "00006"), ("tool", "00007"), ("assistant", "00008"), ("tool", "00009"),
        ("user", "00001"), ("assistant", "00008"), ("tool", "00009"),
        ("assistant", "00011"), ("tool", "00012"), ("assistant", "00013"),
    ]  # fmt: skip
    parallel = s.messages[4]  # events 4 and 5: one response, one message, both calls
    assert parallel.text == "The add function looks wrong. Let me view it and the test."
    assert [(c.id, c.name) for c in parallel.tool_calls] == [("toolu_02", "file_editor"), ("toolu_03", "terminal")]
    assert parallel.tool_calls[1].arguments == '{"command": "cat /workspace/calc/test_calc.py"}'
    assert parallel.extra["event_ids"] == [eid(4), eid(5)]
    result = s.messages[3].tool_results[0]
    assert (result.tool_call_id, result.name, result.is_error) == ("toolu_01", "terminal", False)
    assert result.text.endswith(
        "1 failed, 1 passed in 0.02s\n[Current working directory: /workspace/calc]\n"
        "[Python interpreter: /usr/bin/python]\n[Command finished with exit code 1]"
    )
    assert s.messages[5].tool_results[0].text.startswith("Here's the result of running `cat -n`")
    assert [(t.name, t.parameters, t.extra["action_type"]) for t in s.tools] == [
        ("terminal", {}, "TerminalAction"), ("file_editor", {}, "FileEditorAction"), ("finish", {}, "FinishAction"),
    ]  # fmt: skip
    assert [(x.where, x.reason, x.kind) for x in s.skipped] == [
        ("events/event-00014-00000000-0000-4000-8000-000000000014.json", "ConversationStateUpdateEvent", "ignored"),
    ]
    assert s.extra["conversation_id"] == "5f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"


def test_condensation_sends_what_the_view_keeps():
    s = load(CONV)
    start, copy_action, copy_result = s.messages[9:12]
    # the SDK drops events 2-7 and inserts the summary at offset 2, after the system prompt and the
    # task: two adjacent user messages, which it sends as one
    assert (start.starts_context, start.is_summary, start.injected, start.extra["copy_of_event"]) == (True, True, "compaction", eid(1))
    assert start.extra["merged_events"] == [eid(1), f"{eid(10)}-summary"]
    assert [b.text[:30] for b in start.content] == ["The test suite in /workspace/c", "USER_CONTEXT: fix the failing "]
    assert (copy_action.resent, copy_action.usage, copy_action.extra["copy_of_event"]) == (True, None, eid(8))
    assert copy_result.tool_results[0].tool_call_id == "toolu_04"
    view = build_view(s)
    assert [(u.kind.value, u.indices) for u in view.units] == [
        ("system", (0,)), ("user", (1,)), ("tool_exchange", (2, 3)), ("tool_exchange", (4, 5, 6)), ("tool_exchange", (7, 8)),
        ("summary", (9,)), ("tool_exchange", (10, 11)), ("tool_exchange", (12, 13)), ("assistant", (14,)),
    ]  # fmt: skip
    assert [(c.message_index, c.context_start) for c in view.calls] == [(2, 0), (4, 0), (7, 0), (12, 9), (14, 9)]
    assert s.extra["condensations"] == [{"event_id": eid(10), "forgotten": 6, "summary": True}]


def test_recorded_usage_per_response_and_predictions():
    s = load(CONV)
    calls = [m for m in s.messages if m.usage is not None]
    assert [m.index for m in calls] == [2, 4, 7, 12, 14]
    assert [(u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens, u.output_tokens) for u in (m.usage for m in calls)] == [
        (4, 0, 3008, 61), (4, 3008, 199, 118), (4, 3207, 228, 142), (4, 2900, 327, 52), (4, 3230, 86, 38),
    ]  # fmt: skip
    assert s.extra["other_calls"] == {"condenser": {"calls": 1, "input_tokens": 1104, "output_tokens": 87}}
    analysis = inspector.analyze(s, None, default_profile(s))
    predicted = predictions(analysis.view, analysis.table)
    assert [(c.message_index, c.baseline_tokens, c.recorded_tokens, c.predicted_tokens) for c in predicted] == [
        (2, 549, 3012, 549), (4, 748, 3211, 3211), (7, 976, 3439, 3439), (12, 768, 3231, 3231), (14, 857, 3320, 3320),
    ]  # fmt: skip


def test_separately_reported_cache_reads_are_not_inside_prompt_tokens():
    from inspector.formats.openhands_v1 import token_usage

    litellm = token_usage({"prompt_tokens": 1000, "cache_read_tokens": 900, "cache_write_tokens": 50, "completion_tokens": 7})
    acp = token_usage({"prompt_tokens": 40, "cache_read_tokens": 900, "completion_tokens": 7, "reasoning_tokens": 3})
    assert (litellm.input_tokens, litellm.context_tokens) == (50, 1000)
    assert (acp.input_tokens, acp.cache_read_input_tokens, acp.context_tokens, acp.reasoning_tokens) == (40, 900, 940, 3)


def test_the_active_branch_of_the_event_tree(conv):
    # a second reply forked from event 12 (the last tool result), then HEAD moved back to the first
    fork = json.loads((EVENTS / "event-00013-00000000-0000-4000-8000-000000000013.json").read_text())
    fork.update(id=eid(15), parent_id=eid(12), llm_response_id="chatcmpl-resp-6")
    fork["llm_message"]["content"][0]["text"] = "Another answer, on a branch left behind."
    (conv / "events" / f"event-00015-{eid(15)}.json").write_text(json.dumps(fork))
    s = load(conv)
    assert s.messages[-1].text.startswith("Fixed:")
    assert ("events/event-00015-00000000-0000-4000-8000-000000000015.json",
            "1 events on other branches of the conversation tree are not on the active branch") in [(x.where, x.reason) for x in s.skipped]
    state = json.loads((conv / "base_state.json").read_text())
    state["leaf_event_id"] = eid(15)
    (conv / "base_state.json").write_text(json.dumps(state))
    s = load(conv)
    assert s.messages[-1].text == "Another answer, on a branch left behind."
    assert sum(1 for m in s.messages if m.role == "assistant" and not m.resent) == 5


def test_a_json_file_of_events_reads_the_same_messages(tmp_path):
    page = tmp_path / "events.json"
    page.write_text(json.dumps({"items": _events(), "next_page_id": None}))
    s = load(page)
    assert s.format == "openhands_v1"
    assert [m.text for m in s.messages] == [m.text for m in load(CONV).messages]
    assert str(s.messages[2].source) == "$.items[2]"
    assert all(m.usage is None for m in s.messages)  # usage lives in base_state.json


def test_a_gap_in_the_event_indices_stops_reading_as_the_sdk_does(conv):
    (conv / "events" / f"event-00011-{eid(11)}.json").unlink()
    s = load(conv)
    assert len(s.messages) == 12  # up to the condensation's copies
    assert s.skipped[0].where == f"events/event-00012-{eid(12)}.json"
    assert s.skipped[0].reason == "event index gap: expected 00011; this and later files are not read (as the SDK does)"


def test_bad_event_files_are_skipped_with_their_name(conv):
    (conv / "events" / f"event-00003-{eid(3)}.json").write_text('{"kind": "ObservationEvent", "id": ')
    bad = json.loads((EVENTS / f"event-00002-{eid(2)}.json").read_text())
    bad["tool_call"] = ["not", "a", "call"]
    (conv / "events" / f"event-00002-{eid(2)}.json").write_text(json.dumps(bad))
    s = load(conv)
    reasons = {x.where: x.reason for x in s.skipped}
    assert reasons[f"events/event-00003-{eid(3)}.json"].startswith("not valid JSON (")
    assert reasons[f"events/event-00002-{eid(2)}.json"].startswith("malformed ActionEvent (")
    assert [m.role for m in s.messages[:4]] == ["system", "user", "assistant", "tool"]  # events 4-7 read on


def test_a_directory_without_events_is_an_error(tmp_path, capsys):
    (tmp_path / "events").mkdir()
    with pytest.raises(SessionFormatError, match="no OpenHands event files found"):
        load(tmp_path, format="openhands_v1")
    assert main(["info", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path) in err and "Traceback" not in err


def test_discovery_lists_conversations(tmp_path, monkeypatch):
    home = tmp_path / "conversations"
    shutil.copytree(CONV, home / CONV.name)
    (home / "not-a-conversation").mkdir()
    monkeypatch.setenv("OPENHANDS_CONVERSATIONS_DIR", str(home))
    found = list(DISCOVERY.candidates())
    assert [(p.name, size) for p, _, size in found] == [(CONV.name, sum(f.stat().st_size for f in EVENTS.iterdir()))]
    details = DISCOVERY.details(found[0][0])
    assert (details.session_id, details.messages) == (CONV.name, 15)


def _ev(n: int, kind: str, source: str, **body) -> dict:
    return {"id": eid(n), "timestamp": "2026-11-20T10:00:00", "source": source, **body, "kind": kind}


def _text(t: str) -> list[dict]:
    return [{"cache_prompt": False, "type": "text", "text": t}]


def test_adjacent_user_messages_errors_and_rejections(tmp_path):
    call = {"id": "c1", "name": "terminal", "arguments": '{"command": "ls"}', "origin": "completion"}
    events = [
        _ev(0, "MessageEvent", "user", llm_message={"role": "user", "content": _text("first")}),
        _ev(1, "MessageEvent", "user", llm_message={"role": "user", "content": _text("second")}, extended_content=_text("<EXTRA_INFO>skill</EXTRA_INFO>")),
        _ev(2, "ActionEvent", "agent", thought=[], tool_name="terminal", tool_call_id="c1", tool_call=call, llm_response_id="r1"),
        _ev(3, "AgentErrorEvent", "agent", tool_name="terminal", tool_call_id="c1", error="Tool timed out"),
        _ev(4, "ActionEvent", "agent", thought=[], tool_name="terminal", tool_call_id="c2", tool_call={**call, "id": "c2"}, llm_response_id="r2"),
        _ev(5, "UserRejectObservation", "user", tool_name="terminal", tool_call_id="c2", rejection_reason="not now", action_id=eid(4)),
        _ev(6, "ActionEvent", "agent", thought=[], tool_name="terminal", tool_call_id="c3", tool_call={**call, "id": "c3"}, llm_response_id="r3"),
        _ev(7, "ObservationEvent", "environment", tool_name="terminal", tool_call_id="c3", action_id=eid(6),
            observation={"content": _text("boom"), "is_error": True, "kind": "MCPToolObservation"}),
        _ev(8, "PauseEvent", "user"),
    ]
    path = tmp_path / "events.json"
    path.write_text(json.dumps(events))
    s = load(path)
    assert [m.role for m in s.messages] == ["user", "assistant", "tool", "assistant", "tool", "assistant", "tool"]
    assert [b.text for b in s.messages[0].content] == ["first", "second", "<EXTRA_INFO>skill</EXTRA_INFO>"]
    assert s.messages[0].extra["merged_events"] == [eid(0), eid(1)]
    results = [m.tool_results[0] for m in s.messages if m.role == "tool"]
    assert [(r.tool_call_id, r.text, r.is_error) for r in results] == [
        ("c1", "Tool timed out", True), ("c2", "Action rejected: not now", False),
        ("c3", "[An error occurred during execution.]\n\nboom", True),  # two parts, as the SDK sends them
    ]  # fmt: skip
    assert [p.text for p in results[2].content] == ["[An error occurred during execution.]\n", "boom"]
    assert [(x.where, x.reason) for x in s.skipped] == [("$[8]", "PauseEvent")]


def test_early_observations_with_string_content():
    from inspector.formats.openhands_v1 import tool_result

    early = _ev(0, "ObservationEvent", "environment", tool_name="execute_bash", tool_call_id="c9", action_id=eid(1),
                observation={"kind": "ExecuteBashObservation", "content": "stdout\n"})
    assert (tool_result(early).content, tool_result(early).name) == ("stdout\n", "execute_bash")


def test_wrongly_typed_ids_and_files_that_are_not_utf8(conv, tmp_path):
    state = json.loads((conv / "base_state.json").read_text())
    state["leaf_event_id"] = {"not": "an id"}
    (conv / "base_state.json").write_text(json.dumps(state))
    bad = json.loads((EVENTS / f"event-00012-{eid(12)}.json").read_text())
    bad["parent_id"] = ["x"]
    (conv / "events" / f"event-00012-{eid(12)}.json").write_text(json.dumps(bad))
    (conv / "events" / f"event-00003-{eid(3)}.json").write_bytes('{"text": "caf\u00e9"}'.encode("latin-1"))
    s = load(conv)
    reasons = {x.where: x.reason for x in s.skipped}
    assert reasons[f"events/event-00012-{eid(12)}.json"] == "parent_id is not an event id: events read in file order"
    assert "UTF-8" in reasons[f"events/event-00003-{eid(3)}.json"]
    assert s.messages[-1].text.startswith("Fixed:")
    page = tmp_path / "events.json"
    page.write_text(json.dumps([{"id": {"a": 1}, "kind": {"b": 2}}] + _events()))
    assert main(["info", str(page)]) == 2  # not a list of V1 events (its first is not one), and no traceback


def test_an_event_or_base_state_that_is_not_a_regular_file_is_named(conv):
    """A FIFO (or a device, a link loop) among the events is skipped with its own name and why,
    and the events after it read on, as a file that is not JSON; before, it was left out of the
    listing and reported as 'event index gap: expected 00002' at event 00003, with every later
    event dropped (2 messages, 0 calls instead of 15 and 5). A base_state.json that is not a file
    is named too (it was ignored without a word)."""
    fifo = conv / "events" / f"event-00002-{eid(2)}.json"
    fifo.unlink()
    os.mkfifo(fifo)
    (conv / "base_state.json").unlink()
    (conv / "base_state.json").symlink_to("/dev/zero")
    s = load(conv)
    reasons = {x.where: x.reason for x in s.skipped}
    assert reasons[f"events/event-00002-{eid(2)}.json"] == (
        "it is a FIFO (named pipe), not a regular file; the inspector reads only session files (and session "
        "directories), so it does not open it.")
    assert reasons["base_state.json"] == (
        "it is a character device, not a regular file; the inspector reads only session files (and session "
        "directories), so it does not open it.")
    assert not any("gap" in r for r in reasons.values())
    assert (len(s.messages), len(build_view(s).calls)) == (14, 4)


def test_a_conversation_is_followed_while_the_sdk_writes_it(conv, tmp_path):
    from inspector.follow_dir import RewriteFollower, can_follow, follower_for

    later = tmp_path / "later"
    later.mkdir()
    for n in (11, 12, 13, 14):
        (conv / "events" / f"event-{n:05d}-{eid(n)}.json").rename(later / f"event-{n:05d}-{eid(n)}.json")
    assert can_follow("openhands_v1")
    follower = follower_for(conv, "openhands_v1")
    assert isinstance(follower, RewriteFollower) and len(follower.session.messages) == 12
    assert follower.poll().messages == []
    for n in (11, 12):
        (later / f"event-{n:05d}-{eid(n)}.json").rename(conv / "events" / f"event-{n:05d}-{eid(n)}.json")
    update = follower.poll()
    assert (update.first, [m.role for m in update.messages], update.notice) == (12, ["assistant", "tool"], None)
    # an event file written in place (not renamed in): its completion is seen though the directory's entries stay
    name = f"event-00013-{eid(13)}.json"
    text = (later / name).read_text()
    (conv / "events" / name).write_text(text[:10])
    half = follower.poll()
    assert (half.messages, half.notice, [k.where for k in follower.session.skipped]) == ([], None, [f"events/{name}"])
    (conv / "events" / name).write_text(text)
    update = follower.poll()
    assert (update.first, [m.role for m in update.messages]) == (14, ["assistant"])
    assert follower.session.messages[-1].usage is not None


def test_a_parallel_call_joining_the_last_message_while_followed_is_no_change_of_earlier_messages(conv, tmp_path):
    """Event 5 is the second tool call of the assistant message event 4 began (parallel calls):
    the last message grows, as a streamed Claude Code message does, which says nothing. Before,
    the viewer's header kept "earlier messages changed; reloaded from message 4" for the session."""
    from inspector.follow_dir import follower_for

    later = tmp_path / "later"
    later.mkdir()
    for n in range(5, 15):
        (conv / "events" / f"event-{n:05d}-{eid(n)}.json").rename(later / f"event-{n:05d}-{eid(n)}.json")
    follower = follower_for(conv, "openhands_v1")
    assert [len(m.tool_calls) for m in follower.session.messages] == [0, 0, 1, 0, 1]
    (later / f"event-00005-{eid(5)}.json").rename(conv / "events" / f"event-00005-{eid(5)}.json")
    update = follower.poll()
    assert (update.first, [len(m.tool_calls) for m in update.messages], update.notice) == (4, [2], None)


def test_a_file_gone_between_listing_and_stat_does_not_stop_following(conv, monkeypatch):
    import inspector.follow_dir as follow_dir

    follower = follow_dir.follower_for(conv, "openhands_v1")
    real_scandir = follow_dir.os.scandir

    class Vanished:  # an atomic writer's temporary file, renamed away after the listing
        name, path = "event.tmp", str(conv / "event.tmp")

        def stat(self):
            raise FileNotFoundError(self.path)

        def is_dir(self):
            return False

    class Listing:
        def __init__(self, path):
            self.inner = real_scandir(path)

        def __enter__(self):
            return [*self.inner.__enter__(), Vanished()]

        def __exit__(self, *exc):
            return self.inner.__exit__(*exc)

    monkeypatch.setattr(follow_dir.os, "scandir", Listing)
    update = follower.poll()
    assert (update.stopped, update.messages, follower.stopped) == (False, [], False)
