"""The lesson screen (``context-inspector learn``, ``l`` on the help screen), read through Pilot:
it steps with keys, shows each step's figures and the provider's error text, and applies the
step's pipeline to the viewer when the viewer has the step's sample open."""

from __future__ import annotations

from tui_helpers import make_app, settle

from inspector.analysis.lesson import MEASURED_SAMPLE
from inspector.tui.screens.help import HelpScreen
from inspector.tui.screens.lesson import LessonScreen

OPENAI_ORPHAN = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."



async def test_lesson_screen_steps_and_applies_the_pipeline_to_the_viewer():
    app = make_app(MEASURED_SAMPLE, lesson=True, encoding="cl100k_base")
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LessonScreen)
        text = screen.plain()
        assert "Lesson · step 1 of 6: Drop the oldest messages, one at a time" in text
        assert "openai: rejected: " + OPENAI_ORPHAN in text
        assert "3,641 → 2,993 tokens" in text
        # the viewer underneath shows the same file: the step's pipeline is applied to it
        assert app.state.pipeline == ("fifo",) and app.state.value("budget") == 3000 and app.state.value("pair_safe") is False
        await pilot.press("n")
        text = screen.plain()
        assert "step 2 of 6: Drop a tool call and its result together" in text and "openai: valid" in text
        assert app.state.value("pair_safe") is True
        for _ in range(4):
            await pilot.press("right")
        text = screen.plain()
        assert "step 6 of 6: Keep each earlier turn's question and answer" in text
        assert "11 calls, 21,837 input tokens (16,643 with the pipeline)" in text
        assert "turn 1: 573 → 188 · turn 2: 1,133 → 300" in text
        assert app.state.pipeline == ("tool_pruning",) and app.replay.at_call == 5
        await pilot.press("p")
        assert "step 5 of 6: Replace the oldest messages by a summary" in screen.plain()
        await pilot.press("escape")
        await settle(pilot, app)
        assert not isinstance(app.screen, LessonScreen)
        # closing keeps the last step applied to the same file (tool pruning at call 5)
        assert app.state.pipeline == ("tool_pruning",) and app.result.tokens_after == 1152


async def test_the_help_screen_opens_the_lesson():
    from inspector.tui.screens.help import HelpScreen
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        assert "l opens the lesson" in app.screen.plain()
        await pilot.press("l")
        await pilot.pause()
        assert isinstance(app.screen, LessonScreen)
        assert "step 1 of 6" in app.screen.plain()
        # another file is open: the lesson shows the step without touching the viewer's pipeline
        assert app.state.pipeline == ()




async def test_learn_step_opens_the_lesson_at_that_step_once():
    """`learn --step tool_pruning` on a terminal opens at step 6; `l` later starts at step 1."""
    from inspector.analysis.lesson import STEPS, step_named

    app = make_app(MEASURED_SAMPLE, lesson=True, lesson_step=STEPS.index(step_named("tool_pruning")))
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        assert "Lesson · step 6 of 6: Keep each earlier turn's question and answer" in app.screen.plain()
        await pilot.press("escape")
        await settle(pilot, app)
        app.action_lesson()
        await pilot.pause()
        assert "Lesson · step 1 of 6" in app.screen.plain()
