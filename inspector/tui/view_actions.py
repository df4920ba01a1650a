"""The viewer's keys for finding the culprit and arranging the screen: the window view (``w``),
row filters (``x`` cycles changed / dropped / truncated or cleared / rule breaks / tool exchanges,
``X`` keeps the selected row's tool, then its turn, then its unit kind), largest first (``o``), jumps to the largest message (``L``)
and to the next or previous changed row (``c`` / ``C``), hiding the side panel, the chart and the
detail pane (F2 / F3 / F4, for small terminals), an SVG screenshot (``S``) and every strategy and
preset compared side by side (``m``, :mod:`.screens.compare`).

:class:`ViewActions` is mixed into the app; it needs ``result``, ``list``, ``replay``,
``session_path``, ``model`` and ``notify``. Screenshots are written to the current directory, or to the
user data directory when the current directory is the session's own (nothing is ever written
beside a session), through :func:`inspector.safeio.write_atomic`.
"""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from textual.binding import Binding

from ..paths import data_dir, ensure
from ..tokens import ENCODINGS
from ..safeio import write_atomic
from ..analysis.compare_choices import Choice
from ..analysis.session import of as analysis_of
from .screens.compare import CompareScreen
from .screens.window import WindowScreen
from .state import Preset, available_presets, fit_to_session
from .widgets.message_list import FILTERS, ROW_FILTERS, UNIT_LABEL, changed_by_pipeline

VIEW_BINDINGS = [
    Binding("w", "window", "Window", id="window", tooltip="the model's whole window at a glance, before and after"),
    Binding("x", "cycle_filter", "Filter", show=False, id="cycle-filter",
            tooltip="show only: changed, dropped, truncated or cleared, rule breaks, tool exchanges, all"),
    Binding("X", "filter_row", "Only like this row", show=False, id="filter-row",
            tooltip="show only the rows of the selected row's tool, then of its turn, then of its unit kind, then all"),
    Binding("o", "by_tokens", "Largest first", show=False, id="largest-first", tooltip="rows by tokens, largest first: on/off"),
    Binding("L", "jump_largest", "Largest", show=False, id="jump-largest", tooltip="select the largest message shown"),
    Binding("c", "jump_changed(1)", "Next changed", show=False, id="next-changed",
            tooltip="select the next row the pipeline changes"),
    Binding("C", "jump_changed(-1)", "Previous changed", show=False, id="previous-changed",
            tooltip="select the previous row the pipeline changes"),
    Binding("f2", "toggle_pane('right')", "Panel", show=False, id="toggle-panel", tooltip="hide or show the settings panel"),
    Binding("f3", "toggle_pane('chart')", "Chart", show=False, id="toggle-chart", tooltip="hide or show the replay chart"),
    Binding("f4", "toggle_pane('detail')", "Detail pane", show=False, id="toggle-detail",
            tooltip="hide or show the detail pane"),
    Binding("m", "compare", "Compare", show=False, id="compare",
            tooltip="every strategy and preset side by side; enter applies one, space + d diffs two"),
    Binding("S", "screenshot_svg", "Screenshot", show=False, id="screenshot", tooltip="save an SVG screenshot"),
    Binding("H", "html_report", "HTML report", show=False, id="html-report",
            tooltip="write the HTML report of this view (pipeline, settings, call) to share"),
]


def report_argv(app, target: Path) -> list[str]:
    """The ``context-inspector report`` command line that draws what the viewer shows: the
    session (and sidechain), the counter, the pipeline with every setting that differs from its
    default (``--set``), the call under the cursor and the theme."""
    from ..strategies.params import PARAMS

    state = app.state
    argv = ["report", str(app.session_path), "--html", str(target), "--format", app.format_name,
            "--profile", state.profile]
    if state.encoding in ENCODINGS:
        argv += ["--encoding", state.encoding]
    if getattr(app, "sidechain", None):
        argv += ["--sidechain", app.sidechain]
    if state.pipeline:
        argv += ["--strategy", ",".join(state.pipeline)]
    for name, param in PARAMS.items():
        value = getattr(state.settings, name, param.default)
        if value == param.default:
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif value is None:
            text = "none"
        elif isinstance(value, tuple):
            text = ",".join(value)
        else:
            text = str(value)
        argv += ["--set", f"{name}={text}"]
    if app.replay.at_call is not None:
        argv += ["--at", str(app.replay.at_call)]
    if app.theme in ("inspector-light", "inspector-colorblind"):
        argv += ["--theme", app.theme.removeprefix("inspector-")]
    return argv


class ViewActions:
    def call_label(self) -> str:
        at = self.replay.at_call
        return "the next call (after the whole session)" if at is None else f"model call {at}"

    def action_window(self) -> None:
        if self.result is not None and self.result.plan is not None:
            self.push_screen(WindowScreen(self.result, self.call_label(), self.model))

    def action_compare(self) -> None:
        if self.table is None:
            self.notify("still counting: compare once the counts are in", timeout=3)
            return
        state = self.state
        choices = [Choice(name, (name,), state.settings) for name in state.order]
        choices += [Choice(p.name, p.pipeline, state.apply_preset(fit_to_session(p, self.session, self.model)).settings, preset=True)
                    for p in available_presets()]
        screen = CompareScreen(analysis_of(self.view, self.table), choices, Choice("none", (), state.settings),
                               self.replay.at_call, self.call_label())
        self.push_screen(screen, self._apply_choice)

    def _apply_choice(self, choice: Choice | None) -> None:
        if choice is None:
            return
        if choice.preset:
            preset = next((p for p in available_presets() if p.name == choice.label), None)
            if preset is not None:
                self.apply_preset(preset)
            return
        self.set_state(replace(self.state.apply_preset(Preset(choice.label, choice.pipeline)), preset=None))
        self.notify(f"pipeline: {' → '.join(choice.pipeline) or 'none'}", timeout=2)

    def action_cycle_filter(self) -> None:
        lst = self.list
        names = FILTERS
        current = lst.filter_name if lst.filter_name in names else "all"
        lst.set_filter(names[(names.index(current) + 1) % len(names)])
        self._announce_filter()

    def action_filter_row(self) -> None:
        """Only the rows of the selected row's tool, then of its turn, then of its unit kind,
        then every row again."""
        lst = self.list
        item = lst.selected
        if not isinstance(item, int) or lst.info is None or lst.result is None:
            lst.set_filter("all")
            self._announce_filter()
            return
        view = lst.result.snapshot.view
        values = {"tool": lst.info.tool(item) or None, "turn": view.turn_of[item],
                  "kind": UNIT_LABEL[view.units[view.unit_of[item]].kind]}
        order = [name for name in ROW_FILTERS if values[name] is not None]
        current = lst.filter_name
        following = order[order.index(current) + 1:] if current in order else order
        if following:
            lst.set_filter(following[0], values[following[0]])
        else:
            lst.set_filter("all")
        self._announce_filter()

    def action_by_tokens(self) -> None:
        self.list.set_by_tokens(not self.list.by_tokens)
        self._announce_filter()

    def _announce_filter(self) -> None:
        label = self.list.filter_label
        self.notify(f"showing {label}" if label else "showing every row, in order", timeout=2)

    def action_jump_largest(self) -> None:
        lst, result = self.list, self.result
        if result is None or not lst.row_count():
            return
        totals, by = result.snapshot.table.totals, result.plan.by if result.plan else None

        def size(row: int) -> int:  # what the call sends: a message compacted away before it is not
            item = lst.message_at(row)
            if not isinstance(item, int):
                return item.tokens
            return 0 if by is not None and by[item] == "source" else totals[item]

        lst.move_cursor(max(range(lst.row_count()), key=lambda row: (size(row), -row)))
        lst.scroll_cursor_visible(center=True)

    def action_jump_changed(self, direction: int) -> None:
        lst, result = self.list, self.result
        if result is None or result.plan is None or not lst.row_count():
            return
        n = lst.row_count()
        for step in range(1, n + 1):
            row = (lst.cursor + direction * step) % n
            if changed_by_pipeline(result, lst.message_at(row)):
                lst.move_cursor(row)
                lst.scroll_cursor_visible(center=True)
                return
        self.notify("the pipeline changes no row", timeout=2)

    def action_toggle_pane(self, pane: str) -> None:
        widget = self.query_one(f"#{pane}")
        hidden = widget.has_class("hidden")
        widget.set_class(not hidden, "hidden")
        if pane == "right" and not hidden and not self.list.has_focus:
            self.list.focus()

    def _share_dir(self, kind: str) -> Path:
        """Where a screenshot or report goes: the current directory, or the user data directory
        when that is the session's own (nothing is written beside a session)."""
        target_dir = Path.cwd()
        session = Path(self.session_path).resolve() if self.session_path else None
        if session is not None and (target_dir.resolve() == session.parent or target_dir.resolve() == session):
            target_dir = ensure(data_dir() / kind)
        return target_dir

    def action_html_report(self) -> None:
        if not self.session_path:
            self.notify("this session has no file, so there is no report to write", severity="warning")
            return
        target = self._share_dir("reports") / f"context-inspector-{time.strftime('%Y%m%d-%H%M%S')}.html"
        argv = [sys.executable, "-m", "inspector", *report_argv(self, target)]
        self.notify(f"writing the HTML report to {target}…", timeout=4)

        def job() -> None:
            done = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL)
            if done.returncode == 0:
                self.call_from_thread(self.notify, f"HTML report written: {target}", timeout=8)
            else:
                self.call_from_thread(self.notify, f"HTML report not written: {done.stderr.strip()}",
                                      severity="error", timeout=10)

        self.run_worker(job, thread=True, group="html-report", description="html report")

    def action_screenshot_svg(self) -> None:
        target_dir = self._share_dir("screenshots")
        name = f"context-inspector-{time.strftime('%Y%m%d-%H%M%S')}.svg"
        try:
            path = write_atomic(target_dir / name, self.export_screenshot().encode("utf-8"),
                                session_path=self.session_path)
        except OSError as exc:
            self.notify(f"screenshot not saved: {exc}", severity="error", timeout=6)
            return
        self.notify(f"screenshot saved: {path}", timeout=6)


__all__ = ["VIEW_BINDINGS", "ViewActions"]
