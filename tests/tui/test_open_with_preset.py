"""``context-inspector SESSION --preset NAME``: the viewer opens with that preset applied."""

from __future__ import annotations

from inspector.cli.main import main
from inspector.presets import load_presets
from inspector.strategies import STRATEGIES

from tui_helpers import make_app, settle


async def test_every_preset_opens_the_viewer_with_its_pipeline_and_settings():
    presets = load_presets()
    for name, preset in presets.items():
        app = make_app("coding_agent.jsonl", preset=name)
        async with app.run_test(size=(160, 48)) as pilot:
            await settle(pilot, app)
            assert app.state.preset == name
            assert app.state.enabled == frozenset(preset.pipeline)
            assert app.state.order[: len(preset.pipeline)] == preset.pipeline
            read = {p for s in preset.pipeline for p in STRATEGIES[s].params}
            for key, value in preset.params.items():
                if key in read:
                    assert getattr(app.state.settings, key) == value, (name, key)
            assert app.result is not None and app.result.generation == app._gen


def test_an_unknown_preset_is_a_one_paragraph_error_before_the_screen_changes(capsys):
    assert main(["inspector/sample_sessions/coding_agent.jsonl", "--preset", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("context-inspector: error: unknown preset 'nope'; choose from: claude-code,")
    assert err.count("\n") == 1
