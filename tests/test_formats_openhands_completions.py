"""OpenHands completion logs (``log_completions``), on real logs of software-agent-sdk 1.0.0: one
file is its request and reply with the call's usage; a folder is the latest request with every
earlier call's usage on its reply; the tools sent; calls of another conversation; bad input."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

import inspector
from inspector.formats.base import Probe, SessionFormatError
from inspector.formats.openhands_completions import detect

REAL = Path(__file__).parent / "fixtures" / "real" / "openhands_completions"
CLAUDE = REAL / "llm-logs"
FIRST = CLAUDE / "litellm_proxy__anthropic__claude-sonnet-4-20250514-1757015025.972.json"
DEEPSEEK = REAL / "litellm_proxy__deepseek__deepseek-chat-1757015054.055.json"


def test_one_log_is_its_request_then_the_reply_with_the_calls_usage():
    s = inspector.load(FIRST)
    assert s.format == "openhands_completions" and s.agent == "openhands"
    assert [m.role for m in s.messages] == ["system", "user", "assistant"]
    assert [t.name for t in s.tools] == ["terminal", "str_replace_editor", "finish"]
    reply = s.messages[-1]
    assert [c.id for c in reply.tool_calls] == ["toolu_01AaHKJphyeTw3GFp4Xgiekv"]
    u = reply.usage
    assert (u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.model) == (4812, 146, 0, "claude-sonnet-4-20250514")
    # the routing prefix (litellm_proxy/) is gone, and a Claude model is sent with Anthropic's framing
    assert s.model == "claude-sonnet-4-20250514" and s.provider == "anthropic"
    assert s.extra == {"context_window": 200000}


def test_a_folder_is_the_latest_request_with_each_calls_usage_on_its_reply():
    s = inspector.load(CLAUDE)
    assert s.path == str(CLAUDE) and s.skipped == []
    assert [m.role for m in s.messages] == ["system", "user", "assistant", "tool", "assistant"]
    used = [(m.index, m.usage.context_tokens, m.usage.output_tokens) for m in s.messages if m.usage is not None]
    assert used == [(2, 4812, 146), (4, 5002, 95)]
    assert s.messages[2].source.file == "litellm_proxy__anthropic__claude-sonnet-4-20250514-1757015029.090.json"
    assert s.extra["calls"] == 2


def test_prompt_based_tool_calling_keeps_the_tools_its_kwargs_sent_and_cached_input_apart():
    s = inspector.load(DEEPSEEK)
    assert s.extra["prompted_tool_calls"] is True and s.provider is None
    # SDK 1.0 logged the call's kwargs with the tools: they were sent (without them the count is
    # 1,803 tokens short of the recorded 7,911 on every call of the run)
    assert [t.name for t in s.tools] == ["terminal", "str_replace_editor", "finish"]
    u = s.messages[-1].usage
    assert (u.input_tokens, u.cache_read_input_tokens, u.context_tokens, u.model) == (39, 7872, 7911, "deepseek-chat")
    # the reply is response's (raw_response wrote its tool call as {})
    assert [(c.name, c.arguments) for c in s.messages[-1].tool_calls] == [("terminal", '{"command": "pwd && ls -la", "security_risk": "LOW"}')]


def test_prompt_based_tool_calling_without_kwargs_tools_sends_none(tmp_path: Path):
    doc = json.loads(DEEPSEEK.read_text())
    del doc["kwargs"]["tools"]  # later SDKs pop the copy; with raw_messages the tools were in the prompt
    p = tmp_path / "litellm_proxy__deepseek__deepseek-chat-1757015054.055.json"
    p.write_text(json.dumps(doc))
    assert inspector.load(p).tools == []


def test_a_call_of_another_conversation_is_listed_not_attached(tmp_path: Path):
    folder = Path(shutil.copytree(CLAUDE, tmp_path / "completions"))
    doc = json.loads(DEEPSEEK.read_text())
    doc["timestamp"] = 1757015027.0  # between the two Claude calls
    (folder / "litellm_proxy__deepseek__deepseek-chat-1757015027.000.json").write_text(json.dumps(doc))
    s = inspector.load(folder)
    assert [(m.index, m.usage.context_tokens) for m in s.messages if m.usage is not None] == [(2, 4812), (4, 5002)]
    assert [(k.where, k.reason, k.kind) for k in s.skipped] == [
        ("litellm_proxy__deepseek__deepseek-chat-1757015027.000.json",
         "a call of another conversation (its request is not the start of the latest one)", "ignored")
    ]
    assert s.extra["other_calls"] == {"calls": 1, "input_tokens": 7911}


def test_detection_wins_over_plain_chat_messages_and_leaves_other_folders(tmp_path: Path):
    assert detect(Probe(FIRST)) == 94 and detect(Probe(CLAUDE)) == 94
    plain = tmp_path / "request.json"
    plain.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}))
    assert detect(Probe(plain)) == 0 and inspector.load(plain).format == "openai"
    assert detect(Probe(tmp_path)) == 0  # request.json is not named like a completion log


def _responses_log(items: list, output: list, usage: dict, stamp: float) -> dict:
    """A completion log as the SDK's Telemetry writes one for the Responses path (constructed:
    no public real one was found)."""
    return {
        "context_window": 272000, "llm_path": "responses", "instructions": "You are OpenHands agent.",
        "input": items, "tools": [{"type": "function", "name": "terminal", "parameters": {"type": "object"}}],
        "kwargs": {"reasoning": {"effort": "high"}},
        "response": {"id": f"resp_{stamp}", "object": "response", "model": "openai/gpt-5-mini-2025-08-07", "output": output, "usage": usage},
        "cost": 0.0, "timestamp": stamp, "latency_sec": 1.0,
    }


def test_a_responses_api_folder_reads_items_and_gives_each_call_its_usage(tmp_path: Path):
    task = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list the files"}]}
    first_out = [
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Run ls."}], "encrypted_content": "gAAAA"},
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "terminal", "arguments": '{"command": "ls"}'},
    ]
    result = {"type": "function_call_output", "call_id": "call_1", "output": "a.py b.py"}
    second_out = [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Two files."}]}]
    folder = tmp_path / "completions"
    folder.mkdir()
    for name, doc in (
        ("openai__gpt-5-mini-1757015025.972-ab12.json", _responses_log([task], first_out, {"input_tokens": 1200, "output_tokens": 80, "input_tokens_details": {"cached_tokens": 0}}, 1757015025.972)),
        ("openai__gpt-5-mini-1757015029.090-cd34.json", _responses_log([task, *first_out, result], second_out, {"input_tokens": 1400, "output_tokens": 9, "input_tokens_details": {"cached_tokens": 1152}}, 1757015029.090)),
    ):
        (folder / name).write_text(json.dumps(doc))
    s = inspector.load(folder)
    assert s.format == "openhands_completions" and s.model == "gpt-5-mini-2025-08-07" and s.provider is None
    assert [m.role for m in s.messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert [t.name for t in s.tools] == ["terminal"]
    assert [(m.index, m.usage.input_tokens, m.usage.cache_read_input_tokens) for m in s.messages if m.usage] == [(2, 1200, 0), (4, 248, 1152)]
    assert s.skipped == [] and s.extra == {"context_window": 272000, "calls": 2}
    assert [m.extra["timestamp"] for m in s.messages if m.usage] == ["2025-09-04T19:43:45.972000+00:00", "2025-09-04T19:43:49.090000+00:00"]
    # the reply is the latest log's response.output, the rest its input (review8a: was "$.output[0]")
    assert [m.source.json_path for m in s.messages] == ["$.instructions", "$.input[0]", "$.input[1]", "$.input[3]", "$.response.output[0]"]
    assert {m.source.file for m in s.messages} == {"openai__gpt-5-mini-1757015029.090-cd34.json"}


def test_each_call_is_priced_at_the_time_its_log_records(capsys):
    # the log's "timestamp" (unix seconds, 1757015054.0548532 = 2025-09-04 19:44:14 UTC) is when
    # the call was made: DeepSeek's off-peak rate (16:30-00:30 UTC, half price) applied to it.
    # Priced at today's noon instead, the call cost twice what DeepSeek billed.
    from inspector.analysis.money import call_time

    from cli_helpers import as_json

    reply = inspector.load(DEEPSEEK).messages[-1]
    assert call_time(reply) == datetime(2025, 9, 4, 19, 44, 14, 54853, tzinfo=timezone.utc)
    money = as_json(capsys, "info", str(DEEPSEEK))["money"]
    # 39 uncached at 0.135 $/Mtok, 7,872 cache reads at 0.035, 59 output at 0.55
    assert money["calls"][0]["recorded_cost"]["total"] == 0.000313235
    # a folder: every call's reply carries its own log's time
    times = [call_time(m) for m in inspector.load(CLAUDE).messages if m.usage is not None]
    assert times == [datetime(2025, 9, 4, 19, 43, 45, 972323, tzinfo=timezone.utc),
                     datetime(2025, 9, 4, 19, 43, 49, 90024, tzinfo=timezone.utc)]


@pytest.mark.parametrize("spoil, where", [
    # a request message: the line and path where the file has it
    (lambda doc: doc["messages"][1].update(role="wizard"), 'line 19, $.messages[1].role: expected one of "system", '
     '"developer", "user", "assistant", "tool" or "function", found "wizard" (reading it as openhands_completions).'),
    # the reply is response.choices[0].message in the file, not a third request message
    (lambda doc: doc["response"]["choices"][0]["message"]["tool_calls"][0].update(function=5),
     'line 308, $.response.choices[0].message.tool_calls[0]: expected an object with "function", found an object '
     'without "function" (reading it as openhands_completions).'),
])
def test_a_malformed_log_names_its_line_and_the_path_in_the_file(tmp_path: Path, capsys, spoil, where):
    from cli_helpers import run

    doc = json.loads(FIRST.read_text())
    spoil(doc)
    bad = tmp_path / FIRST.name
    bad.write_text(json.dumps(doc, indent=1))
    with pytest.raises(SessionFormatError) as err:
        inspector.load(bad)
    assert str(err.value).startswith(f"{bad}, {where} ")
    code, _, stderr = run(capsys, "info", str(bad))
    assert code == 2 and f"{bad}, {where} " in " ".join(stderr.split())
