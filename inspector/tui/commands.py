"""Command palette entries (ctrl+p): every action of the app, by name, including one entry per
strategy toggle, preset and theme. :func:`palette_commands` lists them for anything that offers
the :class:`CommandHost` actions (the app); the provider only matches and runs them."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Protocol

from textual.markup import escape  # palette help is parsed as markup; our texts contain [cleared]
from textual.command import DiscoveryHit, Hit, Hits, Provider

from ..strategies import STRATEGIES
from ..tokens import ENCODINGS
from .state import PipelineState, Preset, available_presets


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


Command = tuple[str, str, Callable[[], Any]]  # (title, help, run it)


class CommandHost(Protocol):
    """The actions the palette may run (the app's)."""

    state: PipelineState
    theme: str

    def theme_names(self) -> list[str]: ...
    def set_state(self, state: PipelineState, what: str = "") -> None: ...
    def apply_preset(self, preset: Preset) -> None: ...
    def action_toggle(self, position: int) -> None: ...
    def action_budget(self, direction: int, big: bool = False) -> None: ...
    def action_edit_param(self, name: str) -> None: ...
    def action_call(self, delta: int) -> None: ...
    def action_last_call(self) -> None: ...
    def action_search(self) -> None: ...
    def action_rules(self) -> None: ...
    def action_open(self) -> None: ...
    def action_export(self) -> None: ...
    def action_toggle_follow(self) -> None: ...
    def action_help(self) -> None: ...
    def switch_sidechain(self, key: str | None) -> None: ...


def palette_commands(host: CommandHost) -> list[Command]:
    """Every command of the palette, for the state ``host`` is in now."""
    state = host.state
    cmds: list[Command] = []
    for k, name in enumerate(state.order):
        on = name in state.enabled
        summary = STRATEGIES[name].summary if name in STRATEGIES else ""
        cmds.append((f"Strategy: turn {name} {'off' if on else 'on'} ({k + 1})", summary,
                     lambda k=k: host.action_toggle(k)))
    for preset in available_presets():
        cmds.append((f"Preset: {preset.name}", preset.note or ", ".join(preset.pipeline) or "no strategy",
                     lambda p=preset: host.apply_preset(p)))
    for name in host.theme_names():
        cmds.append((f"Theme: {name}", "switch colour theme", lambda n=name: setattr(host, "theme", n)))
    for enc in ENCODINGS:
        cmds.append((f"Token counter: {enc}", "count tokens with this encoding",
                     lambda e=enc: host.set_state(host.state.set("encoding", e))))
    cmds += [
        ("Budget: +1,000 tokens", "step the budget", lambda: host.action_budget(1)),
        ("Budget: −1,000 tokens", "step the budget", lambda: host.action_budget(-1)),
        ("Budget: +10%", "step the budget", lambda: host.action_budget(1, True)),
        ("Budget: −10%", "step the budget", lambda: host.action_budget(-1, True)),
        ("Budget: type a value", "set the token budget", lambda: host.action_edit_param("budget")),
        ("Replay: previous model call", "[", lambda: host.action_call(-1)),
        ("Replay: next model call", "]", lambda: host.action_call(1)),
        ("Replay: next call after the whole session", "the default view", host.action_last_call),
        ("Search message text", "/", host.action_search),
        ("Show provider rule text", "v", host.action_rules),
        ("Open the selected message", "enter", host.action_open),
        ("Export the pruned history", "e", host.action_export),
        ("Follow the file: on/off", "f", host.action_toggle_follow),
        ("Help: units, statuses, strategies, keys", "?", host.action_help),
    ]
    current = getattr(host, "sidechain", None)
    if current is not None:
        cmds.append(("Sidechain: back to the main conversation", "its own context, plan and replay",
                     lambda: host.switch_sidechain(None)))
    for key, count in getattr(host, "sidechain_choices", ()):
        if key != current:
            cmds.append((f"Sidechain: open {key} ({count:,} messages)", "its own context, plan and replay",
                         lambda k=key: host.switch_sidechain(k)))
    return cmds
