"""LayoutChain.head_dropped (fifo's moving cut priced in O(1) a call) against RequestChain fed
the strategies' own plans, and proof that replay takes it where fifo's cut moves."""

from __future__ import annotations

from unittest import mock

import pytest

from inspector import analyze
from inspector.analysis.edit_shares import EditShares
from inspector.analysis.replay import call_facts, replay
from inspector.analysis.requests import LayoutChain, RequestChain
from inspector.model import Message, Session, TextBlock
from inspector.strategies import Settings
from inspector.strategies.pipeline import STRATEGIES, start


def _chat(pairs: int) -> Session:
    messages = [Message(index=0, role="system", content=[TextBlock(text="be brief " * 5)])]
    for k in range(pairs):
        messages.append(Message(index=0, role="user", content=[TextBlock(text=f"question {k} " + "w " * (k % 7 * 9))]))
        messages.append(Message(index=0, role="assistant", content=[TextBlock(text=f"answer {k} " + "w " * (k % 5 * 13))]))
    return Session(format="inspector", messages=[m.model_copy(update={"index": i}) for i, m in enumerate(messages)])


@pytest.mark.parametrize("names", [("fifo",), ("tool_pruning", "fifo")])
@pytest.mark.parametrize("budget", [60, 150, 400, 10**6])
def test_head_dropped_shared_and_totals_equal_planning_each_call(names, budget):
    a = analyze(_chat(40), encoding="approx")
    view, table = a.view, a.table
    s = Settings(budget=budget)
    hidden = call_facts(view, table).hidden
    taken = []  # a call priced in O(1): by head_dropped, or before it by EditShares (edit_shares.py, its span lane first)
    original, direct, lane = LayoutChain.head_dropped, EditShares.call, EditShares.span_lane

    def spy(self, n, previous, current):
        got = original(self, n, previous, current)
        taken.append(got is not None)
        return got

    def spy_direct(self, n, layout, previous, *known):
        got = direct(self, n, layout, previous, *known)
        taken.append(got is not None and n > 1 and layout != previous)
        return got

    def spy_lane(self, drop, edit, spans, turns):
        shares, sents = lane(self, drop, edit, spans, turns)
        taken.extend(x is not None and k > 0 and spans[k] != spans[k - 1] for k, x in enumerate(shares))
        return shares, sents

    with (mock.patch.object(LayoutChain, "head_dropped", spy), mock.patch.object(EditShares, "call", spy_direct),
          mock.patch.object(EditShares, "span_lane", spy_lane)):
        fast = replay(view, table, names, s, shared=True)
    chain = RequestChain(view, table)
    plans = []
    for n in range(1, len(view.calls) + 1):
        w = start(view, table, s, n, hidden[n - 1])
        for name in names:
            STRATEGIES[name].apply(w)
        plans.append(w)
    assert [c.shared_tokens for c in fast.calls] == [chain.feed(n, w) for n, w in enumerate(plans, 1)]
    assert [c.tokens for c in fast.calls] == [w.total() for w in plans]
    if budget == 150:  # the cut moves at most calls: the O(1) path prices them
        assert sum(taken) >= 30, taken
        assert len({c.shared_tokens for c in fast.calls}) >= 5  # not one figure throughout
