"""Sidechains opened as sessions of their own: ``--sidechain ID`` on the commands, the ids in
``info``, and the viewer's palette entries that switch to one."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import as_json, run
from inspector.tui.commands import palette_commands

MAIN = Path(__file__).parent / "fixtures" / "real" / "claude_code" / "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13.jsonl"


def test_sidechain_option_opens_a_side_conversation(capsys):
    """The sub-agent's own messages and calls; an id the session lacks is a usage error naming
    the ids it has."""
    report = as_json(capsys, "info", MAIN, "--sidechain", "a9f2")
    assert {k: report["session"][k] for k in ("sidechain", "messages", "model_calls")} == {
        "sidechain": "a9f2", "messages": 4, "model_calls": 2,
    }  # fmt: skip
    assert report["sidechains"] == {}
    main = as_json(capsys, "info", MAIN)
    assert (main["sidechains"], "sidechain" in main["session"]) == ({"a9f2": 4, "acompact-7d1": 2}, False)
    assert as_json(capsys, "plan", MAIN, "--sidechain", "acompact-7d1")["session"]["messages"] == 2
    code, out, err = run(capsys, "replay", MAIN, "--sidechain", "nope")
    assert (code, out) == (2, "")
    assert err == (
        f"context-inspector replay: error: --sidechain: {MAIN} has no sidechain 'nope'; it has: a9f2 (4 messages), "
        "acompact-7d1 (2 messages).\n"
    )


class _Host:
    """The palette's view of the app: only what the sidechain entries read and call."""

    def __init__(self, sidechain, choices):
        from inspector.tui.state import PipelineState

        self.state = PipelineState.initial(encoding="approx", profile="openai", enabled=())
        self.sidechain, self.sidechain_choices, self.switched = sidechain, choices, []

    def theme_names(self):
        return []

    def switch_sidechain(self, key):
        self.switched.append(key)

    def __getattr__(self, name):  # every other action: never run here
        return lambda *a, **k: None


def test_palette_switches_to_a_sidechain_and_back():
    host = _Host(None, (("a9f2", 4), ("acompact-7d1", 2)))
    entries = {title: run_it for title, _, run_it in palette_commands(host) if title.startswith("Sidechain")}
    assert list(entries) == ["Sidechain: open a9f2 (4 messages)", "Sidechain: open acompact-7d1 (2 messages)"]
    entries["Sidechain: open a9f2 (4 messages)"]()
    on_side = _Host("a9f2", (("a9f2", 4), ("acompact-7d1", 2)))
    titles = [title for title, _, _ in palette_commands(on_side) if title.startswith("Sidechain")]
    assert titles == ["Sidechain: back to the main conversation", "Sidechain: open acompact-7d1 (2 messages)"]
    assert host.switched == ["a9f2"]
