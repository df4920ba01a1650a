"""A superseded replay's pricing stops at the next model call, and waits there while a plan the
user asked for is computed; the collector is held off from a key to its repaint."""

from __future__ import annotations

import gc
import threading

import pytest

from inspector.analysis.money import session_money
from inspector.analysis.replay import ReplayCancelled, replay
from inspector.strategies import Settings
from inspector.tokens import count_session
from inspector.tui.gchold import GcHold
from inspector.tui.replay import Inputs, Replay, session_money_or_none
from inspector.tui.state import PipelineState
from inspector.units import build_view
from tui_helpers import sample


def _setup():
    session = sample("coding_agent.jsonl")
    view = build_view(session)
    table = count_session(session.messages, session.tools, encoding="cl100k_base", profile="openai")
    return view, table


def test_pricing_stops_at_the_call_where_cancelled_says_so() -> None:
    view, table = _setup()
    asked: list[int] = []

    def after_three() -> bool:
        asked.append(1)
        return len(asked) > 3

    with pytest.raises(ReplayCancelled, match="replay cancelled at call 4"):
        session_money(view, table, ("tool_pruning",), Settings(budget=3000), cancelled=after_three)
    assert len(asked) == 4  # asked once per call planned, stopped at the fourth


def test_pricing_never_cancelled_is_the_same_money() -> None:
    view, table = _setup()
    settings = Settings(budget=3000)
    plain = session_money(view, table, ("fifo",), settings)
    checked = session_money(view, table, ("fifo",), settings, cancelled=lambda: False)
    assert [(c.call, c.cost, c.baseline_cost) for c in checked.calls] == [(c.call, c.cost, c.baseline_cost) for c in plain.calls]
    assert len(checked.calls) == len(view.calls)


def test_a_stateful_replay_stops_too() -> None:
    view, table = _setup()
    with pytest.raises(ReplayCancelled, match="replay cancelled at call 1$"):
        replay(view, table, ("compact",), cancelled=lambda: True)


class _Services:
    def notify(self, *a, **k): ...
    def set_timer(self, *a, **k): ...


def test_the_viewers_token_waits_while_a_plan_is_pending_and_stops_when_superseded() -> None:
    view, table = _setup()
    r = Replay(_Services(), chart=lambda: None, inputs=lambda: None, cursor_moved=lambda: None)  # type: ignore[arg-type]
    r.key = "k"
    stop = r._pausing("k", lambda: False)
    assert stop() is False
    r.hold()
    done = threading.Event()
    answers: list[bool] = []
    thread = threading.Thread(target=lambda: (answers.append(stop()), done.set()))
    thread.start()
    assert not done.wait(0.1)  # held: the pricing waits at its check
    r.key = "newer"  # superseded meanwhile
    r.release()
    assert done.wait(2.0) and answers == [True]
    inputs = Inputs(view, table, PipelineState.initial(encoding="cl100k_base", enabled=("tool_pruning",)))
    assert session_money_or_none(inputs, stop) is None  # a cancelled pricing is no money, not an error


class _Timer:
    def __init__(self) -> None:
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True


def test_the_collector_is_paused_from_a_key_to_its_repaint() -> None:
    timers: list[tuple[float, object, _Timer]] = []

    def set_timer(delay, callback):
        timers.append((delay, callback, _Timer()))
        return timers[-1][2]

    hold = GcHold(set_timer)
    assert gc.isenabled()
    try:
        hold.pause()
        hold.pause()  # a second key before the first plan's paint
        assert not gc.isenabled()
        assert [t[0] for t in timers] == [2.0, 2.0] and timers[0][2].stopped
        hold.resume()
        assert gc.isenabled() and timers[1][2].stopped
        hold.pause()
        timers[-1][1]()  # no plan came: the pause ends by itself
        assert gc.isenabled()
    finally:
        gc.enable()


async def test_closing_the_viewer_with_a_plan_coming_turns_the_collector_back_on() -> None:
    from tui_helpers import make_app

    app = make_app("coding_agent.jsonl")
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            app._gc_hold.pause()  # as request_plan does; the app closes before the paint
            assert not gc.isenabled()
        assert gc.isenabled()
    finally:
        gc.enable()
