"""mask_tool_outputs' layout when the masking cut falls inside one message's tool results.

A Claude Code transcript answers every call of an assistant message in one user message, so the
cut between masked and protected results often splits that message. The layout then sends the
message as a "point" keyed and sized as its edits leave it (strategies/layouts.py), instead of
planning the call with its whole request: on the 10k-message Claude Code bench session that
planning took 1,359 of 4,411 calls and 15.7 s of a 16 s replay. Each call's tokens and shared
prefix must equal the strategy's own plans fed to :class:`RequestChain` (the definition).
"""

from __future__ import annotations

from unittest import mock

from inspector import analyze
from inspector.analysis.replay import call_facts, replay
from inspector.analysis.requests import RequestChain
from inspector.model import Message, Session, TextBlock, ToolCallBlock, ToolResultBlock
from inspector.strategies import Settings
from inspector.strategies.layouts import replay_layouts
from inspector.strategies.pipeline import STRATEGIES, start

NAMES = ("mask_tool_outputs",)


def _session() -> Session:
    """Four turns: the first's three calls answered in one user message, one call in the
    second, the last two without tools; results of 200 tokens each (approx: 4 characters a
    token)."""
    messages: list[Message] = []

    def add(role: str, content: list, **kw) -> None:
        messages.append(Message(index=len(messages), role=role, content=content, **kw))

    add("system", [TextBlock(text="you are a helper")])
    for turn, width in ((1, 3), (2, 1), (3, 0), (4, 0)):
        add("user", [TextBlock(text=f"question {turn}")])
        if width:
            calls = [ToolCallBlock(id=f"c{turn}_{k}", name="bash", arguments="{}") for k in range(width)]
            add("assistant", list(calls))
            add("user", [ToolResultBlock(tool_call_id=c.id, content="w " * 400) for c in calls], content_form="blocks")
        add("assistant", [TextBlock(text=f"answer {turn}")])
    return Session(format="claude_code", messages=messages)


def _planned(view, table, s: Settings) -> tuple[list[int], list[int | None]]:
    hidden = call_facts(view, table).hidden
    chain = RequestChain(view, table)
    tokens, shares = [], []
    for n in range(1, len(view.calls) + 1):
        w = start(view, table, s, n, hidden[n - 1])
        STRATEGIES["mask_tool_outputs"].apply(w)
        tokens.append(w.total())
        shares.append(chain.feed(n, w))
    return tokens, shares


def test_a_mask_that_splits_one_message_is_laid_out_and_equals_planning_each_call():
    a = analyze(_session(), encoding="approx")
    view, table = a.view, a.table
    s = Settings(mask_protect_tokens=450, mask_min_tokens=0, mask_protect_turns=0)
    f, layout_of = replay_layouts(view, table, NAMES, s, call_facts(view, table).hidden)
    layouts = [layout_of(n) for n in range(1, len(view.calls) + 1)]
    points = [seg for layout in layouts if layout for seg in layout if seg[2][0] == "point"]
    assert points, layouts  # the cut falls inside the first turn's result message at some call
    assert {seg[0] for seg in points} == {3}  # that message, and only it
    split = {n for n, layout in enumerate(layouts, 1) if layout and any(seg[2][0] == "point" for seg in layout)}
    from inspector.analysis import replay as replay_module

    with mock.patch.object(replay_module, "_pipeline_tokens", wraps=replay_module._pipeline_tokens) as planned:
        fast = replay(view, table, NAMES, s, shared=True)
    # planned: only the calls without a layout (results the current turn protects) and their
    # neighbours (a shared prefix compares two consecutive calls the same way)
    unlaid = {n for n, layout in enumerate(layouts, 1) if layout is None}
    near = unlaid | {n - 1 for n in unlaid} | {n + 1 for n in unlaid}
    assert {c.args[4] for c in planned.call_args_list} <= near
    assert split - near  # split calls laid out, not planned
    tokens, shares = _planned(view, table, s)
    assert [c.tokens for c in fast.calls] == tokens
    assert [c.shared_tokens for c in fast.calls] == shares
