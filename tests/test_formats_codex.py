"""Codex rollout reader: response items, call_id links, reasoning, token_count usage per call,
compaction, UI-event duplicates not counted twice, and incremental reading."""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector
from inspector.analysis.context import system_prefix, visible_input
from inspector.analysis.money import baseline_until
from inspector.follow import Follower
from inspector.formats import SessionFormatError, load
from inspector.formats import builtin  # noqa: F401  (registers every format)
from inspector.formats.base import FORMATS, Probe
from inspector.formats.codex import CodexStream
from inspector.model import Message, Session, TextBlock, ThinkingBlock, ToolCallBlock
from inspector.units import build_view, sent_across_starts

FIX = Path(__file__).parent / "fixtures" / "real" / "codex"
ROLLOUT = FIX / "rollout-2026-02-11T14-05-00-0195a3c2-7b1e-7f40-9d2a-41c8e07b5a19.jsonl"
SAMPLES = Path(inspector.__file__).parent / "sample_sessions"



@pytest.fixture(scope="module")
def session():
    return inspector.load(ROLLOUT)


def test_detected_as_codex_only():
    scores = {name: fmt.detect(Probe(ROLLOUT)) for name, fmt in FORMATS.items()}
    assert scores.pop("codex") == 95
    assert set(scores.values()) == {0}


@pytest.mark.parametrize("sample", ["coding_agent.jsonl", "vendor_onboarding.json", "hr_leave_balance.json"])
def test_other_formats_score_zero(sample):
    assert FORMATS["codex"].detect(Probe(SAMPLES / sample)) == 0


def test_messages(session):
    assert [(m.role, m.source.line) for m in session.messages] == [
        ("system", 1), ("system", 3), ("user", 4), ("user", 5), ("user", 7),
        ("assistant", 9), ("tool", 13), ("tool", 14), ("assistant", 16), ("tool", 20), ("assistant", 21),
        ("user", 26), ("user", 26), ("user", 29), ("assistant", 30), ("tool", 32), ("assistant", 34),
    ]  # fmt: skip
    assert session.messages[0].text.startswith("You are Codex, a coding agent")
    assert session.messages[1].extra["original_role"] == "developer"


def test_output_items_of_one_response_are_one_message(session):
    first = session.messages[5]
    assert [type(b) for b in first.content] == [ThinkingBlock, ToolCallBlock, ToolCallBlock]
    assert first.content[0].thinking.startswith("**Locating the orders handler**")
    assert first.content[0].extra["encrypted_content"] == "gAAAAABpQ1x9"
    assert [c.id for c in first.tool_calls] == ["call_A", "call_B"]  # parallel calls
    assert [m.tool_results[0].tool_call_id for m in session.messages[6:8]] == ["call_A", "call_B"]
    patch = session.messages[8].tool_calls[0]
    assert (patch.name, patch.extra["item_type"]) == ("apply_patch", "custom_tool_call")
    assert patch.arguments.startswith("*** Begin Patch\n*** Update File: api/orders.py")
    assert session.messages[9].tool_results[0].text == "Success. Updated the following files:\nM api/orders.py\n"


def test_ui_duplicates_not_counted_twice(session):
    texts = [m.text for m in session.messages]
    assert texts.count("Why does GET /orders return 500 when the cart is empty?") == 2  # asked + kept by compaction
    assert sum("Found it: list_orders divides" in t for t in texts) == 1
    assert sum("Fixed: an empty cart" in t for t in texts) == 1


def test_token_count_usage_per_call(session):
    view = build_view(session)
    usage = [session.messages[c.message_index].usage for c in view.calls]
    assert [(u.input_tokens, u.cache_read_input_tokens, u.output_tokens) for u in usage] == [
        (2048, 3072, 180),
        (2780, 5120, 240),
        (592, 7808, 95),
        (2600, 0, 150),
        (540, 2560, 60),
    ]
    assert [u.context_tokens for u in usage] == [5120, 7900, 8400, 2600, 3100]
    assert session.messages[5].extra["model_context_window"] == 258400
    assert [c.recorded_tokens for c in inspector.replay(session).calls] == [5120, 7900, 8400, 2600, 3100]


def test_units_turns_calls_and_compaction(session):
    view = build_view(session)
    assert [(u.kind.value, u.indices) for u in view.units] == [
        ("system", (0,)), ("system", (1,)), ("user", (2,)), ("user", (3,)), ("user", (4,)),
        ("tool_exchange", (5, 6, 7)), ("tool_exchange", (8, 9)), ("assistant", (10,)),
        ("user", (11,)), ("summary", (12,)), ("user", (13,)), ("tool_exchange", (14, 15)), ("assistant", (16,)),
    ]  # fmt: skip
    assert [(t.number, t.start, t.stop) for t in view.turns] == [
        (0, 0, 4), (1, 4, 13), (2, 13, 17)
    ]  # fmt: skip
    # AGENTS.md and <environment_context> are the harness's, the compaction's replay is no prompt
    assert [build_view(session).injected[i] for i in (2, 3, 11, 12)] == ["instructions", "environment_context", "compaction", "compaction"]
    assert [(c.message_index, c.context_start) for c in view.calls] == [(5, 0), (8, 0), (10, 0), (14, 11), (16, 11)]
    assert session.messages[11].starts_context and not session.messages[12].starts_context
    assert session.messages[11].is_summary is False  # the user's retained prompt, not a second summary
    assert str(session.messages[12].source) == "line 26, $.payload.replacement_history[1]"


def test_skipped(session):
    assert [(s.where, s.reason) for s in session.skipped] == [
        ("line 2", "turn_context"),
        ("line 6", "event_msg/task_started"),
        ("line 8", "event_msg/user_message"),
        ("line 15", "event_msg/token_count (no usage info)"),
        ("line 17", "event_msg/agent_message"),
        ("line 22", "event_msg/agent_message"),
        ("line 24", "event_msg/token_count (repeat)"),
        ("line 25", "event_msg/task_complete"),
        ("line 27", "event_msg/context_compacted"),
        ("line 28", "turn_context"),
        ("line 33", "response_item/ghost_snapshot"),
        ("line 36", "world_state (a snapshot of AGENTS.md and the environment; the messages hold what the model was sent)"),
    ]
    assert {s.kind for s in session.skipped} == {"ignored"}
    assert session.extra["model"] == "gpt-5.1-codex"
    assert session.extra["cwd"] == "/home/dev/api"


def test_old_compacted_message_and_missing_last_usage(tmp_path):
    p = tmp_path / "old.jsonl"
    p.write_text(
        '{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}\n'
        '{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}}\n'
        '{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":900,"cached_input_tokens":0,"output_tokens":5}}}}\n'
        '{"timestamp":"t","type":"compacted","payload":{"message":"The user said hi."}}\n'
        '{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"again"}]}}\n'
        '{"timestamp":"t","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":2100,"cached_input_tokens":800,"output_tokens":9}}}}\n'
    )
    s = load(p)
    assert [(m.role, m.text, m.starts_context) for m in s.messages] == [
        ("user", "hi", False),
        ("assistant", "hello", False),
        ("user", "The user said hi.", True),
        ("assistant", "again", False),
    ]
    # without last_token_usage the call's usage is the difference of the cumulative totals
    assert (s.messages[1].usage.input_tokens, s.messages[1].usage.output_tokens) == (900, 5)
    assert (s.messages[3].usage.input_tokens, s.messages[3].usage.cache_read_input_tokens, s.messages[3].usage.output_tokens) == (400, 800, 4)


def test_forced_on_other_jsonl(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text('{"role": "user", "content": "hi"}\n')
    with pytest.raises(SessionFormatError) as err:
        load(p, format="codex")
    assert str(err.value).startswith(f"{p}, line 1: no Codex rollout records found.")


def test_stream_reports_usage_attached_to_an_earlier_message():
    lines = ROLLOUT.read_bytes().split(b"\n")
    stream = CodexStream(ROLLOUT)
    for n in range(1, 12):
        stream.feed(lines[n - 1], n)
    first, msgs = stream.take()
    assert first == 0 and len(msgs) == 6 and msgs[-1].usage is None
    stream.feed(lines[11], 12)  # token_count for message 5
    first, msgs = stream.take()
    assert first == 5 and msgs[0].usage.context_tokens == 5120


def test_follower(tmp_path):
    lines = ROLLOUT.read_bytes().split(b"\n")
    live = tmp_path / "rollout.jsonl"
    live.write_bytes(b"\n".join(lines[:14]) + b"\n")
    follower = Follower(live, "codex")
    assert len(follower.session.messages) == 8
    with open(live, "ab") as fh:
        fh.write(b"\n".join(lines[14:21]) + b"\n")
    update = follower.poll()
    assert update.first == 8
    assert [m.role for m in update.messages] == ["assistant", "tool", "assistant"]


def test_fields_of_unexpected_types_are_reported_not_raised(tmp_path):
    p = tmp_path / "odd.jsonl"
    p.write_text(
        '{"timestamp":"t","type":"response_item","payload":{"type":"reasoning","summary":5}}\n'
        '{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_image","image_url":5}]}}\n'
        '{"timestamp":"t","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":{"content":7}}}\n'
        '{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"ok"}],"new_field":[1]}}\n'
    )
    s = load(p)
    assert [(m.role, m.source.line) for m in s.messages] == [("assistant", 1), ("user", 2), ("tool", 3), ("user", 4)]
    assert s.messages[2].tool_results[0].content == "{\"content\":7}"
    assert s.skipped == []


def _rollout(tmp_path, records):
    import json

    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _tc(inp, out, reasoning=0):
    last = {"input_tokens": inp, "cached_input_tokens": 0, "output_tokens": out, "reasoning_output_tokens": reasoning, "total_tokens": inp + out}
    return {"type": "event_msg", "payload": {"type": "token_count", "info": {"total_token_usage": dict(last, total_tokens=inp * 7 + out), "last_token_usage": last}}}


def _item(payload):
    return {"type": "response_item", "payload": payload}


def test_token_count_after_the_tool_output_goes_back_to_its_call(tmp_path):
    """Newer CLIs write the count when the response completed, which can be after the outputs of
    the calls it made; the call already had no usage, so the count is its own."""
    path = _rollout(tmp_path, [
        {"type": "session_meta", "payload": {"id": "s", "cli_version": "0.77.0"}},
        {"type": "turn_context", "payload": {"model": "gpt-5.2-codex"}},
        _item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
        _item({"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"}),
        _item({"type": "function_call_output", "call_id": "c1", "output": "done"}),
        _tc(100, 10, 4),
        _item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}),
        _tc(130, 5),
    ])  # fmt: skip
    s = load(path, "codex")
    got = [(m.index, m.usage.context_tokens, m.usage.reasoning_tokens, m.usage.model) for m in s.messages if m.role == "assistant"]
    assert got == [(1, 100, 4, "gpt-5.2-codex"), (3, 130, 0, "gpt-5.2-codex")]
    assert (s.agent_version, s.model) == ("0.77.0", "gpt-5.2-codex")


def test_a_count_no_response_followed_is_reported(tmp_path):
    path = _rollout(tmp_path, [
        {"type": "turn_context", "payload": {"model": "gpt-5-codex"}},
        _item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
        _tc(100, 10),
        _item({"type": "reasoning", "summary": []}),
        _item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}),
        {"type": "turn_context", "payload": {"model": "gpt-5-codex"}},
        _tc(120, 7),
    ])  # fmt: skip
    s = load(path, "codex")
    assert [m.usage.context_tokens for m in s.messages if m.role == "assistant"] == [100]
    assert [(x.where, x.reason) for x in s.skipped if "token_count" in x.reason] == [("line 7", "event_msg/token_count (no model call to attach to)")]


def test_sub_agent_agent_message_is_model_input_counted_as_a_user_message(tmp_path):
    """Codex 0.145 multi-agent: a sub-agent's answer arrives as response_item/agent_message
    (structure of the entire-graph 0.145.0-alpha.18 rollout, text made up)."""
    import json

    rows = [
        {"type": "session_meta", "payload": {"id": "s1", "cli_version": "0.145.0-alpha.18"}},
        {"type": "turn_context", "payload": {"model": "gpt-5.6-sol"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "review it"}]}},
        {"type": "response_item", "payload": {"type": "function_call", "name": "wait_agent", "arguments": "{}", "call_id": "c1"}},
        {"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c1", "output": "done"}},
        {"type": "inter_agent_communication_metadata", "payload": {"trigger_turn": False}},
        {"type": "response_item", "payload": {"type": "agent_message", "id": "amsg_1", "author": "/root/review", "recipient": "/root",
                                              "content": [{"type": "input_text", "text": "Message Type: FINAL_ANSWER\nPayload:\nNo findings."},
                                                          {"type": "encrypted_content", "encrypted_content": "REDACTED"}]}},
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(json.dumps({"timestamp": "t", **r}) for r in rows) + "\n")
    session = inspector.load(path)
    last = session.messages[-1]
    assert (last.role, last.extra["record"], last.extra["author"]) == ("user", "agent_message", "/root/review")
    assert [type(b).__name__ for b in last.content] == ["TextBlock", "RawBlock"]
    assert last.content[0].text == "Message Type: FINAL_ANSWER\nPayload:\nNo findings." and last.content[1].text == ""
    assert not any("agent_message" in s.reason for s in session.skipped)
    a = inspector.analyze(session, model="gpt-5.6-sol")
    assert a.table.counts[last.index].total == 3 + 1 + 12  # framing, role "user", the text in o200k_base


def _lines(tmp_path, *records: str) -> Path:
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join('{"timestamp":"t",' + r + "}\n" for r in records))
    return path


META = '"type":"session_meta","payload":{"id":"s1","cli_version":"0.145.0","base_instructions":{"text":"You are Codex."}}'
DEV = '"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>sandboxed</permissions instructions>"}]}'
ASK = '"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Review the open PRs"}]}'
CALL = '"type":"response_item","payload":{"type":"function_call","name":"exec","arguments":"{}","call_id":"c1"}'
OUT = '"type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"3 PRs"}'
USAGE = '"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":%d,"cached_input_tokens":0,"output_tokens":5}}}'
COMPACTED = (
    '"type":"compacted","payload":{"message":"","replacement_history":['
    '{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>sandboxed</permissions instructions>"}]},'
    '{"type":"message","role":"user","content":[{"type":"input_text","text":"Review the open PRs"}]},'
    '{"type":"compaction","encrypted_content":"gAAA"}]}'
)
ANSWER = '"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"All reviewed."}]}'


def test_replacement_history_is_the_context_after_a_compaction(tmp_path):
    """Codex 0.100+ (shape of the 0.145 rollouts): the replacement history is what the model is
    sent, the developer message it repeats among it; its compaction item is the one summary. The
    developer message before the compaction is no longer sent (Codex replaced the history that
    held it): only the session_meta instructions stay, so the message is counted once, from the
    new history."""
    session = load(_lines(tmp_path, META, DEV, ASK, CALL, USAGE % 900, OUT, COMPACTED, ANSWER, USAGE % 400))
    assert [(m.role, m.source.line, m.source.json_path) for m in session.messages] == [
        ("system", 1, None), ("system", 2, None), ("user", 3, None), ("assistant", 4, None), ("tool", 6, None),
        ("system", 7, "$.payload.replacement_history[0]"), ("user", 7, "$.payload.replacement_history[1]"),
        ("user", 7, "$.payload.replacement_history[2]"), ("assistant", 8, None),
    ]  # fmt: skip
    view = build_view(session)
    assert [(u.kind.value, u.indices) for u in view.units] == [
        ("system", (0,)), ("system", (1,)), ("user", (2,)), ("tool_exchange", (3, 4)),
        ("system", (5,)), ("user", (6,)), ("summary", (7,)), ("assistant", (8,)),
    ]  # fmt: skip
    assert [(c.message_index, c.context_start) for c in view.calls] == [(3, 0), (8, 5)]
    assert sent_across_starts(view) == [0]  # the session_meta instructions
    plan = inspector.plan(session)
    assert [i for i, s in enumerate(plan.status) if s.value != "kept"] == [1, 2, 3, 4]  # before the compaction only
    analysis = inspector.analyze(session)
    tokens = analysis.table.totals
    assert visible_input(analysis.view, analysis.table)[1] == analysis.table.overhead + tokens[0] + sum(tokens[5:8])


COMPACTED_USERS = (
    '"type":"compacted","payload":{"message":"","replacement_history":['
    '{"type":"message","role":"user","content":[{"type":"input_text","text":"Review the open PRs"}]},'
    '{"type":"message","role":"user","content":[{"type":"input_text","text":"Summary: 3 PRs reviewed"}]}]}'
)
ENV = '"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context><cwd>/w</cwd></environment_context>"}]}'
NEXT = '"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Merge them"}]}'
REVISED_DEV = '"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>sandboxed, network on</permissions instructions>"}]}'
OTHER_DEV = '"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<collaboration_mode>plan</collaboration_mode>"}]}'


def test_developer_messages_before_a_compaction_are_not_sent_after_it(tmp_path):
    """Codex 0.137-0.142 (shape of the public planetfall and agentv rollouts): a compaction whose
    replacement history holds only user messages, then, at the next turn, the initial context
    written again (the permissions instructions, here revised, the environment context) before
    the prompt. Codex sends after the compaction its session_meta instructions and the new
    history: the developer message before the compaction is not counted (it had been, beside its
    revised copy: +19.6 to +29.5 % on such first calls after a compaction), the new one is, and
    so is one after the next model response. Every count of a call's input agrees: the visible
    input, the next call's baseline, the plan before any strategy, the no-strategy price."""
    session = load(_lines(tmp_path, META, DEV, ASK, ANSWER, USAGE % 900, COMPACTED_USERS, REVISED_DEV, ENV, OTHER_DEV, NEXT, ANSWER, USAGE % 400, DEV, NEXT, ANSWER, USAGE % 500))
    assert [(m.role, m.source.line, m.source.json_path) for m in session.messages] == [
        ("system", 1, None), ("system", 2, None), ("user", 3, None), ("assistant", 4, None),
        ("user", 6, "$.payload.replacement_history[0]"), ("user", 6, "$.payload.replacement_history[1]"),
        ("system", 7, None), ("user", 8, None), ("system", 9, None), ("user", 10, None), ("assistant", 11, None),
        ("system", 13, None), ("user", 14, None), ("assistant", 15, None),
    ]  # fmt: skip
    view = build_view(session)
    assert [(c.message_index, c.context_start) for c in view.calls] == [(3, 0), (10, 4), (13, 4)]
    assert sent_across_starts(view) == [0]
    analysis = inspector.analyze(session)
    table = analysis.table
    tokens = table.totals
    sent_after = table.overhead + tokens[0] + sum(tokens[4:10])
    assert visible_input(analysis.view, table)[1] == sent_after  # the revised permissions only
    assert system_prefix(analysis.view, table)[4] == tokens[0]
    assert baseline_until(analysis.view, table, 4, 10) == sent_after
    plan = inspector.plan(session, at_call=2)
    assert [i for i, s in enumerate(plan.status) if s.value != "kept"] == [1, 2, 3]
    assert sum(plan.tokens_after_of) == sent_after - table.overhead


def test_system_messages_of_other_formats_stay_across_a_compaction():
    """Only a reader's mark takes a system message out of the calls after a compaction: another
    format's system messages (a summary context in a Chat Completions file) all stay sent."""
    session = Session(format="openai_chat", messages=[
        Message(index=0, role="system", content=[TextBlock(text="You are helpful.")]),
        Message(index=1, role="user", content=[TextBlock(text="hi")]),
        Message(index=2, role="system", content=[TextBlock(text="Be brief.")]),
        Message(index=3, role="user", content=[TextBlock(text="Summary: greeted")], starts_context=True),
    ])  # fmt: skip
    assert sent_across_starts(build_view(session)) == [0, 2]


def test_developer_message_while_a_call_runs_goes_after_its_output(tmp_path):
    """Codex records settings updates while a tool runs; the Chat Completions and Anthropic
    layouts cannot put a message between a call and its output, so it follows the output."""
    session = load(_lines(tmp_path, META, ASK, CALL, DEV, OUT, ANSWER))
    assert [(m.role, m.source.line) for m in session.messages] == [
        ("system", 1), ("user", 2), ("assistant", 3), ("tool", 5), ("system", 4), ("assistant", 6),
    ]
    assert inspector.validate(session.messages) == {"openai": [], "anthropic": []}
    unanswered = load(_lines(tmp_path, META, ASK, CALL, DEV))  # never answered: kept at the end
    assert [(m.role, m.source.line) for m in unanswered.messages] == [("system", 1), ("user", 2), ("assistant", 3), ("system", 4)]


def test_sub_agent_rollouts_the_file_names_are_sidechains(tmp_path):
    """0.145 multi-agent: sub_agent_activity names a spawned thread; its own rollout in the day
    directory is read as a sidechain keyed by its agent path (one the directory lacks is not)."""
    day = tmp_path / "sessions" / "2026" / "07" / "20"
    day.mkdir(parents=True)
    child = "019f80ee-401e-78f1-919f-34033e956ba8"
    spawned = '"type":"event_msg","payload":{"type":"sub_agent_activity","agent_thread_id":"%s","agent_path":"%s","kind":"started"}'
    parent = day / "rollout-2026-07-20T10-00-00-019f80ed-65ac-7eb3-9c28-98974664a887.jsonl"
    parent.write_text("".join('{"timestamp":"t",' + r + "}\n" for r in (
        META, ASK, spawned % (child, "/root/review_pr36"), spawned % ("019f-missing", "/root/gone"), ANSWER,
    )))
    (day / f"rollout-2026-07-20T10-00-05-{child}.jsonl").write_text("".join('{"timestamp":"t",' + r + "}\n" for r in (
        '"type":"session_meta","payload":{"id":"%s","base_instructions":{"text":"You are an explorer."}}' % child,
        '"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Review PR 36"}]}',
        ANSWER, USAGE % 700,
    )))
    s = load(parent)
    assert list(s.sidechains) == ["/root/review_pr36"]
    side = s.sidechains["/root/review_pr36"]
    assert [(m.role, m.text) for m in side] == [("system", "You are an explorer."), ("user", "Review PR 36"), ("assistant", "All reviewed.")]
    assert side[2].usage.context_tokens == 700
    assert str(side[1].source) == f"rollout-2026-07-20T10-00-05-{child}.jsonl, line 2"
    from inspector.formats.sidechain import open_sidechain

    assert len(build_view(open_sidechain(s, "/root/review_pr36")).calls) == 1


def test_a_reply_the_replacement_history_sends_again_is_not_a_model_call(tmp_path):
    """A replacement history that keeps an assistant reply (constructed): the reply is context
    for the calls after the compaction, not a call of its own; the calls are the two that
    recorded usage."""
    kept_reply = COMPACTED.replace(
        '{"type":"compaction"',
        '{"type":"message","role":"assistant","content":[{"type":"output_text","text":"3 PRs are open."}]},{"type":"compaction"')
    session = load(_lines(tmp_path, META, DEV, ASK, CALL, USAGE % 900, OUT, kept_reply, ANSWER, USAGE % 400))
    assert [(m.role, m.resent, m.source.json_path) for m in session.messages[5:]] == [
        ("system", False, "$.payload.replacement_history[0]"),
        ("user", False, "$.payload.replacement_history[1]"), ("assistant", True, "$.payload.replacement_history[2]"),
        ("user", False, "$.payload.replacement_history[3]"), ("assistant", False, None),
    ]  # fmt: skip
    assert [(c.message_index, c.context_start) for c in build_view(session).calls] == [(3, 0), (9, 5)]


DESKTOP = FIX / "entire_codex0.128_desktop_dynamic_tools.jsonl"
GRAPH_0145 = Path(__file__).parent / "fixtures" / "real" / "compactions" / "entiregraph_codex0.145.0-alpha.18_two-compactions.jsonl"


def test_dynamic_tools_of_the_codex_app_are_the_sessions_tool_definitions():
    """Codex Desktop 0.128 records the app's own tools in ``session_meta.dynamic_tools`` and sends
    them with every request: they are counted as tool definitions (the first call's input read
    14,814 counted tokens before, 15,760 now, of 23,682 recorded)."""
    from inspector.analysis.baseline import baseline_tokens
    from inspector.analysis.predict import recorded_tokens

    session = inspector.load(DESKTOP)
    assert [(t.name, t.extra) for t in session.tools] == [
        ("automation_update", {"namespace": "codex_app"}), ("read_thread_terminal", {}), ("load_workspace_dependencies", {})]
    assert sorted(session.tools[0].parameters["properties"])[:3] == ["cwds", "destination", "executionEnvironment"]
    analysis = inspector.analyze(session, "o200k_base")
    assert (analysis.table.tools, analysis.table.overhead) == (946, 949)
    recorded, baseline = recorded_tokens(analysis.view), baseline_tokens(analysis.view, analysis.table)
    assert (recorded[0], baseline[0]) == (23_682, 15_760)


def test_dynamic_tools_in_namespaces_leave_out_those_loaded_on_demand():
    """Codex Desktop 0.145 groups them by namespace; the 14 marked ``deferLoading`` reach the model
    only through tool search, so 3 of 17 are in every request."""
    session = inspector.load(GRAPH_0145)
    assert [(t.name, t.extra) for t in session.tools] == [
        ("navigate_to_codex_page", {"namespace": "codex_app"}), ("read_thread_terminal", {"namespace": "codex_app"}),
        ("load_workspace_dependencies", {"namespace": "codex_app"})]


def test_dynamic_tools_shapes():
    from inspector.formats.codex import dynamic_tools

    tools = dynamic_tools([
        {"name": "a", "description": "A.", "inputSchema": {"type": "object"}},
        {"name": "b", "description": "B.", "inputSchema": {"type": "object"}, "deferLoading": True},
        {"type": "namespace", "name": "ns", "tools": [{"type": "function", "name": "c", "inputSchema": "bad"}, "junk"]},
        {"description": "no name"}, 7])
    assert [(t.name, t.description, t.parameters, t.extra) for t in tools] == [
        ("a", "A.", {"type": "object"}, {}), ("c", "", {}, {"namespace": "ns"})]
    assert dynamic_tools(None) == [] and dynamic_tools({"name": "x"}) == []
    assert inspector.load(ROLLOUT).tools == []  # 0.58 records none
