"""A big session is painted as parsed first (one row per message, chars/4 estimates), and its
structure, counts and plan follow from a worker: keys that change the pipeline work meanwhile
and the first plan uses them; keys that need the plan wait; the row the user moved to stays
selected. The threshold is lowered so the bundled sample counts as big."""

from __future__ import annotations

import threading

import inspector
import inspector.tui.app as app_module
from inspector.tokens import count_message, count_session, get_counter, get_profile
from tui_helpers import make_app, panel_to_param, row_text, settle, status_text, totals_text, wait_for

SIZE = (160, 48)


def _held_back(monkeypatch):
    """Big from 1 message on, and the preparing worker waits for the returned event."""
    release = threading.Event()
    real = app_module.build_view

    def slow_view(session):
        release.wait(10)
        return real(session)

    monkeypatch.setattr(app_module, "DEFER_MESSAGES", 1)
    monkeypatch.setattr(app_module, "build_view", slow_view)
    return release


async def test_rows_are_the_parsed_messages_until_the_plan(monkeypatch):
    release = _held_back(monkeypatch)
    app = make_app("coding_agent.jsonl", sync_count=False)
    messages = app.session.messages
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        assert app.view is None and app.result is None
        assert app.list.row_count() == len(messages)
        estimate = count_message(messages[3], get_counter("approx"), get_profile(app.state.profile)).total
        row = row_text(app, 3)
        assert row.split()[:3] == ["3", "…", {"tool": "tool", "assistant": "asst", "user": "user"}[messages[3].role]]
        assert row.rstrip().endswith(f" {estimate:,} …")
        assert "finding turns and model calls…" in status_text(app)
        assert "counting tokens…" in totals_text(app)
        assert "finding model calls…" in app.chart.render_line(app.chart.size.height - 1).text
        release.set()
        await settle(pilot, app)
        assert app.view is not None and app.list.draft is None
        # the estimate the draft showed is the estimated table's own figure
        approx = count_session(messages, app.session.tools, encoding="approx", profile=app.state.profile)
        assert approx.totals[3] == estimate
        assert "finding turns" not in status_text(app) and not row_text(app, 3).rstrip().endswith("…")


async def test_pipeline_keys_during_preparation_shape_the_first_plan(monkeypatch):
    release = _held_back(monkeypatch)
    app = make_app("coding_agent.jsonl", sync_count=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        first = app.state.order[0]
        await pilot.press("1", "w", "x", "down", "down", "down")
        assert app.state.pipeline == (first,)
        assert len(app.screen_stack) == 1 and app.list.filter_name == "all"  # w and x wait for the plan
        assert app.list.cursor == 3
        release.set()
        await settle(pilot, app)
        assert app.result.snapshot.state.pipeline == (first,)
        assert app.list.selected == 3  # the message the user moved to
        assert await wait_for(pilot, lambda: not app.exact_pending, 20)
        await settle(pilot, app)
        exact = inspector.plan(inspector.analyze(app.session, encoding=app.state.encoding, profile=app.state.profile),
                               (first,), settings=app.state.settings)
        assert app.table.encoding == app.state.encoding
        assert (app.result.tokens_before, app.result.tokens_after) == (exact.tokens_before, exact.tokens_after)
        await pilot.press("w")
        assert len(app.screen_stack) == 2


async def test_a_small_session_is_planned_before_its_first_paint_as_before(monkeypatch):
    app = make_app("coding_agent.jsonl")
    assert not app.deferred and app.view is not None


async def test_budget_keys_during_preparation_step_from_the_default_budget(monkeypatch):
    """+ pressed while a big session is prepared once stepped an unset budget from 0 (to 0,
    then 1,000), and the default budget was then never seeded."""
    release = _held_back(monkeypatch)
    app = make_app("coding_agent.jsonl", sync_count=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        default = inspector.default_budget(app.session)
        assert app.table is None and app.state.settings.budget == default  # seeded at once
        await pilot.press("+", "+", "-")
        release.set()
        await settle(pilot, app)
        assert app.state.settings.budget == default + 1000
        assert app.result.snapshot.state.settings.budget == default + 1000


async def test_the_settings_panel_steps_the_budget_from_the_default_during_preparation(monkeypatch):
    """→ on the panel's budget row while a big session is prepared stepped an unset budget to 0."""
    release = _held_back(monkeypatch)
    app = make_app("coding_agent.jsonl", sync_count=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.1)
        default = inspector.default_budget(app.session)
        app.panel.focus()
        await panel_to_param(pilot, app, "budget")
        await pilot.press("right")
        release.set()
        await settle(pilot, app)
        assert app.table is not None and app.state.settings.budget == default + 1000


async def test_a_big_sessions_flags_are_read_after_the_first_plan(monkeypatch):
    """The truncation markers are scanned lazily; a big session's are all scanned in the
    background once the first plan is on screen (not by the first tool_pruning key)."""
    monkeypatch.setattr(app_module, "DEFER_MESSAGES", 1)
    monkeypatch.setattr(app_module, "WARM_SLICE", 7)  # several slices on the sample
    app = make_app("coding_agent.jsonl", sync_count=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        flags = app.view.flags
        for _ in range(200):
            if not flags._unscanned:
                break
            await pilot.pause(0.02)
        assert not flags._unscanned and len(flags) == len(app.session.messages) > 7
