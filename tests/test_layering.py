"""The layering: the core imports without Textual or Rich, and the import-linter contract that
says so lists every core module (a new top-level module cannot slip past it)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import inspector

ROOT = Path(__file__).resolve().parents[1]


def test_the_core_imports_without_textual_or_rich():
    code = (
        "import sys, inspector, inspector.strategies, inspector.formats, inspector.providers.validate, "
        "inspector.providers.export, inspector.analysis.replay, inspector.plugins, inspector.paths; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'textual', 'rich'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


def test_the_core_contract_lists_every_core_module():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    contract = next(c for c in config["contracts"] if c["id"] == "core-without-ui")
    views = {"inspector.tui", "inspector.cli", "inspector.report", "inspector.__main__"}
    core = {f"inspector.{m.name}" for m in pkgutil.iter_modules(inspector.__path__)} - views
    assert sorted(contract["source_modules"]) == sorted(core)
