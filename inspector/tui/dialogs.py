"""The screens the app opens over the main view: a message in full (``enter``), the provider rule
text (``v``) and the export prompt (``e``). The texts are built by plain functions of the plan on
screen; :class:`Export` owns the export prompt's defaults and writes the file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..strategies import Inserted
from .engine import PlanResult
from .parts import Services
from .screens.detail import TextScreen
from .screens.export import ExportScreen, same_file
from .text import clean
from .widgets.detail import Line, describe


def _provider(name: str) -> str:
    return {"openai": "OpenAI", "anthropic": "Anthropic"}.get(name, name)


def detail_screen(item: int | Inserted, result: PlanResult) -> TextScreen:
    """One message (or an inserted one) in full."""
    title = f"message #{item}" if isinstance(item, int) else "inserted message"
    return TextScreen(f"{title} · escape closes", describe(item, result))


def rules_screen(result: PlanResult, item: int | Inserted | None, row: int) -> TextScreen:
    """The rules the selected row (``item`` at ``row``) breaks, then every provider's verdict."""
    lines: list[Line] = []
    breaks = result.breaks.get(item, []) if isinstance(item, int) else result.inserted_breaks.get(row, [])
    if breaks:
        lines.append((f"Selected row {'#' + str(item) if isinstance(item, int) else '(inserted)'}:", "title"))
        for b in breaks:
            lines.append((f"{_provider(b.provider)}: {b.text}", "violation"))
        lines.append(("", "body"))
    if not result.violations:
        lines.append(("The validator is not available, so rules were not checked.", "muted"))
    for provider, items in result.violations.items():
        lines.append((f"{_provider(provider)}: {'valid' if not items else f'{len(items)} rule break(s)'}", "heading"))
        for v in items:
            where = f"message #{v.source}" if v.source is not None else "inserted message"
            if v.index is not None:
                where += f" (request position {v.index})"
            lines.append((f"  {where}: {v.message}", "body"))
    title = "provider rules" + (" · the selected row breaks none" if not breaks else "")
    return TextScreen(f"{title} · escape closes", [(clean(t), k) for t, k in lines])


class Export:
    """The export prompt: writes the plan on screen (``result()``, at ``at_call()``) as a request
    body, never over the session file. ``provider`` is the prompt's default."""

    def __init__(self, services: Services, *, session_path: str | None, provider: str,
                 result: Callable[[], PlanResult | None], at_call: Callable[[], int | None],
                 push_screen: Callable[..., Any]) -> None:
        self.services = services
        self.session_path = session_path
        self.provider = provider
        self._result = result
        self._at_call = at_call
        self._push_screen = push_screen

    def default_path(self) -> str:
        stem = Path(self.session_path).stem if self.session_path else "session"
        return f"{stem}.pruned.{self.provider}.json"

    def open(self) -> None:
        result = self._result()
        if result is None or result.plan is None:
            return
        self._push_screen(ExportScreen(self.default_path(), self.provider, self.session_path, self.write), self.done)

    def write(self, path: str, provider: str) -> str:
        """Write the pruned history to ``path``; returns what was written (raises with the reason)."""
        if same_file(path, self.session_path):
            raise ValueError("that is the session file")
        from ..providers.export import export_request, write_export

        from ..providers.exportable import check_exportable, session_files

        result = self._result()
        if result is None or result.plan is None:
            raise ValueError("no plan to export yet")
        # the prompt shows "Not written: refusing to export ..."
        check_exportable(result.plan, provider, instead=": [ moves the replay cursor to call {call}",
                         anyway="run 'context-inspector export --allow-invalid' to write it anyway")
        write_export(export_request(result.plan, provider), path, self.session_path, session_files(result.plan.view.session))
        at_call = self._at_call()
        at = f"call {at_call}" if at_call else "the next call"
        return f"wrote {path}: the pruned history at {at}, as an {_provider(provider)} request"

    def done(self, written: str | None) -> None:
        if written:
            self.services.notify(written, timeout=6)
            self.services.show_status(written)
