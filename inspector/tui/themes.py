"""Colour themes as files: load the TOML themes shipped in ``themes/`` (or a user's own file)
into Textual :class:`~textual.theme.Theme` objects.

A theme file has ``name``, ``label``, ``dark``, and the tables ``[base]`` (Textual's base colours),
``[unit]`` (one colour per unit kind), ``[status]`` (one per plan status), ``[chart]``, ``[gauge]``
and ``[row]``. Every colour the TUI draws reads one of these as a CSS variable, e.g.
``$unit-tool-exchange`` or ``$status-dropped``; the default dark file also supplies the fallback
for Textual's built-in themes, which lack our variables.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme
from ..safeio import read_settings_text

BASE_KEYS = (
    "primary", "secondary", "accent", "foreground", "background", "surface", "panel",
    "warning", "error", "success",
)
#: Table -> keys every theme file defines. The CSS variable is ``{table}-{key}`` with ``_`` -> ``-``.
VARIABLE_KEYS: dict[str, tuple[str, ...]] = {
    "unit": ("system", "user", "assistant", "tool_exchange", "summary", "truncated"),
    "status": ("kept", "dropped", "truncated", "summarized", "cleared", "inserted", "violation"),
    "chart": ("baseline", "pipeline", "cursor"),
    "gauge": ("overhead", "free"),
    "row": ("band", "cursor", "match"),
}
DEFAULT_THEME = "inspector-dark"
#: Short names accepted by ``--theme``.
ALIASES = {"dark": "inspector-dark", "light": "inspector-light", "colorblind": "inspector-colorblind",
           "colourblind": "inspector-colorblind", "cb": "inspector-colorblind"}


class ThemeError(ValueError):
    """A theme file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class ThemeFile:
    name: str
    label: str
    path: Path
    theme: Theme


def variable_name(table: str, key: str) -> str:
    return f"{table}-{key.replace('_', '-')}"


def theme_dir() -> Path:
    """The folder of shipped themes: ``inspector/themes`` (in a checkout a link to the
    repository's top-level ``themes/``; in an installed wheel the files themselves)."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "themes", package.parent / "themes"):
        if candidate.is_dir():
            return candidate
    raise ThemeError(f"the bundled themes are missing (looked in {package / 'themes'})")


def _colour(path: Path, where: str, value: object) -> str:
    if not isinstance(value, str):
        raise ThemeError(f"{path}: {where} must be a colour string such as \"#ff8800\", not {value!r}.")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeError(f"{path}: {where} = {value!r} is not a colour (use \"#rrggbb\").") from None
    return value


def load_theme_file(path: str | Path) -> ThemeFile:
    """Read one theme file; :class:`ThemeError` names the file and the missing or bad key."""
    p = Path(path)
    try:
        data = tomllib.loads(read_settings_text(p))
    except FileNotFoundError:
        raise ThemeError(f"{p}: no such theme file.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ThemeError(f"{p}: cannot read it ({exc}).") from None
    except tomllib.TOMLDecodeError as exc:
        raise ThemeError(f"{p}: not valid TOML ({exc}).") from None
    name = data.get("name") or p.stem
    if not isinstance(name, str):
        raise ThemeError(f"{p}: name must be a string.")
    base = data.get("base", {})
    if not isinstance(base, dict) or "primary" not in base:
        raise ThemeError(f"{p}: [base] must define at least primary (keys: {', '.join(BASE_KEYS)}).")
    unknown = set(base) - set(BASE_KEYS)
    if unknown:
        raise ThemeError(f"{p}: unknown key(s) in [base]: {', '.join(sorted(unknown))}; known: {', '.join(BASE_KEYS)}.")
    colours = {k: _colour(p, f"base.{k}", v) for k, v in base.items()}
    variables: dict[str, str] = {}
    for table, keys in VARIABLE_KEYS.items():
        section = data.get(table)
        if not isinstance(section, dict):
            raise ThemeError(f"{p}: missing table [{table}] (keys: {', '.join(keys)}).")
        for key in keys:
            if key not in section:
                raise ThemeError(f"{p}: missing {table}.{key} (every theme defines {', '.join(keys)} in [{table}]).")
            variables[variable_name(table, key)] = _colour(p, f"{table}.{key}", section[key])
    theme = Theme(name=name, dark=bool(data.get("dark", True)), variables=variables, **colours)
    label = data.get("label") if isinstance(data.get("label"), str) else name
    return ThemeFile(name, label, p, theme)


@lru_cache(maxsize=1)
def builtin_themes() -> tuple[ThemeFile, ...]:
    """The shipped themes, default first, then by file name."""
    found = [load_theme_file(p) for p in sorted(theme_dir().glob("*.toml"))]
    found.sort(key=lambda t: (t.name != DEFAULT_THEME, t.path.name))
    return tuple(found)


def default_variables() -> dict[str, str]:
    """Fallback values of our variables (for Textual's own themes): the default theme's colours."""
    for t in builtin_themes():
        if t.name == DEFAULT_THEME:
            return dict(t.theme.variables)
    return dict(builtin_themes()[0].theme.variables)


def resolve(spec: str | None) -> ThemeFile | str:
    """``--theme`` value -> a ThemeFile (shipped or from a path) or, for a Textual built-in theme
    name, that name. Raises ThemeError for anything else, listing the choices."""
    spec = spec or DEFAULT_THEME
    name = ALIASES.get(spec, spec)
    for t in builtin_themes():
        if name in (t.name, t.path.stem):
            return t
    p = Path(spec).expanduser()
    if p.suffix == ".toml" or p.exists():
        return load_theme_file(p)
    from textual.theme import BUILTIN_THEMES

    if spec in BUILTIN_THEMES:
        return spec
    shipped = ", ".join(t.name for t in builtin_themes())
    raise ThemeError(
        f"unknown theme {spec!r}: choose one of {shipped} (or dark, light, colorblind), "
        f"a Textual theme such as nord, or a path to a .toml theme file."
    )
