"""A plan that sends every message it saw is validated once per stop (providers/validate.py):
the verdict kept is the one a fresh check gives."""

from __future__ import annotations

import inspector
from inspector.model import ImageBlock, Message, TextBlock, ToolResultBlock

from strategy_builders import SessionBuilder, text_of


def _session():
    b = SessionBuilder()
    b.system("be brief")
    b.user("look")
    b.exchange("bash", "{}", text_of(400))
    b.tool("call_nowhere", "an orphan result")  # a violation for both providers
    b.answer("done")
    b.user("and the screenshot")
    _, (cid,) = b.assistant("", [("screenshot", "{}")])
    b.messages.append(Message(index=len(b.messages), role="tool", content=[
        ToolResultBlock(tool_call_id=cid, content=[TextBlock(text=text_of(300)), ImageBlock(media_type="image/png", data="AA==")])]))
    b.answer("seen")
    return b.build()


def _verdict(plan):
    return {p: [(v.index, v.message) for v in items] for p, items in plan.violations.items()}


def test_edit_only_plans_get_the_verdict_a_fresh_check_gives():
    a = inspector.analyze(_session(), encoding="approx")
    baseline = inspector.plan(a)
    assert _verdict(baseline)["openai"] and _verdict(baseline)["anthropic"]  # the orphan result
    for pipeline, params in (("truncate_results", {"max_result_tokens": 50}), ("clear_tool_uses", {"trigger": 0, "keep": 0})):
        ours = inspector.plan(a, pipeline, **params)  # checked after the baseline: the kept verdict
        assert len(ours.sequence) == ours.stop and ours.edits
        fresh = inspector.plan(inspector.analyze(_session(), encoding="approx"), pipeline, **params)
        assert _verdict(ours) == _verdict(fresh), pipeline
    cleared = inspector.plan(a, "clear_tool_uses", trigger=0, keep=0)
    assert 8 in cleared.edits  # the screenshot's result lost its image: another key than the baseline's


def test_a_kept_verdict_is_not_shared_with_the_caller():
    a = inspector.analyze(_session(), encoding="approx")
    first = inspector.plan(a)
    first.violations["openai"].clear()
    assert inspector.plan(a, "truncate_results", max_result_tokens=50).violations["openai"]
