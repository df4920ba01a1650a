"""The save-preset prompt (``P``): a name for the pipeline and settings on screen, written as a
user preset (TOML in the user config directory, :func:`inspector.presets.save_user_preset`).
A bad name, a built-in's name or an existing preset's stays on the prompt as an error, so the
user can type another; the saved preset then appears in the preset picker and in ``presets``."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static


class SavePresetScreen(ModalScreen[str | None]):
    """Calls ``save(name)`` (which returns what it wrote, or raises with a message the prompt
    shows) and dismisses with that description; None when cancelled."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]
    DEFAULT_CSS = """
    SavePresetScreen { align: center middle; }
    SavePresetScreen > Vertical { width: 80; max-width: 100%; height: auto; background: $panel;
        border: round $primary; padding: 1 2; }
    SavePresetScreen #preset-error { color: $error; height: auto; }
    """

    def __init__(self, summary: str, default_name: str, save: Callable[[str], str]) -> None:
        super().__init__()
        self.summary = summary
        self.default_name = default_name
        self.save = save

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Save the pipeline and settings as a preset")
            yield Static(Text(self.summary), id="preset-summary")
            yield Label("Name (letters, digits, . _ -; enter saves, escape cancels):")
            yield Input(value=self.default_name, id="preset-name")
            yield Static("", id="preset-error")

    def on_mount(self) -> None:
        self.query_one("#preset-name", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            done = self.save(event.value.strip())
        except (ValueError, OSError) as exc:  # PresetError (the name, a setting) or the write
            self.query_one("#preset-error", Static).update(Text(f"Not saved: {exc}"))
            return
        self.dismiss(done)


def save_preset_prompt(state) -> SavePresetScreen:
    """The prompt for ``state`` (a :class:`~inspector.tui.state.PipelineState`): its enabled
    strategies in order and its settings; based on the agent preset it came from, if any."""
    from ...presets import PresetError, load_presets, save_user_preset

    pipeline = tuple(n for n in state.order if n in state.enabled)
    try:
        based_on = load_presets().get(state.preset or "")
    except PresetError:  # a broken user preset file: saving still works, without a base
        based_on = None
    summary = f"Pipeline: {' then '.join(pipeline) or 'no strategy'}"
    if based_on is not None:
        summary += f" (from preset {based_on.name}, {based_on.agent} {based_on.version})"

    def save(name: str) -> str:
        path = save_user_preset(name, pipeline, state.settings, based_on)
        return f"saved preset {name} to {path}"

    return SavePresetScreen(summary, f"{based_on.name}-mine" if based_on is not None else "my-preset", save)
