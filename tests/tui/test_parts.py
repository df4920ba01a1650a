"""Each part of the app (search, replay, follow, export) driven on its own, without an app: fake
services run thread jobs at once and collect posted messages, timers are called by hand, and the
widgets are small stand-ins with only what the part's contract names."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from types import SimpleNamespace

from inspector import load
from inspector.providers.export import export_request
from inspector.tokens import count_session
from inspector.tui import engine
from inspector.tui.dialogs import Export
from inspector.tui import live
from inspector.tui.engine import Snapshot, ViewInfo
from inspector.tui.live import Follow, Loaded
from inspector.tui.messages import FollowPolled, ReplayPoints, SearchDone
from inspector.tui.parts import Services
from inspector.tui.replay import Inputs, Replay
from inspector.tui.search import Search
from inspector.tui.state import PipelineState
from inspector.units import build_view

from tui_helpers import tiny_session


class Stub:
    """A timer or worker handle that records being stopped or cancelled."""

    def __init__(self, callback=None) -> None:
        self.callback = callback
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True

    def cancel(self) -> None:
        self.stopped = True


@dataclass
class Fake:
    """Services for one part: everything it asked for, recorded."""

    notices: list[str] = field(default_factory=list)
    statuses: list[str | None] = field(default_factory=list)
    posted: list = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    timers: list[Stub] = field(default_factory=list)
    intervals: list[Stub] = field(default_factory=list)
    async_jobs: list[Stub] = field(default_factory=list)

    def services(self) -> Services:
        def run_thread(job, *, group, exclusive=True):
            self.groups.append(group)
            job(lambda: False)

        def run_async(job, *, group):
            self.groups.append(group)
            self.async_jobs.append(Stub(job))
            return self.async_jobs[-1]

        def timer(store):
            def set_timer(delay, callback):
                store.append(Stub(callback))
                return store[-1]
            return set_timer

        return Services(notify=lambda text, **kw: self.notices.append(text), show_status=self.statuses.append,
                        post=self.posted.append, run_thread=run_thread, run_async=run_async,
                        set_timer=timer(self.timers), set_interval=timer(self.intervals))


def plan_of(session, pipeline=(), at_call=None, **settings):
    view = build_view(session)
    table = count_session(session.messages, session.tools, encoding="approx", profile="openai")
    state = PipelineState.initial(encoding="approx", enabled=pipeline)
    for name, value in settings.items():
        state = state.set(name, value)
    return engine.compute_plan(Snapshot(1, view, table, state, at_call), ViewInfo(view))


# --- search ----------------------------------------------------------------------------------

class Rows:
    def __init__(self) -> None:
        self.cursor = 0
        self.term = None
        self.focused = 0

    def set_search(self, term):
        self.term = term

    def shown_row(self, result_row):
        return result_row  # no filter: every row shows where it is

    def move_cursor(self, row, *, scroll=True, announce=True):
        self.cursor = row

    def scroll_cursor_visible(self, center=False):
        pass

    def focus(self, scroll_visible=True):
        self.focused += 1


class Box:
    def __init__(self) -> None:
        self.value = ""
        self.classes = {"hidden"}
        self.focused = 0

    def has_class(self, *names):
        return set(names) <= self.classes

    def add_class(self, *names, update=True):
        self.classes |= set(names)

    def remove_class(self, *names, update=True):
        self.classes -= set(names)

    def focus(self, scroll_visible=True):
        self.focused += 1


def test_search_finds_matches_forward_and_back_and_says_when_there_is_none():
    fake, rows, box = Fake(), Rows(), Box()
    result = plan_of(tiny_session())
    search = Search(fake.services(), rows=lambda: rows, box=lambda: box, result=lambda: result)
    search.next(1)  # no term yet: n opens the bar
    assert not box.has_class("hidden") and box.focused == 1
    search.submitted("  bike ")
    assert box.has_class("hidden") and search.term == "bike" and rows.term == "bike"
    assert fake.groups == ["search"]
    assert [(m.term, m.row, m.rank, m.total) for m in fake.posted] == [("bike", 3, 1, 3)]  # rows 3, 5, 6
    search.done(fake.posted[-1])
    assert rows.cursor == 3 and fake.statuses[-1] == "match 1 of 3 for 'bike' · n/N next/previous · escape clears"
    search.next(1)
    search.done(fake.posted[-1])
    assert rows.cursor == 5
    search.next(-1)
    search.done(fake.posted[-1])
    assert rows.cursor == 3
    search.done(SearchDone("milk", 0, 1))  # a stale answer for an older term moves nothing
    assert rows.cursor == 3
    search.start("zzz")
    search.done(fake.posted[-1])
    assert fake.notices == ["no message contains 'zzz'"] and fake.statuses[-1] == "no match for 'zzz'"
    box.remove_class("hidden")
    assert search.close() and box.has_class("hidden")  # the bar closes first
    assert search.close() and search.term == "" and rows.term == ""  # then the term clears
    assert not search.close()


# --- replay ----------------------------------------------------------------------------------

class Chart:
    def __init__(self) -> None:
        self.points = {}
        self.note = ""
        self.cursor = None
        self.n_calls = None
        self.pending = None

    def reset_points(self, n_calls):
        self.n_calls, self.points, self.pending = n_calls, {}, n_calls

    def set_call_count(self, n_calls):
        self.n_calls = n_calls

    def add_points(self, points, pending):
        self.points.update({p.call: p for p in points})
        self.pending = pending

    def set_cursor(self, call):
        self.cursor = call


def test_replay_moves_its_cursor_and_fills_the_chart_once_per_change():
    session = tiny_session()
    view = build_view(session)
    table = count_session(session.messages, session.tools, encoding="approx", profile="openai")
    state = PipelineState.initial(encoding="approx", enabled=("tool_pruning",))
    fake, chart, moved = Fake(), Chart(), []
    replay = Replay(fake.services(), chart=lambda: chart, inputs=lambda: Inputs(view, table, state),
                    cursor_moved=lambda: moved.append(replay.at_call))
    n = len(view.calls)
    assert n == 3
    replay.step(-1)  # from "next call" back to the last call
    replay.step(-1)
    replay.step(5)  # past the last call: the next call again
    replay.go_to(None)  # no change: no replan
    assert moved == [3, 2, None] and chart.cursor is None

    replay.restart_if_changed()
    assert chart.n_calls == 3 and chart.pending == 3 and len(fake.timers) == 1
    replay.restart_if_changed()  # nothing changed: the scheduled replay stands
    assert len(fake.timers) == 1
    fake.timers[0].callback()
    assert fake.groups == ["replay"]
    for message in fake.posted:
        assert isinstance(message, ReplayPoints)
        replay.points(message)
    assert chart.pending == 0
    assert list(chart.points.values()) == engine.replay_points(view, table, state, [1, 2, 3])
    stale = ReplayPoints(("old",), [], 7, "stale")
    replay.points(stale)
    assert chart.pending == 0 and chart.note == ""

    state = state.set("budget", 50)  # a pipeline change clears the chart and replays every call
    replay.restart_if_changed()
    assert chart.points == {} and len(fake.timers) == 2 and fake.timers[0].stopped  # the old one is stopped


def test_replay_of_a_session_without_calls_says_so():
    session = tiny_session()
    session.messages[:] = session.messages[:2]
    view = build_view(session)
    table = count_session(session.messages, session.tools, encoding="approx", profile="openai")
    fake = Fake()
    replay = Replay(fake.services(), chart=Chart, inputs=lambda: Inputs(view, table, PipelineState.initial()),
                    cursor_moved=lambda: None)
    replay.step(1)
    assert fake.notices == ["This session has no model calls (no assistant messages)."] and replay.at_call is None


# --- follow ----------------------------------------------------------------------------------

def jsonl(*records) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def test_follow_reads_what_the_file_gains_and_stops_when_it_is_truncated(tmp_path, monkeypatch):
    clock = [1000.0]  # the follow's monotonic clock, moved by hand
    monkeypatch.setattr(live, "time", SimpleNamespace(monotonic=lambda: clock[0], thread_time=time.thread_time))
    path = tmp_path / "live.jsonl"
    path.write_text(jsonl({"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}))
    session = load(path)
    table = count_session(session.messages, session.tools, encoding="approx", profile="openai")
    shown = Loaded(session, table, ViewInfo(build_view(session)))
    fake, grown, scrolled = Fake(), [], []
    follow = Follow(fake.services(), path=str(path), format_name=session.format, requested=None,
                    loaded=lambda: shown, grown=grown.append, scroll_end=lambda: scrolled.append(1))
    assert follow.badge() == ""
    follow.start()
    assert follow.following and follow.badge() == "● following"
    assert fake.groups == ["watch", "follow"] and len(fake.intervals) == 1
    first = fake.posted[-1]
    assert isinstance(first, FollowPolled) and first.session is None and first.follower is not None
    follow.polled(first)
    assert follow.follower is first.follower and not follow.busy and grown == []

    with path.open("a") as fh:
        fh.write(jsonl({"role": "assistant", "content": "hello"}))
    follow.poll()  # too soon after the last poll: a timer waits for it
    assert len(fake.timers) == 1 and fake.groups.count("follow") == 1
    clock[0] += 1
    fake.timers[0].callback()
    follow.polled(fake.posted[-1])
    assert len(grown) == 1 and grown[0].first == 2
    assert [m.text for m in grown[0].session.messages] == ["Be brief.", "hi", "hello"]
    assert grown[0].table.encoding == "approx" and len(grown[0].table.counts) == 3

    follow.toggle()
    assert follow.badge() == "following paused (f)"
    follow.poll()  # paused: nothing is read
    assert fake.groups.count("follow") == 2
    follow.toggle()
    assert scrolled == [1] and follow.following

    read = path.stat().st_size
    path.write_text(jsonl({"role": "user", "content": "x"}))
    clock[0] += 1
    follow.poll()
    follow.polled(fake.posted[-1])
    notice = (f"{path} was truncated (it has {path.stat().st_size} bytes, {read} had been read): keeping the 3 "
              f"messages already loaded and no longer following it.")
    assert follow.notice == notice and fake.notices[-1] == notice
    assert follow.badge() == "follow stopped" and follow.stopped
    assert fake.async_jobs[0].stopped and fake.intervals[0].stopped
    follow.toggle()
    assert fake.notices[-1] == notice  # a stopped follow says why instead of restarting


def test_follow_refuses_a_format_that_cannot_grow(tmp_path):
    fake = Fake()
    follow = Follow(fake.services(), path=str(tmp_path / "s.json"), format_name="openai", requested=True,
                    loaded=lambda: None, grown=lambda m: None, scroll_end=lambda: None)
    follow.start()
    assert not follow.started and fake.groups == []
    # the list comes from the formats' declared follow kinds (was hard-coded and missed Gemini CLI and captures)
    assert fake.notices == ["openai sessions cannot be followed live: only jsonl, claude_code, codex, strands, "
                            "agents_sqlite, capture, gemini_cli, openhands_v1 and copilot_cli sessions grow while an agent runs."]


# --- export ----------------------------------------------------------------------------------

def test_export_writes_the_plan_on_screen_and_never_the_session_file(tmp_path):
    session_path = tmp_path / "s.jsonl"
    session_path.write_text("{}\n")
    result = plan_of(tiny_session(), pipeline=("tool_pruning",), at_call=2)
    fake, pushed = Fake(), []
    export = Export(fake.services(), session_path=str(session_path), provider="anthropic", result=lambda: result,
                    at_call=lambda: 2, push_screen=lambda screen, done: pushed.append((screen, done)))
    assert export.default_path() == "s.pruned.anthropic.json"
    export.open()
    screen, done = pushed[0]
    assert (screen.default_path, screen.provider, screen.session_path) == ("s.pruned.anthropic.json", "anthropic",
                                                                          str(session_path))
    out = tmp_path / "out.json"
    said = export.write(str(out), "openai")
    assert said == f"wrote {out}: the pruned history at call 2, as an OpenAI request"
    assert json.loads(out.read_text()) == export_request(result.plan, "openai")
    try:
        export.write(str(session_path), "openai")
        raise AssertionError("wrote over the session file")
    except ValueError as exc:
        assert str(exc) == "that is the session file"
    done(said)
    assert fake.notices == [said] and fake.statuses == [said]
    done(None)  # cancelled: nothing is said
    assert fake.notices == [said]


def test_the_replay_waits_while_a_plan_for_the_screen_is_computed():
    """While the app holds it (a plan the user is waiting for), the replay posts nothing; once
    released it goes on and fills the chart."""
    import threading

    session = tiny_session()
    view = build_view(session)
    table = count_session(session.messages, session.tools, encoding="approx", profile="openai")
    state = PipelineState.initial(encoding="approx", enabled=("tool_pruning",))
    fake, chart = Fake(), Chart()
    replay = Replay(fake.services(), chart=lambda: chart, inputs=lambda: Inputs(view, table, state),
                    cursor_moved=lambda: None)
    replay.restart_if_changed()
    key = replay.key
    replay.hold()
    worker = threading.Thread(target=replay.run, args=(key, Inputs(view, table, state)))
    worker.start()
    worker.join(0.3)
    assert worker.is_alive() and fake.posted == []  # held: nothing replayed yet
    replay.release()
    worker.join(5)
    assert not worker.is_alive() and [m.pending for m in fake.posted] == [0]
    assert [p.call for p in fake.posted[0].points] == [1, 2, 3]


def test_a_new_replay_waits_until_the_previous_one_has_returned():
    """A superseded replay still pricing the session keeps its thread; the next replay starts
    only once it returns (stale replays never pile up in the worker pool)."""
    session = tiny_session()
    view = build_view(session)
    table = count_session(session.messages, session.tools, encoding="approx", profile="openai")
    state = PipelineState.initial(encoding="approx", enabled=("tool_pruning",))
    fake, chart = Fake(), Chart()
    replay = Replay(fake.services(), chart=lambda: chart, inputs=lambda: Inputs(view, table, state),
                    cursor_moved=lambda: None)
    replay.restart_if_changed()
    replay._in_flight = 1  # the previous replay's thread is still in the session's pricing
    fake.timers[-1].callback()
    assert fake.groups == [] and len(fake.timers) == 2  # not started: it looks again later
    replay._in_flight = 0
    fake.timers[-1].callback()
    assert fake.groups == ["replay"] and replay._in_flight == 0
    assert [m.pending for m in fake.posted] == [0]  # the whole replay, posted once
