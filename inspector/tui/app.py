"""The Textual app: the session as the model sees it, and the pipeline tuned live.

State lives here and only here: the session (view, token table), the :class:`PipelineState`,
the replay cursor. Every change bumps a generation number and asks a thread worker
(``group="plan"``, exclusive) for a new plan of a frozen :class:`~inspector.tui.engine.Snapshot`;
the result comes back as a message and is dropped if a newer change has happened since. The
replay chart fills from its own worker (a sample of calls first, then the rest), exact token
counts replace the fast estimate from a third, and a followed file is read by a fourth.

:func:`run` is what the command line calls. Search, the dialogs, the palette's commands and live
follow are mixins in :mod:`.search`, :mod:`.dialogs`, :mod:`.commands` and :mod:`.live`.
"""

from __future__ import annotations

import gc
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Input, Static
from textual.worker import get_current_worker

from ..analysis.budget import default_budget
from ..model import Session
from ..strategies import builtin as _builtin_strategies  # noqa: F401  (registers the strategies)
from ..tokens import (
    DEFAULT_ENCODING,
    ENCODINGS,
    EncodingUnavailable,
    TokenTable,
    count_session,
    get_counter,
    get_counter_or_fallback,
)
from ..units import SessionView, build_view
from . import engine
from .commands import InspectorCommands, PaletteMixin
from .dialogs import DialogsMixin
from .engine import PlanResult, Snapshot, ViewInfo
from .live import FollowMixin
from .messages import CountDone, CountProgress, PlanReady, ReplayPoints
from .search import SearchMixin
from .state import ParamError, PipelineState, available_presets, spec_for
from .themes import DEFAULT_THEME, ThemeError, ThemeFile, builtin_themes, default_variables, resolve
from .widgets.detail import DetailPane
from .widgets.message_list import MessageList
from .widgets.pipeline_panel import PipelinePanel
from .widgets.replay_chart import ReplayChart
from .widgets.status import StatusLine
from .widgets.totals import TotalsBar

# Every @work below has a fixed ``description``: without one Textual builds it from repr() of the
# arguments, which for a Snapshot is the whole session (seconds on 10,000 messages).

#: Sessions at most this big (file bytes, or messages when there is no file) are counted exactly
#: before the first paint; bigger ones show chars/4 estimates until the exact count arrives.
SYNC_COUNT_BYTES = 2_000_000
SYNC_COUNT_MESSAGES = 600
#: Replay every call only when calls x messages stays under this; beyond it the chart keeps the
#: evenly spaced sample (each call's replay is a plan over the history before it).
REPLAY_FULL_WORK = 60_000_000
REPLAY_SAMPLE = 160
REPLAY_DELAY = 0.25  # seconds after the last change before the replay starts
REPLAY_GROWTH_DELAY = 0.05  # the same when only the followed session grew (a few calls to redo)
REPLAY_POST_EVERY = 0.1  # seconds of replay work between chart updates
REPLAY_YIELD = 0.0005
#: Formats written by Anthropic models: counted with the anthropic profile unless changed.
ANTHROPIC_FORMATS = ("anthropic", "claude_code")


class InspectorApp(SearchMixin, DialogsMixin, PaletteMixin, FollowMixin, App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "context-inspector"
    COMMANDS = App.COMMANDS | {InspectorCommands}
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
        Binding("1", "toggle(0)", "Strategies", key_display="1-6"),
        *[Binding(str(k + 1), f"toggle({k})", f"Toggle strategy {k + 1}", show=False) for k in range(1, 9)],
        Binding("plus,equals_sign", "budget(1)", "Budget", key_display="+/-"),
        Binding("minus,underscore", "budget(-1)", "Budget −1k", show=False),
        Binding("greater_than_sign", "budget(1, True)", "Budget +10%", show=False),
        Binding("less_than_sign", "budget(-1, True)", "Budget −10%", show=False),
        Binding("b", "edit_param('budget')", "Type budget", show=False),
        Binding("left_square_bracket", "call(-1)", "Call", key_display="[ ]"),
        Binding("right_square_bracket", "call(1)", "Next call", show=False),
        Binding("slash", "search", "Search"),
        Binding("n", "search_next(1)", "Next match", show=False),
        Binding("N", "search_next(-1)", "Previous match", show=False),
        Binding("v", "rules", "Rules"),
        Binding("e", "export", "Export"),
        Binding("p", "preset", "Preset"),
        Binding("t", "next_theme", "Theme"),
        Binding("f", "toggle_follow", "Follow"),
        Binding("escape", "close_inputs", "Close", show=False),
    ]

    def notify(self, message: str, *, title: str = "", severity="information", timeout=None, markup: bool = True) -> None:
        """Every notice is plain text: they quote search terms, paths and errors, which are data
        (a term like ``[/x]`` would otherwise crash Textual's markup parser). ``markup`` is
        accepted for Widget.notify's sake and ignored."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=False)

    def __init__(
        self,
        session: Session,
        *,
        path: str | None = None,
        theme: ThemeFile | str | None = None,
        follow: bool | None = None,
        format: str | None = None,
        encoding: str = DEFAULT_ENCODING,
        profile: str | None = None,
        pipeline: tuple[str, ...] = (),
        budget: int | None = None,
        sync_count: bool | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.session_path = path or session.path
        self.format_name = format or session.format
        self.theme_file = resolve(theme) if not isinstance(theme, ThemeFile) else theme
        self.view: SessionView = build_view(session)
        self.info = ViewInfo(self.view)
        counter, warning = get_counter_or_fallback(encoding) if encoding != "approx" else (None, None)
        self.encoding_warning = warning
        encoding = counter.name if counter is not None else encoding
        if profile is None:  # frame the messages the way the session's own provider does
            profile = "anthropic" if self.format_name in ANTHROPIC_FORMATS else "openai"
        self.state = PipelineState.initial(encoding=encoding, profile=profile, enabled=pipeline)
        self.explicit_budget = budget
        self.at_call: int | None = None
        self.table: TokenTable | None = None
        self.exact_pending = False
        self.count_status = ""
        self.result: PlanResult | None = None
        self._gen = 0
        self._replay_key: Any = None
        self._replay_timer = None
        self.search_term = ""
        self.editing_param: str | None = None
        self.follow_requested = follow
        self.following = False
        self.follow_started = False
        self.follow_stopped = False
        self.follower = None
        self.notice = ""
        self._shown_notice: str | None = None
        self._follow_busy = False
        self._follow_again = False
        self._follow_not_before = 0.0
        self._follow_timer = None
        self._follow_interval = None
        #: First message a followed session changed while the exact count was running.
        self._count_dirty = 0
        #: First model call whose replay the followed session changed (not yet replayed), and the
        #: same for the replay now scheduled or running (None: nothing to redo).
        self._replay_growth: int | None = None
        self._replay_unfinished: int | None = None
        self.sync_count = sync_count
        self.plan_timings: list[float] = []

    # --- theme ------------------------------------------------------------------------------
    def get_theme_variable_defaults(self) -> dict[str, str]:
        return default_variables()

    def theme_names(self) -> list[str]:
        names = [t.name for t in builtin_themes()]
        if isinstance(self.theme_file, ThemeFile) and self.theme_file.name not in names:
            names.append(self.theme_file.name)
        return names

    # --- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")
        yield TotalsBar(id="totals")
        yield ReplayChart(id="chart")
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield MessageList(id="messages")
                yield DetailPane(id="detail")
            with Vertical(id="right"):
                yield PipelinePanel(self.state, id="panel")
                yield Static("", id="panel-hint")
                yield Input(id="param-input", classes="hidden")
        yield Input(placeholder="search message text · enter finds · n/N next/previous · escape closes",
                    id="search", classes="hidden")
        yield Footer()

    def on_mount(self) -> None:
        for t in builtin_themes():
            self.register_theme(t.theme)
        if isinstance(self.theme_file, ThemeFile):
            self.register_theme(self.theme_file.theme)
            self.theme = self.theme_file.name
        else:
            self.theme = self.theme_file or DEFAULT_THEME
        self.list.focus()
        self._update_status()
        self._first_count()
        if self.encoding_warning:
            self.notify(self.encoding_warning, severity="warning", timeout=8)
        self._start_follow()
        self._update_hint()

    @property
    def list(self) -> MessageList:
        return self.query_one("#messages", MessageList)

    @property
    def panel(self) -> PipelinePanel:
        return self.query_one("#panel", PipelinePanel)

    @property
    def chart(self) -> ReplayChart:
        return self.query_one("#chart", ReplayChart)

    def on_resize(self) -> None:
        short = self.size.height < 34
        self.screen.set_class(short, "-short")
        self.screen.set_class(self.size.width < 130, "-narrow")
        self.screen.set_class(self.size.width < 110, "-tight")
        self.screen.set_class(self.size.height < 28, "-shorter")
        footer = self.query_one(Footer)
        footer.compact = self.size.width < 130
        footer.show_command_palette = self.size.width >= 110

    # --- counting ---------------------------------------------------------------------------
    def _sync_count_ok(self) -> bool:
        if self.sync_count is not None:
            return self.sync_count
        if self.session_path:
            try:
                return Path(self.session_path).stat().st_size <= SYNC_COUNT_BYTES
            except OSError:
                pass
        return len(self.session.messages) <= SYNC_COUNT_MESSAGES

    def _first_count(self) -> None:
        s = self.session
        if self.state.encoding == "approx" or self._sync_count_ok():
            self.table = count_session(s.messages, s.tools, encoding=self.state.encoding, profile=self.state.profile)
            self.exact_pending = False
        else:
            self.table = count_session(s.messages, s.tools, encoding="approx", profile=self.state.profile)
            self.exact_pending = True
            self.count_status = "exact count 0%…"
            # started once the first plan is on screen, so it does not slow the first paint
        self._seed_budget()
        self.chart.reset_points(len(self.view.calls))
        # The session is millions of long-lived objects: keep the cyclic GC from walking them
        # on every collection (a full collection at 50,000 messages stalls a key for ~0.3 s).
        gc.freeze()
        self.request_plan()

    def _seed_budget(self) -> None:
        budget = self.explicit_budget
        if budget is None and self.state.settings.budget is None and self.table is not None:
            budget = default_budget(self.view, self.table)
        if budget is not None:
            self.state = self.state.set("budget", budget)
            self.panel.reference_budget = budget

    def _start_count(self, previous: TokenTable | None = None, keep: int | None = None) -> None:
        """Count the session exactly in the background (reusing ``previous[:keep]``)."""
        self._count_dirty = len(self.session.messages)
        self._count_worker(self.session, self.state.encoding, self.state.profile, previous, keep)

    @work(thread=True, exclusive=True, group="count", exit_on_error=False, description="count")
    def _count_worker(self, session: Session, encoding: str, profile: str, previous: TokenTable | None,
                      keep: int | None = None) -> None:
        worker = get_current_worker()
        messages = session.messages
        n = len(messages)

        def progress(done: int, total: int) -> None:
            self.post_message(CountProgress(done, total))

        table = count_session(messages[:n], session.tools, encoding=encoding, profile=profile,
                              previous=engine.first_counts(previous, keep), progress=progress,
                              cancelled=lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(CountDone(table, n))

    def on_count_progress(self, message: CountProgress) -> None:
        if self.exact_pending:
            pct = 100 * message.done // max(1, message.total)
            self.count_status = f"exact count {pct}%…"
            self.query_one(TotalsBar).counting = self.count_status
            self.query_one(TotalsBar).refresh()

    def on_count_done(self, message: CountDone) -> None:
        table = message.table
        if table.encoding != self.state.encoding or table.profile != self.state.profile:
            return  # the counter was changed since; a newer count is running
        n = len(self.session.messages)
        keep = min(message.messages, self._count_dirty)
        if keep < n:  # the followed session grew or changed meanwhile: count from there
            self._start_count(table, keep)
            return
        self.table = table
        self.exact_pending = False
        self.count_status = ""
        self._replay_unfinished = 1  # every call's baseline changed
        self.request_plan()

    def _recount(self) -> None:
        """The counter or profile changed: count again (estimate at once when the session is big)."""
        s = self.session
        self._replay_unfinished = 1  # every call's baseline changed
        if self.state.encoding == "approx" or self._sync_count_ok():
            self.table = count_session(s.messages, s.tools, encoding=self.state.encoding, profile=self.state.profile)
            self.exact_pending = False
            self.count_status = ""
        else:
            self.table = count_session(s.messages, s.tools, encoding="approx", profile=self.state.profile)
            self.exact_pending = True
            self.count_status = "exact count 0%…"
            self._start_count()

    # --- planning ---------------------------------------------------------------------------
    def request_plan(self) -> None:
        """Plan the current state off the UI thread; the newest request wins."""
        if self.table is None:
            return
        self._gen += 1
        snap = Snapshot(self._gen, self.view, self.table, self.state, self.at_call)
        self._requested_at = time.perf_counter()
        self._plan_worker(snap, self.info)

    @work(thread=True, exclusive=True, group="plan", exit_on_error=False, description="plan")
    def _plan_worker(self, snap: Snapshot, info: ViewInfo) -> None:
        if snap.generation != self._gen:
            return  # superseded before it started
        self.post_message(PlanReady(engine.compute_plan(snap, info)))

    def on_plan_ready(self, message: PlanReady) -> None:
        result = message.result
        if result.generation != self._gen:
            return  # stale: a newer change is being planned
        first_result = self.result is None
        self.result = result
        lst = self.list
        selected = lst.selected if lst.result is not None else None
        keep = selected if isinstance(selected, int) else None
        at_bottom, cursor_at_end = lst.set_result(result, self.info, select_message=keep)
        if self.following and at_bottom:
            lst.scroll_end(animate=False, immediate=True)
            if cursor_at_end or first_result:  # a followed file opens on its newest message
                lst.move_cursor(lst.row_count() - 1, scroll=False, announce=False)
            if first_result:  # the list's size is only known after the next layout
                self.call_after_refresh(lst.scroll_end, animate=False)
        if first_result and self.exact_pending:
            self._start_count()
        savings = {}
        if result.plan is not None:
            for stage in result.plan.stages:
                savings[stage.strategy] = savings.get(stage.strategy, 0) + stage.tokens_before - stage.tokens_after
        self.panel.set_state(self.state, savings)
        self.query_one(TotalsBar).show(result, engine.recorded_at(self.view, self.at_call), self.count_status)
        self.chart.set_cursor(self.at_call)
        self._show_detail()
        self._update_status()
        self._update_hint()
        self.plan_timings.append(time.perf_counter() - self._requested_at)
        if result.error and result.plan is None:
            self.notify(result.error, severity="error", timeout=8)
        self._maybe_replay()

    def _show_detail(self) -> None:
        lst = self.list
        self.query_one(DetailPane).show(lst.selected, self.result)

    @on(MessageList.CursorMoved)
    def _cursor_moved(self, event: MessageList.CursorMoved) -> None:
        if isinstance(event.widget, MessageList):
            self._show_detail()
        elif isinstance(event.widget, PipelinePanel):
            self._update_hint()

    # --- replay -----------------------------------------------------------------------------
    def _maybe_replay(self) -> None:
        """Restart the replay when what it depends on changed. A pipeline change clears the chart
        and replays every call; when only the followed session grew, the chart keeps its points
        and only the calls the new messages can change are replayed (and any not done yet)."""
        key = (id(self.view), id(self.table), self.state.pipeline, self.state.settings)
        if key == self._replay_key:
            return
        same_pipeline = self._replay_key is not None and self._replay_key[2:] == key[2:]
        self._replay_key = key  # a running replay sees this and stops at its next call
        n = len(self.view.calls)
        calls: list[int] | None = None
        delay = REPLAY_DELAY
        if not same_pipeline:
            self.chart.reset_points(n)
            self._replay_growth = self._replay_unfinished = None
        else:
            self.chart.set_call_count(n)
            redo = [c for c in (self._replay_growth, self._replay_unfinished) if c is not None]
            if redo and min(redo) > 1:
                calls = self._growth_calls(min(redo))
                delay = REPLAY_GROWTH_DELAY
        self._replay_growth = None
        self._replay_unfinished = 1 if calls is None else (calls[0] if calls else None)
        if self._replay_timer is not None:
            self._replay_timer.stop()
        # Wait until the keys stop: replaying is pure-Python work that competes for the GIL.
        self._replay_timer = self.set_timer(
            delay, lambda: self._replay_worker(key, self.view, self.table, self.state, calls))

    def _growth_calls(self, start: int) -> list[int]:
        """The calls to replay after the followed session grew: from call ``start`` on, and the
        ones the chart has no point for yet (of the sample, when the session is replayed sampled)."""
        n = len(self.view.calls)
        points = self.chart.points
        if n * len(self.view) > REPLAY_FULL_WORK and n > REPLAY_SAMPLE:
            sample = engine.replay_order(n, REPLAY_SAMPLE)[:REPLAY_SAMPLE + 1]
            return sorted({c for c in sample if c not in points} | ({n} if n >= start else set()))
        return [c for c in range(1, n + 1) if c >= start or c not in points]

    @work(thread=True, exclusive=True, group="replay", exit_on_error=False, description="replay")
    def _replay_worker(self, key: Any, view: SessionView, table: TokenTable, state: PipelineState,
                       calls: list[int] | None = None) -> None:
        worker = get_current_worker()
        if key != self._replay_key:
            return
        n_calls = len(view.calls)
        note = ""
        order = engine.replay_order(n_calls, REPLAY_SAMPLE)
        if n_calls * len(view) > REPLAY_FULL_WORK and n_calls > REPLAY_SAMPLE:
            order = order[:REPLAY_SAMPLE + 1]
            note = f"sampled: {len(order):,} of {n_calls:,} calls (a full replay of this session is too long)"
        if calls is not None:
            order = calls
        if not order:
            self.post_message(ReplayPoints(key, [], 0, note))
            return
        batch: list = []
        posted = time.perf_counter()
        for done, call in enumerate(order, start=1):
            if worker.is_cancelled or key != self._replay_key:
                return  # a newer change restarted the replay: stop within one call
            try:
                batch.extend(engine.replay_points(view, table, state, [call]))
            except Exception as exc:  # keep the app alive; the chart says what failed
                self.post_message(ReplayPoints(key, [], 0, f"replay failed: {type(exc).__name__}: {exc}"))
                return
            now = time.perf_counter()
            if done == len(order) or now - posted > REPLAY_POST_EVERY:
                self.post_message(ReplayPoints(key, batch, len(order) - done, note))
                batch = []
                posted = now
            time.sleep(REPLAY_YIELD)  # hand the GIL to the UI thread between calls

    def on_replay_points(self, message: ReplayPoints) -> None:
        if message.key != self._replay_key:
            return
        if message.pending == 0:
            self._replay_unfinished = None
        self.chart.note = message.note
        self.chart.add_points(message.points, message.pending)

    def action_call(self, delta: int) -> None:
        """Move the replay cursor by ``delta`` calls; past the last call is 'next call'."""
        n = len(self.view.calls)
        if not n:
            self.notify("This session has no model calls (no assistant messages).", timeout=4)
            return
        cur = self.at_call
        if delta < 0:
            new = n if cur is None else max(1, cur + delta)
        else:
            new = None if cur is None or cur + delta > n else cur + delta
        self.set_call(new)

    def set_call(self, call: int | None) -> None:
        if call == self.at_call:
            return
        self.at_call = call
        self.chart.set_cursor(call)
        self.request_plan()

    @on(ReplayChart.CallClicked)
    def _chart_clicked(self, event: ReplayChart.CallClicked) -> None:
        self.set_call(event.call)

    # --- pipeline changes -------------------------------------------------------------------
    def set_state(self, state: PipelineState, what: str = "") -> None:
        if state.encoding != self.state.encoding and state.encoding != "approx":
            try:
                get_counter(state.encoding)
            except EncodingUnavailable as exc:
                self.panel.unavailable.add(state.encoding)
                self.notify(str(exc), severity="warning", timeout=8)
                self._update_status(f"{state.encoding} unavailable: still counting with {self.state.encoding}")
                state = replace(state, encoding=self.state.encoding)
        recount = state.encoding != self.state.encoding or state.profile != self.state.profile
        self.state = state
        self.panel.set_state(state)
        if recount:
            self._recount()
        self.request_plan()

    @on(PipelinePanel.Changed)
    def _panel_changed(self, event: PipelinePanel.Changed) -> None:
        self.set_state(event.state, event.what)

    @on(PipelinePanel.Invalid)
    def _panel_invalid(self, event: PipelinePanel.Invalid) -> None:
        self.notify(event.text, severity="warning", timeout=4)

    @on(PipelinePanel.Edit)
    def _panel_edit(self, event: PipelinePanel.Edit) -> None:
        self.action_edit_param(event.name)

    def action_toggle(self, position: int) -> None:
        if position < len(self.state.order):
            self.set_state(self.state.toggle_at(position))

    def action_budget(self, direction: int, big: bool = False) -> None:
        ref = self.result.tokens_before if self.result else 0
        try:
            self.set_state(self.state.step("budget", direction, big, reference=ref))
        except ParamError as exc:
            self.notify(str(exc), severity="warning", timeout=4)

    def action_preset(self) -> None:
        presets = available_presets()
        if not presets:
            return
        names = [p.name for p in presets]
        k = (names.index(self.state.preset) + 1) % len(presets) if self.state.preset in names else 0
        self.apply_preset(presets[k])

    def apply_preset(self, preset) -> None:
        self.set_state(self.state.apply_preset(preset))
        self.notify(f"preset: {preset.name}", timeout=2)

    def action_edit_param(self, name: str) -> None:
        box = self.query_one("#param-input", Input)
        self.editing_param = name
        spec = spec_for(name)
        value = self.state.value(name)
        box.value = "" if value is None else (",".join(value) if spec.kind == "names" else str(value))
        box.border_title = f"{spec.label} (enter sets, escape cancels)"
        box.remove_class("hidden")
        box.focus()

    @on(Input.Submitted, "#param-input")
    def _param_submitted(self, event: Input.Submitted) -> None:
        name = self.editing_param
        if name is None:
            return
        try:
            state = self.state.set_text(name, event.value)
        except ParamError as exc:
            self.notify(str(exc), severity="warning", timeout=4)
            return
        self._close_param_input()
        self.set_state(state)

    def _close_param_input(self) -> None:
        self.editing_param = None
        box = self.query_one("#param-input", Input)
        box.add_class("hidden")
        self.panel.focus()

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        term = event.value.strip()
        event.input.add_class("hidden")
        self.list.focus()
        self.start_search(term)

    def action_close_inputs(self) -> None:
        if self.editing_param is not None:
            self._close_param_input()
            return
        search = self.query_one("#search", Input)
        if not search.has_class("hidden"):
            search.add_class("hidden")
            self.list.focus()

    def _update_hint(self) -> None:
        hint = self.panel.hint()
        self.query_one("#panel-hint", Static).update(Text(hint))

    def action_next_theme(self) -> None:
        names = self.theme_names()
        k = (names.index(self.theme) + 1) % len(names) if self.theme in names else 0
        self.theme = names[k]
        self.notify(f"theme: {self.theme}", timeout=2)

    # --- status -----------------------------------------------------------------------------
    def _update_status(self, notice: str | None = None) -> None:
        view = self.view
        name = Path(self.session_path).name if self.session_path else "(in memory)"
        turns = sum(1 for t in view.turns if t.number > 0)
        pipeline = f"pipeline: {' → '.join(self.state.pipeline) or 'none'}"
        facts = (f"{self.format_name} · {len(view):,} messages · {turns} turns · {len(view.calls)} model calls"
                 f" · {pipeline}")
        short_facts = f"{pipeline} · {self.format_name} · {len(view):,} messages · {len(view.calls)} calls"
        if self.search_term:
            facts += f" · search: {self.search_term!r}"
            short_facts += f" · search: {self.search_term!r}"
        follow = ""
        if self.follow_stopped:
            follow = "follow stopped"
        elif self.follow_started:
            follow = "● following" if self.following else "following paused (f)"
        status = self.query_one(StatusLine)
        status.set(name=name, facts=facts, short_facts=short_facts, follow=follow, notice=self.notice if notice is None else notice)


def default_session_path() -> Path | None:
    """The bundled sample opened when no session is given."""
    here = Path(__file__).resolve()
    candidates = [here.parents[1] / "sample_sessions", here.parents[2] / "sample_sessions"]
    try:
        from importlib.resources import files

        candidates.insert(0, Path(str(files("inspector") / "sample_sessions")))
    except Exception:
        pass
    for folder in candidates:
        for name in ("coding_agent.jsonl", "vendor_onboarding.json", "hr_leave_balance.json"):
            if (folder / name).is_file():
                return folder / name
    return None


def run(
    path: str | None,
    *,
    theme: str | None = None,
    follow: bool | None = None,
    format: str | None = None,
    encoding: str = DEFAULT_ENCODING,
) -> int:
    """Open the TUI on ``path`` (a bundled sample when None). Returns the exit code: 0, or 2 when
    the session or the theme cannot be used (the reason is printed to stderr, no traceback)."""
    from .. import load
    from ..formats import SessionFormatError

    try:
        theme_file = resolve(theme)
    except ThemeError as exc:
        print(f"context-inspector: {exc}", file=sys.stderr)
        return 2
    if path is None:
        sample = default_session_path()
        if sample is None:
            print("context-inspector: no session given and no bundled sample found; "
                  "run: context-inspector SESSION_FILE", file=sys.stderr)
            return 2
        path = str(sample)
    if encoding not in ENCODINGS:
        print(f"context-inspector: unknown encoding {encoding!r}; choose one of {', '.join(ENCODINGS)}",
              file=sys.stderr)
        return 2
    try:
        size = Path(path).stat().st_size
    except OSError:
        size = 0
    if size > 20_000_000:
        print(f"loading {path} ({size / 1e6:.0f} MB)…", file=sys.stderr)
    try:
        session = load(path, format)
    except SessionFormatError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"{path}: cannot read it ({exc.strerror or exc}).", file=sys.stderr)
        return 2
    app = InspectorApp(session, path=str(path), theme=theme_file, follow=follow, format=format or session.format,
                       encoding=encoding)
    app.run()
    return app.return_code or 0
