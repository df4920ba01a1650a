"""The TUI's pure parts: text escaping, previews, parameter editing, rows of a plan, themes."""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector
from inspector.strategies import Inserted, Settings
from inspector.tui import engine, state, themes
from inspector.tui.state import ParamError, PipelineState, parse_int
from inspector.tui.text import clean, one_line
from inspector.tui.widgets.totals import split_widths
from tui_helpers import SAMPLES, make_app, settle, tiny_session


def test_clean_escapes_every_control_but_newline_and_tab():
    assert clean("a\x1b[31mb\x07c\x9bd\x7fe\rf\u202eg\n\th") == "a\\x1b[31mb\\x07c\\x9bd\\x7fe\\rf\\u202eg\n\th"
    assert clean("[bold]x[/]") == "[bold]x[/]"


def test_one_line_collapses_whitespace_marks_line_breaks_and_caps():
    assert one_line("  first line\n\n  second\tline  ") == "first line ⏎ second line"
    assert one_line("x" * 500, limit=10) == "x" * 9 + "…"
    assert one_line("short " + "y" * 1000, limit=1000).endswith(" …")  # only the head is looked at
    assert len(one_line("z" * 5_000_000)) <= 605


def test_preview_of_calls_results_and_images():
    s = inspector.load(SAMPLES / "vendor_onboarding.json")
    view = inspector.analyze(s).view
    call = next(i for i in range(len(view)) if view.call_ids[i])
    name = s.messages[call].tool_calls[0].name
    assert engine.preview_of(s.messages[call]).startswith(f"{name}(")


@pytest.mark.parametrize(
    ("text", "value"),
    [("40000", 40000), ("40,000", 40000), ("40k", 40000), ("1.5k", 1500), ("2m", 2_000_000), (" 7 ", 7)],
)
def test_parse_int(text, value):
    assert parse_int(text) == value


def test_parse_int_rejects_words_and_fractions():
    with pytest.raises(ParamError, match="not a number"):
        parse_int("lots")
    with pytest.raises(ParamError, match="whole number"):
        parse_int("1.5")


def test_state_steps_and_validates():
    s = PipelineState.initial(Settings(budget=40_000))
    assert s.step("budget", 1).settings.budget == 41_000
    assert s.step("budget", 1, big=True).settings.budget == 44_000
    assert s.step("budget", -1, big=True).settings.budget == 36_000
    assert s.step("summary_ratio", 1).settings.summary_ratio == pytest.approx(0.35)
    assert s.step("window_mode", 1).settings.window_mode == "messages"
    assert s.step("pair_safe", 1).settings.pair_safe is False
    assert s.step("encoding", 1, skip={"o200k_base"}).encoding == "approx"
    assert s.set_text("budget", "none").settings.budget is None
    assert s.set_text("summary_ratio", "50%").settings.summary_ratio == 0.5
    assert s.set_text("exclude_tools", "bash, read_file").settings.exclude_tools == ("bash", "read_file")
    with pytest.raises(ParamError, match="summary ratio"):
        s.set_text("summary_ratio", "2")
    unset = PipelineState.initial()
    assert unset.step("budget", 1, reference=12_345).settings.budget == 12_000


def test_toggle_move_and_presets():
    s = PipelineState.initial()
    assert s.order[:3] == ("fifo", "sliding_window", "summarize")
    s = s.toggle_at(4).toggle_at(1)
    assert s.pipeline == ("sliding_window", "tool_pruning")
    s = s.move("tool_pruning", -10)
    assert s.order[0] == "tool_pruning" and s.pipeline == ("tool_pruning", "sliding_window")
    preset = next(p for p in state.available_presets() if p.name.startswith("Strands"))
    s = s.apply_preset(preset)
    assert s.pipeline == ("sliding_window",)
    assert (s.settings.window_mode, s.settings.window_messages) == ("messages", 40)


def test_rows_put_inserted_messages_where_they_are_sent():
    a = inspector.analyze(inspector.load(SAMPLES / "three_questions.json"))
    plan = inspector.plan(a, "summarize", budget=3000)
    rows, row_of = engine.build_rows(plan)
    inserted = [k for k, r in enumerate(rows) if isinstance(r, Inserted)]
    assert inserted, "summarize inserted nothing at this budget"
    decisions = plan.decisions()
    assert len(rows) == len(decisions)
    for r, d in zip(rows, decisions):
        assert (r if isinstance(r, int) else None) == d.index
    assert all(rows[row_of[i]] == i for i in range(plan.stop))


def test_split_widths_never_drift_and_show_small_parts():
    assert split_widths([50, 50], 100, 10) == [5, 5]
    assert split_widths([1, 98, 1], 100, 10) == [1, 9, 0] or sum(split_widths([1, 98, 1], 100, 10)) <= 10
    assert sum(split_widths([333, 333, 334], 1000, 7)) == 7


def test_replay_order_samples_first_then_fills_in():
    order = engine.replay_order(1000, first=10)
    assert sorted(order) == list(range(1, 1001))
    head = order[:11]
    assert head[0] == 1 and head[-1] == 1000 and len(set(head)) == 11


def test_theme_files_define_every_colour(tmp_path):
    names = [t.name for t in themes.builtin_themes()]
    assert names[0] == "inspector-dark" and {"inspector-light", "inspector-colorblind"} <= set(names)
    for t in themes.builtin_themes():
        for table, keys in themes.VARIABLE_KEYS.items():
            for key in keys:
                assert themes.variable_name(table, key) in t.theme.variables
    assert themes.resolve("light").name == "inspector-light"
    assert themes.resolve("nord") == "nord"
    bad = tmp_path / "bad.toml"
    bad.write_text((themes.theme_dir() / "dark.toml").read_text().replace('dropped = "#f28779"\n', ""))
    with pytest.raises(themes.ThemeError, match=r"bad.toml: missing status.dropped"):
        themes.resolve(str(bad))
    with pytest.raises(themes.ThemeError, match="unknown theme 'nope'"):
        themes.resolve("nope")


def test_widgets_take_no_literal_colours():
    """Every colour in the TUI's CSS is a theme variable."""
    import re

    root = Path(themes.__file__).parent
    for path in [*root.rglob("*.py"), *root.rglob("*.tcss")]:
        if path.name == "themes.py":  # the loader's error message shows an example colour
            continue
        text = path.read_text()
        assert not re.search(r"#[0-9a-fA-F]{6}\b", text), path
        assert not re.search(r"\b(color|background): *(red|green|blue|yellow|white|black)\b", text), path


@pytest.mark.parametrize("width", [60, 85, 100, 130, 160, 220])
async def test_header_and_rows_line_up_at_every_width(width):
    app = make_app(tiny_session())
    async with app.run_test(size=(width + 47, 30)) as pilot:
        await settle(pilot, app)
        lst = app.list
        header = lst.render_header(0, lst.size.width).text
        assert len(header) == lst.size.width
        for r in range(lst.row_count()):
            row = lst.render_row(r, lst.size.width, False).text
            assert len(row) == lst.size.width
            assert row.index("kept") == header.index("status")
            assert row[header.index("#") - 1 + 1] in "0123456789"


def test_agent_presets_are_offered_with_their_source_and_settings():
    presets = {p.name: p for p in state.available_presets()}
    claude = presets["claude-code"]
    assert claude.pipeline == ("compact",)
    assert dict(claude.settings)["reserved_output"] == 20_000 and dict(claude.settings)["keep_tail_tokens"] is None
    assert claude.note.startswith("Claude Code 2.1.25-2.1.42; 2.0-2.1.20 with 32,000 output reserved (200K window): Auto-compact:")
    assert "Source (second-hand): anthropics/claude-code #12004" in claude.note
    applied = PipelineState.initial().apply_preset(presets["opencode"])
    assert applied.pipeline == ("mask_tool_outputs", "compact") and applied.settings.mask_protected_tools == ("skill",)
    assert applied.order[:2] == ("mask_tool_outputs", "compact") and applied.preset == "opencode"
