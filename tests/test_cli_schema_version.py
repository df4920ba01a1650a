"""Every ``--json`` report starts with ``"schema_version": 1`` (CHANGELOG.md states the rule);
outputs that are not reports (the JSONL schema, an exported request body) carry none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.cli.main import main

SAMPLE = str(Path(__file__).resolve().parents[1] / "sample_sessions" / "three_questions.json")


@pytest.mark.parametrize(
    "args",
    [
        ["info", SAMPLE],
        ["plan", SAMPLE, "--strategy", "fifo", "--budget", "4000"],
        ["replay", SAMPLE, "--strategy", "tool_pruning"],
        ["compare", SAMPLE, "--strategy", "fifo", "--budget", "4000"],
        ["sessions", "--claude-dir", "/nonexistent", "--codex-home", "/nonexistent"],
    ],
    ids=lambda a: a[0],
)
def test_every_json_report_starts_with_its_schema_version(args, capsys):
    assert main([*args, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert next(iter(report.items())) == ("schema_version", 1)


def test_the_schema_and_an_exported_body_are_not_reports(capsys):
    assert main(["schema"]) == 0
    assert "schema_version" not in json.loads(capsys.readouterr().out)
    assert main(["export", SAMPLE, "--to", "openai", "-o", "-"]) == 0
    assert "schema_version" not in json.loads(capsys.readouterr().out)
