"""Shared prefixes straight from the layouts' op arrays (inspector.analysis.edit_shares) equal
:class:`LayoutChain`'s, call by call, and both equal the per-call plans fed to
:class:`RequestChain` (tests/test_incremental_replay.py checks the replay end to end).

The sessions and the settings are test_incremental_replay's: every strategy with layouts under
budgets, triggers and keeps at the edges of their checks."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from inspector import analyze
from inspector.analysis.edit_shares import EditShares
from inspector.analysis.replay import _fast_requests, call_facts
from inspector.analysis.requests import LayoutChain, RequestChain
from inspector.model import Session
from inspector.strategies import Settings
from inspector.strategies.layouts import layout_fn, replay_layouts
from inspector.strategies.pipeline import run
from tests.test_incremental_replay import VARIANTS, sessions

def _generated(n: int):
    spec = importlib.util.spec_from_file_location("gen_session", Path(__file__).parent.parent / "bench" / "gen_session.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate(n)


LAID_OUT = [(names, params) for names, params in VARIANTS if layout_fn(names) is not None]


def _both(view, table, names, s):
    """Per call (1-based, from 2): EditShares' answer (None: left to LayoutChain), fed in order
    and fed each call alone (its previous layout passed), and LayoutChain's (shared, sent)."""
    facts = call_facts(view, table)
    got = replay_layouts(view, table, names, s, facts.hidden)
    if got is None:
        return None
    f, layout_of = got
    not_in_file = [p.not_in_file for p in facts.predicted]
    chain = LayoutChain(view, table, f, not_in_file)
    if chain.with_reasoning:
        return None
    direct = EditShares(chain.layouts, chain.prefix, view.calls, chain.turn_first, chain.codex)
    alone = EditShares(chain.layouts, chain.prefix, view.calls, chain.turn_first, chain.codex)
    rows = []
    layouts = [layout_of(n) for n in range(1, len(view.calls) + 1)]
    for n in range(1, len(view.calls) + 1):
        layout, before = layouts[n - 1], layouts[n - 2] if n > 1 else None
        in_order = direct.call(n, layout, before)
        alone._last = None
        by_itself = alone.call(n, layout, before)
        expected = None
        if layout is not None and (n == 1 or before is not None):
            expected = (chain.shared(n, before, layout) if n > 1 else 0, chain.sent(n, layout))
        rows.append((n, in_order, by_itself, expected, layout != before))
    return rows


def _assert_direct_equals_layout_chain(a) -> None:
    """Every laid-out pipeline's (shared, sent) read off the op arrays, in order and each call
    alone, equals LayoutChain's wherever the direct path answers."""
    view, table = a.view, a.table
    if not view.calls:
        return
    for names, params in LAID_OUT:
        rows = _both(view, table, names, Settings(**params))
        for n, in_order, by_itself, expected, _ in rows or ():
            assert in_order == by_itself, (names, params, n)
            if in_order is not None:
                assert in_order == expected, (names, params, n)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions())
def test_shared_prefixes_from_the_op_arrays_equal_layout_chains(session):
    _assert_direct_equals_layout_chain(analyze(session, encoding="approx"))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions())
def test_shared_prefixes_from_the_op_arrays_equal_layout_chains_in_codex_sessions(session):
    """The same in a Codex session, whose new prompt reads the previous request only up to the
    turn's first model output: a call that starts a turn with a point in its layout (a summary,
    a message masked on its own) before that output is read off the op arrays too (one after it
    is left to LayoutChain: an inserted piece has no source message to stop at)."""
    _assert_direct_equals_layout_chain(analyze(Session(format="codex", messages=session.messages), encoding="approx"))


@pytest.mark.parametrize("names,params", [
    (("summarize",), {"budget": 6000}),
    (("summarize",), {"budget": 6000, "summary_ratio": 0.05}),
])
def test_a_codex_turn_that_starts_with_a_point_takes_the_direct_path_and_matches_the_plans(names, params):
    """On a generated session read as Codex (bench/gen_session.py, 400 messages), the calls that
    start a turn with a point in their layout (49 of 178 calls start a turn with a summary in
    place) are answered off the op arrays, as LayoutChain answers them (they were left to it);
    the replay's shared prefixes and totals equal the plans'."""
    a = analyze(Session(format="codex", messages=_generated(400).messages), encoding="approx")
    view, table = a.view, a.table
    s = Settings(**params)
    rows = _both(view, table, names, s)
    assert rows is not None
    facts = call_facts(view, table)
    _, layout_of = replay_layouts(view, table, names, s, facts.hidden)
    calls = view.calls
    starts = [n for n, got, _, _, _ in rows if n > 1 and calls[n - 1].turn != calls[n - 2].turn and got is not None
              and any(op[0] == "point" for _, _, op in layout_of(n) or ())]
    assert len(starts) == 49
    assert all(got == expected for _, got, _, expected, _ in rows if got is not None)
    _assert_replay_equals_the_plans(view, table, names, s)


@pytest.mark.parametrize("names,params", [
    (("summarize",), {"budget": 6000}),
    (("clear_tool_uses",), {"trigger": 2000, "keep": 1}),
    (("clear_tool_uses", "fifo"), {"trigger": 2000, "keep": 1, "budget": 6000}),
    (("last_n_observations",), {"observations_keep": 2}),
    (("fifo",), {"budget": 6000}),
])
def test_a_sample_session_takes_the_direct_path_where_layouts_change_and_matches_the_plans(names, params):
    """On a generated session (bench/gen_session.py, 400 messages, 178 calls) the direct path
    answers calls whose layout changed from the previous call's (the case it exists for), and
    the replay's shared prefixes and totals equal the plans'."""
    a = analyze(_generated(400), encoding="approx")
    view, table = a.view, a.table
    s = Settings(**params)
    rows = _both(view, table, names, s)
    assert rows is not None
    changed = [n for n, got, _, expected, moved in rows if got is not None and moved and n > 1]
    assert len(changed) >= 60, (names, len(changed))
    assert all(got == expected for _, got, _, expected, _ in rows if got is not None)
    _assert_replay_equals_the_plans(view, table, names, s)


def _assert_replay_equals_the_plans(view, table, names, s) -> None:
    """The replay's shared prefixes and totals (:func:`_fast_requests`) equal the plans fed to
    :class:`RequestChain`, call by call."""
    facts = call_facts(view, table)
    numbers = list(range(1, len(view.calls) + 1))
    tokens, shares = _fast_requests(view, table, names, s, facts, numbers)
    chain = RequestChain(view, table)
    plans = [run(view, table, names, s, n, facts.hidden[n - 1])[0] for n in numbers]
    assert shares == [chain.feed(n, w) for n, w in zip(numbers, plans)]
    assert tokens == [w.total() for w in plans]


def _assert_first_differences_equal_the_runs_walk(a) -> None:
    """EditShares' first difference of two layouts (its O(1) answer where one run each only moved
    its end, its inline walk elsewhere) equals :meth:`Layouts.first_difference` over both
    layouts' runs (what LayoutChain reads), for consecutive calls and calls two apart, below
    either call's stop; and each op pair's next-difference array and each op's next-sent array
    are their per-message definitions."""
    view, table = a.view, a.table
    if not view.calls:
        return
    facts = call_facts(view, table)
    for names, params in LAID_OUT:
        got = replay_layouts(view, table, names, Settings(**params), facts.hidden)
        if got is None:
            continue
        f, layout_of = got
        chain = LayoutChain(view, table, f, [p.not_in_file for p in facts.predicted])
        L = chain.layouts
        direct = EditShares(L, chain.prefix, view.calls, chain.turn_first, chain.codex)
        layouts = [layout_of(n) for n in range(1, len(view.calls) + 1)]
        stops = [c.message_index for c in view.calls]
        for k in range(1, len(layouts)):
            for j in (k - 1, k - 2):
                x, y = layouts[j] if j >= 0 else None, layouts[k]
                if x is None or y is None:
                    continue
                for stop in {stops[j], stops[k]}:
                    expected = L.first_difference(L.runs(x, stop), L.runs(y, stop), stop)
                    assert direct._first_difference(x, y, stop) == expected, (names, params, k, j, stop)
        n = f.n
        for (p, q), out in L._pairs.items():
            kp, kq = L.op(p).keys, L.op(q).keys
            assert list(out) == [next((i for i in range(j, n) if kp[i] != kq[i]), n) for j in range(n + 1)], (names, p, q)
        for op, arrays in L._ops.items():
            keys = arrays.keys
            assert list(arrays.next_kept) == [next((i for i in range(j, n) if keys[i] is not None), n) for j in range(n + 1)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(sessions())
def test_first_differences_from_the_layouts_equal_the_runs_walk(session):
    _assert_first_differences_equal_the_runs_walk(analyze(session, encoding="approx"))


def test_first_differences_on_a_generated_session_equal_the_runs_walk():
    """The same on bench/gen_session.py's 400 messages, where layouts move every few calls."""
    _assert_first_differences_equal_the_runs_walk(analyze(_generated(400), encoding="approx"))
