"""A strategy with a parameter is one registration: registering a toy strategy with a toy param
makes it appear, with its param, in the command line (the option parses and reaches the plan),
``plan --json`` and the TUI panel, with nothing else edited."""

from __future__ import annotations

import json

import pytest

import inspector
from inspector.cli.main import main
from inspector.strategies import STRATEGIES, Param, Working, params, register

from tui_helpers import SAMPLES, make_app, panel_text, settle

SAMPLE = str(SAMPLES / "three_questions.json")


def keep_last(w: Working) -> None:
    """Drop every removable message but the last ``keep_last_n``."""
    removable = [i for i in w.order if type(i) is int and not w.protected(i)]
    w.drop(removable[: max(0, len(removable) - w.settings.keep_last_n)], "keep_last", "dropped by keep_last")


@pytest.fixture
def toy():
    saved_strategies, saved_params = dict(STRATEGIES), dict(params.PARAMS)
    register(
        "keep_last",
        (Param("keep_last_n", int, 2, "removable messages kept", label="keep last", unit="messages", ge=0),),
        "Keeps the last N removable messages. A toy for the tests.",
    )(keep_last)
    yield
    STRATEGIES.clear()
    STRATEGIES.update(saved_strategies)
    params.PARAMS.clear()
    params.PARAMS.update(saved_params)
    params.rebuild()


def expected(n: int):
    return inspector.plan(inspector.analyze(inspector.load(SAMPLE)), "keep_last", keep_last_n=n)


def test_the_toy_param_is_a_setting(toy):
    from inspector.strategies import Settings

    assert Settings().keep_last_n == 2
    assert Settings(keep_last_n=5).keep_last_n == 5
    p = expected(1)
    # all removable but 21: the system prompt, turn 3's prompt (17) and latest exchange (22) are protected
    assert [d.index for d in p.decisions() if d.status.value == "dropped"] == [*range(1, 17), 18, 19, 20]


def test_the_cli_option_reaches_the_plan(toy, capsys):
    with pytest.raises(SystemExit) as exit:
        main(["plan", "--help"])
    assert exit.value.code == 0
    out = capsys.readouterr().out
    assert "--keep-last-n N" in out and "keep_last: removable messages kept (default 2)" in out

    assert main(["plan", SAMPLE, "--strategy", "keep_last", "--keep-last-n", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pipeline"] == [{"strategy": "keep_last", "params": {"keep_last_n": 1}}]
    lib = expected(1)
    assert report["tokens_after"] == lib.tokens_after < report["tokens_before"] == lib.tokens_before
    assert [m["index"] for m in report["messages"] if m["status"] == "dropped"] == [*range(1, 17), 18, 19, 20]  # all removable but 21

    assert main(["plan", SAMPLE, "--strategy", "keep_last", "--keep-last-n", "-1"]) == 2
    assert "--keep-last-n -1: Input should be greater than or equal to 0" in capsys.readouterr().err


async def test_the_tui_panel_lists_and_edits_it(toy):
    app = make_app("three_questions.json")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        assert app.state.order[-1] == "keep_last"
        lines = panel_text(app).splitlines()
        strategy_row = next(k for k, line in enumerate(lines) if "keep_last" in line)
        assert lines[strategy_row].startswith("7 [ ] keep_last")
        assert lines[strategy_row + 1].split() == ["keep", "last", "2"]
        await pilot.press("7")
        await settle(pilot, app)
        assert app.state.pipeline == ("keep_last",)
        app.panel.move_cursor(strategy_row + 1)
        app.panel.action_step(-1)
        await settle(pilot, app)
        assert app.state.settings.keep_last_n == 1
        assert app.result.tokens_after == expected(1).tokens_after
