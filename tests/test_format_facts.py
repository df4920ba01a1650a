"""Each format declares its provider, follow kind and discovery once; the follower, discovery and
CLI read those facts (a new format is one module plus one registry line)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector import formats
from inspector.discover import find_sessions, normalise_agent
from inspector.follow_dir import RewriteFollower, can_follow, follower_for
from inspector.formats import Discovery, Format, SessionDetails, provider_of
from inspector.model import Message, Session, TextBlock


def test_providers_and_profiles():
    assert {name: provider_of(name) for name in ("anthropic", "claude_code", "codex", "openai", "jsonl", "strands", "gemini_cli")} == {
        "anthropic": "anthropic", "claude_code": "anthropic", "codex": "openai", "openai": "openai", "jsonl": "openai", "strands": "openai",
        "gemini_cli": "gemini",
    }  # fmt: skip
    assert formats.profile_of("gemini_cli") == "openai"  # no gemini counting profile yet
    assert provider_of("no_such_format") == "openai"
    from inspector.cli.report import default_profile
    from inspector.model import Session

    assert [default_profile(Session(format=f)) for f in ("claude_code", "codex", "claude_trace")] == ["anthropic", "openai", "openai"]
    # a format that holds either provider (a proxy capture) counts a session as its requests went
    assert default_profile(Session(format="capture", provider="anthropic")) == "anthropic"
    assert default_profile(Session(format="capture", provider="openai")) == "openai"


def test_follow_kinds():
    assert {n: f.follow for n, f in formats.FORMATS.items() if f.follow} == {
        "jsonl": "stream", "claude_code": "stream", "codex": "stream", "strands": "directory", "agents_sqlite": "sqlite",
        "capture": "stream", "gemini_cli": "rewrite", "openhands_v1": "rewrite", "copilot_cli": "stream",
    }  # fmt: skip
    assert can_follow("gemini_cli") and not can_follow("openai") and not can_follow("no_such_format")
    with pytest.raises(ValueError, match="follow='stream' needs a stream function"):
        Format(name="x", description="", detect=lambda p: 0, read=lambda p: Session(format="x"), follow="stream")


def _toy_read(path: Path) -> Session:
    try:
        doc = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise formats.SessionFormatError(path, None, f"not JSON ({exc.msg}).") from None
    return Session(path=str(path), format="toy", messages=[Message(index=i, role="user", content=[TextBlock(text=t)]) for i, t in enumerate(doc)])


@pytest.fixture
def toy_format(tmp_path):
    """A plugin-style format: one Format with a discovery and a rewrite follow kind."""
    home = tmp_path / "toyhome"
    (home / "chats" / "p1").mkdir(parents=True)
    (home / "chats" / "p1" / "chat-1.json").write_text('["hi", "there"]')
    (home / "chats" / "p1" / "notes.txt").write_text("not a chat")
    fmt = Format(
        name="toy",
        description="toy chats",
        detect=lambda probe: 0,
        read=_toy_read,
        provider="gemini",
        follow="rewrite",
        discovery=Discovery(
            agent="toy", label="Toy", option="toy-home", env="TOY_HOME", homes=(str(home),),
            pattern=("chats", "*", "chat-*.json"), details=lambda p: SessionDetails(p.parent.name, p.stem, None, 2),
        ),
    )  # fmt: skip
    formats.register(fmt)
    yield home
    del formats.FORMATS["toy"]


def test_a_registered_format_is_discovered_and_followed(toy_format, tmp_path):
    assert normalise_agent("toy") == "toy"
    found = find_sessions(claude_dir=tmp_path / "none", codex_home=tmp_path / "none", agent="toy")
    assert [(f.agent, f.format, f.project, f.session_id, f.messages) for f in found] == [("toy", "toy", "p1", "chat-1", 2)]
    assert provider_of("toy") == "gemini" and formats.get_format("toy").profile == "openai"
    assert can_follow("toy")
    chat = toy_format / "chats" / "p1" / "chat-1.json"
    follower = follower_for(chat, "toy")
    assert isinstance(follower, RewriteFollower) and len(follower.session.messages) == 2
    assert follower.poll().messages == []
    chat.write_text('["hi", "there", "again"]')
    update = follower.poll()
    assert (update.first, [m.text for m in update.messages], update.notice) == (2, ["again"], None)
    chat.write_text('["HI", "there", "again"]')
    update = follower.poll()
    assert (update.first, update.notice) == (0, f"{chat}: earlier messages changed; reloaded from message 0.")
    chat.write_text('["HI", "the')  # caught mid-write: no update, no stop; read again later
    update = follower.poll()
    assert (update.messages, update.stopped, len(follower.session.messages)) == ([], False, 3)
    chat.write_text('["HI", "there", "again", "4th"]')
    assert [m.text for m in follower.poll().messages] == ["4th"]


def test_sessions_cli_lists_the_registered_agent(toy_format, tmp_path, capsys):
    from inspector.cli.main import main

    assert main(["sessions", "--agent", "toy", "--json", "--toy-home", str(toy_format)]) == 0
    rows = json.loads(capsys.readouterr().out)["sessions"]  # an object since schema_version 1
    assert [(r["agent"], r["format"], r["project"]) for r in rows] == [("toy", "toy", "p1")]


def test_request_documents_name_their_model(tmp_path):
    from inspector.formats import load

    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}))
    msgs = tmp_path / "messages.json"
    msgs.write_text(json.dumps({"model": "claude-sonnet-4-5", "system": "be brief", "messages": [{"role": "user", "content": "hi"}]}))
    assert (load(chat).model, load(msgs).model) == ("gpt-4o", "claude-sonnet-4-5")
    assert load(chat).extra["model"] == "gpt-4o"  # still written back as it was
