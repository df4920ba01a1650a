"""The viewer on a real Claude Code transcript: the whole context of the next call (the part the
file does not show included) is within 3% of the last call's recorded input, and the totals show
the model's window, what is used and free, and what Claude Code reserves."""

from __future__ import annotations

from pathlib import Path

import inspector
from tui_helpers import make_app, settle, totals_text

FOUR = Path(__file__).parents[1] / "fixtures" / "real" / "claude_code" / "agentcmd_full-session-four.jsonl"


async def test_whole_context_within_3_percent_of_the_last_recorded_call():
    session = inspector.load(FOUR)
    last_recorded = 52_909  # input + cache read + cache write of call 30, as the file logged it
    app = make_app(session, path=str(FOUR))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        r = app.result
        # counted with the claude estimate (the file records claude-sonnet-4-5): more of the input is
        # counted and less is inferred as not in the file than under cl100k_base (35,246 of 53,251)
        assert r.plan.not_in_file == 32_013
        assert r.tokens_before == 53_301
        assert abs(r.tokens_before - last_recorded) / last_recorded < 0.03
        text = " ".join(totals_text(app).split())  # lines wrap between segments
        assert "before ≈53,301" in text
        assert "not in file 32,013" in text
        assert ("window 200,000 (claude-sonnet-4-5-20250929, Claude Code's 200K default): used 53,301, free 146,699, of which the "
                "agent reserves 45,000 (Claude Code 2.0.27 compacts at window - 32,000 reserved output - 13,000 buffer)") in text
        # the legend's "free" is what is left below the agent's compaction point: 146,699 - 45,000
        assert "░ free 101,699" in text
        assert app.state.settings.budget == 155_000  # window - what Claude Code 2.0.27 reserves
