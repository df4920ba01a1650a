"""Command palette entries (ctrl+p): every action of the app, by name, including one entry per
strategy toggle, preset and theme. ``PaletteMixin.palette_commands`` lists them
for the app; the provider only matches and runs them."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.markup import escape  # palette help is parsed as markup; our texts contain [cleared]
from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..strategies import STRATEGIES
from ..tokens import ENCODINGS
from .state import available_presets


class InspectorCommands(Provider):
    def _commands(self):
        return self.app.palette_commands()  # type: ignore[attr-defined]

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=escape(help_text))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(callback), text=title, help=escape(help_text))


class PaletteMixin:
    """The app's commands for the palette (mixed into the app)."""

    def palette_commands(self) -> list[tuple[str, str, Callable[[], Any]]]:
        cmds: list[tuple[str, str, Callable[[], Any]]] = []
        for k, name in enumerate(self.state.order):
            on = name in self.state.enabled
            summary = STRATEGIES[name].summary if name in STRATEGIES else ""
            cmds.append((f"Strategy: turn {name} {'off' if on else 'on'} ({k + 1})", summary,
                         lambda k=k: self.action_toggle(k)))
        for preset in available_presets():
            cmds.append((f"Preset: {preset.name}", preset.note or ", ".join(preset.pipeline) or "no strategy",
                         lambda p=preset: self.apply_preset(p)))
        for name in self.theme_names():
            cmds.append((f"Theme: {name}", "switch colour theme", lambda n=name: setattr(self, "theme", n)))
        for enc in ENCODINGS:
            cmds.append((f"Token counter: {enc}", "count tokens with this encoding",
                         lambda e=enc: self.set_state(self.state.set("encoding", e))))
        cmds += [
            ("Budget: +1,000 tokens", "step the budget", lambda: self.action_budget(1)),
            ("Budget: −1,000 tokens", "step the budget", lambda: self.action_budget(-1)),
            ("Budget: +10%", "step the budget", lambda: self.action_budget(1, True)),
            ("Budget: −10%", "step the budget", lambda: self.action_budget(-1, True)),
            ("Budget: type a value", "set the token budget", lambda: self.action_edit_param("budget")),
            ("Replay: previous model call", "[", lambda: self.action_call(-1)),
            ("Replay: next model call", "]", lambda: self.action_call(1)),
            ("Replay: next call after the whole session", "the default view", lambda: self.set_call(None)),
            ("Search message text", "/", self.action_search),
            ("Show provider rule text", "v", self.action_rules),
            ("Open the selected message", "enter", self.list.action_open),
            ("Export the pruned history", "e", self.action_export),
            ("Follow the file: on/off", "f", self.action_toggle_follow),
            ("Help: units, statuses, strategies, keys", "?", self.action_help),
        ]
        return cmds
