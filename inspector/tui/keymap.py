"""The user's keymap: ``keymap.toml`` in the config directory maps binding ids to keys, as posting
does (``toggle-strategy-1 = "ctrl+1"``; several keys separated by commas). Every binding of the
viewer that may be remapped has an id; :func:`binding_rows` lists them (the README's table is
generated from it). A file that cannot be used never stops the viewer: :func:`load_keymap` returns
what it could read and one plain sentence per problem, naming the file and the line."""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from textual.binding import Binding
from textual.keys import _normalize_key_list  # "?" -> "question_mark", as set_keymap does (textual is pinned)
from ..safeio import read_settings_text

KEYMAP_FILE = "keymap.toml"


def keymap_path() -> Path:
    """Where the user's keymap lives: ``keymap.toml`` in the inspector's config directory."""
    from ..paths import config_dir

    return config_dir() / KEYMAP_FILE


@dataclass
class Keymap:
    """A keymap as read: ``keys`` by binding id, and what could not be used (one line each)."""

    keys: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def binding_rows(owners: Iterable[type]) -> list[tuple[str, str, str]]:
    """(id, default keys, description) of every binding with an id, in the order the classes
    ``owners`` (app, widgets) declare them, inherited bindings after a class's own."""
    rows: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for owner in owners:
        for cls in owner.__mro__:
            for b in cls.__dict__.get("BINDINGS", ()):
                if isinstance(b, Binding) and b.id and b.id not in seen:
                    seen.add(b.id)
                    rows.append((b.id, b.key, b.tooltip or b.description))
    return rows


def _line_of(text: str, binding_id: str) -> int | None:
    """The line that sets ``binding_id`` (bare or quoted key), 1-based."""
    pattern = re.compile(rf"""^\s*(?:{re.escape(binding_id)}|"{re.escape(binding_id)}"|'{re.escape(binding_id)}')\s*=""")
    for number, line in enumerate(text.splitlines(), start=1):
        if pattern.match(line):
            return number
    return None


def parse_keymap(text: str, defaults: Mapping[str, str], source: str) -> Keymap:
    """Read a keymap's TOML text; ``defaults``: the default keys of every binding id there is;
    ``source``: the file's name for the problems."""
    known = list(defaults)
    result = Keymap()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        reason = str(exc)
        where = re.search(r"\(at line (\d+), column \d+\)", reason)
        reason = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", reason)
        at = f" line {where.group(1)}" if where else ""
        result.problems.append(f"{source}{at}: not valid TOML ({reason}); the keymap is ignored and the "
                               f"default keys are used.")
        return result
    for binding_id, value in data.items():
        line = _line_of(text, binding_id)
        at = f"{source} line {line}" if line else source
        if binding_id not in known:
            close = difflib.get_close_matches(binding_id, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            result.problems.append(f"{at}: unknown binding id {binding_id!r}{hint}; ignored. The ids are listed "
                                   f"in the README (Keys and the keymap).")
            continue
        keys = value.split(",") if isinstance(value, str) else []
        if not keys or any(not k.strip() or " " in k.strip() for k in keys):
            result.problems.append(f"{at}: {binding_id} must be a string of keys such as \"ctrl+t\" or "
                                   f"\"t,ctrl+t\" (got {value!r}); ignored.")
            continue
        result.keys[binding_id] = ",".join(k.strip() for k in keys)
    result.problems += _clashes(result.keys, defaults, text, source)
    return result


def _clashes(keys: Mapping[str, str], defaults: Mapping[str, str], text: str, source: str) -> list[str]:
    """A key the keymap gives a binding that another binding also has (by default or by the
    keymap): one of them would never run."""
    owner: dict[str, list[str]] = {}
    for binding_id, default in defaults.items():
        for key in _normalize_key_list(keys.get(binding_id, default)).split(","):
            owner.setdefault(key, []).append(binding_id)
    problems = []
    for binding_id, wanted in keys.items():
        for key in _normalize_key_list(wanted).split(","):
            others = [o for o in owner[key] if o != binding_id]
            if others:
                line = _line_of(text, binding_id)
                at = f"{source} line {line}" if line else source
                problems.append(f"{at}: {key} is also the key of {', '.join(others)}; give one of them "
                                f"another key.")
    return problems


def load_keymap(path: Path, defaults: Mapping[str, str]) -> Keymap:
    """The keymap in ``path`` (an empty one when there is no such file)."""
    try:
        text = read_settings_text(path)
    except FileNotFoundError:
        return Keymap()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return Keymap(problems=[f"{path}: cannot read it ({reason}); the default keys are used."])
    return parse_keymap(text, defaults, str(path))


def readme_table(rows: Iterable[tuple[str, str, str]]) -> str:
    """The README's table of binding ids (kept in step by a test)."""
    lines = ["| binding id | default keys | what it does |", "|---|---|---|"]
    for binding_id, keys, text in rows:
        shown = ", ".join(f"`{k}`" for k in keys.split(","))
        lines.append(f"| `{binding_id}` | {shown} | {text} |")
    return "\n".join(lines)
