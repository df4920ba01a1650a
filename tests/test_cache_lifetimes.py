"""The cache lifetime follows what each call records: a Claude Code session can write one-hour
cache entries and then five-minute ones (seen on public sessions that switch mid-session; the
transcripts' licences allow no excerpt, so a synthetic reduction): a call that comes more than
five minutes after the last five-minute write reads only the warm prefix, and the writes of a
call that wrote five-minute entries are priced at the five-minute rate."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal

from claude_code_builders import entry
from inspector import analyze, load
from inspector.analysis.cache import ANTHROPIC_TTL, ANTHROPIC_TTL_1H, CacheSplit, call_clock, entry_lifetimes, policy_for
from inspector.analysis.money import call_time, session_money
from inspector.analysis.prices import TokenSplit, price
from inspector.presets import resolve

MODEL = "claude-sonnet-4-5"


def test_each_call_leaves_an_entry_with_the_lifetime_it_wrote():
    writes = [(5000, 5000), (100, 100), (0, 0), (200, 0), (0, 0), (300, None), (40, 40)]
    assert entry_lifetimes(writes, ANTHROPIC_TTL_1H) == [3600.0, 3600.0, 3600.0, 300.0, 300.0, 300.0, 3600.0]
    # nothing tells (no write, or no one-hour part recorded): the policy's
    assert entry_lifetimes([(0, 0), (300, None)], ANTHROPIC_TTL) == [300.0, 300.0]


def test_the_clock_expires_a_call_by_the_lifetime_of_the_entry_before_it():
    policy = policy_for("anthropic", MODEL, long_ttl=True)
    times = [0.0, 10.0, 400.0, 410.0, 800.0]
    lifetimes = [3600.0, 3600.0, 3600.0, 300.0, 300.0]
    # 390 s after a five-minute write: expired; 390 s after a one-hour one: not
    assert [expired for expired, _ in call_clock(times, policy, lifetimes)] == [False, False, False, False, True]
    assert [expired for expired, _ in call_clock(times, policy)] == [False] * 5  # the policy's hour for every call


def _usage(read: int, write: int, one_hour: int, speed: str | None = None) -> dict:
    usage = {"input_tokens": 2, "cache_read_input_tokens": read, "cache_creation_input_tokens": write, "output_tokens": 10,
             "cache_creation": {"ephemeral_1h_input_tokens": one_hour, "ephemeral_5m_input_tokens": write - one_hour}}
    return usage | ({"speed": speed} if speed else {})


def _session(tmp_path, speed: str | None = None, model: str = MODEL):
    """Four prompts and answers: calls 1-2 write one-hour entries, call 3 five-minute ones, call 4
    comes 6 min 40 s after call 3 (every call made by ``model`` at ``speed``)."""
    times = ["10:00:00", "10:01:00", "10:02:00", "10:08:40"]
    usages = [_usage(0, 2906, 2906, speed), _usage(2906, 1500, 1500, speed), _usage(4406, 1500, 0, speed), _usage(0, 7406, 0, speed)]
    lines, parent = [], None
    for k, (t, usage) in enumerate(zip(times, usages)):
        stamp = f"2026-10-01T{t}.000Z"
        lines.append(entry(f"u{k}", parent, "user", {"role": "user", "content": f"question {k} " + "lorem ipsum " * 600},
                           version="2.1.100", timestamp=stamp))
        reply = {"id": f"msg_{k}", "type": "message", "role": "assistant", "model": model, "stop_reason": "end_turn",
                 "content": [{"type": "text", "text": f"answer {k}"}], "usage": usage}
        lines.append(entry(f"a{k}", f"u{k}", "assistant", reply, version="2.1.100", timestamp=stamp.replace(":00.000Z", ":05.000Z"),
                           requestId=f"req_{k}"))
        parent = f"a{k}"
    path = tmp_path / f"s-{speed}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return analyze(load(path), profile="anthropic")


def test_a_call_after_the_five_minute_entry_expired_writes_it_again(tmp_path):
    a = _session(tmp_path)
    money = session_money(a.view, a.table)
    assert money.cache_policy == "read + write, lifetime 60 min, minimum 1024 tokens"  # the session wrote one-hour entries
    # call 4 reads nothing (the first call read nothing: no warm prefix) and writes its whole
    # request, as recorded; with the hour for every call it read call 3's 5,814 tokens
    assert [c.baseline_cache for c in money.calls][2:] == [CacheSplit(4314, 1500, 0), CacheSplit(0, 7314, 0)]
    assert [c.recorded_cost is not None for c in money.calls] == [True] * 4


def test_writes_are_priced_at_the_lifetime_the_call_wrote(tmp_path):
    a = _session(tmp_path)
    money = session_money(a.view, a.table)
    when = datetime.fromisoformat("2026-10-01T10:02:05+00:00")
    call3 = money.calls[2]
    split = call3.baseline_cache
    expected = price(TokenSplit(split.uncached_tokens, split.read_tokens, split.write_tokens, 10, 0), MODEL, None, when)
    assert call3.baseline_cost.total == expected.total == Decimal("0.0070692")  # 4,314 read, 1,500 written at 1.25x, 10 out
    # call 2 wrote one-hour entries: its writes (none simulated here) would be at 2x; call 1's are
    call1 = money.calls[0]
    assert call1.baseline_cache.write_tokens == call1.baseline_cache.total
    one_hour = price(TokenSplit(0, 0, call1.baseline_cache.write_tokens, 10, call1.baseline_cache.write_tokens), MODEL, None,
                     datetime.fromisoformat("2026-10-01T10:00:05+00:00"))
    assert call1.baseline_cost.total == one_hour.total


def test_a_strategys_summary_call_is_made_as_the_call_it_goes_before(tmp_path):
    """The summary call a compacting pipeline adds before a call writes entries of that call's
    lifetime (one hour before call 1, five minutes before call 3) at that call's speed (Opus 4.8's
    fast mode: twice its standard rates)."""
    _, names, settings = resolve("anthropic-compact", {"compact_tokens": 5_000, "summary_tokens": 50})
    for speed, model, factor in ((None, MODEL, 1), ("fast", "claude-opus-4-8", 2)):
        a = _session(tmp_path, speed, model)
        rows = [c for c in session_money(a.view, a.table, names, settings).calls if c.kind == "summary"]
        assert [c.call for c in rows] == [1, 3]
        for row, one_hour in zip(rows, (True, False)):
            s, when = row.cache, call_time(a.view.messages[row.message_index])
            standard = price(TokenSplit(s.uncached_tokens, s.read_tokens, s.write_tokens, 50, s.write_tokens if one_hour else 0),
                             model, None, when)
            assert row.cost.total == factor * standard.total
    # Sonnet 4.5 before call 3: 4,314 read at 0.1x, 1,500 written at the five-minute 1.25x (not the hour's 2x), 50 out
    a = _session(tmp_path)
    row = [c for c in session_money(a.view, a.table, names, settings).calls if c.kind == "summary"][1]
    assert (row.cache, row.cost.total) == (CacheSplit(4314, 1500, 0), Decimal("0.0076692"))
