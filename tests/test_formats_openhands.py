"""OpenHands trajectory exports: one assistant message per model response, tool results by
tool_call_id, usage from the stored response, condensation, skipped events."""

from __future__ import annotations

from pathlib import Path

from inspector.formats import load
from inspector.formats import builtin  # noqa: F401  (registers every format)
from inspector.formats.base import FORMATS, Probe
from inspector.units import ORPHAN_CALL, build_view

TRAJ = Path(__file__).parent / "fixtures" / "real" / "openhands" / "trajectory.json"


def test_detection():
    scores = {n: f.detect(Probe(TRAJ)) for n, f in FORMATS.items()}
    assert scores.pop("openhands") == 90
    assert max(scores.values()) <= 1


def test_messages_and_responses():
    s = load(TRAJ)
    assert [(m.role, str(m.source)) for m in s.messages] == [
        ("system", "$[0]"), ("user", "$[1]"), ("assistant", "$[4]"), ("tool", "$[6]"), ("tool", "$[7]"),
        ("assistant", "$[9]"), ("tool", "$[10]"), ("user", "$[11]"), ("user", "$[1]"),
        ("assistant", "$[12]"), ("tool", "$[13]"), ("assistant", "$[14]"),
    ]  # fmt: skip
    first = s.messages[2]  # events 4 and 5 came from one response: one message, both calls
    assert first.text == "Let me run the failing test and read the module."
    assert [(c.id, c.name) for c in first.tool_calls] == [("toolu_a", "execute_bash"), ("toolu_b", "str_replace_editor")]
    assert first.tool_calls[0].arguments == '{"command": "pytest -q tests/test_money.py"}'
    assert s.messages[3].tool_results[0].text.endswith("1 failed in 0.05s")
    assert [t.name for t in s.tools] == ["execute_bash", "str_replace_editor", "finish"]
    assert [(x.where, x.reason) for x in s.skipped] == [
        ("$[2]", "action/recall"),
        ("$[3]", "observation/recall"),
        ("$[8]", "observation/agent_state_changed"),
        ("$[15]", "action/change_agent_state"),
        ("$[16]", "action/teleport"),
    ]


def test_condensation_view_and_calls():
    s = load(TRAJ)
    summary, task_copy = s.messages[7], s.messages[8]
    assert summary.starts_context and summary.text.startswith("The agent ran tests/test_money.py")
    assert (task_copy.text, task_copy.extra["copy_of_event"], task_copy.starts_context) == ("Fix the failing test in tests/test_money.py", 1, False)
    view = build_view(s)
    assert [(u.kind.value, u.indices) for u in view.units] == [
        ("system", (0,)), ("user", (1,)), ("tool_exchange", (2, 3, 4)), ("tool_exchange", (5, 6)),
        ("summary", (7,)), ("user", (8,)), ("tool_exchange", (9, 10)), ("tool_exchange", (11,)),
    ]  # fmt: skip
    assert [(t.number, t.start, t.stop) for t in view.turns] == [(0, 0, 1), (1, 1, 8), (2, 8, 12)]  # the condensation summary is no prompt
    assert [(c.message_index, c.context_start) for c in view.calls] == [(2, 0), (5, 0), (9, 7), (11, 7)]
    assert view.flags[11] & ORPHAN_CALL  # finish has no observation
    usage = [s.messages[c.message_index].usage for c in view.calls]
    assert [(u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens, u.output_tokens) for u in usage] == [
        (404, 4096, 900, 120),
        (1200, 5400, 300, 80),
        (1052, 2048, None, 30),
        (300, 3000, None, 40),
    ]
    assert [u.context_tokens for u in usage] == [5400, 6900, 3100, 3300]


OUTPUT = Path(__file__).parent / "fixtures" / "real" / "openhands" / "output_trimmed.jsonl"


def test_evaluation_output_jsonl_reads_each_instance_as_a_session():
    """output.jsonl (one benchmark instance per line): the first instance is shown with a
    notice, the others are sidechains by instance_id (before: "not valid JSON" at line 2)."""
    scores = {name: fmt.detect(Probe(OUTPUT)) for name, fmt in FORMATS.items()}
    assert scores.pop("openhands") == 92 and max(scores.values()) < 92
    s = load(OUTPUT)
    assert [(m.role, str(m.source)) for m in s.messages] == [
        ("system", "line 1, $.history[0]"), ("user", "line 1, $.history[1]"),
        ("assistant", "line 1, $.history[4]"), ("tool", "line 1, $.history[5]"),
        ("assistant", "line 1, $.history[6]"), ("tool", "line 1, $.history[7]"),
        ("assistant", "line 1, $.history[8]"), ("tool", "line 1, $.history[9]"),
    ]  # fmt: skip
    view = build_view(s)
    assert [s.messages[c.message_index].usage.context_tokens for c in view.calls] == [5920, 6736, 6971]
    assert s.skipped[0].reason == (
        "2 evaluation instances in this file: showing the first, ponylang__ponyc-4595; "
        "the others are sidechains (open one with --sidechain INSTANCE_ID)"
    )
    assert (s.extra["instance_id"], s.extra["instances"]) == ("ponylang__ponyc-4595", ["ponylang__ponyc-4595", "ponylang__ponyc-4593"])
    assert s.extra["accumulated_token_usage"]["prompt_tokens"] == 565158
    from inspector.formats.sidechain import open_sidechain

    other = open_sidechain(s, "ponylang__ponyc-4593")
    assert [str(m.source) for m in other.messages][:2] == ["line 2, $.history[0]", "line 2, $.history[1]"]
    assert len(build_view(other).calls) == 3


REAL_EDIT = Path(__file__).parent / "fixtures" / "real" / "openhands" / "trajs_basic_2048.json"


def test_an_oh_aci_edit_before_0_24_answers_with_what_the_model_got_not_the_diff():
    import inspector
    from inspector.analysis.predict import predictions
    from inspector.cli.report import default_profile

    s = load(REAL_EDIT)
    assert [m.role for m in s.messages] == ["user", "assistant", "tool", "assistant"]
    assert s.messages[2].tool_results[0].content == "File created successfully at: /workspace/game_2048.py"
    assert [m.usage.context_tokens for m in s.messages if m.usage is not None] == [3486, 4646]
    # with the 160-line diff counted instead, call 2 was predicted 24% over what it recorded
    analysis = inspector.analyze(s, None, default_profile(s))
    second = predictions(analysis.view, analysis.table)[1]
    assert second.recorded_tokens == 4646 and abs(second.error) < 0.02


def test_the_finish_call_is_marked_as_the_end_of_the_run():
    from inspector.formats.hints import ENDS_RUN

    s = load(REAL_EDIT)
    assert [m.extra.get(ENDS_RUN) for m in s.messages] == [None, None, None, "OpenHands finish"]


def test_the_other_instances_are_not_priced_as_this_ones_cost():
    """The file's other evaluation instances are sidechains to open, not parts of this session:
    its cost is its own three calls (a sub-agent's would be added)."""
    import inspector
    from inspector.analysis.money import session_money

    s = load(OUTPUT)
    assert s.extra["separate_sessions"] == ["ponylang__ponyc-4593"]
    a = inspector.analyze(s, "cl100k_base")
    money = session_money(a.view, a.table)
    assert [c.sidechain for c in money.calls] == [None, None, None]
    assert money.total("recorded_cost") == money.total("recorded_cost", sidechains=False)
