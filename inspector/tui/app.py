"""The Textual app: the session as the model sees it, and the pipeline tuned live.

State lives here and only here: the session (view, token table), the :class:`PipelineState`,
the replay cursor. A big session is painted first as the file parsed it (one row per message,
with estimates: :mod:`.draft`); its structure, counts and first plan are built by a worker
after that paint, and the keys that need them wait. Every change bumps a generation number and asks a thread worker
(``group="plan"``, exclusive) for a new plan of a frozen :class:`~inspector.tui.engine.Snapshot`;
the result comes back as a message and is dropped if a newer change has happened since. Exact
token counts replace the fast estimate from a second worker.

The rest is composed of parts that own their state and are given only what they need
(:mod:`.parts` is the contract): :class:`~.search.Search` (the term, ``/ n N``),
:class:`~.replay.Replay` (the replay cursor and the chart's points), :class:`~.live.Follow` (live
follow), :class:`~.dialogs.Export` (the export prompt). The palette's commands are listed by
:func:`~.commands.palette_commands` for the app's actions. Every key binding has an id, and the
user's ``keymap.toml`` (:mod:`.keymap`) can remap it.

:func:`run` is what the command line calls.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from ..analysis.idle import idle_reasons
from ..analysis.info import bad_input_notice
from ..analysis.window import default_budget, session_window, strategy_window
from ..model import Session
from ..strategies import builtin as _builtin_strategies  # noqa: F401  (registers the strategies)
from ..formats import profile_of, session_profile, session_provider
from ..tokens import (
    ENCODINGS,
    EncodingUnavailable,
    TokenTable,
    count_session,
    get_counter,
    get_counter_or_fallback,
)
from ..tokens import tokenizer_for
from ..units import SessionView, build_view
from . import engine
from .commands import Command, InspectorCommands, palette_commands
from .dialogs import Export, detail_screen, rules_screen
from .engine import PlanResult, Snapshot, ViewInfo
from .keymap import binding_rows, keymap_path, load_keymap
from .draft import Draft
from .gchold import GcHold
from .live import Follow, Loaded, replay_from
from .messages import (
    CounterChecked, CountDone, CountProgress, FollowPolled, PlanReady, Prepared, ReplayPoints, SearchDone,
)
from .parts import Services, async_job_runner, thread_job_runner
from .replay import Inputs, Replay
from .screens.help import HelpScreen
from .view_actions import VIEW_BINDINGS, ViewActions
from .widgets.footer import FittingFooter
from .search import Search
from .speculate import Speculation, neighbours
from .state import ParamError, PipelineState, Preset, available_presets, fit_to_session, spec_for
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
#: Sessions of at least this many messages (and not counted before the first paint) are painted
#: as parsed first; their structure, estimates and plan follow from a worker (at 50,000
#: messages building them takes seconds).
DEFER_MESSAGES = 5_000
#: Messages whose flags the warming worker reads between two looks at the plan the user waits for.
WARM_SLICE = 1_000
#: What may run while a big session is being prepared: pipeline, settings and screen keys (they
#: only change the state the first plan will use), never one that reads the plan or the turns.
_WHILE_PREPARING = frozenset({"quit", "help", "toggle", "budget", "edit_param", "preset", "save_preset",
                              "next_theme", "toggle_pane", "close_inputs", "lesson"})


class InspectorApp(ViewActions, App[int]):
    CSS_PATH = "app.tcss"
    TITLE = "context-inspector"
    COMMANDS = App.COMMANDS | {InspectorCommands}
    #: Every binding has an id: the user's keymap.toml remaps keys by id (see the README).
    #: The tooltip says what the key does (the README's table of ids shows it).
    BINDINGS = [
        Binding("q", "quit", "Quit", id="quit", tooltip="quit"),
        Binding("question_mark", "help", "Help", id="help", tooltip="help: units, statuses, strategies, keys"),
        Binding("1", "toggle(0)", "Strategies", key_display="1-6", id="toggle-strategy-1",
                tooltip="turn strategy 1 of the panel on or off"),
        *[Binding(str(k + 1), f"toggle({k})", f"Toggle strategy {k + 1}", show=False, id=f"toggle-strategy-{k + 1}",
                  tooltip=f"turn strategy {k + 1} of the panel on or off") for k in range(1, 9)],
        Binding("plus,equals_sign", "budget(1)", "Budget", key_display="+/-", id="budget-up",
                tooltip="budget +1,000 tokens"),
        Binding("minus,underscore", "budget(-1)", "Budget −1k", show=False, id="budget-down",
                tooltip="budget −1,000 tokens"),
        Binding("greater_than_sign", "budget(1, True)", "Budget +10%", show=False, id="budget-up-10pct",
                tooltip="budget +10%"),
        Binding("less_than_sign", "budget(-1, True)", "Budget −10%", show=False, id="budget-down-10pct",
                tooltip="budget −10%"),
        Binding("b", "edit_param('budget')", "Type budget", show=False, id="type-budget", tooltip="type the budget"),
        Binding("left_square_bracket", "call(-1)", "Call", key_display="[ ]", id="previous-call",
                tooltip="replay cursor: previous model call"),
        Binding("right_square_bracket", "call(1)", "Next call", show=False, id="next-call",
                tooltip="replay cursor: next model call (past the last: the next call after the session)"),
        Binding("slash", "search", "Find", id="search", tooltip="search message text"),
        Binding("n", "search_next(1)", "Next match", show=False, id="search-next", tooltip="next match"),
        Binding("N", "search_next(-1)", "Previous match", show=False, id="search-previous",
                tooltip="previous match"),
        *VIEW_BINDINGS,  # before e, v, p, t, f: the footer shows the keys that fit, in this order
        Binding("e", "export", "Export", id="export",
                tooltip="export the pruned history as an OpenAI or Anthropic request body"),
        Binding("v", "rules", "Rules", id="rules", tooltip="the provider rule text for the selected row"),
        Binding("T", "tools", "Tools", show=False, id="tool-diet",
                tooltip="the tool diet: per tool result size, share, unused fields, errors, secrets"),
        Binding("p", "preset", "Preset", id="next-preset", tooltip="next preset pipeline"),
        Binding("P", "save_preset", "Save preset", show=False, id="save-preset",
                tooltip="save the pipeline and settings as a user preset"),
        Binding("t", "next_theme", "Theme", show=False, id="next-theme", tooltip="next colour theme"),
        Binding("f", "toggle_follow", "Follow", id="toggle-follow", tooltip="follow the file as it grows: on/off"),
        Binding("dollar_sign", "chart_unit", "Tokens/$", show=False, id="chart-dollars",
                tooltip="replay chart: input tokens or dollars (cache-aware) per call"),
        Binding("number_sign", "call_table", "Calls", key_display="#", show=False, id="call-table",
                tooltip="the replay as a table: tokens, recorded, cache read/write, cost, compactions per call"),
        Binding("escape", "close_inputs", "Close", show=False, id="close", tooltip="close the search or value bar"),
    ]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The main view's keys do nothing while a screen is on top of it (help, detail, the
        lesson, the window view...): a key there must not change the pipeline unseen."""
        if len(self.screen_stack) > 1 and action in _MAIN_VIEW_ACTIONS:
            return False
        if self.table is None and action in _MAIN_VIEW_ACTIONS and action not in _WHILE_PREPARING:
            return None  # shown disabled until the big session is prepared (on_prepared)
        return True

    def notify(self, message: str, *, title: str = "", severity="information", timeout=None, markup: bool = True) -> None:
        """Every notice is plain text: they quote search terms, paths and errors, which are data
        (a term like ``[/x]`` would otherwise crash Textual's markup parser). ``markup`` is
        accepted for Widget.notify's sake and ignored."""
        from ..textsafe import visible  # and inert: no escape sequence from a path reaches the terminal

        super().notify(visible(message), title=visible(title), severity=severity, timeout=timeout, markup=False)

    def __init__(
        self,
        session: Session,
        *,
        path: str | None = None,
        theme: ThemeFile | str | None = None,
        follow: bool | None = None,
        format: str | None = None,
        encoding: str | None = None,
        profile: str | None = None,
        pipeline: tuple[str, ...] = (),
        budget: int | None = None,
        sync_count: bool | None = None,
        keymap: Path | None = None,
        lesson: bool = False,
        lesson_step: int = 0,
        preset: str | None = None,
        model: str | None = None,
    ) -> None:
        """``keymap``: the keymap file (default: keymap.toml in the user's config directory);
        ``lesson``: open on the lesson screen, at step ``lesson_step`` (0-based); ``preset``: open
        with that preset applied; ``model``: the model the session was sent to, instead of the one
        the file names (its window sets the default budget, as ``--model`` does for the commands)."""
        super().__init__()
        self.open_lesson = lesson
        self._lesson_start = lesson_step
        self.open_preset = preset
        self.session = session
        self.model = model
        self.session_path = path or session.path
        self.format_name = format or session.format
        self.theme_file = resolve(theme) if not isinstance(theme, ThemeFile) else theme
        self.sync_count = sync_count
        #: A big session: view, counts and the counter's data are loaded after the first paint.
        self.deferred = len(session.messages) >= DEFER_MESSAGES and not self._sync_count_ok()
        self.view: SessionView | None = None if self.deferred else build_view(session)
        self.info: ViewInfo | None = None if self.deferred else ViewInfo(self.view)
        if profile is None:  # frame the messages the way the session's own provider does
            profile = session_profile(session) if self.format_name == session.format else profile_of(self.format_name)
        if encoding is None:  # the tokenizer of the model the file records
            encoding = tokenizer_for(session.model, profile)  # its name: loading it waits (below)
        # a big session checks its counter in the preparing worker (loading one takes ~0.3 s)
        counter, warning = get_counter_or_fallback(encoding) if encoding != "approx" and not self.deferred else (None, None)
        self.encoding_warning = warning
        self._counter_checked = not self.deferred
        encoding = counter.name if counter is not None else encoding
        self.state = PipelineState.initial(encoding=encoding, profile=profile, enabled=pipeline)
        self.explicit_budget = budget
        #: The budget is the user's (--budget, or stepped or typed since): a preset keeps it, as
        #: ``--budget`` wins over a preset's on the command line.
        self.budget_explicit = budget is not None
        self._applying_preset = False
        #: What every preset starts from: the defaults with the budget and window seeded (_seed_budget).
        self.preset_base = None
        self.table: TokenTable | None = None
        self.exact_pending = False
        self.count_status = ""
        self.result: PlanResult | None = None
        self._gen = 0
        self.editing_param: str | None = None
        #: First message a followed session changed while the exact count was running.
        self._count_dirty = 0
        self.plan_timings: list[float] = []
        self._gc_hold = GcHold(self.set_timer, busy=lambda: self.speculation.running)
        self.keymap_file = keymap_path() if keymap is None else keymap
        self.remapped: dict[str, str] = {}
        self._keymap_problems = self._load_keymap(self.keymap_file)

        services = Services(notify=self.notify, show_status=self._update_status, post=self.post_message,
                            run_thread=thread_job_runner(self), run_async=async_job_runner(self),
                            set_timer=self.set_timer, set_interval=self.set_interval)
        self.search = Search(services, rows=lambda: self.list, box=lambda: self.query_one("#search", Input),
                             result=lambda: self.result)
        self.replay = Replay(services, chart=lambda: self.chart,
                             inputs=lambda: Inputs(self.view, self.table, self.state), cursor_moved=self.request_plan,
                             money_ready=self._money_ready)
        self.speculation = Speculation(services.run_thread, self.replay.speculating)
        #: The kind of the last change: "call", "budget", "grew" (the followed file) or "" (any other);
        #: the plans one key away are computed in that order (none after "grew").
        self._last_change = ""
        self.follow = Follow(services, path=self.session_path, format_name=self.format_name, requested=follow,
                             loaded=lambda: Loaded(self.session, self.table, self.info), grown=self._apply_growth,
                             scroll_end=lambda: self.list.scroll_end(animate=False))
        self.export = Export(services, session_path=self.session_path,
                             provider="anthropic" if session_provider(session) == "anthropic" else "openai",
                             result=lambda: self.result, at_call=lambda: self.replay.at_call,
                             push_screen=self.push_screen)

    # --- keys -------------------------------------------------------------------------------
    def _load_keymap(self, path: Path) -> list[str]:
        """Apply the user's keymap; returns its problems (shown once the screen is up)."""
        keymap = load_keymap(path, {binding_id: keys for binding_id, keys, _ in binding_rows(keymap_owners())})
        if keymap.keys:
            self.remapped = keymap.keys
            self.set_keymap(keymap.keys)
        return keymap.problems

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
        yield TotalsBar(id="totals", model=self.model)
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
        yield FittingFooter()

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
        if self.deferred:
            # the default budget needs only the session's model and window, not its counts: set it
            # now, so +/- and the settings panel step from it while the session is prepared
            self._seed_budget()
            self.panel.set_state(self.state)
            self.list.show_draft(Draft(self.session.messages, self.state.profile))
            self.chart.preparing = True
            self.call_after_refresh(self._prepare_worker, self.session, self.state.encoding, self.state.profile)
        else:
            self._first_count()
        start = next((p for p in available_presets() if p.name == self.open_preset), None)
        if start is not None:  # set_state shapes the first plan of a session still being prepared too
            self.apply_preset(start)
        if self.encoding_warning:
            self.notify(self.encoding_warning, severity="warning", timeout=8)
        self._notify_bad_input(0)
        for problem in self._keymap_problems:
            self.notify(problem, title="keymap", severity="warning", timeout=10)
        if not self.deferred:
            self.follow.start()
        self._update_hint()
        if self.open_lesson:
            self.action_lesson()

    @property
    def list(self) -> MessageList:
        return self.query_one("#messages", MessageList)

    @property
    def panel(self) -> PipelinePanel:
        return self.query_one("#panel", PipelinePanel)

    @property
    def chart(self) -> ReplayChart:
        return self.query_one("#chart", ReplayChart)

    def on_resize(self, event: events.Resize) -> None:
        # The event's size: this handler runs before App's own, so self.size is still the previous one.
        width, height = event.size
        main = self.screen_stack[0] if self.screen_stack else self.screen  # not a dialog on top of it
        main.set_class(height < 34, "-short")
        main.set_class(width < 130, "-narrow")
        main.set_class(width < 110, "-tight")
        main.set_class(height < 28, "-shorter")
        self.query_one(TotalsBar).set_brief(height < 28)
        footer = self.query_one(FittingFooter)
        footer.compact = width < 130
        palette = width >= 110
        if footer.show_command_palette != palette:
            footer.show_command_palette = palette
            footer.refresh(recompose=True)  # the Footer reads it only when it composes

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

    @work(thread=True, exclusive=True, group="prepare", exit_on_error=False, description="prepare")
    def _prepare_worker(self, session: Session, encoding: str, profile: str) -> None:
        """A big session's structure and estimates, then its counter's data."""
        view = build_view(session)
        table = count_session(session.messages, session.tools, encoding="approx", profile=profile)
        self.post_message(Prepared(view, ViewInfo(view), table))
        if encoding != "approx":
            counter, warning = get_counter_or_fallback(encoding)
            self.post_message(CounterChecked(encoding, counter.name, warning))

    def on_prepared(self, message: Prepared) -> None:
        self.view, self.info = message.view, message.info
        self._first_count(message.table)
        self._update_status()
        self.follow.start()
        self.refresh_bindings()

    def on_counter_checked(self, message: CounterChecked) -> None:
        if message.warning:
            self.encoding_warning = message.warning
            self.notify(message.warning, severity="warning", timeout=8)
            if self.state.encoding == message.requested:
                self.state = replace(self.state, encoding=message.encoding)
                self.panel.set_state(self.state)
        self._counter_checked = True
        if self.result is not None and self.exact_pending:
            self._start_count()

    def _first_count(self, estimate: TokenTable | None = None) -> None:
        """Count the session (or take the preparing worker's ``estimate``), seed the budget and
        ask for the first plan."""
        s = self.session
        if estimate is not None and estimate.encoding == self.state.encoding:
            self.table = estimate
            self.exact_pending = False
        elif estimate is not None:
            self.table = estimate
            self.exact_pending = True
            self.count_status = "exact count 0%…"
        elif self.state.encoding == "approx" or self._sync_count_ok():
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
        """The starting budget: ``--budget``, else what the agent fills before it compacts; and the
        session model's window."""
        if self.preset_base is not None:  # seeded already (a big session: before its counts), perhaps changed since
            return
        budget = self.explicit_budget if self.explicit_budget is not None else default_budget(self.session, self.model)
        self.state = self.state.set("budget", budget)
        self.panel.reference_budget = budget
        window = strategy_window(self.session, self.model)  # the compacting strategies' window, as the commands take it
        if window is not None:
            self.state = self.state.set("context_window", window)
        self.preset_base = self.state.settings

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
        self.replay.redo_all()  # every call's baseline changed
        gc.freeze()  # the exact counts are long-lived too (see _first_count)
        self.request_plan()

    def _recount(self) -> None:
        """The counter or profile changed: count again (estimate at once when the session is big)."""
        s = self.session
        self.replay.redo_all()  # every call's baseline changed
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
        self.speculation.stop()
        snap = Snapshot(self._gen, self.view, self.table, self.state, self.replay.at_call)
        self._requested_at = time.perf_counter()
        self.replay.hold()  # until this plan is painted (on_plan_ready)
        self._gc_hold.pause()
        kept = self.info.kept_result(snap)
        if kept is not None:  # planned before: shown in this change's own repaint, no worker's round trip
            self.on_plan_ready(PlanReady(kept))
            return
        self._plan_worker(snap, self.info)

    @work(thread=True, exclusive=True, group="plan", exit_on_error=False, description="plan")
    def _plan_worker(self, snap: Snapshot, info: ViewInfo) -> None:
        if snap.generation != self._gen:
            return  # superseded before it started
        self.speculation.wait_for(snap)
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
        if self.follow.following and at_bottom:
            lst.scroll_end(animate=False, immediate=True)
            if cursor_at_end or first_result:  # a followed file opens on its newest message
                lst.move_cursor(lst.row_count() - 1, scroll=False, announce=False)
            if first_result:  # the list's size is only known after the next layout
                self.call_after_refresh(lst.scroll_end, animate=False)
        if first_result and self.exact_pending and self._counter_checked:
            self._start_count()
        if first_result and self.deferred:
            self._warm_worker(self.view)
        savings = {}
        if result.plan is not None:
            for stage in result.plan.stages:
                savings[stage.strategy] = savings.get(stage.strategy, 0) + result.stage_saving(stage)
        self.panel.set_state(self.state, savings, idle_reasons(result.plan) if result.plan is not None else {})
        self.query_one(TotalsBar).show(result, engine.recorded_at(self.view, self.replay.at_call), self.count_status)
        self.chart.set_cursor(self.replay.at_call)
        self._show_detail()
        self._update_status()
        self._update_hint()
        self.plan_timings.append(time.perf_counter() - self._requested_at)
        if result.error and result.plan is None:
            self.notify(result.error, severity="error", timeout=8)
        self.call_after_refresh(self._painted)
        self.replay.restart_if_changed()

    @work(thread=True, exclusive=True, group="warm", exit_on_error=False, description="warm")
    def _warm_worker(self, view: SessionView) -> None:
        """Read every message's flags once: a big session's truncation markers are scanned
        lazily (0.5 s at 50,000 messages, which the first toggle of tool_pruning would pay), here
        in slices that wait while a plan the user asked for is computed."""
        worker = get_current_worker()
        flags = view.flags
        for start in range(0, len(flags), WARM_SLICE):
            self.replay.wait_while_planning()
            if worker.is_cancelled:
                return
            flags[start:start + WARM_SLICE]

    def on_unmount(self) -> None:
        self._gc_hold.resume()  # closed with a plan still coming: collection must not stay off

    def _painted(self) -> None:
        """The plan the user asked for is on screen: the replay and the collector go on, and the
        plans one key away are computed ahead (not while the exact count will change them all)."""
        self.replay.release()
        self._gc_hold.resume_when_idle()
        result = self.result
        last, self._last_change = self._last_change, ""
        if (result is None or result.plan is None or result.generation != self._gen or self.exact_pending
                or last == "grew"):  # a followed session that grows would make them stale at once
            return
        snap = result.snapshot
        self.speculation.start(snap, self.info, list(neighbours(snap.state, snap.at_call, len(snap.view.calls), last,
                                                                result.tokens_before)))

    def _show_detail(self) -> None:
        lst = self.list
        self.query_one(DetailPane).show(lst.selected, self.result)

    @on(MessageList.CursorMoved)
    def _cursor_moved(self, event: MessageList.CursorMoved) -> None:
        if isinstance(event.widget, MessageList):
            self._show_detail()
        elif isinstance(event.widget, PipelinePanel):
            self._update_hint()

    # --- the parts' messages and actions ----------------------------------------------------
    def on_replay_points(self, message: ReplayPoints) -> None:
        if self.query_one_optional("#chart", ReplayChart) is not None:  # None: the app is closing
            self.replay.points(message)

    def on_search_done(self, message: SearchDone) -> None:
        self.search.done(message)

    def on_follow_polled(self, message: FollowPolled) -> None:
        if self.query_one_optional(StatusLine) is not None:  # None: the app is closing
            self.follow.polled(message)

    def action_call(self, delta: int) -> None:
        self._last_change = "call"
        self.replay.step(delta)

    def action_last_call(self) -> None:
        """The replay cursor back to the default: the next call after the whole session."""
        self.replay.go_to(None)

    @on(ReplayChart.CallClicked)
    def _chart_clicked(self, event: ReplayChart.CallClicked) -> None:
        self.replay.go_to(event.call)

    def action_search(self) -> None:
        self.search.open()

    def action_search_next(self, direction: int) -> None:
        self.search.next(direction)

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        self.search.submitted(event.value)

    def _money_ready(self, money) -> None:
        if money is not None:
            self.chart.set_money(money)
        self.query_one(TotalsBar).show_money(money)

    def action_chart_unit(self) -> None:
        if not self.chart.toggle_unit():
            self.notify("Dollars come once every call is replayed and priced (sampled replays are not priced).", timeout=4)

    def action_call_table(self) -> None:
        from .screens.call_table import CallTableScreen

        self.push_screen(CallTableScreen(self.chart.points, self.chart.money, len(self.view.calls)))

    def action_toggle_follow(self) -> None:
        self.follow.toggle()

    def _apply_growth(self, message: FollowPolled) -> None:
        """Swap in the session the follower grew (its counts rebased on the app's own if those
        changed while the worker ran) and replan."""
        first = message.first
        table = message.table
        current = self.table
        if message.base_table is not current:
            # exact counts arrived, or the counter changed, while the worker ran: count the
            # changed messages on top of what the app has now
            table = engine.count(message.session.messages, message.session.tools, current.encoding, current.profile,
                                 previous=current, keep=min(first, len(current.counts)))
        old_view = self.view
        bad_before = len(self.session.skipped)
        self.session = message.session
        self._notify_bad_input(bad_before)
        self.view = message.view
        self.info = message.info
        self.table = table
        if self.exact_pending:  # a running exact count must recount from here when it ends
            self._count_dirty = min(self._count_dirty, first)
        self.replay.grew_from(0 if message.facts_changed else replay_from(old_view, message.view, first))
        self._reseed_window()
        gc.freeze()
        self._last_change = "grew"
        self.request_plan()

    def _reseed_window(self) -> None:
        """A followed session whose window changed as it grew (a Claude Code call read more than
        200,000 tokens: the 1M variant) moves the budget and the compacting strategies' window
        seeded from the old one, where the user did not set them, and says so."""
        seeded = self.preset_base
        if seeded is None:
            return
        found = session_window(self.session, self.model)  # (what default_budget reads)
        budget, window = found.budget, strategy_window(self.session, self.model, found)
        old_budget = self.panel.reference_budget
        old_window = getattr(seeded, "context_window", None)
        if budget == old_budget and window in (None, old_window):
            return
        state = self.state
        moved = []
        if self.explicit_budget is None and not self.budget_explicit and state.settings.budget == old_budget \
                and budget != old_budget:
            state = state.set("budget", budget)
            moved.append(f"budget {old_budget:,} → {budget:,}")
        update = {} if self.explicit_budget is not None else {"budget": budget}
        if window is not None and window != old_window:
            if getattr(state.settings, "context_window", None) == old_window:
                state = state.set("context_window", window)
            update["context_window"] = window
        self.preset_base = seeded.model_copy(update=update)
        self.panel.reference_budget = budget if self.explicit_budget is None else old_budget
        if state is not self.state:
            self.state = state
            self.panel.set_state(state)
        if moved or window != old_window:
            self.notify(f"The session's window is now {window or found.tokens:,} tokens ({found.source})"
                        + (f": {', '.join(moved)}" if moved else ""), timeout=8)

    def _notify_bad_input(self, start: int) -> None:
        """Say so when the reader skipped bad input (at open, or in what a follow added)."""
        notice = bad_input_notice(self.session.path, self.session.skipped, start)
        if notice is not None:
            self.notify(notice, severity="warning", timeout=10)

    def action_export(self) -> None:
        self.export.open()

    def action_help(self) -> None:
        self.push_screen(HelpScreen(str(self.keymap_file), self.remapped, binding_rows(keymap_owners())))

    #: The sidechain shown (None: the main conversation) and those the session has, as
    #: ``(id, message count)``; set by :func:`run`, which reopens the viewer on the one chosen.
    sidechain: str | None = None
    sidechain_choices: tuple[tuple[str, int], ...] = ()
    switch_to: tuple[str | None] | None = None

    def switch_sidechain(self, key: str | None) -> None:
        """Show sidechain ``key`` (None: the main conversation) with its own context, plan and
        replay: the viewer closes and :func:`run` opens it on that conversation."""
        self.switch_to = (key,)
        self.exit()

    def action_lesson(self) -> None:
        """The lesson on the bundled samples (inspector.tui.screens.lesson)."""
        from .screens.lesson import LessonScreen

        sample = default_session_path()
        if sample is None:
            self.notify("The bundled samples are missing, so the lesson cannot open.", severity="warning")
            return
        start, self._lesson_start = self._lesson_start, 0  # `learn --step` applies to the first opening
        self.push_screen(LessonScreen(sample.parent, start=start))

    def action_tools(self) -> None:
        from .screens.tools import open_tools

        open_tools(self)

    def action_open(self) -> None:
        self.list.action_open()

    def on_message_list_open_detail(self, event: MessageList.OpenDetail) -> None:
        if self.result is None or self.result.plan is None:
            return
        item = self.list.message_at(event.row)
        if item is not None:
            self.push_screen(detail_screen(item, self.result))

    def action_rules(self) -> None:
        if self.result is not None and self.result.plan is not None:
            self.push_screen(rules_screen(self.result, self.list.selected, self.list.result_row(self.list.cursor)))

    def palette_commands(self) -> list[Command]:
        return palette_commands(self)

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
        if not self._applying_preset and state.settings.budget != self.state.settings.budget:
            self.budget_explicit = True
        self.state = state
        self.panel.set_state(state)
        if recount and self.table is not None:  # else the preparing worker's estimate is counted with it
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
        self._last_change = "budget"
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

    def apply_preset(self, preset: Preset) -> None:
        preset = fit_to_session(preset, self.session, self.model)
        # from the settings the viewer opened with, as --preset starts from the defaults
        state = self.state.apply_preset(preset, self.preset_base)
        if self.budget_explicit:  # the user's budget stays, as --budget does with --preset
            state = state.set("budget", self.state.settings.budget)
        self._applying_preset = True
        try:
            self.set_state(state)
        finally:
            self._applying_preset = False
        # an agent preset's note says its version, what it does and where that comes from
        self.notify(f"preset: {preset.name}" + (f" · {preset.note}" if preset.note else ""), timeout=8 if preset.note else 2)

    def action_save_preset(self) -> None:
        from .screens.save_preset import save_preset_prompt

        self.push_screen(save_preset_prompt(self.state), lambda done: done and self.notify(done, timeout=6))

    def action_edit_param(self, name: str) -> None:
        box = self.query_one("#param-input", Input)
        self.editing_param = name
        spec = spec_for(name)
        value = self.state.value(name)
        box.value = "" if value is None else (",".join(value) if spec.kind == "names" else str(value))
        box.border_title = f"{spec.title} (enter sets, escape cancels)"
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

    def action_close_inputs(self) -> None:
        if self.editing_param is not None:
            self._close_param_input()
            return
        self.search.close()

    def _update_hint(self) -> None:
        hint = self.panel.hint()
        box = self.query_one("#panel-hint", Static)
        if hint != str(box.content):  # a fixed height (app.tcss): never a layout of the screen
            box.update(Text(hint), layout=False)

    def action_next_theme(self) -> None:
        names = self.theme_names()
        k = (names.index(self.theme) + 1) % len(names) if self.theme in names else 0
        self.theme = names[k]
        self.notify(f"theme: {self.theme}", timeout=2)

    # --- status -----------------------------------------------------------------------------
    def _update_status(self, notice: str | None = None) -> None:
        view = self.view
        name = Path(self.session_path).name if self.session_path else "(in memory)"
        pipeline = f"pipeline: {' → '.join(self.state.pipeline) or 'none'}"
        if view is None:  # a big session being prepared
            messages = f"{len(self.session.messages):,} messages"
            facts = f"{self.format_name} · {messages} · finding turns and model calls… · {pipeline}"
            short_facts = f"{pipeline} · {self.format_name} · {messages} · preparing…"
        else:
            turns = sum(1 for t in view.turns if t.number > 0)
            facts = (f"{self.format_name} · {_count(len(view), 'message')} · {_count(turns, 'turn')} · "
                     f"{_count(len(view.calls), 'model call')} · {pipeline}")
            short_facts = f"{pipeline} · {self.format_name} · {len(view):,} messages · {len(view.calls):,} calls"
        if self.search.term:
            facts += f" · search: {self.search.term!r}"
            short_facts += f" · search: {self.search.term!r}"
        status = self.query_one(StatusLine)
        status.set(name=name, facts=facts, short_facts=short_facts, follow=self.follow.badge(),
                   notice=self.follow.notice if notice is None else notice)


#: The app's own actions (but quit), which act on the main view only.
_MAIN_VIEW_ACTIONS = frozenset(b.action.split("(")[0] for b in InspectorApp.BINDINGS) - {"quit"}


def _count(n: int, word: str) -> str:
    """``n`` with thousands separators and ``word`` in the singular or plural ("1 turn", "2,001 messages")."""
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def keymap_owners() -> Iterable[type]:
    """The classes whose bindings a keymap may remap (their ids are the README's table)."""
    return (InspectorApp, MessageList)


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
    encoding: str | None = None,
    profile: str | None = None,
    sidechain: str | None = None,
    lesson: bool = False,
    lesson_step: int = 0,
    preset: str | None = None,
    model: str | None = None,
) -> int:
    """Open the TUI on ``path`` (a bundled sample when None), on its sidechain ``sidechain`` when
    given (not followed: the file grows with the main conversation), on the lesson screen with
    ``lesson`` (at step ``lesson_step``, 0-based), with preset ``preset`` applied, with the window of ``model`` (``--model``). Returns the exit code: 0, or 2 when the session or the theme cannot be used (the
    reason is printed to stderr, no traceback)."""
    from .. import load
    from ..formats import SessionFormatError
    from ..formats.sidechain import UnknownSidechain, open_sidechain, sidechain_ids

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
    if encoding is not None and encoding not in ENCODINGS:
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
    main = session
    while True:
        try:
            shown = open_sidechain(main, sidechain) if sidechain is not None else main
        except UnknownSidechain as exc:
            print(f"context-inspector: --sidechain: {exc}", file=sys.stderr)
            return 2
        app = InspectorApp(shown, path=str(path), theme=theme_file, follow=False if sidechain is not None else follow,
                           format=format or session.format, encoding=encoding, profile=profile, lesson=lesson,
                           lesson_step=lesson_step, preset=preset, model=model)
        lesson = False  # the lesson opens once, not again on a sidechain switch
        app.sidechain, app.sidechain_choices = sidechain, tuple(sidechain_ids(main))
        app.run()
        if app.switch_to is None:
            return app.return_code or 0
        sidechain = app.switch_to[0]
        try:  # read again: the agent may have written more since
            main = load(path, format)
        except (SessionFormatError, OSError) as exc:
            print(str(exc), file=sys.stderr)
            return 2
