"""Claude Code's fast mode: a call recorded with ``usage.speed: "fast"`` (Opus 4.8, Fable 5.2) is
billed at the fast rates (twice the standard ones on Opus 4.8). Public Claude Code 2.1.156-2.1.181
transcripts record it on every call of a session; priced at the standard rates their cost read
half of what was paid. A synthetic reduction of their lines (their licences allow no excerpt)."""

from __future__ import annotations

import json
from decimal import Decimal
from functools import partial

from claude_code_builders import entry
from inspector.analysis.money import session_money
from inspector.analysis.session import analyze
from inspector.formats import load

_entry = partial(entry, version="2.1.181", timestamp="2026-07-01T10:00:00.000Z")


def _session(tmp_path, speed):
    usage = {"input_tokens": 1_000_000, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 100_000,
             "service_tier": "standard", "speed": speed}
    if speed is None:
        del usage["speed"]
    reply = {"id": "msg_A", "type": "message", "role": "assistant", "model": "claude-opus-4-8",
             "content": [{"type": "text", "text": "done"}], "usage": usage}
    lines = [_entry("u1", None, "user", {"role": "user", "content": "go"}),
             _entry("a1", "u1", "assistant", reply, requestId="req_A")]
    path = tmp_path / f"{speed}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return load(path)


def _costs(session):
    """The first call's recorded cost and its cost with no strategy and under fifo (simulated
    splits of the same request: the call's speed prices them too)."""
    a = analyze(session, "o200k_base")
    first = session_money(a.view, a.table).calls[0]
    fifo = session_money(a.view, a.table, "fifo").calls[0]
    return first.recorded_cost, first.baseline_cost, fifo.cost


def test_a_fast_call_pays_the_fast_rates(tmp_path):
    fast = _session(tmp_path, "fast")
    assert fast.messages[1].usage.speed == "fast"
    cost, baseline, fifo = _costs(fast)
    assert (cost.input, cost.output, cost.total) == (Decimal(10), Decimal(5), Decimal(15))  # $10 / $50 per million
    assert baseline.output == fifo.output == Decimal(5)


def test_a_standard_or_unrecorded_speed_pays_the_standard_rates(tmp_path):
    for speed in ("standard", None):
        session = _session(tmp_path, speed)
        assert session.messages[1].usage.speed is None
        cost, baseline, fifo = _costs(session)
        assert (cost.input, cost.output, cost.total) == (Decimal(5), Decimal("2.5"), Decimal("7.5"))  # $5 / $25
        assert baseline.output == fifo.output == Decimal("2.5")
