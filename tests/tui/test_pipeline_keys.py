"""Driving the pipeline by keys: every strategy toggled with 1-6, the budget stepped and typed,
parameters stepped on the panel, strategies reordered, presets. Each test checks what the user
sees (row statuses, totals, panel) against the library's own plan for the same settings."""

from __future__ import annotations

import inspector
from inspector.analysis.predict import not_in_file_at
from inspector.strategies import STRATEGIES, Settings

from tui_helpers import make_app, panel_text, panel_to_param, row_of, rows_text, settle, totals_text

SIZE = (160, 48)


def expected_plan(app, pipeline, **settings):
    data = app.state.settings.model_dump()
    data.update(settings)
    hidden = not_in_file_at(app.view, app.table, app.replay.at_call)
    return inspector.strategies.plan(app.view, app.table, pipeline, Settings(**data), app.replay.at_call, hidden)


async def test_totals_add_up_on_the_sample():
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        r = app.result
        plan = r.plan
        lib = inspector.plan(inspector.analyze(app.session), (), budget=app.state.settings.budget)
        assert (plan.tokens_before, plan.tokens_after) == (lib.tokens_before, lib.tokens_after)
        text = totals_text(app)
        assert f"before {plan.tokens_before:,} → after {plan.tokens_after:,}" in text
        # per-message "after" tokens + not in file + overhead are the after total; the gauge
        # legend sums to it. The sample records usage: 547 tokens the file does not show.
        per_message = sum(plan.tokens_after_of[i] for i in r.rows if isinstance(i, int))
        assert plan.not_in_file == 547
        assert per_message + plan.not_in_file + app.table.overhead == plan.tokens_after
        assert sum(r.by_category) == plan.tokens_after
        assert (f"before = messages {r.sent_messages_before:,} + not in file 547 + tool defs & framing "
                f"{app.table.overhead:,}") in text
        assert r.sent_messages_before + plan.not_in_file + app.table.overhead == plan.tokens_before
        assert "counted: cl100k_base/openai" in text
        # messages before the recorded compaction are shown as compacted, not sent
        first_kept = min(i for i in range(1, len(app.view)) if plan.status[i].value == "kept")
        assert "compacted" in row_of(app, 1)
        assert f"({app.table.totals[1]:,}) compacted" in row_of(app, 1)  # in neither total: no "→0"
        # the "before" side of the rows sent adds up to the before total
        sent_before = sum(app.table.totals[i] for i in r.rows if isinstance(i, int) and plan.by[i] != "source")
        assert sent_before == r.sent_messages_before
        assert "kept" in row_of(app, first_kept)


async def test_each_number_key_toggles_its_strategy():
    app = make_app("three_questions.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        order = list(app.state.order)
        assert order == ["fifo", "sliding_window", "summarize", "truncate_results", "tool_pruning", "clear_tool_uses"]
        for k, name in enumerate(order, start=1):
            await pilot.press(str(k))
            await settle(pilot, app)
            assert app.state.pipeline == (name,)
            lib = expected_plan(app, (name,))
            assert app.result.tokens_after == lib.tokens_after
            assert f"after {lib.tokens_after:,}" in totals_text(app)
            assert f"{k} [x] {name}" in panel_text(app)
            # every row shows the library's status for it
            for i in range(lib.stop):
                label = {"dropped": "DROPPED"}.get(lib.status[i].value, lib.status[i].value)
                if lib.by[i] == "source":
                    label = "compacted"
                assert label in row_of(app, i), (name, i, row_of(app, i))
            await pilot.press(str(k))
            await settle(pilot, app)
            assert app.state.pipeline == ()
            assert f"{k} [ ] {name}" in panel_text(app)
        assert app.result.tokens_after == app.result.tokens_before


async def test_tool_pruning_drops_earlier_turns_tool_history():
    app = make_app("three_questions.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("5")
        await settle(pilot, app)
        view = app.view
        current = view.turn_of[-1]
        rows = rows_text(app)
        dropped = [i for i in range(len(view)) if "DROPPED" in rows[app.result.row_of[i]]]
        assert dropped, "tool_pruning dropped nothing"
        for i in dropped:
            assert view.turn_of[i] < current
            assert view.units[view.unit_of[i]].kind.value == "tool_exchange"
        saving = app.result.tokens_before - app.result.tokens_after
        assert f"saving {saving:,}" in totals_text(app)


async def test_budget_steps_by_1k_and_10_percent_and_can_be_typed():
    app = make_app("coding_agent.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        start = app.state.settings.budget
        assert start == 200_000  # the window assumed when the file names no model
        await pilot.press("b")
        await pilot.press(*"2k", "enter")
        await settle(pilot, app)
        assert app.state.settings.budget == 2000
        await pilot.press("1")  # fifo, which reads the budget
        await settle(pilot, app)
        await pilot.press("plus")
        await settle(pilot, app)
        assert app.state.settings.budget == 3000
        assert "budget 3.0k" in totals_text(app)
        assert app.result.tokens_after == expected_plan(app, ("fifo",), budget=3000).tokens_after
        await pilot.press("greater_than_sign")
        await settle(pilot, app)
        assert app.state.settings.budget == 3300
        await pilot.press("less_than_sign", "minus", "minus")
        await settle(pilot, app)
        assert app.state.settings.budget == 3300 - 330 - 2000
        await pilot.press("b")
        await pilot.press(*"1.5k", "enter")
        await settle(pilot, app)
        assert app.state.settings.budget == 1500
        assert "budget 1,500" not in panel_text(app) and "1,500" in panel_text(app)
        lib = expected_plan(app, ("fifo",), budget=1500)
        assert app.result.tokens_after == lib.tokens_after
        assert lib.tokens_after <= 1500 or lib.tokens_after < lib.tokens_before


async def test_panel_steps_parameters_and_reorders_strategies():
    app = make_app("three_questions.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("tab")
        assert app.focused is app.panel
        await panel_to_param(pilot, app, "window_turns")  # "window (turns)" under sliding_window
        await pilot.press("left", "left")
        await settle(pilot, app)
        assert app.state.settings.window_turns == 8
        while app.panel.current.kind != "strategy":  # up to the sliding_window row
            await pilot.press("up")
        assert app.panel.current.name == "sliding_window"
        await pilot.press("space")
        await settle(pilot, app)
        assert app.state.pipeline == ("sliding_window",)
        await pilot.press("K")
        await settle(pilot, app)
        assert app.state.order[0] == "sliding_window"
        assert panel_text(app).splitlines()[5].startswith("1 [x] sliding_window")
        await pilot.press("5")  # sliding_window moved to the top; the 5th row is still tool_pruning
        await settle(pilot, app)
        assert app.state.pipeline == ("sliding_window", "tool_pruning")
        await pilot.press("J")
        await settle(pilot, app)
        assert app.state.order[:2] == ("fifo", "sliding_window")
        assert app.state.pipeline == ("sliding_window", "tool_pruning")  # still before tool_pruning
        await pilot.press("J", "J", "J")
        await settle(pilot, app)
        assert app.state.order.index("sliding_window") == app.state.order.index("tool_pruning") + 1
        assert app.state.pipeline == ("tool_pruning", "sliding_window")
        assert "#2" in panel_text(app).splitlines()[app.panel.cursor]
        lib = expected_plan(app, ("tool_pruning", "sliding_window"))
        assert app.result.tokens_after == lib.tokens_after


async def test_presets_cycle_and_counter_change_recounts():
    app = make_app("vendor_onboarding.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("p")
        await settle(pilot, app)
        assert app.state.pipeline == ()
        assert app.state.preset == "baseline: no pruning"
        await pilot.press("p")
        await settle(pilot, app)
        assert app.state.pipeline == ("tool_pruning",)
        await pilot.press("tab")
        # the token counter row is the second settings row
        app.panel.move_cursor(2)
        assert app.state.encoding == "o200k_base" and app.table.exact  # the file records gpt-4o: its own tokenizer
        await pilot.press("right")  # o200k_base -> approx, the next counter
        await settle(pilot, app)
        assert app.state.encoding == "approx"
        for _ in range(3):
            if app.state.encoding == "approx":
                break
            await pilot.press("right")
            await settle(pilot, app)
        assert not app.table.exact
        assert "≈" in totals_text(app) and "estimate" in totals_text(app)
        assert "≈tokens" in app.list.render_header(0, app.list.size.width).text


def test_every_registered_strategy_has_a_number_key():
    from inspector.tui.app import InspectorApp

    from inspector.strategies.pipeline import panel_strategies

    keys = {b.key: b.action for b in InspectorApp.BINDINGS}
    assert set(panel_strategies()) < set(STRATEGIES)  # the presets' own strategies are not in the panel
    for k in range(len(panel_strategies())):
        assert keys[str(k + 1)] == f"toggle({k})"


async def test_big_sessions_show_labelled_estimates_until_exact_counts_arrive(monkeypatch):
    import threading

    import inspector.tui.app as app_module

    release = threading.Event()
    real = app_module.count_session

    def slow_exact(messages, tools=(), **kw):
        if kw.get("encoding") != "approx":
            release.wait(10)
        return real(messages, tools, **kw)

    monkeypatch.setattr(app_module, "count_session", slow_exact)
    app = make_app("three_questions.json", sync_count=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.exact_pending and not app.table.exact
        text = totals_text(app)
        approx_before = app.result.tokens_before
        assert f"before ≈{approx_before:,}" in text and "approx (chars/4, estimate) · openai" in text
        assert "exact count" in text
        release.set()
        for _ in range(200):
            await pilot.pause(0.01)
            if not app.exact_pending:
                break
        await settle(pilot, app)
        exact = inspector.plan(inspector.analyze(app.session), (), budget=app.state.settings.budget)
        assert app.table.exact and app.result.tokens_before == exact.tokens_before != approx_before
        assert f"before {exact.tokens_before:,}" in totals_text(app) and "≈" not in totals_text(app)


async def test_fast_key_presses_end_on_the_last_state():
    """Plans for superseded key presses are dropped; what stays on screen is the last one."""
    app = make_app("three_questions.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("5", "5", "5", "4", "plus", "plus", "4")
        await settle(pilot, app)
        assert app.state.pipeline == ("tool_pruning",)
        assert app.result.snapshot.state == app.state
        lib = expected_plan(app, ("tool_pruning",))
        assert app.result.tokens_after == lib.tokens_after
        assert f"after {lib.tokens_after:,}" in totals_text(app)


async def test_clicking_a_strategy_box_toggles_it():
    app = make_app("three_questions.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        row = next(k for k, r in enumerate(app.panel.rows) if r.name == "tool_pruning" and r.kind == "strategy")
        await pilot.click("#panel", offset=(3, row))
        await settle(pilot, app)
        assert app.state.pipeline == ("tool_pruning",)
        assert "5 [x] tool_pruning" in panel_text(app)
        await pilot.click("#panel", offset=(20, row + 1))  # a parameter row: selected, not changed
        await settle(pilot, app)
        assert app.panel.current.kind in ("param", "strategy") and app.state.pipeline == ("tool_pruning",)


async def test_an_agent_preset_applies_its_pipeline_and_the_panel_shows_its_parameters():
    from inspector.tui.state import available_presets

    app = make_app("three_questions.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        names = [p.name for p in available_presets()]
        for _ in range(names.index("swe-agent") + 1):
            await pilot.press("p")
        await settle(pilot, app)
        assert app.state.preset == "swe-agent" and app.state.pipeline == ("last_n_observations",)
        lib = expected_plan(app, ("last_n_observations",))
        assert app.result.tokens_after == lib.tokens_after < lib.tokens_before
        assert "[x] last_n_observations" in panel_text(app)
