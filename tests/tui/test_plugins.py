"""Plugins through entry points: a ``.dist-info`` folder with ``entry_points.txt`` and its
modules, put on ``sys.path``, adds a strategy (seen in the CLI and the TUI) and a format (that
loads a file); a broken plugin is a warning, never a crash."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from inspector import plugins
from inspector.cli.main import main
from inspector.formats import FORMATS
from inspector.strategies import STRATEGIES, params

from tui_helpers import SAMPLES, make_app, panel_text, settle

SAMPLE = str(SAMPLES / "three_questions.json")

STRATEGY_MODULE = '''
from inspector.strategies import Param, register


@register("keep_first", (Param("keep_first_n", int, 1, "removable messages kept from the start", ge=0),),
          "Keeps the first N removable messages. A plugin for the tests.")
def keep_first(w):
    removable = [i for i in w.order if type(i) is int and not w.protected(i)]
    w.drop(removable[w.settings.keep_first_n:], "keep_first", "dropped by keep_first")
'''

FORMAT_MODULE = '''
from inspector.formats import Format, register
from inspector.model import Message, Session, TextBlock


def detect(probe):
    return 100 if probe.path.suffix == ".toy" else 0


def read(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    messages = [Message(index=i, role=("user", "assistant")[i % 2], content=[TextBlock(text=t)])
                for i, t in enumerate(lines)]
    return Session(path=str(path), format="toy", messages=messages)


register(Format(name="toy", description="one message per line, user and assistant in turn", detect=detect, read=read))
'''

ENTRY_POINTS = """
[context_inspector.strategies]
keep_first = toy_plugin_strategy
[context_inspector.formats]
toy = toy_plugin_format
broken = toy_plugin_broken
"""


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """Install the toy plugin (as pip would leave it) and load the plugin groups again."""
    site = tmp_path / "site"
    info = site / "toy_plugin-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-plugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(ENTRY_POINTS))
    (site / "toy_plugin_strategy.py").write_text(STRATEGY_MODULE)
    (site / "toy_plugin_format.py").write_text(FORMAT_MODULE)
    (site / "toy_plugin_broken.py").write_text("raise RuntimeError('this plugin is broken')\n")
    monkeypatch.syspath_prepend(str(site))
    saved = dict(STRATEGIES), dict(params.PARAMS), dict(FORMATS)
    plugins.reset()
    with pytest.warns(plugins.PluginWarning) as caught:
        plugins.load_group(plugins.STRATEGIES_GROUP, STRATEGIES)
        plugins.load_group(plugins.FORMATS_GROUP, FORMATS)
    yield caught
    for registry, before in zip((STRATEGIES, params.PARAMS, FORMATS), saved):
        registry.clear()
        registry.update(before)
    params.rebuild()
    plugins.reset()
    for module in ("toy_plugin_strategy", "toy_plugin_format", "toy_plugin_broken"):
        sys.modules.pop(module, None)


def test_a_broken_plugin_is_a_warning(plugin):
    assert [str(w.message) for w in plugin] == plugins.PROBLEMS == [
        "plugin 'broken' (toy_plugin_broken, entry point group context_inspector.formats) failed to load: "
        "RuntimeError: this plugin is broken"
    ]
    assert "broken" not in FORMATS and "toy" in FORMATS and "keep_first" in STRATEGIES


def test_the_plugin_strategy_works_in_the_cli(plugin, capsys):
    assert main(["plan", SAMPLE, "--strategy", "keep_first", "--keep-first-n", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["pipeline"] == [{"strategy": "keep_first", "params": {"keep_first_n": 2}}]
    # turn 3's prompt (17) and latest exchange (22) are protected; of the removable 1-16 and
    # 18-21, the first 2 stay
    assert [m["index"] for m in report["messages"] if m["status"] == "dropped"] == [*range(3, 17), *range(18, 22)]


def test_the_plugin_format_loads_a_file(plugin, tmp_path, capsys):
    session = tmp_path / "chat.toy"
    session.write_text("What is 2+2?\n4.\nAnd 3+3?\n6.\n")
    assert main(["info", str(session), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["session"]["format"] == "toy"
    assert report["session"]["messages"] == 4


async def test_the_plugin_strategy_is_in_the_tui(plugin):
    app = make_app("three_questions.json")
    async with app.run_test(size=(160, 48)) as pilot:
        await settle(pilot, app)
        lines = panel_text(app).splitlines()
        row = next(k for k, line in enumerate(lines) if "keep_first" in line)
        assert lines[row].startswith("7 [ ] keep_first")
        assert lines[row + 1].split() == ["keep", "first", "n", "1"]
        await pilot.press("7")
        await settle(pilot, app)
        assert app.state.pipeline == ("keep_first",)
        assert [i for i in range(len(app.view)) if app.result.plan.status[i].value == "dropped"] == [*range(2, 17), *range(18, 22)]
