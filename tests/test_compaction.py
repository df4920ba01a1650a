"""Stateful compaction in replay: the agent compacts once and lives with the result.

The synthetic sessions reproduce the sizes real Claude Code transcripts recorded around an
automatic compaction (/work/extra_sessions/PROVENANCE.md, not committed): Claude Code 2.1.39
(spotter 4d5611e5) logged 164,831 input tokens at the last call before its boundary and
preTokens 170,251 at the boundary, so about 5,420 tokens arrived in between (the call's reply
and a tool result). The real transcripts themselves are measured by
bench/bench_compaction_points.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector import analyze
from inspector.analysis.replay import replay
from inspector.model import Session
from inspector.presets import resolve

from inspector.analysis.compare import compare
from inspector.analysis.planning import plan
from inspector.strategies.params import settings_model

from cli_helpers import as_json, run
from strategy_builders import SessionBuilder, text_of


def rising_session(recorded: list[int], big_result_after: int, big: int) -> Session:
    """One turn of Read calls; call k (1-based) records ``recorded[k-1]`` input tokens; the
    result of call ``big_result_after`` is ``big`` tokens, the others 20."""
    b = SessionBuilder()
    b.system("You are Claude Code.")
    b.user("fix the bug")
    for k, tokens in enumerate(recorded, 1):
        index, ids = b.assistant("", [("Read", "{}")], usage=tokens)
        b.tool(ids[0], text_of(big if k == big_result_after else 20))
    b.answer("fixed", usage=recorded[-1] + 100)
    return b.build()


def test_claude_code_fires_where_the_recorded_input_plus_new_messages_cross_the_trigger():
    # the history is in the file (about 20,000 tokens are not: Claude Code's system prompt and
    # tools): the prompt is 130,000 tokens, then results of 10,000, 4,800 and 5,400 arrive
    b = SessionBuilder()
    b.system("You are Claude Code.")
    b.user(text_of(130_000))
    for k, (recorded, result) in enumerate([(150_000, 10_000), (160_000, 4_800), (164_831, 5_400), (None, 20), (None, 20)], 1):
        _, ids = b.assistant("", [("Read", "{}")], usage=recorded)
        b.tool(ids[0], text_of(result))
    b.answer("fixed")
    a = analyze(b.build(), "approx", "anthropic")
    _, names, settings = resolve("claude-code")
    r = replay(a.view, a.table, names, settings)
    rows = [(c.call, c.kind, c.compacted_by) for c in r.calls]
    # 164,831 + the reply and the 5,400-token result >= 167,000: compaction before call 4
    assert rows == [(1, "call", None), (2, "call", None), (3, "call", None), (4, "summary", None),
                    (4, "call", "compact"), (5, "call", None), (6, "call", None)]
    summary, after = r.calls[3], r.calls[4]
    # the summarisation call reads the whole input call 4 would have had (the part not in the
    # file included); the call after it sends that part, the system prompt and the summary
    assert summary.tokens == after.predicted_tokens > 167_000
    assert 19_000 < after.not_in_file < 21_000
    system = a.table.overhead + a.table.totals[0]
    shown = after.tokens - after.not_in_file
    assert system < shown <= system + 2_000 + 10  # the summary: at most summary_tokens + framing
    # calls 5 and 6 see the summary plus what was added since call 4
    five = r.calls[5]
    assert (five.tokens - five.not_in_file) - shown == sum(a.table.totals[i] for i in range(after.message_index, five.message_index))
    # with 32,000 reserved for the output the trigger is 155,000: 150,000 + 10,000 crosses it before call 2
    _, names, settings = resolve("claude-code-32k-output")
    assert [c.call for c in replay(a.view, a.table, names, settings).calls if c.compacted_by] == [2]


def test_without_recorded_usage_our_count_is_the_trigger_and_the_total_counts_the_summary_call():
    b = SessionBuilder()
    b.user("go")
    for _ in range(12):
        b.exchange("Read", "{}", text_of(300))
    b.answer("done")
    a = b.analyze()
    _, names, settings = resolve("anthropic-compact", {"compact_tokens": 1_000, "summary_tokens": 50})
    r = replay(a.view, a.table, names, settings)
    fired = [c.call for c in r.calls if c.compacted_by]
    summaries = [c for c in r.calls if c.kind == "summary"]
    assert len(fired) == len(summaries) >= 2  # compacts again once the new messages pass the trigger
    assert r.total == sum(c.tokens for c in r.calls)  # summary calls included
    for c in summaries:
        assert c.tokens > 1_000


def write_session(session: Session, path: Path) -> Path:
    """``session`` as the inspector's own JSONL format (the CLI reads it)."""
    lines = [{"type": "session", "version": 1}]
    for m in session.messages:
        if m.role == "tool":
            r = m.content[0]
            lines.append({"role": "tool", "tool_call_id": r.tool_call_id, "content": r.content})
        else:
            row = {"role": m.role, "content": m.text}
            if m.tool_calls:
                row["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in m.tool_calls]
            if m.usage is not None:
                row["usage"] = {"input_tokens": m.usage.input_tokens}
            lines.append(row)
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def test_replay_json_marks_compacted_calls_and_summary_calls(capsys, tmp_path):
    session = rising_session([150_000, 160_000, 164_831, 20_000], big_result_after=3, big=5_400)
    path = write_session(session, tmp_path / "s.jsonl")
    report = as_json(capsys, "replay", path, "--preset", "claude-code", "--encoding", "approx")
    calls = report["calls"]
    assert [(c["call"], c["kind"], c["compacted_by"]) for c in calls] == [
        (1, "call", None), (2, "call", None), (3, "call", None), (4, "summary", None), (4, "call", "compact"), (5, "call", None),
    ]
    assert calls[3]["recorded_tokens"] is None and calls[4]["recorded_tokens"] == 20_000
    assert report["total"] == sum(c["tokens"] for c in calls)
    plain = as_json(capsys, "replay", path, "--strategy", "fifo", "--encoding", "approx")
    assert {c["kind"] for c in plain["calls"]} == {"call"} and {c["compacted_by"] for c in plain["calls"]} == {None}


REAL = Path(__file__).parent / "fixtures" / "real" / "compactions"


def compaction_points(path: Path, preset: str) -> tuple[list[int], list[int]]:
    """(the calls a compaction recorded in the file comes just before, the calls before which
    the stateful replay fires ``preset``): what bench/bench_compaction_points.py prints."""
    import inspector
    from inspector.tokens import resolve_or_fallback

    session = inspector.load(str(path))
    resolution, _ = resolve_or_fallback(session.model, None, "anthropic")
    a = inspector.analyze(session, resolution.counter, "anthropic", session.model)
    calls = a.view.calls
    recorded = [c.number for c in calls[1:] if c.context_start != calls[c.number - 2].context_start]
    _, names, settings = resolve(preset)
    fired = [c.call for c in inspector.replay(a, names, settings=settings).calls if c.compacted_by]
    return recorded, fired


@pytest.mark.parametrize(
    ("name", "preset", "recorded", "fired"),
    [
        # Claude Code 2.1.39 and 2.1.42 (Opus 4.6): 20,000 reserved for the output
        ("spotter_cc2.1.39_4d5611e5.jsonl", "claude-code", [62], [62]),
        ("entire_cc2.1.42_auto-compact.jsonl", "claude-code", [70], [69]),
        # Claude Code 2.1.7 and 2.1.19 (Opus 4.5): 32,000 reserved for the output
        ("entire_cc2.1.7_two-auto-compacts.jsonl", "claude-code-32k-output", [51, 128], [51, 128]),
        ("entire_cc2.1.19_auto-then-manual-compact.jsonl", "claude-code-32k-output", [98], [97]),
    ],
)
def test_the_agent_preset_fires_where_real_claude_code_transcripts_record_an_auto_compaction(name, preset, recorded, fired):
    # trimmed copies of public transcripts (fixtures/real/compactions/PROVENANCE.md): the
    # compaction each records is automatic; the preset of that version must fire at it, +-1
    got_recorded, got_fired = compaction_points(REAL / name, preset)
    assert (got_recorded, got_fired) == (recorded, fired)
    assert all(abs(f - r) <= 1 for f, r in zip(fired, recorded, strict=True))


def _two_reads_then_a_long_question() -> SessionBuilder:
    """Two tool exchanges of 300 tokens, an answer, then a 300-token user message and a reply."""
    b = SessionBuilder()
    b.system("be brief")
    b.user("fix it")
    b.exchange("read", "{}", text_of(300))
    b.exchange("read", "{}", text_of(300))
    b.answer("done")
    b.user(text_of(300))
    b.answer("ok")
    return b


def test_compare_checks_every_request_of_a_compacting_replay_not_only_the_last_call(capsys, tmp_path):
    # trim_messages keeps the newest messages within 304 tokens: at calls 2 and 3 that is a tool
    # result whose call it cut (invalid for both providers), at call 4 the last user message
    b = _two_reads_then_a_long_question()
    a = b.analyze()
    s = settings_model()(budget=304, compact_tokens=10**9)  # the compaction never fires
    assert [plan(a, ("trim_messages",), s, n).valid["openai"] for n in (1, 2, 3, 4)] == [True, False, False, True]
    row = compare(a, [("trim_messages", "compact")], s)[1]
    assert row.plan.valid == {"openai": True, "anthropic": True}  # the last call alone looks valid
    assert (row.validity_scope, row.valid) == ("every call", {"openai": False, "anthropic": False})
    assert row.invalid_calls == {"openai": (2, 3), "anthropic": (2, 3)}
    assert row.violations == {"openai": 2, "anthropic": 2}
    stateless = compare(a, [("trim_messages",)], s)[1]
    assert (stateless.validity_scope, stateless.valid, stateless.invalid_calls) == ("last call", {"openai": True, "anthropic": True}, {})

    path = write_session(b.build(), tmp_path / "s.jsonl")
    args = ("compare", path, "--encoding", "approx", "--strategy", "trim_messages,compact", "--budget", "304", "--compact-tokens", "1000000000")
    rows = {r["pipeline"]: r for r in as_json(capsys, *args)["rows"]}
    row = rows["trim_messages,compact"]
    assert (row["valid"], row["validity_scope"], row["invalid_calls"]) == (
        {"openai": False, "anthropic": False}, "every call", {"openai": [2, 3], "anthropic": [2, 3]})
    code, out, _ = run(capsys, *args)
    assert code == 0
    assert "2 violations in 2 calls" in out
    assert "a compacting pipeline is checked at every call of its stateful replay" in " ".join(out.split())


@pytest.mark.parametrize(
    ("name", "fired", "reserved_output"),
    [
        ("entire_cc2.1.7_two-auto-compacts.jsonl", [51, 128], 32_000),
        ("entire_cc2.1.19_auto-then-manual-compact.jsonl", [97], 32_000),
        ("spotter_cc2.1.39_4d5611e5.jsonl", [62], 20_000),
        ("entire_cc2.1.42_auto-compact.jsonl", [69], 20_000),
    ],
)
def test_the_claude_code_preset_takes_the_reservation_of_the_version_the_transcript_records(capsys, name, fired, reserved_output):
    # 2.1.20 and earlier compacted at 155,000 of 200,000 (32,000 reserved for the output), 2.1.25
    # and later at 167,000 (20,000): the one preset fires where each version fired (+-1)
    report = as_json(capsys, "replay", REAL / name, "--preset", "claude-code")
    assert [c["call"] for c in report["calls"] if c["compacted_by"]] == fired
    assert report["pipeline"][0]["params"]["reserved_output"] == reserved_output
    # a value the user sets wins over the version's
    forced = as_json(capsys, "replay", REAL / name, "--preset", "claude-code", "--set", "reserved_output=44000")
    assert forced["pipeline"][0]["params"]["reserved_output"] == 44_000


def test_compare_plans_a_compacting_rows_last_call_only_when_it_is_read(monkeypatch):
    """A compacting row's validity and last-call tokens are its replay's: ``compare`` plans its
    last call only when ``row.plan`` is read (once), the other rows' while it compares; each plan
    the one :func:`plan` makes."""
    from inspector.analysis import compare as compare_module

    a = _two_reads_then_a_long_question().analyze()
    s = settings_model()(budget=400)
    planned: list[tuple[str, ...]] = []

    def counted(analysis, names, settings, at):
        planned.append(names)
        return plan(analysis, names, settings, at)

    monkeypatch.setattr(compare_module, "plan", counted)
    rows = compare(a, [("fifo",), ("compact",), ("trim_messages", "compact")], s)
    assert planned == [(), ("fifo",)]
    assert [r.validity_scope for r in rows] == ["last call", "last call", "every call", "every call"]
    at = len(a.view.calls)
    for row in rows:
        assert row.plan is row.plan
        want = plan(a, row.pipeline, s, at)
        assert (row.plan.call.number, row.plan.tokens_after, row.plan.sequence, row.plan.valid) == (
            want.call.number, want.tokens_after, want.sequence, want.valid)
    assert planned == [(), ("fifo",), ("compact",), ("trim_messages", "compact")]


def test_the_default_budget_of_a_claude_code_session_follows_its_version(capsys):
    old = as_json(capsys, "info", REAL / "entire_cc2.1.7_two-auto-compacts.jsonl")["window"]
    assert (old["reserved"], old["budget"]) == (45_000, 155_000)
    assert old["reserved_note"] == "Claude Code 2.1.7 compacts at window - 32,000 reserved output - 13,000 buffer"
    new = as_json(capsys, "info", REAL / "entire_cc2.1.42_auto-compact.jsonl")["window"]
    assert (new["reserved"], new["budget"]) == (33_000, 167_000)
    assert new["reserved_note"] == "Claude Code 2.1.42 compacts at window - 20,000 reserved output - 13,000 buffer"
