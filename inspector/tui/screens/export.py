"""The export prompt (``e``): a file name and a provider; the pruned history is written there as
that provider's request body. The session file itself is refused (the inspector never writes
over a session), and any error stays on the prompt so the user can fix the name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, RadioButton, RadioSet, Static


def same_file(a: str | Path, b: str | Path | None) -> bool:
    """True when ``a`` names the file ``b`` (resolving links and relative paths)."""
    if b is None:
        return False
    pa, pb = Path(a).expanduser(), Path(b).expanduser()
    try:
        if pa.exists() and pb.exists():
            return pa.samefile(pb)
    except OSError:
        pass
    return pa.resolve() == pb.resolve()


class ExportScreen(ModalScreen[str | None]):
    """Calls ``write(path, provider)`` (which returns what it wrote, or raises with a message the
    prompt shows) and dismisses with that description; None when cancelled."""

    BINDINGS = [Binding("escape", "dismiss(None)", "Cancel")]
    DEFAULT_CSS = """
    ExportScreen { align: center middle; }
    ExportScreen > Vertical { width: 80; max-width: 100%; height: auto; background: $panel; border: round $primary;
        padding: 1 2; }
    ExportScreen #export-error { color: $error; height: auto; }
    ExportScreen Horizontal { height: auto; }
    ExportScreen RadioSet { width: auto; }
    """

    def __init__(self, default_path: str, provider: str, session_path: str | None,
                 write: Callable[[str, str], str]) -> None:
        super().__init__()
        self.write = write
        self.default_path = default_path
        self.provider = provider
        self.session_path = session_path

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Export the pruned history as a request body")
            with Horizontal():
                with RadioSet(id="export-provider"):
                    yield RadioButton("OpenAI", value=self.provider == "openai", id="provider-openai")
                    yield RadioButton("Anthropic", value=self.provider == "anthropic", id="provider-anthropic")
            yield Label("File (enter writes it, escape cancels):")
            yield Input(value=self.default_path, id="export-path")
            yield Static("", id="export-error")

    def on_mount(self) -> None:
        self.query_one("#export-path", Input).focus()
        self._mark_chosen()

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        """Follow the provider in the default file name, and mark the choice in words too
        (the radio dot differs only by colour, which NO_COLOR and some eyes do not see)."""
        event.stop()
        provider = self.chosen_provider()
        other = "anthropic" if provider == "openai" else "openai"
        field = self.query_one("#export-path", Input)
        if field.value.endswith(f".{other}.json"):
            field.value = field.value[: -len(f".{other}.json")] + f".{provider}.json"
        self._mark_chosen()

    def _mark_chosen(self) -> None:
        chosen = self.chosen_provider()
        for button, name, label in (
            (self.query_one("#provider-openai", RadioButton), "openai", "OpenAI"),
            (self.query_one("#provider-anthropic", RadioButton), "anthropic", "Anthropic"),
        ):
            button.label = f"{label} (chosen)" if name == chosen else label

    def chosen_provider(self) -> str:
        pressed = self.query_one(RadioSet).pressed_button
        return "anthropic" if pressed is not None and pressed.id == "provider-anthropic" else "openai"

    def show_error(self, text: str) -> None:
        self.query_one("#export-error", Static).update(Text(text))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        path = event.value.strip()
        if not path:
            self.show_error("Type a file name.")
            return
        if same_file(path, self.session_path):
            self.show_error(f"Refused: {path} is the session file; the inspector never writes over a session.")
            return
        if Path(path).expanduser().is_dir():
            self.show_error(f"{path} is a folder; type a file name.")
            return
        try:
            done = self.write(path, self.chosen_provider())
        except Exception as exc:  # any failure to build or write the body stays on the prompt
            self.show_error(f"Not written: {exc}")
            return
        self.dismiss(done)
