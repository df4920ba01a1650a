"""Where the inspector keeps its own files: one place to ask."""

from __future__ import annotations

import os
import pathlib

import platformdirs


def config_dir() -> pathlib.Path:
    """The user config directory (the TUI's ``keymap.toml``...): ``$CONTEXT_INSPECTOR_CONFIG_DIR``
    when set, else the platform's (``~/.config/context-inspector`` on Linux). Not created here."""
    override = os.environ.get("CONTEXT_INSPECTOR_CONFIG_DIR")
    if override:
        return pathlib.Path(override).expanduser()
    return pathlib.Path(platformdirs.user_config_dir("context-inspector"))
