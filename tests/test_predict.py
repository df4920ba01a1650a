"""predicted_tokens, the part not in the file, and the model's window, on a real Claude Code
transcript and on small built sessions."""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector
from inspector.analysis.predict import TYPICAL, next_call, not_in_file_at, predictions, typical_for
from inspector.analysis.window import DEFAULT_WINDOW, default_budget, session_window, window_for
from inspector.model import Usage
from inspector.units import build_view

from strategy_builders import SessionBuilder, text_of

FOUR = Path(__file__).parent / "fixtures" / "real" / "claude_code" / "agentcmd_full-session-four.jsonl"


@pytest.fixture(scope="module")
def four():
    return inspector.analyze(inspector.load(FOUR), "cl100k_base", "anthropic")


def test_each_call_is_predicted_from_the_calls_before_it(four):
    calls = predictions(four.view, four.table)
    assert len(calls) == 30
    # call 1: nothing recorded before it, so the typical Claude Code 2.0 gap (17,900) is added
    first = calls[0]
    assert (first.baseline_tokens, first.recorded_tokens, first.predicted_tokens) == (110, 17748, 18010)
    assert first.fit.basis == "typical" and first.fit.how.startswith("typical: median first-call gap")
    # later calls: the latest earlier call's recorded - counted, added to this call's count
    assert [(c.baseline_tokens, c.recorded_tokens, c.predicted_tokens) for c in calls[1:4]] == [
        (206, 17902, 17844), (1293, 32083, 18989), (1494, 32399, 32284),
    ]
    assert calls[1].fit.how == "inferred: recorded 17,748 at call 1 minus 110 counted"
    assert [(c.predicted_tokens, c.recorded_tokens) for c in calls[-2:]] == [(52272, 52342), (52709, 52909)]
    assert calls[-1].model == "claude-sonnet-4-5-20250929"
    assert calls[-1].not_in_file == 52342 - 17296
    errors = sorted(abs(c.error) for c in calls[1:])
    assert errors[len(errors) // 2] < 0.005  # median 0.40% (bench/bench_truth.py)


def test_a_call_never_sees_its_own_usage(four):
    before = [c.predicted_tokens for c in predictions(four.view, four.table)]
    message = four.view.messages[four.view.calls[9].message_index]
    recorded, message.usage = message.usage, Usage(input_tokens=1)
    try:
        # a view is a snapshot (its per-call figures are kept): changed messages get a new view
        after = [c.predicted_tokens for c in predictions(build_view(four.session), four.table)]
    finally:
        message.usage = recorded
    assert after[:10] == before[:10]  # calls 1-10 do not move
    assert after[10] != before[10]


def test_next_call_and_plans_include_the_part_not_in_the_file(four):
    nxt = next_call(four.view, four.table)
    assert (nxt.call, nxt.baseline_tokens, nxt.predicted_tokens) == (31, 18005, 53251)
    assert nxt.fit.as_dict() == {"offset": 35246, "scale": 1.0, "calls": 30, "basis": "recorded",
                                 "how": "inferred: recorded 52,909 at call 30 minus 17,663 counted"}
    plan = inspector.plan(four)
    assert plan.not_in_file == 35246 == not_in_file_at(four.view, four.table, None)
    assert plan.tokens_before == 53251
    # a trigger below the whole context fires even though the file shows only 18,005 tokens
    cleared = inspector.plan(four, "clear_tool_uses", trigger=30_000, keep=3)
    assert cleared.tokens_after < cleared.tokens_before


def _compacted_session(recorded: list[int | None]):
    b = SessionBuilder()
    b.system("You are helpful.")
    b.user(text_of(10))
    b.answer(text_of(10))
    b.user(text_of(10))
    b.answer(text_of(10))
    b.user("Here is a summary of the conversation to date: " + text_of(3), starts_context=True)
    b.answer(text_of(10))
    b.user(text_of(10))
    b.answer(text_of(10))
    calls = [m for m in b.messages if m.role == "assistant"]
    for m, r in zip(calls, recorded):
        m.usage = Usage(input_tokens=r) if r is not None else None
    return b.analyze()


def test_a_compaction_resets_the_fit():
    a = _compacted_session([1000, 1100, 900, None])
    calls = predictions(a.view, a.table)
    base = [c.baseline_tokens for c in calls]
    assert [c.fit.basis for c in calls] == ["none", "recorded", "before compaction", "recorded"]
    assert calls[1].predicted_tokens == 1000 - base[0] + base[1]
    # after the compaction: the first residual of the context before it (the agent's prefix)
    assert calls[2].predicted_tokens == 1000 - base[0] + base[2]
    assert calls[3].predicted_tokens == 900 - base[2] + base[3]
    assert calls[0].fit.how == "nothing recorded and no typical size known for this agent"


def test_a_recorded_zero_is_not_a_measurement():
    a = _compacted_session([1000, 0, None, None])
    calls = predictions(a.view, a.table)
    base = [c.baseline_tokens for c in calls]
    assert calls[1].recorded_tokens == 0 and calls[1].error is None
    # call 2's 0 is skipped: call 3 (after the compaction) still starts from call 1's residual
    assert calls[2].fit.how == f"inferred before the compaction: recorded 1,000 at call 1 minus {base[0]} counted"


def test_typical_sizes_by_agent_and_version():
    assert typical_for("claude_code", "2.0.27").tokens == 17_900
    assert typical_for("claude_code", "2.1.42").tokens == 29_900
    # 2.1.100 on: its own median (a prefix cannot tell 2.1.1x from 2.1.1xx)
    assert typical_for("claude_code", "2.1.19").tokens == typical_for("claude_code", "2.1.99").tokens == 29_900
    assert typical_for("claude_code", "2.1.100").tokens == typical_for("claude_code", "2.1.218").tokens == 25_200
    # a pre-release suffix ends the numbers, it does not drop the patch (2.1.108-beta is 2.1.108)
    assert typical_for("claude_code", "2.1.108-beta").tokens == 25_200 and typical_for("claude_code", "2.1.99-rc.1").tokens == 29_900
    assert typical_for("claude_code", None).tokens == 26_400
    assert typical_for("codex", "0.40.0").tokens == 2_650
    assert typical_for("codex", "0.136.0").tokens == typical_for("codex", "0.142.4").tokens == 6_200
    assert typical_for("aider", "1.0") is None and typical_for(None, None) is None


def test_claude_code_typical_by_the_models_tokenizer():
    """2.1.100 on, a model up to Claude 4.6 counts the same hidden prompt in the older tokenizer:
    18,200 (public Opus 4.6 and Sonnet 4.6 sessions: 17,869-21,150; with 25,200 they read 24-38 %
    high); Claude 4.7+ and an unknown model keep 25,200; before 2.1.100 every model had 29,900."""
    for model in ("claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-5-20251101"):
        assert typical_for("claude_code", "2.1.108", model).tokens == 18_200
    for model in ("claude-opus-4-7", "claude-opus-4-8", "claude-fable-5", None):
        assert typical_for("claude_code", "2.1.108", model).tokens == 25_200
    assert typical_for("claude_code", "2.1.42", "claude-opus-4-6").tokens == 29_900


def test_the_first_call_takes_the_typical_of_the_sessions_model(tmp_path):
    import orjson

    usage = {"input_tokens": 4, "cache_read_input_tokens": 18_000, "cache_creation_input_tokens": 400, "output_tokens": 3}
    base = {"sessionId": "s", "version": "2.1.108", "timestamp": "2026-04-01T00:00:00Z"}
    entries = [{**base, "type": "user", "uuid": "u", "parentUuid": None, "message": {"role": "user", "content": "hi"}},
               {**base, "type": "assistant", "uuid": "a", "parentUuid": "u", "requestId": "r",
                "message": {"role": "assistant", "id": "m", "model": "claude-opus-4-6", "content": [{"type": "text", "text": "ok"}], "usage": usage}}]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(e) for e in entries) + b"\n")
    analysis = inspector.analyze(inspector.load(path), "cl100k_base")
    first = predictions(analysis.view, analysis.table)[0]
    assert (first.fit.basis, first.fit.offset) == ("typical", 18_200)
    assert first.fit.how.startswith("typical: median of 2 public repositories' median first-call gaps of Claude Code 2.1.100+")
    assert all("median first-call gap" in t.source for t in TYPICAL)


def test_window_of_the_model_and_what_the_agent_reserves(four):
    w = session_window(four.session)
    # Claude Code 2.0.27: 32,000 reserved for the output, as through 2.1.20 (the claude-code preset)
    assert (w.model, w.tokens, w.source, w.reserved, w.budget) == ("claude-sonnet-4-5-20250929", 200_000, "Claude Code's 200K default", 45_000, 155_000)
    assert default_budget(four.session) == 155_000
    assert window_for("gpt-4o").tokens == 128_000
    # Codex records 95 % of its 272,000 catalog window and compacts at 9/10 of the catalog window
    codex = window_for("gpt-5-codex", "codex", recorded=258_400)
    assert (codex.tokens, codex.source, codex.budget) == (258_400, "recorded in the file", 244_800)
    none = window_for(None)
    assert (none.tokens, none.assumed, none.reserved) == (DEFAULT_WINDOW, True, 0)
    assert none.source == "assumed: the file names no model"
    unknown = window_for("my-local-model")
    assert unknown.assumed and "my-local-model is not in genai-prices' table" in unknown.source


GEMINI = Path(__file__).parent / "fixtures" / "real" / "public" / "agentcmd_session-2025-10-27T19-55-981c87cb.json"


def test_gemini_cli_sessions_have_the_clis_own_window():
    """Gemini CLI compresses at a share of its own ``tokenLimit`` (1,048,576); genai-prices lists
    gemini-2.5-pro with a price but no window, which was shown as "not in genai-prices' table"
    and assumed 200,000 (a real Gemini CLI 0.11 chat, gemini-2.5-pro)."""
    w = session_window(inspector.load(GEMINI))
    assert (w.model, w.tokens, w.source, w.assumed, w.budget) == ("gemini-2.5-pro", 1_048_576, "Gemini CLI's token limit", False, 1_048_576)
    assert window_for("gemini-1.5-pro", "gemini-cli").tokens == 2_097_152
    # outside Gemini CLI: the table's window, or one assumed with the right reason
    assert window_for("gemini-2.5-flash").tokens == 1_048_576
    other = window_for("gemini-2.5-pro")
    assert (other.tokens, other.source) == (DEFAULT_WINDOW, "assumed: genai-prices' table gives gemini-2.5-pro no window")


def test_a_claude_code_call_above_200k_shows_the_1m_window(four):
    """A transcript does not name Claude Code's 1M variant; a call that read more than 200,000 tokens does."""
    messages = list(four.session.messages)
    last = max(i for i, m in enumerate(messages) if m.usage is not None)
    usage = messages[last].usage.model_copy(update={"input_tokens": 3, "cache_read_input_tokens": 200_000,
                                                    "cache_creation_input_tokens": 1_000})
    messages[last] = messages[last].model_copy(update={"usage": usage})
    w = session_window(four.session.model_copy(update={"messages": messages}))
    assert (w.tokens, w.reserved, w.budget) == (1_000_000, 45_000, 955_000)
    assert w.source == "Claude Code's 1M window: a call read 201,003"
    # --model asks what another model's window would be: the file's largest call says nothing of it
    assert session_window(four.session.model_copy(update={"messages": messages}), "claude-haiku-4-5").tokens == 200_000
    at_the_limit = usage.model_copy(update={"cache_creation_input_tokens": 0, "input_tokens": 0})  # 200,000: fits
    messages[last] = messages[last].model_copy(update={"usage": at_the_limit})
    assert session_window(four.session.model_copy(update={"messages": messages})).tokens == 200_000


def test_codex_window_recorded_in_the_file_wins():
    rollout = next((Path(__file__).parent / "fixtures" / "real" / "codex").glob("rollout-*.jsonl"))
    w = session_window(inspector.load(rollout))
    assert (w.model, w.tokens, w.source, w.reserved, w.budget) == ("gpt-5.1-codex", 258_400, "recorded in the file", 13_600, 244_800)
    # --model overrides the file's model, so the table's window applies
    assert session_window(inspector.load(rollout), "gpt-4o").tokens == 128_000


def test_compacting_presets_take_the_session_window_unless_the_user_sets_it():
    from inspector.analysis.window import with_session_window
    from inspector.model import Message, Session
    from inspector.strategies.params import settings_model

    recorded = Session(format="codex", messages=[
        Message(index=0, role="user", content=[]),
        Message(index=1, role="assistant", content=[], extra={"model_context_window": 258_400}),
    ])
    settings = settings_model()(context_window=272_000)  # the codex preset's own default
    assert with_session_window(settings, recorded, set()).context_window == 258_400
    assert with_session_window(settings, recorded, {"context_window"}).context_window == 272_000  # --set wins
    unknown = Session(format="jsonl", messages=[])  # no model: the window would be assumed, so keep the preset's
    assert with_session_window(settings, unknown, set()).context_window == 272_000


def test_a_plan_at_every_call_and_at_the_next_starts_from_its_predicted_tokens():
    # the Claude Code fixture re-sends thinking within its turns: plans, replay and the viewer
    # must agree on each call's whole input (the re-sent reasoning included)
    import inspector
    from pathlib import Path

    path = Path(__file__).parent / "fixtures" / "real" / "claude_code" / "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13.jsonl"
    a = inspector.analyze(inspector.load(path), "cl100k_base", "anthropic")
    calls = inspector.replay(a).calls
    assert [inspector.plan(a, at_call=c.call).tokens_before for c in calls] == [c.predicted_tokens for c in calls]
    assert inspector.plan(a).tokens_before == inspector.next_call(a).predicted_tokens


def test_model_option_sets_the_window_in_info(capsys):
    from pathlib import Path

    from cli_helpers import as_json

    path = Path(__file__).parent / "fixtures" / "real" / "claude_code" / "agentcmd_full-session-four.jsonl"
    d = as_json(capsys, "info", path, "--model", "gpt-4o")
    assert (d["model"], d["window"]["tokens"], d["window"]["source"], d["tokenizer"]) == ("gpt-4o", 128_000, "genai-prices", "o200k_base (exact)")
    d = as_json(capsys, "info", path)
    assert (d["model"], d["window"]["tokens"], d["window"]["source"]) == ("claude-sonnet-4-5-20250929", 200_000, "Claude Code's 200K default")


def test_the_first_call_takes_the_typical_of_its_own_model_not_the_sessions_most_used(tmp_path):
    """Call 1 on Opus 4.6, calls 2-3 on Opus 4.7 (a /model switch): Session.model is the most used
    (4.7), but the hidden prompt call 1 was sent is counted in 4.6's tokenizer: 18,200, not
    25,200. Nor does call 1's figure change as a followed file's later calls tip the tally."""
    import orjson

    base = {"sessionId": "s", "version": "2.1.120", "timestamp": "2026-06-01T00:00:00Z"}
    entries, parent = [], None
    for k, model in enumerate(("claude-opus-4-6", "claude-opus-4-7", "claude-opus-4-7")):
        usage = {"input_tokens": 5, "cache_read_input_tokens": 20_000 + k, "cache_creation_input_tokens": 10, "output_tokens": 4}
        entries += [{**base, "type": "user", "uuid": f"u{k}", "parentUuid": parent, "message": {"role": "user", "content": f"q {k}"}},
                    {**base, "type": "assistant", "uuid": f"a{k}", "parentUuid": f"u{k}", "requestId": f"r{k}",
                     "message": {"role": "assistant", "id": f"m{k}", "model": model, "content": [{"type": "text", "text": "ok"}],
                                 "usage": usage}}]
        parent = f"a{k}"
    path = tmp_path / "s.jsonl"
    offsets = []
    for upto in (2, 6):  # call 1 alone, then all three
        path.write_bytes(b"\n".join(orjson.dumps(e) for e in entries[:upto]) + b"\n")
        analysis = inspector.analyze(inspector.load(path), "cl100k_base")
        first = predictions(analysis.view, analysis.table)[0]
        offsets.append((first.fit.basis, first.fit.offset))
    assert analysis.session.model == "claude-opus-4-7"
    assert offsets == [("typical", 18_200)] * 2
