"""count_session's shortcut for messages of one text block, and its two steps (counting started
while the view is built): the same counts as count_message gives each message, exact."""

from __future__ import annotations

from itertools import accumulate

import pytest

from inspector.model import Message, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from inspector.tokens import batch, cache, count_message, count_session, get_counter, get_profile
from inspector.tokens.table import start_count_session

LONG = "The quick brown fox jumps over the lazy dog; " * 40  # 1,800 characters, 401 cl100k tokens


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("CONTEXT_INSPECTOR_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv(cache.NO_CACHE_ENV, raising=False)
    cache.set_enabled(None)
    yield tmp_path
    cache.set_enabled(None)


def _messages() -> list[Message]:
    return [
        Message(index=0, role="system", content=[TextBlock(text="You are helpful.")]),
        Message(index=1, role="user", content=[TextBlock(text="hi there")]),
        Message(index=2, role="user", name="alice", content=[TextBlock(text="hi there")]),  # a name: no shortcut
        Message(index=3, role="assistant", content=[TextBlock(text=LONG)]),
        Message(index=4, role="assistant", content=[]),
        Message(index=5, role="assistant", content=[ThinkingBlock(thinking="let me see"), TextBlock(text="ok")]),
        Message(index=6, role="assistant", content=[ToolCallBlock(id="c1", name="read", arguments='{"path": "a.py"}')]),
        Message(index=7, role="tool", content=[ToolResultBlock(tool_call_id="c1", content=LONG)]),
        Message(index=8, role="user", content=[TextBlock(text="hi there")]),
        Message(index=9, role="assistant", content=[TextBlock(text="")]),
    ]


@pytest.mark.parametrize("profile", ["openai", "anthropic"])
@pytest.mark.parametrize("encoding", ["cl100k_base", "approx", "claude"])
def test_every_message_counts_as_count_message_counts_it(profile, encoding):
    messages = _messages()
    counter, prof = get_counter(encoding), get_profile(profile)
    table = count_session(messages, encoding=encoding, profile=profile)
    assert table.counts == [count_message(m, counter, prof) for m in messages]
    assert table.prefix == [0, *accumulate(table.totals)]


def test_exact_counts_of_one_text_messages():
    table = count_session(_messages(), encoding="cl100k_base", profile="openai")
    # 3 per message + the role ("user" is 1 token) + the text ("hi there" is 2 tokens)
    assert table.counts[1].total == 3 + 1 + 2 and table.counts[1].blocks == (2,)
    assert table.counts[3].total == 3 + 1 + 401 and table.counts[3].framing == 4
    assert table.counts[2].total == 3 + 1 + 1 + 1 + 2  # the name and its 1 token of framing


def test_equal_counts_are_one_object():
    table = count_session(_messages(), encoding="cl100k_base", profile="openai")
    assert table.counts[1] is table.counts[8]  # two user messages "hi there"
    assert table.counts[2] is not table.counts[1]  # the named one counts more


def test_started_counting_gives_the_same_table(monkeypatch):
    monkeypatch.setattr(batch, "PARALLEL_MIN_CHARS", 0)  # every text to the pool's workers
    messages = _messages()
    finish = start_count_session(messages, encoding="cl100k_base", profile="anthropic")
    table = finish()
    assert table == count_session(messages, encoding="cl100k_base", profile="anthropic")
    assert table.totals[3] == 3 + 401  # Anthropic's profile counts no role


def test_progress_reaches_every_message():
    seen: list[tuple[int, int]] = []
    start_count_session(_messages(), encoding="cl100k_base")(lambda done, total: seen.append((done, total)))
    assert seen[-1] == (10, 10)
