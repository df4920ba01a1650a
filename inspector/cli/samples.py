"""The bundled sample sessions, found both in a checkout and in an installed package.

In a checkout ``inspector/sample_sessions`` is a link to the repository's ``sample_sessions/``;
an installed wheel carries the files themselves under ``inspector/sample_sessions``.
"""

from __future__ import annotations

from pathlib import Path

#: The session the TUI opens when no SESSION is given.
DEFAULT_SAMPLE = "coding_agent.jsonl"

SUFFIXES = (".json", ".jsonl")


def samples_dir() -> Path:
    package = Path(__file__).resolve().parent.parent
    for candidate in (package / "sample_sessions", package.parent / "sample_sessions"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"the bundled sample sessions are missing (looked in {package / 'sample_sessions'})")


def sample_paths() -> list[Path]:
    """Every bundled sample, sorted by name."""
    return sorted(p for p in samples_dir().iterdir() if p.suffix in SUFFIXES)


def sample_path(name: str = DEFAULT_SAMPLE) -> Path:
    path = samples_dir() / name
    if not path.is_file():
        raise FileNotFoundError(f"no bundled sample called {name!r}; have: {', '.join(p.name for p in sample_paths())}")
    return path
