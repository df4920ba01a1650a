"""Where the inspector keeps its own files (proxy captures...): one place to ask."""

from __future__ import annotations

import os
import pathlib

import platformdirs


def data_dir() -> pathlib.Path:
    """The user data directory: ``$CONTEXT_INSPECTOR_DATA_DIR`` when set, else the platform's
    (``~/.local/share/context-inspector`` on Linux). Not created here."""
    override = os.environ.get("CONTEXT_INSPECTOR_DATA_DIR")
    if override:
        return pathlib.Path(override).expanduser()
    return pathlib.Path(platformdirs.user_data_dir("context-inspector"))
