"""The fold lane and the span lane's mask_tool_outputs on settings drawn at random (the lanes'
own tests use fixed lists): every compaction the fold lane answers equals the general step and
the replay equals the step-by-step simulation; every call mask_tool_outputs' span lane answers
equals its layout and the direct path's, and the replay equals the per-call plans."""

from __future__ import annotations

from unittest import mock

from hypothesis import HealthCheck, given, settings, strategies as st

from inspector import analyze
from inspector.analysis.compaction_fold import folds
from inspector.model import Session
from inspector.strategies import Settings
from tests import test_span_lane as span
from tests.test_compaction_fold import assert_the_lane_equals_the_general_step
from tests.test_edit_shares import _assert_replay_equals_the_plans
from tests.test_incremental_replay import sessions

COMPACT = st.fixed_dictionaries({}, optional={
    "compact_tokens": st.integers(1, 3000), "keep_tail_messages": st.integers(0, 40), "summary_tokens": st.integers(0, 800),
    "compact_messages": st.integers(1, 20), "budget": st.integers(50, 3000)})

MASK = st.fixed_dictionaries(
    {"mask_protect_tokens": st.integers(0, 400), "mask_min_tokens": st.integers(0, 300), "mask_protect_turns": st.integers(0, 3)},
    optional={"mask_keep_results": st.integers(0, 4), "mask_tools": st.sampled_from([("read_file",), ("bash",), ("grep", "read_file")]),
              "mask_protected_tools": st.sampled_from([("bash",), ("read_file",)])})


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(sessions(), COMPACT)
def test_the_fold_lane_equals_the_general_step_on_any_settings_it_takes(session, params):
    a = analyze(session, encoding="approx")
    view, table = a.view, a.table
    try:
        s = Settings(**params)
    except ValueError:
        return
    if not view.calls or not folds(view, ("compact",), s):
        return
    assert_the_lane_equals_the_general_step(view, table, params)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(sessions(), st.sampled_from(span.FORMATS), MASK)
def test_the_span_lane_masks_as_the_layouts_and_the_plans_on_any_settings(session, fmt, params):
    a = analyze(Session(format=fmt, messages=session.messages), encoding="approx")
    if not a.view.calls:
        return
    variants = [(("mask_tool_outputs",), params), (("mask_tool_outputs", "fifo"), {**params, "budget": 800})]
    with mock.patch.object(span, "VARIANTS", variants):
        span._assert_lane_equals_the_layouts(a)
    s = Settings(**params)
    if span._lane(a.view, a.table, ("mask_tool_outputs",), s) is not None:
        _assert_replay_equals_the_plans(a.view, a.table, ("mask_tool_outputs",), s)
