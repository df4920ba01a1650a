"""The prediction after a Claude Code microcompact: the cleared results are taken out at the size
their calls recorded for them, not at the estimate's count (inspector.analysis.predict.cleared_excess).

On three public 2.1.17 microcompacts the estimate counted the cleared results 6-14 % above what
they had added to the recorded input, so the call after each was predicted 3.7 %, 1.6 % and 4.9 %
low; with each result scaled by its step's recorded / counted growth: 1.4 %, 2.2 % and 1.6 % low
(bench/bench_truth.py on /work/extra_sessions)."""

from __future__ import annotations

import json

import inspector
from inspector.analysis.predict import cleared_excess, predictions

from test_formats_claude_code_microcompact import _call, _entry, _lines, _use


def _analysis(tmp_path, second_recorded: int):
    lines = _lines()
    lines[3] = _entry("a2", "r1", "assistant", _call("msg_2", _use("toolu_2"), second_recorded), requestId="req_2")
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return inspector.analyze(inspector.load(path), "o200k_base")


def _figures(a):
    calls = predictions(a.view, a.table)
    excess = cleared_excess(a.view, a.table, [c.baseline_tokens for c in calls], [c.recorded_tokens for c in calls])
    return excess, [(c.call, c.baseline_tokens, c.recorded_tokens, c.predicted_tokens) for c in calls], calls[2].fit


def test_a_cleared_result_leaves_at_the_size_its_step_recorded(tmp_path):
    # call 2 recorded 5,400 more than call 1 for 6,024 counted (the 6,004-token result and the
    # reply): ratio 0.896, so the result cleared (6,004 -> 11 counted) frees 5,370, not 5,993
    excess, rows, fit = _figures(_analysis(tmp_path, 10_400))
    assert excess == {5: 621}
    assert rows == [(1, 10, 5003, 29910), (2, 6034, 10403, 11027), (3, 66, 5033, 5056)]
    assert fit.offset == 10403 - 6034 + 621 and fit.cleared_excess == 621
    assert fit.how == ("inferred: recorded 10,403 at call 2 minus 6,034 counted, "
                       "plus 621 the cleared results were counted above what they added")


def test_a_step_whose_growth_is_far_from_its_count_keeps_the_count(tmp_path):
    # call 2 recorded 3,000 more for 6,024 counted: a ratio of 0.498 says more about the step
    # than about the result, which then leaves at its count (as before)
    excess, rows, fit = _figures(_analysis(tmp_path, 8_000))
    assert excess == {5: 0}
    assert rows[2] == (3, 66, 5033, 2035) and fit.cleared_excess == 0
