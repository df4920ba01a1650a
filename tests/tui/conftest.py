"""Fixtures of the TUI tests (helpers live in tui_helpers.py)."""

from __future__ import annotations

import pytest
from tui_helpers import tiny_session

from inspector.model import Session


@pytest.fixture
def tiny() -> Session:
    return tiny_session()


@pytest.fixture(autouse=True)
def no_user_config(tmp_path_factory, monkeypatch):
    """The user's own keymap never reaches a test: the config directory is an empty folder."""
    monkeypatch.setenv("CONTEXT_INSPECTOR_CONFIG_DIR", str(tmp_path_factory.mktemp("config")))
