"""Presets: what a real agent or framework does to its context, as data.

A preset names an agent or framework, the version it matches, where its figures come from (a
source file, the docs, or a public report, and how sure that is), the pipeline of our
strategies that reproduces it and the parameter values that make it do so. The built-in ones
are in ``builtin.toml`` beside this module; users add their own as TOML files in
``inspector.paths.config_dir()/presets/`` (same fields; :func:`save_user_preset` writes one).
:func:`resolve` turns a preset plus ``--set PARAM=VALUE`` overrides into the pipeline and
``Settings`` every command already takes.

Where an agent changed its figures between versions, a preset lists the parameters of its older
versions (``[[preset.by_version]]``: ``agent``, the last version ``through`` which they held, and
``params``); :meth:`Preset.for_agent` gives the parameters for the agent and version a session
records, so ``claude-code`` on a Claude Code 2.1.7 transcript reserves what 2.1.7 reserved.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..paths import config_dir, ensure
from ..strategies import params as _params
from ..strategies import parse_pipeline
from ..safeio import read_settings_text

BUILTIN = Path(__file__).with_name("builtin.toml")
SURE = ("source", "docs", "second-hand", "approximation")


class PresetError(ValueError):
    """An unknown preset, a bad preset file, or a bad ``--set`` value (one paragraph)."""


def version_key(version: str) -> tuple[int, ...] | None:
    """``"2.1.20"`` -> ``(2, 1, 20)``: the leading dotted numbers of a version (a suffix such as
    ``-beta`` is ignored); None when it starts with none."""
    found = re.match(r"\d+(?:\.\d+)*", version.strip())
    return tuple(int(part) for part in found.group().split(".")) if found else None


@dataclass(frozen=True)
class VersionRule:
    """Parameters an agent's versions up to ``through`` (inclusive) used instead of the preset's."""

    agent: str  # the reader's agent id (``Session.agent``): ``claude_code``, ``codex``...
    through: tuple[int, ...]
    params: Mapping[str, Any]

    def applies(self, agent: str | None, version: str | None) -> bool:
        key = version_key(version) if version else None
        return agent == self.agent and key is not None and key <= self.through


@dataclass(frozen=True)
class Preset:
    name: str
    agent: str
    version: str
    #: Where the figures come from: a source file, a doc page, or a public report.
    source: str
    #: How sure: ``source`` (read in its code), ``docs``, ``second-hand`` or ``approximation``.
    sure: str
    #: What it does, in a sentence or two (and what the pipeline does not reproduce).
    does: str
    pipeline: tuple[str, ...]
    params: Mapping[str, Any] = field(default_factory=dict)
    #: The agent's own configuration for these settings (``presets show --as-config``): a
    #: template formatted with the settings and ``trigger_tokens``; empty when it has none.
    config: str = ""
    #: Where it was read from: ``builtin`` or the user's file.
    origin: str = "builtin"
    #: Older versions' parameters, oldest cut-off first (see the module docstring).
    by_version: tuple[VersionRule, ...] = ()

    def for_agent(self, agent: str | None, version: str | None) -> dict[str, Any]:
        """The parameters for a session ``agent`` ``version`` recorded: the first rule whose
        cut-off the version is at or before, else the preset's own."""
        for rule in sorted(self.by_version, key=lambda r: r.through):
            if rule.applies(agent, version):
                return {**self.params, **rule.params}
        return dict(self.params)

    def report(self) -> dict[str, Any]:
        """The ``presets --json`` entry."""
        return {
            "name": self.name,
            "agent": self.agent,
            "version": self.version,
            "source": {"where": self.source, "sure": self.sure},
            "does": self.does,
            "params": {k: list(v) if isinstance(v, tuple) else v for k, v in self.params.items()},
            "pipeline": list(self.pipeline),
            "origin": self.origin,
            "by_version": [
                {"agent": r.agent, "through": ".".join(map(str, r.through)), "params": dict(r.params)} for r in self.by_version
            ],
        }


def _from_table(table: Mapping[str, Any], origin: str) -> Preset:
    where = f"{origin} preset {table.get('name', '?')!r}"
    try:
        sure = str(table["sure"])
        if sure not in SURE:
            raise PresetError(f"{where}: sure must be one of {', '.join(SURE)}, not {sure!r}.")
        pipeline = parse_pipeline(list(table.get("pipeline", ())))
        params = dict(table.get("params", {}))
        preset = Preset(
            name=str(table["name"]), agent=str(table["agent"]), version=str(table["version"]),
            source=str(table["source"]), sure=sure, does=str(table["does"]).strip(), pipeline=pipeline,
            params={k: tuple(v) if isinstance(v, list) else v for k, v in params.items()},
            config=str(table.get("config", "")), origin=origin,
            by_version=tuple(_version_rule(rule, where) for rule in table.get("by_version", ())),
        )
    except KeyError as exc:
        raise PresetError(f"{where}: missing field {exc.args[0]!r}.") from None
    except ValueError as exc:
        if isinstance(exc, PresetError):
            raise
        raise PresetError(f"{where}: {exc}.") from None
    settings_for(preset, {})  # reject unknown or invalid parameters now
    for rule in preset.by_version:
        settings_for(preset, rule.params)
    return preset


def _version_rule(table: Mapping[str, Any], where: str) -> VersionRule:
    through = version_key(str(table.get("through", ""))) if isinstance(table, Mapping) else None
    if through is None or not isinstance(table.get("params"), Mapping):
        raise PresetError(f"{where}: each by_version needs agent, through (a version such as 2.1.20) and params.")
    params = {k: tuple(v) if isinstance(v, list) else v for k, v in table["params"].items()}
    return VersionRule(agent=str(table.get("agent", "")), through=through, params=params)


def _read(path: Path, origin: str) -> list[Preset]:
    try:
        data = tomllib.loads(read_settings_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise PresetError(f"{path}: not valid TOML ({exc}).") from None
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise PresetError(f"{path}: cannot read it ({reason}).") from None
    return [_from_table(t, origin) for t in data.get("preset", ())]


def user_dir() -> Path:
    return config_dir() / "presets"


def load_presets() -> dict[str, Preset]:
    """Every preset by name: the built-in ones, then the user's (a user file may replace one)."""
    out = {p.name: p for p in _read(BUILTIN, "builtin")}
    directory = user_dir()
    if directory.is_dir():
        for path in sorted(directory.glob("*.toml")):
            for p in _read(path, str(path)):
                out[p.name] = p
    return out


def builtin_preset(name: str) -> Preset:
    """The built-in preset ``name`` as shipped (a user file of that name does not replace it)."""
    tables = [t for t in tomllib.loads(read_settings_text(BUILTIN)).get("preset", ()) if t.get("name") == name]
    if not tables:
        raise PresetError(f"no built-in preset {name!r}.")
    return _from_table(tables[0], "builtin")


def get_preset(name: str) -> Preset:
    presets = load_presets()
    if name not in presets:
        raise PresetError(f"unknown preset {name!r}; choose from: {', '.join(presets)}.")
    return presets[name]


def parse_value(name: str, text: str) -> Any:
    """``--set NAME=TEXT``: TEXT read as parameter ``name``'s type."""
    p = _params.PARAMS.get(name)
    if p is None:
        raise PresetError(f"--set {name}={text}: no parameter {name!r}; parameters: {', '.join(_params.PARAMS)}.")
    t = text.strip()
    try:
        if p.kind == "bool":
            if t.lower() not in ("true", "false", "on", "off", "1", "0", "yes", "no"):
                raise ValueError("expected true or false")
            return t.lower() in ("true", "on", "1", "yes")
        if p.kind == "names":
            return tuple(s.strip() for s in t.split(",") if s.strip())
        if p.kind == "optional_int" and t.lower() in ("none", "off", ""):
            return None
        if p.kind in ("int", "optional_int"):
            return int(t.replace("_", "").replace(",", ""))
        if p.kind == "float":
            return float(t)
        return t
    except ValueError as exc:
        raise PresetError(f"--set {name}={text}: {exc}.") from None


def parse_sets(items: Iterable[str]) -> dict[str, Any]:
    """``["budget=8000", ...]`` -> ``{"budget": 8000}``."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep:
            raise PresetError(f"--set {item}: expected PARAM=VALUE.")
        out[name.strip()] = parse_value(name.strip(), value)
    return out


def settings_for(preset: Preset, overrides: Mapping[str, Any]):
    """The ``Settings`` of ``preset`` with ``overrides`` applied."""
    from pydantic import ValidationError

    values = {**preset.params, **overrides}
    try:
        return _params.settings_model()(**values)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise PresetError(f"preset {preset.name!r}: {problems}.") from None


def resolve(name: str, overrides: Mapping[str, Any] | None = None) -> tuple[Preset, tuple[str, ...], Any]:
    """``(preset, pipeline, settings)`` for preset ``name`` with ``overrides``."""
    preset = get_preset(name)
    return preset, preset.pipeline, settings_for(preset, overrides or {})


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (tuple, list)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return json.dumps(str(v), ensure_ascii=False)  # a JSON string is a valid TOML basic string


def preset_toml(preset: Preset) -> str:
    """``preset`` as a TOML file :func:`load_presets` reads back."""
    lines = ["[[preset]]"]
    for key in ("name", "agent", "version", "source", "sure", "does"):
        lines.append(f"{key} = {_toml_value(getattr(preset, key))}")
    lines.append(f"pipeline = {_toml_value(list(preset.pipeline))}")
    if preset.config:
        lines.append(f"config = {_toml_value(preset.config)}")
    lines.append("[preset.params]")
    lines.extend(f"{k} = {_toml_value(v)}" for k, v in preset.params.items() if v is not None)
    return "\n".join(lines) + "\n"


#: A user preset's name: also its file name, so letters, digits, ``.``, ``_`` and ``-`` only.
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def check_name(name: str) -> str:
    """``name`` if a user preset may take it, else PresetError saying why."""
    if not NAME_PATTERN.fullmatch(name):
        raise PresetError(
            f"preset name {name!r}: use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit."
        )
    if name in {p.name for p in _read(BUILTIN, "builtin")}:
        raise PresetError(f"preset name {name!r} is a built-in preset; choose another name.")
    return name


def _describe(pipeline: Sequence[str], params: Mapping[str, Any]) -> str:
    steps = " then ".join(pipeline) or "no strategy"
    values = ", ".join(f"{k}={_toml_value(v)}" for k, v in params.items())
    return f"{steps}" + (f", with {values}." if values else ".")


def save_user_preset(
    name: str, pipeline: Sequence[str], settings, based_on: Preset | None = None, *, overwrite: bool = False
) -> Path:
    """Write a user preset (the settings of ``settings`` the pipeline reads, where not the
    defaults) to the config directory,
    atomically; PresetError for a bad name, a built-in's name, or (unless ``overwrite``) a user
    preset that exists."""
    from ..safeio import write_atomic

    from ..strategies import STRATEGIES

    check_name(name)
    names = parse_pipeline(list(pipeline))
    read = {p for n in names for p in STRATEGIES[n].params}  # the other settings do nothing here
    defaults = _params.settings_model()()
    params = {k: v for k, v in settings.model_dump().items() if k in read and v != getattr(defaults, k)}
    preset = Preset(
        name=name,
        agent=based_on.agent if based_on else "custom",
        version=based_on.version if based_on else "",
        source=f"user preset (based on {based_on.name})" if based_on else "user preset",
        sure="approximation",
        does=(f"{based_on.name} with changes: " if based_on else "Saved pipeline: ") + _describe(names, params),
        pipeline=names,
        params=params,
        config=based_on.config if based_on else "",
    )
    path = user_dir() / f"{name}.toml"
    if path.exists() and not overwrite:
        raise PresetError(f"preset {name!r} already exists ({path}); choose another name.")
    return write_atomic(ensure(user_dir()) / f"{name}.toml", preset_toml(preset).encode("utf-8"))


__all__ = [
    "NAME_PATTERN", "Preset", "PresetError", "VersionRule", "builtin_preset", "check_name", "get_preset", "load_presets", "parse_sets", "parse_value", "preset_toml", "resolve",
    "save_user_preset", "settings_for", "version_key",
]
