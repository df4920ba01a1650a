"""SWE-agent .traj and mini-swe-agent .traj.json: history messages, tool_call_ids, parallel
calls, per-call usage (mini), totals in extra."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.formats import SessionFormatError, load
from inspector.formats import builtin  # noqa: F401  (registers every format)
from inspector.formats.base import FORMATS, Probe
from inspector.units import build_view

FIX = Path(__file__).parent / "fixtures" / "real" / "swe_agent"
TRAJ = FIX / "text__slugify-17.traj"
MINI = FIX / "slugify-17.traj.json"


def test_detection():
    scores = {n: f.detect(Probe(TRAJ)) for n, f in FORMATS.items()}
    assert scores.pop("swe_agent") == 95
    assert max(scores.values()) == 0
    scores = {n: f.detect(Probe(MINI)) for n, f in FORMATS.items()}
    assert scores.pop("swe_agent") == 95
    assert max(scores.values()) == 90  # the OpenAI Chat reader also accepts {"messages": [...]}


def test_traj_history():
    s = load(TRAJ)
    assert s.format == "swe_agent"
    assert [(m.role, str(m.source)) for m in s.messages] == [(r, f"$.history[{i}]") for i, r in enumerate(
        ["system", "user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "tool"])]  # fmt: skip
    assert s.messages[1].text.startswith("<uploaded_files>")
    assert s.messages[1].content[0].extra == {"cache_control": {"type": "ephemeral"}}
    assert [c.id for c in s.messages[6].tool_calls] == ["call_s3", "call_s4"]
    assert [m.tool_results[0].tool_call_id for m in s.messages[7:9]] == ["call_s3", "call_s4"]
    assert s.messages[3].tool_results[0].text == "OBSERVATION:\n/testbed/text/utils.py:12:def slugify(value):"
    assert s.messages[2].extra["message_type"] == "action"
    view = build_view(s)
    assert [(u.kind.value, u.indices) for u in view.units] == [
        ("system", (0,)), ("user", (1,)), ("tool_exchange", (2, 3)), ("tool_exchange", (4, 5)), ("tool_exchange", (6, 7, 8))
    ]  # fmt: skip
    assert [(t.number, t.start, t.stop) for t in view.turns] == [(0, 0, 1), (1, 1, 9)]
    assert [c.message_index for c in view.calls] == [2, 4, 6]
    assert all(s.messages[c.message_index].usage is None for c in view.calls)
    assert s.extra["model_stats"] == {"instance_cost": 0.021, "tokens_sent": 8812, "tokens_received": 214, "api_calls": 3}


def test_mini_swe_agent_usage_per_call():
    s = load(MINI)
    assert s.format == "swe_agent"
    view = build_view(s)
    assert [(t.number, t.start, t.stop) for t in view.turns] == [(0, 0, 1), (1, 1, 5)]  # the observation is no prompt
    usage = [s.messages[c.message_index].usage for c in view.calls]
    assert [(u.input_tokens, u.cache_read_input_tokens, u.output_tokens, u.context_tokens) for u in usage] == [
        (1900, 0, 40, 1900),
        (258, 1792, 25, 2050),
    ]
    assert s.extra["trajectory_format"] == "mini-swe-agent-1.1"


def test_bad_role_names_the_path(tmp_path):
    p = tmp_path / "x.traj"
    p.write_text('{"trajectory": [], "history": [{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}]}')
    with pytest.raises(SessionFormatError) as err:
        load(p)
    assert str(err.value).startswith(f"{p}, $.history[1]: not a chat message.")


def test_mini_swe_agent_responses_api_trajectory():
    """mini-swe-agent's Responses API models save whole response objects (no role) and
    function_call_output items. Before: the file was refused ("$.messages[2]: not a chat message")."""
    path = Path(__file__).parent / "fixtures" / "constructed" / "mini_swe_agent_responses" / "responses.traj.json"
    s = load(path)
    assert [(m.role, str(m.source)) for m in s.messages] == [
        ("system", "$.messages[0]"), ("user", "$.messages[1]"), ("assistant", "$.messages[2].output[0]"), ("tool", "$.messages[3]"),
        ("assistant", "$.messages[4].output[0]"), ("tool", "$.messages[5]"), ("tool", "$.messages[6]"),
        ("assistant", "$.messages[7].output[0]"), ("tool", "$.messages[8]"),
    ]  # fmt: skip
    assert [c.id for c in s.messages[4].tool_calls] == ["call_2", "call_3"]  # one response, one message
    assert s.messages[4].text == "The sign is wrong; fixing it and running the tests."
    assert s.messages[3].tool_results[0].text == "<returncode>0</returncode>\n<output>\ndef add(a, b):\n    return a - b\n</output>"
    usage = [(m.index, m.usage.input_tokens, m.usage.cache_read_input_tokens, m.usage.output_tokens, m.usage.reasoning_tokens) for m in s.messages if m.usage]
    assert usage == [(2, 1510, 0, 96, 64), (4, 214, 1408, 141, 32), (7, 204, 1536, 40, 0)]
    assert (s.model, s.agent_version, s.extra["exit_status"]) == ("gpt-5-mini-2025-08-07", "2.3.0", "Submitted")
    assert [x.where for x in s.skipped] == ["$.messages[9]"]
    assert [(c.message_index, c.context_start) for c in build_view(s).calls] == [(2, 0), (4, 0), (7, 0)]


def test_mini_swe_agent_2_submit_call_is_marked_as_the_end_of_the_run(capsys, tmp_path):
    from inspector.cli.main import main
    from inspector.formats.hints import ENDS_RUN

    path = FIX / "minisweagent2.2.7_submit_trimmed.traj.json"
    s = load(path)
    assert [m.role for m in s.messages] == ["system", "user", "assistant", "tool", "assistant"]
    submit = s.messages[-1]
    assert submit.extra[ENDS_RUN] == "mini-swe-agent exit status Submitted"
    assert ENDS_RUN not in s.messages[2].extra  # an answered call
    assert [m.usage.context_tokens for m in s.messages if m.usage is not None] == [34228, 34557]
    out = tmp_path / "out.json"
    assert main(["export", str(path), "--to", "openai", "-o", str(out)]) == 2 and not out.exists()
    assert " ".join(capsys.readouterr().err.split()) == (
        f"context-inspector export: error: refusing to export {path}: it ends with a tool call the file has no "
        "result for (message #4: call_00_oVQv3gUKPFvmtIYl3IrTf8Gs; the run ended on it (mini-swe-agent exit status "
        "Submitted), so no result was ever written), and OpenAI rejects a request that leaves a tool call unanswered. "
        "Export the request of the last recorded call instead (--at 2), or pass --allow-invalid to write it anyway."
    )


def test_a_demonstration_holding_only_history_is_a_swe_agent_trajectory():
    """SWE-agent's demonstration files hold only ``history`` (no ``trajectory`` or ``info``); they
    were "not a session format the inspector recognises" (exit 2)."""
    path = FIX / "sweagent_demo_function_calling_simple.traj"
    scores = {n: f.detect(Probe(path)) for n, f in FORMATS.items()}
    assert scores.pop("swe_agent") == 95 and max(scores.values()) == 0
    s = load(path)
    assert (s.format, s.agent, len(s.messages)) == ("swe_agent", "swe-agent", 12)
    assert [m.role for m in s.messages] == ["system", "user"] + ["assistant", "tool"] * 5
    assert [m.tool_results[0].tool_call_id for m in s.messages[3::2]] == [c.id for m in s.messages[2::2] for c in m.tool_calls]
    assert [c.message_index for c in build_view(s).calls] == [2, 4, 6, 8, 10]


def test_a_history_of_plain_chat_messages_alone_is_not_claimed(tmp_path):
    path = tmp_path / "chat.json"
    path.write_text('{"history": [{"role": "user", "content": "hi"}]}')
    assert FORMATS["swe_agent"].detect(Probe(path)) == 0


def test_a_trajectory_that_names_no_model_says_why_it_is_not_priced(capsys):
    """'Cost: simulated with no strategy unknown.' said nothing of why (the viewer said the price
    data did not know the model, though the file names none)."""
    from inspector.cli.main import main

    assert main(["replay", str(FIX / "sweagent_demo_function_calling_simple.traj")]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Cost: simulated with no strategy unknown. Not priced: the file names no model (--model NAME prices it)." in out
