"""Saving the pipeline on screen as a user preset (``P``), and what the preset picker tells."""

from __future__ import annotations

import json
import os
from pathlib import Path

from textual.widgets import Input, Static

from inspector.cli.main import main
from inspector.presets import get_preset, load_presets
from inspector.tui.screens.save_preset import SavePresetScreen
from inspector.tui.state import available_presets

from tui_helpers import make_app, settle

SIZE = (160, 48)


async def choose_preset(pilot, app, name: str) -> None:
    """Press ``p`` until preset ``name`` is applied."""
    names = [p.name for p in available_presets()]
    for _ in range(names.index(name) + 1):
        await pilot.press("p")
    await settle(pilot, app)


async def test_P_saves_the_pipeline_and_settings_as_a_user_preset_listed_everywhere(capsys):
    presets_dir = Path(os.environ["CONTEXT_INSPECTOR_CONFIG_DIR"]) / "presets"
    app = make_app("three_questions.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await choose_preset(pilot, app, "swe-agent")
        app.set_state(app.state.set("observations_keep", 3))  # as the panel's value bar does
        await settle(pilot, app)
        await pilot.press("P")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SavePresetScreen)
        assert "Pipeline: last_n_observations (from preset swe-agent, SWE-agent 1.x (0.7+ configs))" in str(
            screen.query_one("#preset-summary", Static).render())
        field = screen.query_one("#preset-name", Input)
        assert field.value == "swe-agent-mine"
        # a built-in's name is refused on the prompt, nothing is written
        field.value = "swe-agent"
        await pilot.press("enter")
        await pilot.pause()
        error = str(screen.query_one("#preset-error", Static).render())
        assert error == "Not saved: preset name 'swe-agent' is a built-in preset; choose another name."
        assert app.screen is screen and not presets_dir.exists()
        field.value = "bad name"
        await pilot.press("enter")
        await pilot.pause()
        assert "use 1 to 64 letters, digits" in str(screen.query_one("#preset-error", Static).render())
        field.value = "my-swe"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is not screen
    assert sorted(p.name for p in presets_dir.iterdir()) == ["my-swe.toml"]
    mine = get_preset("my-swe")
    assert mine.pipeline == ("last_n_observations",) and mine.agent == "SWE-agent"
    assert mine.params == {"observations_keep": 3} and mine.source == "user preset (based on swe-agent)"
    assert "my-swe" in [p.name for p in available_presets()]  # the picker (p and the palette)
    assert "my-swe" in load_presets()
    assert main(["presets", "--json"]) == 0
    assert "my-swe" in [p["name"] for p in json.loads(capsys.readouterr().out)]


async def test_cycling_presets_tells_the_agent_version_what_it_does_and_the_source():
    app = make_app("three_questions.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await choose_preset(pilot, app, "codex")
        told = [n.message for n in app._notifications]
        codex = next(m for m in told if m.startswith("preset: codex"))
        assert codex.startswith("preset: codex · OpenAI Codex CLI 0.136-0.145 (gpt-5.5, gpt-5.6-sol: catalog window 272,000): Auto-compaction at 90 %")
        assert "Source (source): openai/codex codex-rs/protocol/src/openai_models.rs" in codex
