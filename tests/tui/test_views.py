"""The replay cursor, themes, search, detail, rule text, export, help and the command palette,
driven by keys (and a click on the chart), checked on what the screen shows."""

from __future__ import annotations

import json
from pathlib import Path

import inspector
from inspector.analysis.replay import replay
from inspector.strategies import STRATEGIES
from inspector.tui.screens.detail import TextScreen
from inspector.tui.screens.export import ExportScreen
from inspector.tui.screens.help import HelpScreen
from inspector.tui.themes import builtin_themes
from inspector.tui.widgets.detail import TextView
from inspector.providers.validate import OPENAI_ORPHAN
from textual.color import Color
from textual.widgets import Static
from tui_helpers import SAMPLES, make_app, msg, row_of, rows_text, settle, totals_text

from inspector.model import Session, ToolResultBlock

SIZE = (160, 48)


async def test_replay_cursor_shows_the_context_each_call_sent():
    app = make_app("three_questions.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("5")  # tool_pruning
        await settle(pilot, app, replay=True)
        view = app.view
        n = len(view.calls)
        expected = replay(view, app.table, ("tool_pruning",), app.state.settings)
        assert [(p.baseline, p.tokens) for _, p in sorted(app.chart.points.items())] == [
            (c.baseline_tokens, c.tokens) for c in expected.calls
        ]
        await pilot.press("left_square_bracket")
        await settle(pilot, app)
        last = view.calls[-1]
        assert app.replay.at_call == n
        assert app.list.row_count() == last.message_index  # the messages before the call's reply
        assert f"call {n}/{n} (turn {last.turn}" in totals_text(app)
        assert app.result.tokens_after == expected.calls[-1].tokens
        assert f"after {expected.calls[-1].tokens:,}" in totals_text(app)
        await pilot.press("left_square_bracket", "left_square_bracket")
        await settle(pilot, app)
        call = view.calls[n - 3]
        assert app.replay.at_call == n - 2
        assert app.list.row_count() == call.message_index
        assert f"before {expected.calls[n - 3].baseline_tokens:,} → after {expected.calls[n - 3].tokens:,}" in totals_text(app)
        axis = app.chart.render_line(app.chart.size.height - 1).text
        assert f"call {n - 2}/{n}" in axis
        # the gauge follows: its categories add up to this call's total
        assert sum(app.result.by_category) == expected.calls[n - 3].tokens
        await pilot.press("right_square_bracket", "right_square_bracket", "right_square_bracket")
        await settle(pilot, app)
        assert app.replay.at_call is None
        assert app.list.row_count() == len(view)
        assert "next call (after all" in totals_text(app)
        # a click on the chart's first column moves the cursor to call 1
        await pilot.click("#chart", offset=(8, 3))
        await settle(pilot, app)
        assert app.replay.at_call == 1
        assert app.list.row_count() == view.calls[0].message_index


async def test_theme_switch_repaints_with_the_themes_colours():
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        names = [t.name for t in builtin_themes()]
        assert app.theme == "inspector-dark"
        user_row = app.result.row_of[next(i for i in range(len(app.view)) if app.view.roles[i] == "user"
                                          and app.result.plan.status[i].value == "kept")]
        for _ in range(len(names)):
            await pilot.press("t")
            await pilot.pause()
            theme = app.get_theme(app.theme)
            want = Color.parse(theme.variables["unit-user"]).rich_color
            strip = app.list.render_row(user_row, app.list.size.width, False)
            role_segment = [s for s in strip if s.text.strip() == "user"]
            assert role_segment and role_segment[0].style.color == want, app.theme
            bg = Color.parse(theme.variables["row-band"]).rich_color
            tool_row = next(r for r in range(app.list.row_count()) if "tool" in app.list.render_row(r, 160, False).text[:20])
            assert app.list.render_row(tool_row, 160, False)._segments[0].style.bgcolor == bg
        assert app.theme == "inspector-dark"  # cycled through all and back


async def test_search_moves_to_matches_and_n_goes_on():
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        view = app.view
        from inspector.tui.search import searchable

        matches = [i for i in range(len(view)) if "rounding" in searchable(view.messages[i]).lower()]
        assert len(matches) >= 2
        await pilot.press("slash", *"rounding", "enter")
        await settle(pilot, app)
        await pilot.pause(0.1)
        assert app.list.selected == matches[0]
        await pilot.press("n")
        await pilot.pause(0.1)
        assert app.list.selected == matches[1]
        await pilot.press("N")
        await pilot.pause(0.1)
        assert app.list.selected == matches[0]
        # the match is highlighted where a preview shows it
        visible = [r for r in range(app.list.row_count()) if "rounding" in app.info.preview(app.result.rows[r]).lower()[:40]]
        assert visible
        strip = app.list.render_row(visible[0], app.list.size.width, False)
        assert any(s.text.lower() == "rounding" and s.style.bold for s in strip)


async def test_detail_screen_pretty_prints_arguments_and_gives_the_reason():
    app = make_app("vendor_onboarding.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("5")  # tool_pruning
        await settle(pilot, app)
        view = app.view
        call = next(i for i in range(len(view)) if view.call_ids[i] and app.result.plan.status[i].value == "dropped")
        app.list.move_cursor(app.result.row_of[call])
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TextScreen)
        text = "\n".join(t for t, _ in screen.query_one(TextView).lines)
        assert f"#{call}" in text and "DROPPED by tool_pruning" in text
        assert "why: " + app.result.plan.reason(call) in text
        args = view.messages[call].tool_calls[0].arguments
        pretty = json.dumps(json.loads(args), indent=2, ensure_ascii=False)
        assert pretty.splitlines()[1] in text  # indented, one key per line
        await pilot.press("escape")
        assert not isinstance(app.screen, TextScreen)


async def test_rule_breaks_are_marked_and_v_shows_the_provider_text():
    session = Session(format="openai", messages=[
        msg(0, "system", "sys"),
        msg(1, "user", "hi"),
        msg(2, "tool", ToolResultBlock(tool_call_id="ghost", content="a result nobody asked for")),
        msg(3, "assistant", "done"),
    ])
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert "INVALID" in totals_text(app)
        assert row_of(app, 2).rstrip().endswith("!AO")
        assert "!" not in row_of(app, 1)[-4:]
        app.list.move_cursor(2)
        await pilot.press("v")
        await pilot.pause()
        lines = [t for t, _ in app.screen.query_one(TextView).lines]
        assert any(OPENAI_ORPHAN in t for t in lines)
        assert any("Anthropic" in t and "tool_use_id" in t for t in lines)


async def test_export_writes_the_pruned_history_and_refuses_the_session_file(tmp_path):
    src = tmp_path / "s.json"
    src.write_text((SAMPLES / "three_questions.json").read_text())
    app = make_app(inspector.load(src), path=str(src))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("5")
        await settle(pilot, app)
        before = src.read_bytes()
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        box = app.screen.query_one("#export-path")
        box.value = str(src)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        assert "Refused" in str(app.screen.query_one("#export-error", Static).render())
        assert src.read_bytes() == before
        out = tmp_path / "out.json"
        box.value = str(out)
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, ExportScreen)
        body = json.loads(out.read_text())
        sent = app.result.plan.messages_after()
        assert len(body["messages"]) == len(sent)
        assert src.read_bytes() == before


async def test_export_dialog_follows_the_provider_in_name_and_words(tmp_path):
    src = tmp_path / "s.json"
    src.write_text((SAMPLES / "three_questions.json").read_text())
    app = make_app(inspector.load(src), path=str(src))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("e")
        await pilot.pause()
        screen = app.screen
        box = screen.query_one("#export-path")
        assert box.value == "s.pruned.openai.json"
        assert str(screen.query_one("#provider-openai").label) == "OpenAI (chosen)"
        screen.query_one("#provider-anthropic").value = True
        await pilot.pause()
        assert box.value == "s.pruned.anthropic.json"
        assert str(screen.query_one("#provider-anthropic").label) == "Anthropic (chosen)"
        assert str(screen.query_one("#provider-openai").label) == "OpenAI"
        box.value = str(tmp_path / "mine.json")
        screen.query_one("#provider-openai").value = True
        await pilot.pause()
        assert box.value == str(tmp_path / "mine.json")  # a name the user typed is left alone


async def test_help_explains_units_and_every_strategy():
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = " ".join(app.screen.plain().split())
        for name, strategy in STRATEGIES.items():
            assert name in text and " ".join(strategy.summary.split()) in text
        for word in ("system", "user", "answer", "tool", "summary", "DROPPED", "compacted", "inserted", "!O !A"):
            assert word in text
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_command_palette_toggles_a_strategy():
    app = make_app("three_questions.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        titles = [t for t, _, _ in app.palette_commands()]
        for name in (n for n, s in STRATEGIES.items() if s.panel):
            assert f"Strategy: turn {name} on" in " ".join(titles)
        assert any(t.startswith("Theme: inspector-light") for t in titles)
        assert any(t.startswith("Preset: ") for t in titles)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"turn tool_pruning on")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await settle(pilot, app)
        assert app.state.pipeline == ("tool_pruning",)


async def test_keys_repaint_rows_at_once():
    """A toggle repaints the rows already on screen (no stale strip from the cache)."""
    app = make_app("three_questions.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        first = rows_text(app)
        await pilot.press("5")
        await settle(pilot, app)
        second = rows_text(app)
        assert first != second
        screen_line = app.list.render_line(3).text  # what the compositor would paint now
        assert screen_line == app.list.render_row(app.list.scroll_offset.y + 2, app.list.size.width,
                                                  app.list.cursor == app.list.scroll_offset.y + 2).text


async def test_recorded_usage_is_shown_beside_the_estimate():
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("left_square_bracket")
        await settle(pilot, app, replay=True)
        call = app.view.calls[-1]
        recorded = app.view.messages[call.message_index].usage.context_tokens
        text = totals_text(app)
        assert f"before {app.result.tokens_before:,}" in text
        assert f"recorded by the file: {recorded:,}" in text
        axis = app.chart.render_line(app.chart.size.height - 1).text
        assert f"recorded {recorded:,}" in axis
        app.list.move_cursor(app.list.row_count() - 1)
        await pilot.pause()


async def test_escape_closes_the_search_bar_and_the_parameter_box():
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("slash")
        search = app.query_one("#search")
        assert search.display and app.focused is search
        await pilot.press("escape")
        assert not search.display and app.focused is app.list
        await pilot.press("b")
        box = app.query_one("#param-input")
        assert box.display and app.focused is box
        await pilot.press("escape")
        assert not box.display and app.focused is app.panel
        assert app.state.settings.budget == 200_000  # escape kept the default: the assumed window


async def test_the_detail_pane_says_who_injected_a_message():
    """A Claude Code attachment (the skill listing the CLI sends with a prompt) is injected text,
    not the person's prompt: the detail pane names its kind."""
    from inspector import load
    from inspector.tui.widgets.detail import DetailPane

    path = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "claude_code" / "entiregraph_cc2.1.210_first_call.jsonl"
    app = make_app(load(path), path=str(path))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        assert app.session.messages[2].injected == "attachment"
        app.list.move_cursor(2)
        await pilot.pause()
        assert "flags: injected (attachment)" in [t for t, _ in app.query_one(DetailPane).lines]
        app.list.move_cursor(1)  # the person's prompt
        await pilot.pause()
        assert not any(t.startswith("flags:") for t, _ in app.query_one(DetailPane).lines)
