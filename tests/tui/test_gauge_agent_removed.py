"""The viewer's header and gauge show a plan's call total as replay has it where the agent had
removed content the file still shows (:func:`inspector.analysis.agent_removed.plan_total`): fifo at
budget 8,000 on call 32 of a Claude Code 2.1.17 session showed "after -7,218", replay 9,921."""

from __future__ import annotations

from pathlib import Path

import inspector

from tui_helpers import make_app, settle

FIXTURE = Path(__file__).parent.parent / "fixtures" / "real" / "claude_code" / "entire_cc2.1.17_unrecorded_clear.jsonl"
NOTE = ("the agent had already removed 17,139 tokens the file still shows: they are the first the pipeline "
        "removes (the plan's own total, which its budget checks read, is -7,218)")


async def _app_at(pilot, app, call: int):
    await settle(pilot, app)
    app.replay.go_to(call)
    await settle(pilot, app)
    return app.result


def _fifo_app():
    return make_app(inspector.load(FIXTURE), path=str(FIXTURE), pipeline=("fifo",), budget=8000)


async def test_header_gauge_and_panel_show_the_credited_total_at_call_32():
    app = _fifo_app()
    async with app.run_test(size=(160, 48)) as pilot:
        r = await _app_at(pilot, app, 32)
        assert (r.plan.tokens_before, r.plan.tokens_after) == (119_562, -7_218)
        assert (r.tokens_before, r.tokens_after) == (119_562, 9_921)
        assert sum(r.by_category) == 9_921
        assert r.by_category[-2] == -12_229 + 17_139  # not in file after the plan: the re-sent reasoning
        shown = " ".join(app.query_one("#totals").build(200).plain.split())
        assert "before ≈119,562 → after ≈9,921 saving 109,641 (91.7%)" in shown
        assert f"124% over by 1,921 ({NOTE})" in shown
        assert "-7,218 " not in shown.replace(NOTE, "")
        assert app.panel.savings == {"fifo": 109_641}
        narrow = app.query_one("#totals").build(76).plain
        assert " ".join(narrow.split()).count(NOTE) == 1


async def test_the_gauge_is_credited_at_80x24_too():
    app = _fifo_app()
    async with app.run_test(size=(80, 24)) as pilot:
        assert (await _app_at(pilot, app, 32)).tokens_after == 9_921
        assert "after ≈9,921" in app.query_one("#totals").build(80).plain


async def test_a_call_the_agent_removed_nothing_before_keeps_the_plans_own_total():
    app = _fifo_app()
    async with app.run_test(size=(160, 48)) as pilot:
        r = await _app_at(pilot, app, 20)
        assert r.total.agent_removed == 0 and r.tokens_after == r.plan.tokens_after and r.total.note == ""
