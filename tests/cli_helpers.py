"""Run the command line in-process for tests: exit code, stdout and stderr, or parsed --json."""

from __future__ import annotations

import json

from inspector.cli.main import main


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys, *args) -> dict:
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out)
