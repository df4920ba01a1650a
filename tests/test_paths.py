"""The inspector's own files: config, cache and data directories, each overridable by one
environment variable, none created until something is written."""

from __future__ import annotations

from pathlib import Path

import platformdirs
import pytest

from inspector import paths

KINDS = [("config", paths.config_dir), ("cache", paths.cache_dir), ("data", paths.data_dir)]


@pytest.mark.parametrize("kind, where", KINDS, ids=[k for k, _ in KINDS])
def test_each_directory_is_overridden_by_its_variable(kind, where, tmp_path, monkeypatch):
    monkeypatch.setenv(f"CONTEXT_INSPECTOR_{kind.upper()}_DIR", str(tmp_path / kind))
    assert where() == tmp_path / kind
    assert not (tmp_path / kind).exists()  # asking creates nothing
    assert paths.ensure(where()).is_dir()


def test_defaults_are_the_platforms_places(monkeypatch, tmp_path):
    for variable in paths.ENV.values():
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "k"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "d"))
    if platformdirs.user_config_dir("x", appauthor=False) != str(tmp_path / "c" / "x"):
        pytest.skip("not an XDG platform")
    assert paths.config_dir() == tmp_path / "c" / "context-inspector"
    assert paths.cache_dir() == tmp_path / "k" / "context-inspector"
    assert paths.data_dir() == tmp_path / "d" / "context-inspector"
    assert not any(Path(tmp_path).iterdir())
