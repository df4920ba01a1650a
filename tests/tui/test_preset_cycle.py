"""Cycling presets with ``p``: each preset starts from the strategy defaults, the viewer's budget
and the session's window rule, as ``--preset`` does, never from the previous preset's settings."""

from __future__ import annotations

from inspector.analysis.window import with_session_window
from inspector.presets import PresetError, get_preset
from inspector.strategies import STRATEGIES, Settings
from inspector.strategies.params import settings_model
from inspector.tui.state import available_presets

from tui_helpers import make_app, settle

SIZE = (160, 48)


def command_line_settings(name: str, session, budget: int | None) -> Settings:
    """What ``--preset NAME`` plans with: an agent preset's parameters on the defaults, the
    viewer's own presets' few settings on the defaults; the viewer's budget where the pipeline
    reads none (an agent preset's pipeline that reads it takes the command line's: its own or
    none)."""
    try:
        preset = get_preset(name)
        params, pipeline, source = dict(preset.params), preset.pipeline, name
    except PresetError:  # one of the viewer's own presets
        preset = next(p for p in available_presets() if p.name == name)
        params, pipeline, source = dict(preset.settings), preset.pipeline, None
    if source is None or not any("budget" in STRATEGIES[s].params for s in pipeline):
        params.setdefault("budget", budget)
    return with_session_window(settings_model()(**params), session, set(), preset=source)  # plugins' params too


async def test_a_preset_after_a_cycle_keeps_nothing_of_the_presets_before_it():
    app = make_app("coding_agent.jsonl")
    names = [p.name for p in available_presets()]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        budget = app.state.settings.budget
        assert budget == 200_000  # the session model's window: the viewer's budget
        for _ in range(len(names)):  # once round: langchain's 8,000, compact's none, windows of 40...
            await pilot.press("p")
        await settle(pilot, app)
        assert app.state.preset == names[-1]
        for name in names:  # ...and round again: every preset as it opens on its own
            await pilot.press("p")
            await settle(pilot, app)
            assert app.state.preset == name
            assert app.state.settings == command_line_settings(name, app.session, budget), name
        await pilot.press("p", "p", "p", "p")
        await settle(pilot, app)
        assert app.state.preset == "truncate_results + fifo"
        assert app.state.settings.budget == 200_000  # was None: the last preset of the cycle sets none


async def test_cycling_to_a_preset_shows_the_plan_of_opening_with_it():
    opened = make_app("coding_agent.jsonl", preset="Strands window: 40 messages")
    async with opened.run_test(size=SIZE) as pilot:
        await settle(pilot, opened)
        expected = (opened.state.settings, opened.result.tokens_after)
    app = make_app("coding_agent.jsonl")
    names = [p.name for p in available_presets()]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        for _ in range(names.index("tool_pruning + sliding_window 5") + 1):  # sets window_turns 5
            await pilot.press("p")
        for _ in range(names.index("Strands window: 40 messages") - names.index("tool_pruning + sliding_window 5")):
            await pilot.press("p")
        await settle(pilot, app)
        assert app.state.preset == "Strands window: 40 messages"
        assert app.state.settings.window_turns == Settings().window_turns  # not the 5 of the preset before
        assert (app.state.settings, app.result.tokens_after) == expected


async def test_a_big_session_opened_with_a_preset_cycles_from_the_same_base(monkeypatch):
    # a session prepared after its first paint seeds the budget before the preset is applied,
    # and not again when its counts arrive (claude-code sets no budget: it plans with the
    # session's default one, as --preset does)
    import inspector.tui.app as app_module

    monkeypatch.setattr(app_module, "DEFER_MESSAGES", 1)
    app = make_app("coding_agent.jsonl", sync_count=False, preset="claude-code")
    names = [p.name for p in available_presets()]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.deferred and app.state.preset == "claude-code"
        assert app.state.settings == command_line_settings("claude-code", app.session, 200_000)
        assert app.state.settings.budget == 200_000
        await pilot.press("p")
        await settle(pilot, app)
        following = names[names.index("claude-code") + 1]
        assert app.state.preset == following
        assert app.state.settings == command_line_settings(following, app.session, 200_000)
