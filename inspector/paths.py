"""Where the inspector keeps its own files: one layout, the platform's usual places.

- **config** (keymap, presets, price overrides): ``CONTEXT_INSPECTOR_CONFIG_DIR``, else the
  platform's user config directory (``~/.config/context-inspector`` on Linux);
- **cache** (token counts): ``CONTEXT_INSPECTOR_CACHE_DIR``, else the user cache directory
  (``~/.cache/context-inspector``);
- **data** (fleet datasets, proxy captures): ``CONTEXT_INSPECTOR_DATA_DIR``, else the user data
  directory (``~/.local/share/context-inspector``).

Asking for a directory creates nothing: a writer calls :func:`ensure` on the directory it writes
into, so a run that writes nothing leaves no trace. Never a place next to a session file.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "context-inspector"

ENV = {
    "config": "CONTEXT_INSPECTOR_CONFIG_DIR",
    "cache": "CONTEXT_INSPECTOR_CACHE_DIR",
    "data": "CONTEXT_INSPECTOR_DATA_DIR",
}


def _dir(kind: str, default) -> Path:
    override = os.environ.get(ENV[kind])
    if override:
        return Path(override).expanduser()
    return Path(default(APP, appauthor=False, ensure_exists=False))


def config_dir() -> Path:
    return _dir("config", platformdirs.user_config_dir)


def cache_dir() -> Path:
    return _dir("cache", platformdirs.user_cache_dir)


def data_dir() -> Path:
    return _dir("data", platformdirs.user_data_dir)


def ensure(directory: Path) -> Path:
    """Create ``directory`` (and its parents) for writing; returns it."""
    directory.mkdir(parents=True, exist_ok=True)
    return directory
