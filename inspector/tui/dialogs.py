"""The screens the app opens over the main view: help (``?``), a message in full (``enter``), the
provider rule text (``v``) and the export prompt (``e``). Mixed into
:class:`~inspector.tui.app.InspectorApp`."""

from __future__ import annotations

from pathlib import Path

from .screens.detail import TextScreen
from .screens.export import ExportScreen, same_file
from .screens.help import HelpScreen
from .text import clean
from .widgets.detail import describe
from .widgets.message_list import MessageList


def _provider(name: str) -> str:
    return {"openai": "OpenAI", "anthropic": "Anthropic"}.get(name, name)


class DialogsMixin:
    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def on_message_list_open_detail(self, event: MessageList.OpenDetail) -> None:
        if self.result is None or self.result.plan is None:
            return
        item = self.list.message_at(event.row)
        if item is None:
            return
        lines = describe(item, self.result)
        title = f"message #{item}" if isinstance(item, int) else "inserted message"
        self.push_screen(TextScreen(f"{title} · escape closes", lines))

    def action_rules(self) -> None:
        r = self.result
        if r is None or r.plan is None:
            return
        lines: list[tuple[str, str]] = []
        item = self.list.selected
        breaks = r.breaks.get(item, []) if isinstance(item, int) else r.inserted_breaks.get(self.list.cursor, [])
        if breaks:
            lines.append((f"Selected row {'#' + str(item) if isinstance(item, int) else '(inserted)'}:", "title"))
            for b in breaks:
                lines.append((f"{_provider(b.provider)}: {b.text}", "violation"))
            lines.append(("", "body"))
        if not r.violations:
            lines.append(("The validator is not available, so rules were not checked.", "muted"))
        for provider, items in r.violations.items():
            lines.append((f"{_provider(provider)}: {'valid' if not items else f'{len(items)} rule break(s)'}", "heading"))
            for v in items:
                source, text, pos = v.source, v.message, v.index
                where = f"message #{source}" if source is not None else "inserted message"
                if pos is not None:
                    where += f" (request position {pos})"
                lines.append((f"  {where}: {text}", "body"))
        title = "provider rules" + (" · the selected row breaks none" if not breaks else "")
        lines = [(clean(t), k) for t, k in lines]
        self.push_screen(TextScreen(f"{title} · escape closes", lines))

    def action_export(self) -> None:
        if self.result is None or self.result.plan is None:
            return
        stem = Path(self.session_path).stem if self.session_path else "session"
        provider = "anthropic" if "anthropic" in (self.format_name or "") else "openai"
        default = f"{stem}.pruned.{provider}.json"
        self.push_screen(ExportScreen(default, provider, self.session_path, self._write_export), self._exported)

    def _write_export(self, path: str, provider: str) -> str:
        if same_file(path, self.session_path):
            raise ValueError("that is the session file")
        from ..providers.export import export_request, write_export

        from ..providers.exportable import check_exportable, session_files

        plan = self.result.plan
        check_exportable(plan, provider)  # the prompt shows "Not written: refusing to export: ..."
        body = export_request(plan, provider)
        write_export(body, path, self.session_path, session_files(plan.view.session))
        at = f"call {self.at_call}" if self.at_call else "the next call"
        return f"wrote {path}: the pruned history at {at}, as an {_provider(provider)} request"

    def _exported(self, done: str | None) -> None:
        if done:
            self.notify(done, timeout=6)
            self._update_status(done)
