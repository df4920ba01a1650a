"""Strategies that change nothing say why in the side panel, untouched rows say what keeps them
in the detail pane, and thinking never pushes an answer out of its one-line preview, read off
the screen at 160x48 and 80x24 (issue 16)."""

from __future__ import annotations

import pytest

from inspector.model import Session, ThinkingBlock, ToolCallBlock
from inspector.tui import engine
from tui_helpers import make_app, msg, panel_text, row_of, settle

SAMPLE = "coding_agent.jsonl"
SIZES = [(160, 48), (80, 24)]


@pytest.mark.parametrize("size", SIZES)
async def test_idle_strategies_say_why_in_the_panel(size):
    app = make_app(SAMPLE, pipeline=("fifo", "clear_tool_uses"), budget=200_000)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        assert app.result.plan.tokens_before == 4402
        lines = panel_text(app).splitlines()
        fifo = next(k for k, line in enumerate(lines) if "[x] fifo" in line)
        clear = next(k for k, line in enumerate(lines) if "[x] clear_tool_uses" in line)
        width = app.panel.size.width
        # the sentence sits right under its strategy (cropped to the panel's width)
        assert lines[fifo + 1].strip() == "(budget 200,000 not exceeded at 4,402)"[:width - 6].strip()
        assert lines[clear + 1].strip() == "(trigger 100,000 not reached at 4,402)"[:width - 6].strip()
        assert all("not exceeded" not in line for line in lines[clear:])
        await pilot.press("minus")  # the cursor skips the sentence rows: none of them is selectable
        await settle(pilot, app)
        assert app.panel.current is not None and app.panel.current.owner != "idle"


@pytest.mark.parametrize("size", SIZES)
async def test_a_strategy_that_acts_has_no_sentence_and_kept_rows_say_what_keeps_them(size):
    app = make_app(SAMPLE, pipeline=("fifo",), budget=3000)
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        assert "(" not in panel_text(app).split("[x] fifo")[1].splitlines()[1]
        detail = app.query_one("#detail")
        for index, why in ((0, "why: kept: the system prompt is never dropped"),
                           (79, "why: kept: part of the current turn, which no strategy drops")):
            app.list.move_cursor(app.result.row_of[index])
            await pilot.pause()
            assert why in [text for text, _ in detail.lines]


def _thinking_session() -> Session:
    long_thought = "Let me think about this very carefully. " * 20
    return Session(format="anthropic", messages=[
        msg(0, "user", "Which file holds the config?"),
        msg(1, "assistant", ThinkingBlock(thinking=long_thought), "It is settings.toml."),
        msg(2, "user", "Read it."),
        msg(3, "assistant", ThinkingBlock(thinking=long_thought),
            ToolCallBlock(id="c1", name="read_file", arguments='{"path": "settings.toml"}')),
    ])


def test_preview_puts_the_answer_before_the_thinking():
    s = _thinking_session()
    assert engine.preview_of(s.messages[1]).startswith("It is settings.toml. [thinking] Let me think")
    assert engine.preview_of(s.messages[3]).startswith('read_file({"path": "settings.toml"}) [thinking]')


@pytest.mark.parametrize("size", SIZES)
async def test_rows_with_thinking_show_the_answer_on_screen(size):
    app = make_app(_thinking_session())
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app)
        # at 80 columns the preview column is 8 cells: what is there is the answer, not thinking
        assert "It is se" in row_of(app, 1) and "[thinking]" not in row_of(app, 1).split("It is se")[0]
        assert "read_fil" in row_of(app, 3)
        assert "[thinking]" not in row_of(app, 3)[:60]
