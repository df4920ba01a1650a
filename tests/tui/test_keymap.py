"""The user's keymap (keymap.toml in the config directory): remapping a binding by id, clear
notices for a file that cannot be used (naming the file and the line, never a crash), and the
README's table of binding ids kept in step with the bindings."""

from __future__ import annotations

from pathlib import Path

from inspector.paths import config_dir
from inspector.tui.app import InspectorApp, keymap_owners
from inspector.tui.keymap import binding_rows, keymap_path, load_keymap, parse_keymap, readme_table

from tui_helpers import make_app, settle

SIZE = (160, 48)
README = Path(__file__).resolve().parents[2] / "README.md"
DEFAULTS = {binding_id: keys for binding_id, keys, _ in binding_rows(keymap_owners())}
KNOWN = list(DEFAULTS)


def notices(app: InspectorApp) -> list[str]:
    return [n.message for n in app._notifications]


def test_config_dir_honours_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CONTEXT_INSPECTOR_CONFIG_DIR", str(tmp_path / "conf"))
    assert config_dir() == tmp_path / "conf"
    assert keymap_path() == tmp_path / "conf" / "keymap.toml"
    monkeypatch.delenv("CONTEXT_INSPECTOR_CONFIG_DIR")
    assert config_dir().name == "context-inspector"


def test_every_binding_of_the_app_and_the_list_has_a_unique_id():
    ids = [b.id for b in InspectorApp.BINDINGS]
    assert None not in ids and len(set(ids)) == len(ids)
    assert len(set(KNOWN)) == len(KNOWN)
    assert KNOWN[:3] == ["quit", "help", "toggle-strategy-1"]
    assert {"open-message", "cursor-down", "last-row", "toggle-follow", "search-next"} <= set(KNOWN)


def test_parse_keeps_good_lines_and_names_the_line_of_each_bad_one():
    text = 'search = "ctrl+f"\ntoggle-strategy-1 = "z, ctrl+1"\nserch = "s"\n"export" = 5\nrules = ""\n'
    keymap = parse_keymap(text, DEFAULTS, "/c/keymap.toml")
    assert keymap.keys == {"search": "ctrl+f", "toggle-strategy-1": "z,ctrl+1"}
    assert keymap.problems == [
        "/c/keymap.toml line 3: unknown binding id 'serch' (did you mean 'search'?); ignored. "
        "The ids are listed in the README (Keys and the keymap).",
        '/c/keymap.toml line 4: export must be a string of keys such as "ctrl+t" or "t,ctrl+t" (got 5); ignored.',
        '/c/keymap.toml line 5: rules must be a string of keys such as "ctrl+t" or "t,ctrl+t" (got \'\'); ignored.',
    ]


def test_invalid_toml_is_ignored_with_its_line():
    keymap = parse_keymap('search = "ctrl+f"\nexport = \n', DEFAULTS, "/c/keymap.toml")
    assert keymap.keys == {}
    assert keymap.problems == ["/c/keymap.toml line 2: not valid TOML (Invalid value); the keymap is ignored "
                               "and the default keys are used."]


def test_a_missing_file_is_no_keymap_and_an_unreadable_one_is_a_notice(tmp_path):
    assert load_keymap(tmp_path / "keymap.toml", DEFAULTS).keys == {}
    assert load_keymap(tmp_path / "keymap.toml", DEFAULTS).problems == []
    (tmp_path / "keymap.toml").mkdir()
    problems = load_keymap(tmp_path / "keymap.toml", DEFAULTS).problems
    assert problems == [f"{tmp_path / 'keymap.toml'}: cannot read it (it is a directory, not a regular file, so it is not read.); the default keys are used."]


async def test_keymap_in_the_config_dir_moves_strategy_1_to_a_new_key(monkeypatch, tmp_path):
    monkeypatch.setenv("CONTEXT_INSPECTOR_CONFIG_DIR", str(tmp_path))
    (tmp_path / "keymap.toml").write_text('# my keys\ntoggle-strategy-1 = "ctrl+t"\n')
    app = make_app("three_questions.json")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot, app)
        first = app.state.order[0]
        assert first not in app.state.enabled
        await pilot.press("1")  # the default key no longer toggles it
        await settle(pilot, app)
        assert first not in app.state.enabled
        await pilot.press("ctrl+t")
        await settle(pilot, app)
        assert first in app.state.enabled
        await pilot.press("2")  # the other strategies keep their keys
        await settle(pilot, app)
        assert app.state.order[1] in app.state.enabled
        assert notices(app) == []
        await pilot.press("question_mark")  # help says where the keymap is and what it changed
        text = " ".join(app.screen.plain().split())
        assert f"These are your keys; {tmp_path / 'keymap.toml'} changes them by binding id" in text
        assert "Your keymap: toggle-strategy-1 = ctrl+t" in text
        assert "ctrl+t turn strategy 1 of the panel on or off" in text  # the key it has, not the default
        assert "1 turn strategy 1 of the panel" not in text


async def test_help_lists_every_key_the_viewer_has():
    """The help listed 14 hand-written keys: w, x, X, o, L, c, C, F2-F4, m, S, H, T, P, $, # and
    the list's keys were missing. It lists every binding now, with its description."""
    app = make_app("three_questions.json")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("question_mark")
        text = " ".join(app.screen.plain().split())
        assert "These are the default keys;" in text
        for shown, description in (("w", "the model's whole window at a glance, before and after"),
                                   ("f2", "hide or show the settings panel"), ("m", "every strategy and preset side by side"),
                                   ("#", "the replay as a table"), ("$", "replay chart: input tokens or dollars"),
                                   ("H", "write the HTML report of this view"), ("+ =", "budget +1,000 tokens"),
                                   ("↑ k", "list: previous row"), ("?", "help: units, statuses, strategies, keys"),
                                   ("K / J on the panel", "move the selected strategy up / down the pipeline")):
            assert f"{shown} {description}" in text
        for _, _, description in binding_rows(keymap_owners()):
            assert " ".join(description.split()) in text


async def test_keymap_remaps_a_list_key(tmp_path):
    keymap = tmp_path / "keys.toml"
    keymap.write_text('cursor-down = "x"\n')
    app = make_app("three_questions.json", keymap=keymap)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        app.list.move_cursor(0)
        await pilot.press("x", "x")
        assert app.list.cursor == 2


async def test_a_bad_keymap_shows_a_notice_naming_file_and_line_and_keeps_the_default_keys(tmp_path):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('search = "ctrl+f"\nnot toml at all\n')
    app = make_app("three_questions.json", keymap=keymap)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot, app)
        assert app.is_running
        assert notices(app) == [f"{keymap} line 2: not valid TOML (Expected '=' after a key in a key/value pair); "
                                f"the keymap is ignored and the default keys are used."]
        await pilot.press("1")
        await settle(pilot, app)
        assert app.state.order[0] in app.state.enabled


async def test_unknown_ids_are_reported_and_the_rest_applies(tmp_path):
    keymap = tmp_path / "keymap.toml"
    keymap.write_text('toggle_strategy_1 = "x"\ntoggle-strategy-2 = "y"\n')
    app = make_app("three_questions.json", keymap=keymap)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot, app)
        assert notices(app) == [f"{keymap} line 1: unknown binding id 'toggle_strategy_1' (did you mean "
                                f"'toggle-strategy-1'?); ignored. The ids are listed in the README (Keys and the keymap)."]
        await pilot.press("y")
        await settle(pilot, app)
        assert app.state.order[1] in app.state.enabled


def test_a_key_that_another_binding_keeps_is_reported():
    keymap = parse_keymap('search = "n"\ntype-budget = "z"\nrules = "z,?"\n', DEFAULTS, "/c/keymap.toml")
    assert keymap.keys == {"search": "n", "type-budget": "z", "rules": "z,?"}
    assert keymap.problems == [
        "/c/keymap.toml line 1: n is also the key of search-next; give one of them another key.",
        "/c/keymap.toml line 2: z is also the key of rules; give one of them another key.",
        "/c/keymap.toml line 3: z is also the key of type-budget; give one of them another key.",
        "/c/keymap.toml line 3: question_mark is also the key of help; give one of them another key.",
    ]
    # moving the other binding away too is no clash
    assert parse_keymap('search = "n"\nsearch-next = "ctrl+n"\n', DEFAULTS, "k").problems == []


def test_readme_lists_every_binding_id():
    """The README's table is generated from the bindings: regenerate it from this test's
    expected text when a binding changes."""
    table = readme_table(binding_rows(keymap_owners()))
    text = README.read_text(encoding="utf-8")
    begin, end = "<!-- binding ids: begin -->\n", "\n<!-- binding ids: end -->"
    assert begin in text and end in text
    shown = text[text.index(begin) + len(begin):text.index(end)]
    assert shown == table, "README's binding ids are out of date; replace them with:\n" + table
