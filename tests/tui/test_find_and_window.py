"""Finding the culprit (filters, largest first, jumps, search "k of N"), hiding panes on small
terminals, the window view and the screenshot key, read off the screen (issue 16)."""

from __future__ import annotations

import inspector
from inspector.strategies import Status
from inspector.tui.screens.window import COLUMNS, ROWS, WindowGrid, grid_cells
from inspector.tui.search import searchable
from tui_helpers import SAMPLES, make_app, row_text, settle, status_text

SAMPLE = "coding_agent.jsonl"


def _expected(app, budget):
    return inspector.plan(inspector.analyze(app.session), ("fifo",), budget=budget)


async def test_filters_show_only_the_rows_the_pipeline_changes():
    app = make_app(SAMPLE, pipeline=("fifo",), budget=1500)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        plan = _expected(app, 1500)
        dropped = [i for i in range(len(app.view)) if plan.status[i] is Status.DROPPED and plan.by[i] != "source"]
        assert dropped  # the budget makes fifo drop something
        await pilot.press("x")  # changed
        await pilot.pause()
        assert app.list.filter_name == "changed"
        shown = [app.list.message_at(r) for r in range(app.list.row_count())]
        assert shown == dropped  # fifo only drops: the changed rows are the dropped ones
        assert f"[only changed: {len(dropped)} of {len(app.result.rows)}]" in row_text_header(app)
        await pilot.press("x")  # dropped
        await pilot.pause()
        assert app.list.filter_name == "dropped" and app.list.row_count() == len(dropped)
        for _ in range(4):  # truncated or cleared, rule breaks, tool exchanges, all
            await pilot.press("x")
            await pilot.pause()
        assert app.list.filter_name == "all" and app.list.row_count() == len(app.result.rows)


def row_text_header(app) -> str:
    lst = app.list
    return lst.render_header(0, lst.size.width).text


async def test_largest_first_and_the_jump_to_the_largest_message():
    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        totals, by = app.table.totals, app.result.plan.by
        sent = [i for i in range(len(totals)) if by[i] != "source"]  # the sample records a compaction
        assert len(sent) < len(totals)
        largest = max(sent, key=lambda i: (totals[i], -i))
        await pilot.press("L")
        await pilot.pause()
        assert app.list.selected == largest
        await pilot.press("o")
        await pilot.pause()
        order = [app.list.message_at(r) for r in range(app.list.row_count())]
        assert order[0] == largest
        size = [0 if by[i] == "source" else totals[i] for i in order]
        assert size == sorted(size, reverse=True)
        assert app.list.selected == largest  # the selection stays on its message
        assert "largest first" in row_text_header(app)


async def test_next_and_previous_changed_row():
    app = make_app(SAMPLE, pipeline=("fifo",), budget=1500)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        plan = _expected(app, 1500)
        changed = [i for i in range(len(app.view)) if plan.status[i] is Status.DROPPED and plan.by[i] != "source"]
        app.list.move_cursor(0)
        await pilot.press("c")
        await pilot.pause()
        assert app.result.row_of[changed[0]] > 0 and len(changed) > 2
        assert app.list.selected == changed[0]
        await pilot.press("c")
        await pilot.pause()
        assert app.list.selected == changed[1]
        await pilot.press("C", "C")  # back to the first, then round to the last
        await pilot.pause()
        assert app.list.selected == changed[-1]


async def test_search_says_which_match_of_how_many_and_escape_clears_it():
    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        rows = [r for r, item in enumerate(app.result.rows) if isinstance(item, int) and "invoice" in searchable(app.session.messages[item]).lower()]
        await pilot.press("slash")
        for ch in "invoice":
            await pilot.press(ch)
        await pilot.press("enter")
        for _ in range(100):
            await pilot.pause(0.02)
            if "match 1 of" in status_text(app):
                break
        assert f"match 1 of {len(rows)} for 'invoice'" in status_text(app)
        assert app.list.cursor == rows[0]
        await pilot.press("n")
        for _ in range(100):
            await pilot.pause(0.02)
            if "match 2 of" in status_text(app):
                break
        assert app.list.cursor == rows[1] and f"match 2 of {len(rows)}" in status_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.search.term == "" and app.list.search == ""


async def test_panes_hide_and_show_on_a_small_terminal():
    app = make_app(SAMPLE)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        width = app.list.size.width
        await pilot.press("f2")
        await pilot.pause()
        assert app.query_one("#right").display is False
        assert app.list.size.width > width  # the list takes the panel's columns
        await pilot.press("f3")
        await pilot.pause()
        assert app.chart.display is False
        await pilot.press("f2", "f3")
        await pilot.pause()
        assert app.query_one("#right").display and app.chart.display


async def test_window_view_shows_each_category_before_and_after():
    app = make_app(SAMPLE, pipeline=("fifo",), budget=1500)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        await pilot.press("w")
        await pilot.pause()
        grid = app.screen.query_one(WindowGrid)
        text = grid.render().plain
        r = app.result
        assert f"{sum(r.before_by_category):,}" in text and f"{sum(r.by_category):,}" in text
        assert "tool exchanges" in text and "not in file" in text and "free" in text
        lines = text.split("\n")
        assert lines[0].startswith("before") and "after" in lines[0]
        # each grid holds COLUMNS x ROWS cells, as many of each category as grid_cells says
        left = "".join(line[:COLUMNS] for line in lines[1:ROWS + 1])
        cells = grid_cells(r.before_by_category, grid.window)
        assert left.count("█") == cells[0] and len(left) == COLUMNS * ROWS
        await pilot.press("escape")
        await pilot.pause()
        assert not app.screen.query(WindowGrid)


async def test_screenshot_key_writes_an_svg_in_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app(SAMPLE)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("S")
        await pilot.pause()
    shots = list(tmp_path.glob("context-inspector-*.svg"))
    assert len(shots) == 1 and shots[0].read_text().startswith("<svg")


async def test_screenshot_is_never_written_beside_the_session(tmp_path, monkeypatch):
    session = tmp_path / SAMPLE
    session.write_bytes((SAMPLES / SAMPLE).read_bytes())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CONTEXT_INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    app = make_app(inspector.load(session), path=str(session))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("S")
        await pilot.pause()
    assert sorted(p.name for p in tmp_path.iterdir()) == [SAMPLE, "data"]
    assert len(list((tmp_path / "data" / "screenshots").glob("*.svg"))) == 1


async def test_html_report_key_writes_the_page_of_this_view(tmp_path, monkeypatch):
    """H runs `context-inspector report` with the viewer's pipeline, settings and call: the page's
    figures are the plan the viewer shows."""
    from inspector.tui.view_actions import report_argv

    session = tmp_path / "s" / SAMPLE
    session.parent.mkdir()
    session.write_bytes((SAMPLES / SAMPLE).read_bytes())
    monkeypatch.chdir(tmp_path)
    app = make_app(inspector.load(session), path=str(session), pipeline=("fifo",), budget=1500)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("left_square_bracket")
        await settle(pilot, app)
        argv = report_argv(app, tmp_path / "x.html")
        assert argv[argv.index("--strategy") + 1] == "fifo" and "budget=1500" in argv
        assert argv[argv.index("--at") + 1] == str(app.replay.at_call)
        after = app.result.tokens_after
        await pilot.press("H")
        for _ in range(600):
            await pilot.pause(0.05)
            if list(tmp_path.glob("context-inspector-*.html")):
                break
    pages = list(tmp_path.glob("context-inspector-*.html"))
    assert len(pages) == 1
    assert f'data-fig="plan.tokens_after" data-value="{after}"' in pages[0].read_text()
    assert sorted(p.name for p in session.parent.iterdir()) == [SAMPLE]  # nothing beside the session


async def test_x_shift_keeps_the_rows_of_the_selected_rows_tool_then_turn_then_kind():
    app = make_app(SAMPLE)
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        view, info = app.view, app.info
        row = next(i for i in range(len(view)) if info.tool(i) == "run_tests" and view.turn_of[i] == 4)
        app.list.move_cursor(app.result.row_of[row])
        await pilot.press("X")
        await pilot.pause()
        shown = [app.list.message_at(r) for r in range(app.list.row_count())]
        assert shown == [i for i in range(len(view)) if info.tool(i) == "run_tests"]
        assert "[only tool run_tests:" in row_text_header(app)
        await pilot.press("X")
        await pilot.pause()
        shown = [app.list.message_at(r) for r in range(app.list.row_count())]
        assert shown == [i for i in range(len(view)) if view.turn_of[i] == 4]
        await pilot.press("X")
        await pilot.pause()
        assert app.list.filter_name == "kind" and app.list.filter_value == "tool"
        assert all(view.units[view.unit_of[app.list.message_at(r)]].kind.value == "tool_exchange"
                   for r in range(app.list.row_count()))
        await pilot.press("X")
        await pilot.pause()
        assert app.list.filter_name == "all" and app.list.row_count() == len(app.result.rows)


def _real_app(*parts: str):
    path = SAMPLES.parent.joinpath("tests", "fixtures", "real", *parts)
    return make_app(inspector.load(path), path=str(path))


async def _window_view_at_80(pilot, app) -> list[str]:
    """Open the window view on an 80-column terminal: its grid's lines, which fit in the box."""
    await settle(pilot, app)
    await pilot.press("w")
    await pilot.pause()
    lines = app.screen.query_one(WindowGrid).render().plain.split("\n")
    assert max(len(line) for line in lines) <= 80 - 6  # the box's border and padding, the grid's padding
    return lines


async def test_window_view_notes_wrap_on_an_80_column_terminal():
    """The notes under the grid (the window's source, what the agent reserves) wrap to the
    terminal: at 80x24 'the agent reserves 33,000 (Claude Code 2.1.39 compacts at window - 20,000
    reserved output - 13,000 buffer)' was cut after '20,000' and the window's source after 'a call r'."""
    app = _real_app("claude_code", "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13.jsonl")
    async with app.run_test(size=(80, 24)) as pilot:
        await _window_view_at_80(pilot, app)
        shown = " ".join(strip.text.strip(" │╭╮╰╯─") for strip in app.screen._compositor.render_strips())
        shown = " ".join(shown.split())
        assert "the agent reserves 33,000 (Claude Code 2.1.39 compacts at window - 20,000 reserved output - 13,000 buffer)" in shown
        assert "window 200,000 tokens (claude-opus-4-6, Claude Code's 200K default)" in shown


async def test_window_view_numbers_of_a_million_token_window_stay_apart_at_80x24():
    """A Gemini CLI chat (window 1,048,576): at 80x24 the compact legend's 9-wide columns read
    'free 1,039,2861,039,286'."""
    app = _real_app("public", "agentcmd_session-2025-10-27T19-55-981c87cb.json")
    async with app.run_test(size=(80, 24)) as pilot:
        lines = await _window_view_at_80(pilot, app)
        assert app.screen.query_one(WindowGrid).window.tokens == 1_048_576
        free = next(line for line in lines if "free" in line).split()
        assert free[-3:-1] == [f"{1_048_576 - sum(app.result.before_by_category):,}", f"{1_048_576 - sum(app.result.by_category):,}"]
