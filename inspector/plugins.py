"""Third-party strategies and formats, through Python entry points (as harlequin loads adapters).

A package adds a strategy by declaring, in its ``pyproject.toml``::

    [project.entry-points."context_inspector.strategies"]
    keep_last = "my_package.keep_last"          # a module that calls strategies.register("keep_last", ...)

    [project.entry-points."context_inspector.formats"]
    my_agent = "my_package.my_agent_format"     # a module that calls formats.register(Format("my_agent", ...))

Each group is loaded once, when :mod:`inspector.strategies` or :mod:`inspector.formats` is first
imported, after the built-ins. Loading an entry point must register what it names. A plugin
that fails to import, raises while registering, registers nothing under its name, or takes a
name already registered is skipped with a :class:`PluginWarning` (never an exception); the
problems are also kept in :data:`PROBLEMS`.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from importlib.metadata import entry_points

STRATEGIES_GROUP = "context_inspector.strategies"
FORMATS_GROUP = "context_inspector.formats"

#: One line per plugin that could not be loaded, in load order.
PROBLEMS: list[str] = []
_loaded: set[str] = set()


class PluginWarning(UserWarning):
    """A plugin was skipped; the message names it and says why."""


def load_group(group: str, registry: Mapping[str, object]) -> list[str]:
    """Load every entry point of ``group`` (once per process); ``registry`` is where each must
    have registered itself under its entry point name. Returns the names loaded."""
    if group in _loaded:
        return []
    _loaded.add(group)
    loaded = []
    for ep in sorted(entry_points(group=group), key=lambda e: e.name):
        what = f"plugin {ep.name!r} ({ep.value}, entry point group {group})"
        if ep.name in registry:
            _problem(f"{what} skipped: {ep.name!r} is already registered.")
            continue
        try:
            ep.load()
        except Exception as exc:  # a broken plugin must not stop the inspector
            _problem(f"{what} failed to load: {type(exc).__name__}: {exc}")
            continue
        if ep.name not in registry:
            _problem(f"{what} loaded but registered nothing named {ep.name!r}.")
            continue
        loaded.append(ep.name)
    return loaded


def _problem(text: str) -> None:
    PROBLEMS.append(text)
    warnings.warn(text, PluginWarning, stacklevel=3)


def reset() -> None:
    """Forget which groups were loaded (for tests that install a plugin after start-up)."""
    _loaded.clear()
    PROBLEMS.clear()
