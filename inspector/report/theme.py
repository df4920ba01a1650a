"""A theme file's colours as plain strings for the HTML page (the same ``themes/*.toml`` the viewer
reads; ``inspector.tui.themes`` checks them for Textual, this reads them without it)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from ..safeio import read_settings_text

ALIASES = {"dark": "dark", "inspector-dark": "dark", "light": "light", "inspector-light": "light",
           "colorblind": "colorblind", "colourblind": "colorblind", "cb": "colorblind",
           "inspector-colorblind": "colorblind"}
TABLES = ("base", "unit", "status", "chart", "gauge", "row")
_COLOUR = re.compile(r"#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?(?:[0-9a-fA-F]{2})?")


class ThemeFileError(ValueError):
    """A theme the page cannot use; the message names the file and the key."""


def _themes_folder() -> Path:
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "themes", package.parent / "themes"):
        if candidate.is_dir():
            return candidate
    raise ThemeFileError(f"the bundled themes are missing (looked in {package / 'themes'})")


def theme_colours(name: str | None = None) -> dict[str, dict[str, str]]:
    """``{table: {key: "#rrggbb"}}`` of a shipped theme (dark, light, colorblind) or a theme file."""
    key = ALIASES.get((name or "dark").lower())
    path = _themes_folder() / f"{key}.toml" if key else Path(name or "")
    try:
        data = tomllib.loads(read_settings_text(path))
    except FileNotFoundError:
        raise ThemeFileError(f"{path}: no such theme (shipped: dark, light, colorblind).") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ThemeFileError(f"{path}: cannot read it as a theme ({exc}).") from None
    out: dict[str, dict[str, str]] = {}
    for table in TABLES:
        section = data.get(table)
        if not isinstance(section, dict):
            raise ThemeFileError(f"{path}: missing table [{table}].")
        for k, v in section.items():
            if not isinstance(v, str) or not _COLOUR.fullmatch(v):  # a colour lands in CSS: only #hex
                raise ThemeFileError(f"{path}: {table}.{k} = {v!r} is not a colour (use \"#rrggbb\").")
        out[table] = dict(section)
    return out
