"""The help screen (``?``): what each unit colour and status means, each strategy in two
sentences (the registry's own summaries), and the keys. Meant for teaching pruning too."""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping

from rich.console import Console, Group
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.color import Color
from textual.containers import VerticalScroll
from textual.keys import format_key
from textual.screen import ModalScreen
from textual.widgets import Static

from ...strategies import STRATEGIES
from ..widgets.totals import CATEGORIES, FREE_GLYPH, GAUGE_GLYPHS

UNITS = (
    ("unit-system", "system", "The system prompt, sent first on every call. No strategy ever drops it."),
    ("unit-user", "user", "A prompt a person wrote; it starts a turn (t1, t2... in the turn column). "
     "The current turn is never pruned."),
    ("unit-assistant", "answer", "An assistant reply with no tool calls: the final answer of its turn. "
     "tool_pruning keeps these for earlier turns and drops the work that led to them."),
    ("unit-tool-exchange", "tool", "An assistant message that calls tools plus every result answering it, "
     "bracketed ┌│└ on a shaded band: they are kept or dropped together. Tool results are usually "
     "the biggest part of an agent's context."),
    ("unit-summary", "summary", "A message standing in for earlier history, recorded in the file or inserted "
     "by summarize. Calls after it no longer see what it replaced."),
    ("unit-truncated", "tool ✂ / truncated", "A tool result cut short, already in the file (tool ✂) or by "
     "the plan (status truncated). The tokens column shows its size before → after."),
)
STATUSES = (
    ("status-kept", "kept", "Sent to the model unchanged."),
    ("status-dropped", "DROPPED", "Not sent: the row is dimmed and struck through, the reason is in the detail."),
    ("status-dropped", "compacted", "Not sent because the file records a compaction after it (its summary row follows). Its size is in brackets: it is in neither the before nor the after total."),
    ("status-truncated", "truncated", "Sent, cut to the size shown."),
    ("status-summarized", "summarized", "Not sent: an inserted summary stands in for it."),
    ("status-cleared", "cleared", "Sent as a short placeholder (Anthropic clear_tool_uses)."),
    ("status-inserted", "inserted", "Added by the pipeline where it would be sent (a summary, a placeholder)."),
    ("status-violation", "!O !A", "Breaks an OpenAI (O) or Anthropic (A) request rule; v shows the provider's error text."),
)
#: Keys of the settings panel, which have no binding id (the keymap cannot move them); every
#: other key of the main view is listed from its binding, as the keymap has it (:func:`key_rows`).
PANEL_KEYS = (
    ("tab", "move between the message list and the pipeline panel"),
    ("space on the panel", "turn the selected strategy on or off"),
    ("←/→ on the panel", "step the selected parameter; shift steps the budget by 10%; enter types a value"),
    ("K / J on the panel", "move the selected strategy up / down the pipeline"),
    ("ctrl+p", "the command palette: every command, theme, preset and side conversation"),
)


def key_rows(bindings: Iterable[tuple[str, str, str]], remapped: Mapping[str, str]) -> list[tuple[str, str]]:
    """(keys as shown, what it does) for each ``(binding id, default keys, description)`` of
    :func:`inspector.tui.keymap.binding_rows`, with the user's keymap (``remapped``: id -> keys)
    applied, so the help lists every key the viewer has and never a key it no longer has."""
    return [(" ".join(format_key(k.strip()) for k in remapped.get(binding_id, keys).split(",")), text)
            for binding_id, keys, text in bindings]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close"), Binding("l", "lesson", "Lesson")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 96; max-width: 100%; height: 90%; background: $panel;
        border: round $primary; padding: 0 1; }
    """

    def __init__(self, keymap_file: str = "", remapped: dict[str, str] | None = None,
                 bindings: Iterable[tuple[str, str, str]] = ()) -> None:
        """``keymap_file``: where the user's keymap is read from; ``remapped``: what it changed
        (binding id -> keys); ``bindings``: every binding with an id (id, default keys, what it does)."""
        super().__init__()
        self.keymap_file = keymap_file
        self.remapped = remapped or {}
        self.bindings = tuple(bindings)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self.build(), id="help-text")

    def build(self) -> Group:
        variables = self.app.theme_variables

        def colour(name: str) -> Style:
            value = variables.get(name)
            return Style(color=Color.parse(value).rich_color) if value else Style()

        bold = Style(bold=True)

        def table() -> Table:
            t = Table(box=None, show_header=False, padding=(0, 1), expand=True)
            t.add_column(width=22, no_wrap=True)
            t.add_column(ratio=1)
            return t

        parts: list = []
        parts.append(Text("What you see", bold))
        parts.append(Text("One row per message the model call receives, in order. Colour and the unit word say what "
                          "a row is; the status says what the pipeline does with it.\n"))
        parts.append(Text("Units", bold))
        units = table()
        for var, label, text in UNITS:
            units.add_row(Text.assemble(("██ ", colour(var)), (label, colour(var) + bold)), Text(text))
        parts += [units, Text()]
        parts.append(Text("Statuses", bold))
        statuses = table()
        for var, label, text in STATUSES:
            statuses.add_row(Text("   " + label, colour(var) + bold), Text(text))
        parts += [statuses, Text()]
        parts.append(Text("The budget gauge", bold))
        legend = Text()
        for k, (_, name) in enumerate(CATEGORIES):
            legend.append(f"{GAUGE_GLYPHS[k]} {name}   ")
        legend.append(f"{FREE_GLYPH} free")
        parts.append(legend)
        parts.append(Text("It fills the budget with what the pruned context holds, by kind; the numbers under it add up "
                          "to the 'after' total. ≈ marks an estimate (the approx counter); 'recorded' is the usage the "
                          "file itself logged for that call.\n"))
        parts.append(Text("Strategies", bold))
        strategies = table()
        for name, strategy in STRATEGIES.items():
            strategies.add_row(Text(name, colour("chart-pipeline") + bold), Text(strategy.summary))
        parts += [strategies, Text()]
        parts.append(Text("Keys", bold))
        keys = table()
        for key, text in (*key_rows(self.bindings, self.remapped), *PANEL_KEYS):
            keys.add_row(Text(key, bold), Text(text))
        parts.append(keys)
        if self.keymap_file:
            shown = "your keys" if self.remapped else "the default keys"
            parts.append(Text(f"\nThese are {shown}; {self.keymap_file} changes them by binding id "
                              f"(the README lists the ids)."))
        if self.remapped:
            parts.append(Text("Your keymap: " + " · ".join(f"{k} = {v}" for k, v in self.remapped.items())))
        parts += [Text(), Text("l opens the lesson: the story of these strategies, step by step on the bundled samples."),
                  Text("escape closes this screen.")]
        return Group(*parts)

    def action_lesson(self) -> None:
        """Close the help and open the lesson (context-inspector learn)."""
        self.dismiss()
        self.app.action_lesson()

    def plain(self) -> str:
        """The help text without styles (for tests)."""
        console = Console(width=120, record=True, file=io.StringIO())
        console.print(self.build())
        return console.export_text()
