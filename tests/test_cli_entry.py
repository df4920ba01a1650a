"""Entry points: the dispatcher (TUI vs subcommands), ``python -m inspector``, the console script,
and that machine-readable runs never import Textual."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from inspector.cli.main import main
from inspector.cli.samples import sample_path

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_sessions"
THREE = str(SAMPLES / "three_questions.json")


def python(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)


def test_json_commands_never_import_textual():
    script = f"""
import contextlib, io, sys
from inspector.cli.main import main
sample = {THREE!r}
runs = [
    ["info", sample, "--json"],
    ["plan", sample, "--strategy", "tool_pruning,sliding_window", "--json"],
    ["replay", sample, "--strategy", "fifo", "--budget", "4000", "--json"],
    ["compare", sample, "--budget", "4000", "--json"],
    ["schema"],
]
for argv in runs:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(argv) == 0, argv
loaded = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
print(loaded)
"""
    done = python("-c", script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_python_dash_m_inspector():
    done = python("-m", "inspector", "info", THREE, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["session"]["model_calls"] == 11
    bad = python("-m", "inspector", "plan", THREE, "--strategy", "nope")
    assert bad.returncode == 2 and bad.stdout == "" and "Traceback" not in bad.stderr


def test_console_script():
    script = Path(sys.executable).parent / "context-inspector"
    if not script.exists():
        pytest.skip("the context-inspector script is not installed next to this interpreter")
    done = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "context-inspector 0.1.0"


def test_schema_prints_the_jsonl_schema(capsys):
    assert main(["schema"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["title"] == "context-inspector JSONL line"
    assert "$defs" in schema


@pytest.fixture
def fake_tui(monkeypatch):
    calls = []
    module = types.ModuleType("inspector.tui.app")

    def run(path, *, theme, follow, format, encoding, **given):  # given: sidechain, preset when set
        calls.append({"path": path, "theme": theme, "follow": follow, "format": format, "encoding": encoding, **given})
        return 7

    module.run = run
    monkeypatch.setitem(sys.modules, "inspector.tui.app", module)
    return calls


def test_no_arguments_opens_the_tui_on_the_bundled_sample(fake_tui):
    assert main([]) == 7
    assert fake_tui == [
        # no --encoding: the viewer counts with the tokenizer of the model the file records
        {"path": str(sample_path()), "theme": None, "follow": None, "format": None, "encoding": None}
    ]
    assert Path(fake_tui[0]["path"]).name == "coding_agent.jsonl"


def test_a_session_argument_opens_the_tui_with_its_options(fake_tui):
    code = main([THREE, "--theme", "light", "--no-follow", "--format", "openai", "--encoding", "approx"])
    assert code == 7
    assert fake_tui == [{"path": THREE, "theme": "light", "follow": False, "format": "openai", "encoding": "approx"}]
    main([str(SAMPLES / "coding_agent.jsonl"), "--follow"])
    assert fake_tui[-1]["follow"] is True
    main([THREE, "--preset", "swe-agent"])
    assert fake_tui[-1]["preset"] == "swe-agent"


def test_a_file_named_like_a_subcommand_opens_with_a_path(fake_tui, tmp_path, monkeypatch):
    (tmp_path / "info").write_bytes((SAMPLES / "three_questions.json").read_bytes())
    monkeypatch.chdir(tmp_path)
    assert main(["./info"]) == 7
    assert fake_tui[0]["path"] == "./info"


def test_samples_lists_the_bundled_sessions(capsys):
    assert main(["samples"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [Path(p).name for p in lines] == [
        "coding_agent.jsonl", "hr_leave_balance.json", "measured_three_questions.json", "three_questions.json",
        "vendor_onboarding.json",
    ]
    assert all(Path(p).is_file() for p in lines)
    assert main(["samples", "three_questions.json"]) == 0
    assert capsys.readouterr().out == f"{sample_path('three_questions.json')}\n"
    assert main(["samples", "nope.json"]) == 2
    assert capsys.readouterr().err.startswith("context-inspector samples: error: no bundled sample called 'nope.json'")
