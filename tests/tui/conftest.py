"""Fixtures of the TUI tests (helpers live in tui_helpers.py)."""

from __future__ import annotations

import pytest
from tui_helpers import tiny_session

from inspector.model import Session


@pytest.fixture
def tiny() -> Session:
    return tiny_session()
