"""The codex preset: Codex's own count (codex-rs get_total_token_usage) against its limit (9/10
of the catalog window), on a built rollout whose figures are worked out by hand and on the
two public rollouts that record automatic compactions (trimmed copies in
fixtures/real/compactions/, PROVENANCE.md there)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import inspector
from inspector.analysis.codex_count import codex_count, reasoning_blob_tokens
from inspector.analysis.window import codex_limit, codex_reported_window, session_window, with_session_window
from inspector.presets import builtin_preset, resolve, settings_for
from inspector.strategies.compact import trigger_tokens

REAL = Path(__file__).parent / "fixtures" / "real" / "compactions"


def _line(kind: str, payload: dict) -> str:
    return json.dumps({"timestamp": "2026-06-07T00:00:00Z", "type": kind, "payload": payload})


def _usage(input_tokens: int, output_tokens: int) -> dict:
    return {"input_tokens": input_tokens, "cached_input_tokens": 0, "output_tokens": output_tokens,
            "reasoning_output_tokens": 0, "total_tokens": input_tokens + output_tokens}


def _rollout(path: Path, inputs: list[int], blob: str, output: str) -> Path:
    """One prompt, then a reasoning item (``blob``), a call and its output per model call; a
    second prompt after the first call puts that reasoning before the last user turn."""
    lines = [_line("session_meta", {"id": "s", "cwd": "/w", "cli_version": "0.136.0", "base_instructions": {"text": "You are Codex."}}),
             _line("turn_context", {"model": "gpt-5.5", "cwd": "/w"}),
             _line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]})]
    total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0, "total_tokens": 0}
    for k, tokens in enumerate(inputs):
        lines.append(_line("response_item", {"type": "reasoning", "summary": [], "encrypted_content": blob}))
        lines.append(_line("response_item", {"type": "function_call", "name": "exec", "arguments": "{}", "call_id": f"c{k}"}))
        lines.append(_line("response_item", {"type": "function_call_output", "call_id": f"c{k}", "output": output}))
        last = _usage(tokens, 100)
        total = {key: total[key] + last[key] for key in total}
        lines.append(_line("event_msg", {"type": "token_count", "info": {
            "last_token_usage": last, "total_token_usage": dict(total), "model_context_window": 258_400}}))
        if k == 0:
            lines.append(_line("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "more"}]}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _fired(path: Path) -> list[int]:
    session = inspector.load(str(path))
    a = inspector.analyze(session)
    _, names, settings = resolve("codex")
    settings = with_session_window(settings, session, set())
    return [c.call for c in inspector.replay(a, names, settings=settings).calls if c.compacted_by]


def test_codex_counts_the_last_total_the_items_since_and_earlier_encrypted_reasoning(tmp_path):
    blob, output = "A" * 4_000, "x" * 2_000
    path = _rollout(tmp_path / "r.jsonl", [200_000, 240_000, 241_000], blob, output)
    view = inspector.analyze(inspector.load(str(path))).view
    calls = view.calls
    # one output item: {"type":"function_call_output","call_id":"c1","output":"xx..."} = 2,057 bytes
    item = math.ceil(len(json.dumps({"type": "function_call_output", "call_id": "c1", "output": output}, separators=(",", ":"))) / 4)
    assert item == 515
    assert reasoning_blob_tokens(blob) == math.ceil((4_000 * 3 // 4 - 650) / 4) == 588  # 2,350 bytes
    # after call 2: its total (240,100) + its output item; call 1's reasoning is before the
    # second prompt, so counted; call 2's is in the current turn, so not
    assert codex_count(view, calls[1], calls[2]) == 240_100 + item + 588 == 241_203
    # after call 1 Codex checks before it records the prompt "more": its output item only, and
    # no reasoning before a user turn yet
    assert codex_count(view, calls[0], calls[1]) == 200_100 + 515


def test_the_codex_preset_fires_where_codex_count_reaches_244800_and_not_a_call_earlier(tmp_path):
    blob, output = "A" * 4_000, "x" * 2_000
    # after call 2 Codex counts 244,100 + 515 + 588 = 245,203 >= 244,800: compaction before call 3
    assert _fired(_rollout(tmp_path / "a.jsonl", [200_000, 244_000, 245_000], blob, output)) == [3]
    # 243,600 + 515 + 588 = 244,703 < 244,800: not yet (the recorded input plus our count of
    # what was added would be 243,500 + about 600, also short; the reasoning is what decides)
    assert _fired(_rollout(tmp_path / "b.jsonl", [200_000, 243_500, 243_600], blob, output)) == []
    # 243,800 + 515 = 244,315 with the reasoning blob redacted (as public checkpoints store
    # it), 244,903 with it
    assert _fired(_rollout(tmp_path / "c.jsonl", [200_000, 243_700, 243_800], "REDACTED", output)) == []
    assert _fired(_rollout(tmp_path / "d.jsonl", [200_000, 243_700, 243_800], blob, output)) == [3]


def test_one_home_for_codex_limit_the_window_budget_is_the_presets_trigger():
    # 272,000 x 95 % recorded; 9/10 of 272,000 compacts
    assert codex_limit(258_400) == 244_800
    assert codex_limit(380_000) == 360_000  # a 400,000 catalog window
    session = inspector.load(str(REAL / "entiregraph_codex0.136.0_auto-compact.jsonl"))
    window = session_window(session)
    assert (window.tokens, window.budget, window.reserved) == (258_400, 244_800, 13_600)
    assert window.reserved_note == "Codex compacts at 9/10 of 272,000"  # the catalog window


def test_a_rollout_that_records_the_catalog_window_compacts_at_nine_tenths_of_it():
    """Codex 0.40 records the catalog window itself (272,000), later versions 95 % of it
    (258,400): both compact at 244,800, in the viewer's budget and in the codex preset."""
    assert codex_reported_window(272_000) == 258_400 and codex_reported_window(258_400) == 258_400
    old = Path(__file__).parent / "fixtures" / "real" / "codex" / "agentcmd_rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl"
    window = session_window(inspector.load(str(old)))
    assert (window.tokens, window.budget, window.reserved_note) == (272_000, 244_800, "Codex compacts at 9/10 of 272,000")
    settings = with_session_window(settings_for(builtin_preset("codex"), {}), inspector.load(str(old)), set())
    assert settings.context_window == 258_400 and trigger_tokens(settings) == 244_800


@pytest.mark.parametrize(
    ("name", "recorded", "counts", "before"),
    [
        ("entiregraph_codex0.136.0_auto-compact.jsonl", [150], [234_154], [232_715]),
        ("entiregraph_codex0.145.0-alpha.18_two-compactions.jsonl", [116, 300], [226_695, 204_661], [224_247, 203_984]),
    ],
)
def test_real_codex_compactions_what_the_file_holds_of_codex_count_stays_below_the_limit(name, recorded, counts, before):
    # The compactions these rollouts record are automatic (mid-turn, no /compact). What the
    # file holds of Codex's count at each (the last total plus the items since) is 10,646,
    # 18,105 and 40,139 short of 244,800: the rest is Codex's estimate of the encrypted
    # reasoning, every blob of which the public copies redact. So the preset cannot fire at
    # these calls from what the files hold; it fires at none, never early.
    session = inspector.load(str(REAL / name))
    view = inspector.analyze(session).view
    calls = view.calls
    got = [c.number for c in calls[1:] if c.context_start != calls[c.number - 2].context_start]
    assert got == recorded
    assert [codex_count(view, calls[r - 2], calls[r - 1]) for r in recorded] == counts
    assert [codex_count(view, calls[r - 3], calls[r - 2]) for r in recorded] == before
    assert all(c < codex_limit(258_400) for c in counts)
    assert _fired(REAL / name) == []
