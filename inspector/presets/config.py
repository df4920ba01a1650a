"""Take it home: a preset's settings written as the agent's own configuration.

A preset's ``config`` is a template (environment variables, a settings file, or the framework's
code) formatted with the settings, ``trigger_tokens`` (where the compaction fires, from
:func:`~inspector.strategies.compact.trigger_tokens`), ``trigger_pct`` (that as a percentage of
the window), ``protect_latest_turn_json`` (whether the masking protects the latest turn, as
JSON) and, for every setting, ``NAME_py``: its value as Python source.
"""

from __future__ import annotations

import json
from typing import Any

from ..strategies.compact import trigger_tokens
from . import Preset

_LC_TYPES = {"none": None, "human_or_tool": ("human", "tool")}


def _py(name: str, value: Any) -> str:
    if name in ("trim_start_on", "trim_end_on"):
        return repr(_LC_TYPES.get(value, value))
    return repr(value)


def as_config(preset: Preset, settings) -> str | None:
    """``preset``'s configuration for ``settings``; None when the agent has no configuration."""
    if not preset.config:
        return None
    values: dict[str, Any] = settings.model_dump()
    trigger = trigger_tokens(settings)
    values["trigger_tokens"] = trigger if trigger is not None else "unset"
    values["trigger_pct"] = round(100 * trigger / settings.context_window) if trigger else "unset"
    values.update({f"{k}_py": _py(k, v) for k, v in settings.model_dump().items()})
    # Gemini CLI's protectLatestTurn: the masking protects at least the latest turn
    values["protect_latest_turn_json"] = json.dumps(getattr(settings, "mask_protect_turns", 0) >= 1)
    return preset.config.format(**values)
