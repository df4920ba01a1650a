"""The main screen at 100x30 and 80x24: what the 160x48 layout shows must still be on screen
(read from the composited screen, not from a widget's own text, so cutting shows up)."""

from __future__ import annotations

import re

import pytest
from tui_helpers import make_app, settle


def screen_lines(app) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def test_100x30_header_legend_and_footer_fit():
    app = make_app("hr_leave_balance.json")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app, replay=True)
        await pilot.press("5")  # tool_pruning: the pipeline shows in the header
        await settle(pilot, app, replay=True)
        lines = screen_lines(app)
        assert len(lines) == 30
        assert "pipeline: tool_pruning" in lines[0]
        assert "claude≈o200k×1.16 (estimate) · anthropic" in lines[1] + lines[2]  # wrapped, not cut
        legend = "\n".join(lines[:9])
        # every figure of the legend is shown (wrapped between segments), so they add up to "after"
        # (the file records claude-sonnet-4-5: counted with the claude estimate, every figure ≈)
        for part in ("█ system ≈127", "▓ prompts ≈86", "▒ answers ≈452", "▚ tools ", "▞ summ ≈0",
                     "▫ not in file ≈0", "▪ defs+framing ≈657", "░ free "):
            assert part in legend, (part, legend)
        footer = lines[-1]
        # the footer keeps what finds and fixes context; t (theme) and x (filters) are in the help
        assert "w Window" in footer and "e Export" in footer and "f Follow" in footer, footer


async def test_100x30_strategies_5_and_6_reachable_in_the_panel():
    app = make_app("hr_leave_balance.json")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        before = "\n".join(screen_lines(app))
        assert "5 [ ] tool_pruning" not in before  # below the panel's visible part at first
        app.panel.focus()
        for _ in range(30):
            await pilot.press("down")
        await pilot.pause()
        shown = "\n".join(screen_lines(app))
        assert "5 [ ] tool_pruning" in shown and "6 [ ] clear_tool_uses" in shown


async def test_follow_badge_and_pipeline_stay_on_a_narrow_header():
    app = make_app("coding_agent.jsonl", follow=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("5", "6")
        await settle(pilot, app)
        header = screen_lines(app)[0]
        assert "● following" in header
        assert "pipeline: tool_pruning → clear_tool_uses" in header


@pytest.mark.parametrize("size", [(80, 30)])
async def test_80_columns_totals_wrap_instead_of_cutting(size):
    app = make_app("hr_leave_balance.json")
    async with app.run_test(size=size) as pilot:
        await settle(pilot, app, replay=True)
        text = "\n".join(screen_lines(app)[:11])
        assert "claude≈o200k×1.16 (estimate) · anthropic" in text
        assert "▪ defs+framing ≈657" in text and "░ free " in text
        assert "before = msgs ≈9,941 + not in file 0 + defs+framing 657" in text


async def test_shrinking_the_terminal_gives_the_small_layout_and_redraws_the_chart():
    """A terminal made smaller while the viewer runs gets the layout it would have had at that
    size from the start: the classes follow the new size (they followed the previous one, so
    after 160x48 -> 80x24 the detail pane hid the message list), and the chart's columns cover
    every call again (it kept showing the first calls of the wide layout, cut at the right)."""
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app, replay=True)
        await pilot.resize_terminal(80, 24)
        for _ in range(5):
            await pilot.pause()
        assert {"-short", "-narrow", "-tight", "-shorter"} <= app.screen.classes
        wide_to_small = screen_lines(app)
    fresh = make_app("coding_agent.jsonl")
    async with fresh.run_test(size=(80, 24)) as pilot:
        await settle(pilot, fresh, replay=True)
        assert wide_to_small == screen_lines(fresh)


async def test_80_columns_long_totals_lines_wrap_between_words():
    """A 'before =' line with re-sent reasoning and a window line with a long source wrap at 80
    columns (80x30: at 80x24 the totals leave both lines to the window screen): both were single runs cut at the edge ('... + re-sent reasoning 5,353 + defs+' and
    '... a call read 306,26' on a 1M-window session)."""
    from pathlib import Path

    import inspector
    from inspector.analysis.window import session_window

    path = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "claude_code" / "entire_cc2.1.17_unrecorded_clear.jsonl"
    app = make_app(inspector.load(path), path=str(path))
    async with app.run_test(size=(80, 30)) as pilot:
        await settle(pilot, app, replay=True)
        r = app.result
        assert r.resent > 0
        top = screen_lines(app)[:12]
        shown = " ".join(" ".join(top).split())
        assert f"+ re-sent reasoning {r.resent:,} + defs+framing " in shown, shown
        window = session_window(app.session)
        assert f"window {window.tokens:,} ({window.model}, {window.source}): used {r.tokens_after:,}," in shown, shown


async def test_80x24_totals_leave_the_window_screens_lines_to_it_and_the_list_keeps_rows():
    """Under 28 lines the totals drop the counter's name, what "before" is made of and the window
    line (the window screen, ``w``, shows all three): at 80x24 the list showed 8 messages, now 11."""
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app, replay=True)
        lines = screen_lines(app)
        header = "\n".join(lines[:8])
        assert "before = msgs" not in header and "window 200,000" not in header and "counted:" not in header
        assert "OpenAI ✓ valid  Anthropic ✓ valid" in header and "cost $" in header
        rows = [line for line in lines if re.match(r"^[┌│└ ] +\d+ (tool|answer|user|prompt|system) ", line)]
        assert len(rows) == 11, lines
        # the narrow list gives up the turn column, not the rule marks: the header ends on "!"
        header_row = next(line for line in lines if line.lstrip().startswith("# unit"))
        assert re.search(r"tokens status +! +▏", header_row), header_row
        await pilot.resize_terminal(80, 30)
        for _ in range(5):
            await pilot.pause()
        header = "\n".join(screen_lines(app)[:12])
        assert "before = msgs 3,604 + not in file 547 + defs+framing 251" in header
        assert "window 200,000 (claude-sonnet-4-5, genai-prices): used 4,402, free 195,598" in header


async def test_80x24_footer_shows_whole_keys_and_gives_them_back_when_wider():
    """The footer shows the keys that fit whole, in the bindings' order (at 80 columns it ended
    "v Rules e Expor"); widening the terminal shows the rest again."""
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        footer = screen_lines(app)[-1].rstrip()
        assert footer.endswith("w Window e Export"), footer
        await pilot.resize_terminal(100, 30)
        for _ in range(5):
            await pilot.pause()
        footer = screen_lines(app)[-1].rstrip()
        assert footer.endswith("e Export v Rules p Preset f Follow"), footer
        await pilot.resize_terminal(80, 24)
        for _ in range(5):
            await pilot.pause()
        assert screen_lines(app)[-1].rstrip().endswith("w Window e Export")
