"""Viewer defects found reviewing main. The status line's counts read like every other count (a
50,000-message session showed '50,009 messages · 6251 turns · 22016 model calls')."""

from __future__ import annotations

from pathlib import Path

from inspector.model import Session
from tui_helpers import make_app, msg, settle, status_text, totals_text


async def test_status_line_counts_have_thousands_separators():
    messages = [msg(0, "system", "You are terse.")]
    for t in range(1_000):
        messages += [msg(len(messages), "user", f"question {t}"), msg(len(messages) + 1, "assistant", f"answer {t}")]
    app = make_app(Session(format="openai", messages=messages))
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot, app)
        assert "2,001 messages · 1,000 turns · 1,000 model calls" in status_text(app)


async def test_the_viewer_compacts_at_the_session_models_window_as_the_commands_do():
    # compare on a Codex rollout planned 'compact' at the recorded 258,400-token window, the
    # viewer at the strategy's default 200,000: two different replays under one name
    from inspector import load
    from inspector.analysis.window import strategy_window

    path = "/work/shared/real_sessions/codex/agentcmd_rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl"
    session = load(path)
    app = make_app(session, path=path)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        assert app.state.settings.context_window == strategy_window(session) == 258_400


def test_short_token_figures_stay_short_above_a_billion():
    # the 80-column replay legend of a generated 50k-message session read 'none 304816.04M'
    from inspector.tui.widgets.totals import short

    assert [short(n) for n in (999, 12_345, 1_234_567, 999_994_999, 304_816_043_616)] == [
        "999", "12.3k", "1.23M", "999.99M", "304.82B"]


async def test_status_line_says_1_turn_and_1_model_call():
    # an SWE-agent trajectory (one task, one turn) showed '43 messages · 1 turns · 21 model calls'
    messages = [msg(0, "system", "You are terse."), msg(1, "user", "question"), msg(2, "assistant", "answer")]
    app = make_app(Session(format="openai", messages=messages))
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot, app)
        assert "3 messages · 1 turn · 1 model call ·" in status_text(app)


async def test_the_before_line_names_the_resent_reasoning_as_info_does():
    # info said 'not in file: 3,598', the viewer 'not in file 7,694': 4,096 is re-sent reasoning
    from inspector import load

    path = str(Path(__file__).resolve().parents[1] / "fixtures" / "real" / "codex"
               / "agentcmd_rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl")
    app = make_app(load(path), path=path)
    async with app.run_test(size=(200, 48)) as pilot:
        await settle(pilot, app)
        text = " ".join(totals_text(app).split())
        assert "before = messages 22,507 + not in file 3,598 + re-sent reasoning 4,096 + tool defs & framing 3" in text
        assert "not in file+reasoning 7,694" in text
        await pilot.press("left_square_bracket", "left_square_bracket")  # call 34, as plan --at 34 has it
        await settle(pilot, app)
        assert (app.result.tokens_before, app.result.resent) == (28_253, 3_200)
        assert "+ not in file 3,557 + re-sent reasoning 3,200 +" in " ".join(totals_text(app).split())
        await pilot.press("w")  # the window view names the category as the header does
        await pilot.pause()
        from inspector.tui.screens.window import WindowGrid

        text = app.screen.query_one(WindowGrid).render().plain
        assert "▫ not in file+reasoning     6,757     6,757" in text
