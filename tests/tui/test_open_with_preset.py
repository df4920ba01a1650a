"""``context-inspector SESSION --preset NAME``: the viewer opens with that preset applied."""

from __future__ import annotations

from inspector.analysis.window import strategy_window
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
                if key == "context_window":  # the session model's window, as the commands take it
                    value = strategy_window(app.session) or value
                if key in read:
                    assert getattr(app.state.settings, key) == value, (name, key)
            assert app.result is not None and app.result.generation == app._gen


def test_an_unknown_preset_is_a_one_paragraph_error_before_the_screen_changes(capsys):
    assert main(["inspector/sample_sessions/coding_agent.jsonl", "--preset", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("context-inspector: error: unknown preset 'nope'; choose from: claude-code,")
    assert err.count("\n") == 1


async def test_an_agent_preset_takes_the_parameters_of_the_version_the_session_records():
    # Claude Code 2.1.7 reserved 32,000 for the output (2.1.25 on: 20,000); the viewer applies the
    # preset as the commands' --preset does, and its note says so
    import inspector
    from pathlib import Path

    path = Path(__file__).parents[1] / "fixtures" / "real" / "compactions" / "entire_cc2.1.7_two-auto-compacts.jsonl"
    app = make_app(inspector.load(str(path)), path=str(path), preset="claude-code")
    notes: list[str] = []
    app.notify = lambda message, **kw: notes.append(str(message))
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        assert app.state.preset == "claude-code"
        assert app.state.settings.reserved_output == 32_000
        assert any(n.endswith("For this Claude Code 2.1.7 session: reserved_output=32,000.") for n in notes), notes
