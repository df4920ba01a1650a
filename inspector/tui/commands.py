"""Command palette entries (ctrl+p): every action of the app, by name, including one entry per
strategy toggle, preset and theme. The app lists them (:meth:`InspectorApp.palette_commands`);
this provider only matches and runs them."""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider


class InspectorCommands(Provider):
    def _commands(self):
        return self.app.palette_commands()  # type: ignore[attr-defined]

    async def discover(self) -> Hits:
        for title, help_text, callback in self._commands():
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, callback in self._commands():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), partial(callback), text=title, help=help_text)
