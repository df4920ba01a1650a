"""``run()`` as the command line calls it: bad themes and files exit 2 with one clear line, and
the themes ship with the package."""

from __future__ import annotations

import tomllib
from pathlib import Path

from inspector.tui.app import default_session_path, run
from inspector.tui.themes import builtin_themes, theme_dir

ROOT = Path(__file__).resolve().parents[2]


def test_unknown_theme_exits_2_with_the_choices(capsys):
    assert run(str(ROOT / "sample_sessions" / "coding_agent.jsonl"), theme="neon") == 2
    err = capsys.readouterr().err
    assert "unknown theme 'neon'" in err and "inspector-light" in err and "Traceback" not in err


def test_bad_theme_file_names_the_file_and_key(tmp_path, capsys):
    bad = tmp_path / "mine.toml"
    bad.write_text('name = "mine"\n[base]\nprimary = "#ffffff"\n')
    assert run(str(ROOT / "sample_sessions" / "coding_agent.jsonl"), theme=str(bad)) == 2
    assert f"{bad}: missing table [unit]" in capsys.readouterr().err


def test_unreadable_session_exits_2(tmp_path, capsys):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert run(str(empty)) == 2
    err = capsys.readouterr().err
    assert str(empty) in err and "Traceback" not in err


def test_default_session_is_a_bundled_sample():
    path = default_session_path()
    assert path is not None and path.name == "coding_agent.jsonl"


def test_themes_ship_in_the_package():
    """inspector/themes links to the top-level themes/, and the wheel's package data takes it."""
    assert theme_dir() == ROOT / "inspector" / "themes"
    assert (ROOT / "inspector" / "themes").resolve() == (ROOT / "themes").resolve()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    setuptools = config["tool"]["setuptools"]
    assert "themes/*.toml" in setuptools["package-data"]["inspector"]
    assert "tui/*.tcss" in setuptools["package-data"]["inspector"]
    assert "inspector.themes*" in setuptools["packages"]["find"]["exclude"]
    assert {t.path.name for t in builtin_themes()} >= {"dark.toml", "light.toml", "colorblind.toml"}
