"""The tokenizer per model, offline: exact counts, the model -> tokenizer map, labels, --model."""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector
from cli_helpers import as_json
from inspector.tokens import get_counter, resolve, tokenizer_for

THREE = Path(__file__).resolve().parent.parent / "sample_sessions" / "three_questions.json"


def test_o200k_base_loads_offline_and_counts_exactly():
    o200k = get_counter("o200k_base")
    assert o200k._enc.encode_ordinary("hello world") == [24912, 2375]
    assert o200k.count("The quick brown fox jumps over the lazy dog.") == 10
    assert (o200k.exact, o200k.label) == (True, "o200k_base")
    assert get_counter("cl100k_base")._enc.encode_ordinary("hello world") == [15339, 1917]
    # tiktoken's Python copy of the ranks is dropped (29 MB for o200k_base); decoding uses Rust's
    assert o200k._enc._mergeable_ranks is None and get_counter("cl100k_base")._enc._mergeable_ranks is None
    assert o200k.head("hello world", 1) == "hello"


def test_claude_counters_are_o200k_scaled_and_labelled_estimates():
    claude, newer = get_counter("claude"), get_counter("claude_4_7")
    assert claude.count("The quick brown fox jumps over the lazy dog.") == round(10 * 1.16) == 12
    assert newer.count("The quick brown fox jumps over the lazy dog.") == 15
    assert (claude.exact, claude.label) == (False, "claude≈o200k×1.16 (estimate)")
    assert newer.label == "claude 4.7+≈o200k×1.5 (estimate)"
    text = "word " * 100
    assert claude.count(claude.head(text, 50)) <= 50 < claude.count(text)


@pytest.mark.parametrize(
    "model, provider, name",
    [
        ("gpt-5-codex", None, "o200k_base"),
        ("gpt-5.1-codex-max", None, "o200k_base"),
        ("codex-mini-latest", None, "o200k_base"),
        ("gpt-4o-mini", None, "o200k_base"),
        ("openai/gpt-4.1", None, "o200k_base"),
        ("o3", None, "o200k_base"),
        ("gpt-oss-120b", None, "o200k_base"),
        ("gpt-4", None, "cl100k_base"),
        ("gpt-3.5-turbo-0125", None, "cl100k_base"),
        ("claude-sonnet-4-5-20250929", None, "claude"),
        ("claude-3-5-sonnet-20241022", None, "claude"),
        ("anthropic.claude-3-5-sonnet-20240620-v1:0", None, "claude"),
        ("claude-opus-4-6", None, "claude"),
        ("claude-opus-4-7", None, "claude_4_7"),
        ("claude-opus-4-8", None, "claude_4_7"),
        ("claude-fable-5", None, "claude_4_7"),
        (None, "anthropic", "claude"),
        (None, "openai", "cl100k_base"),
        (None, None, "cl100k_base"),
        ("gemini-2.5-pro", "openai", "cl100k_base"),
        ("gpt-6-astra", None, "o200k_base"),  # newer than tiktoken's table: the newest OpenAI tokenizer
        ("openai/gpt-6", None, "o200k_base"),
        ("gpt-7.2-mini", None, "o200k_base"),
        ("o5-pro", None, "o200k_base"),
    ],
)
def test_tokenizer_for(model, provider, name):
    assert tokenizer_for(model, provider) == name


def test_a_gpt_newer_than_tiktoken_is_counted_with_o200k_and_labelled_an_estimate():
    r = resolve("gpt-6-astra")
    assert (r.counter, r.exact, r.label) == ("o200k_base", False, "o200k_base (estimate for gpt-6-astra)")


def test_resolve_says_which_tokenizer_and_whether_exact():
    assert resolve("gpt-5-codex") == resolve("gpt-5-codex", "o200k_base")
    r = resolve("gpt-5-codex")
    assert (r.counter, r.exact, r.label) == ("o200k_base", True, "o200k_base (exact)")
    r = resolve("gpt-5-codex", "cl100k_base")  # --encoding wins, but is not the model's tokenizer
    assert (r.counter, r.exact, r.label) == ("cl100k_base", False, "cl100k_base (estimate for gpt-5-codex)")
    r = resolve("claude-sonnet-4-5", None, "anthropic")
    assert (r.counter, r.exact, r.label) == ("claude", False, "claude≈o200k×1.16 (estimate)")
    r = resolve(None, None, "openai")
    assert (r.counter, r.exact, r.label) == ("cl100k_base", True, "cl100k_base (exact)")


def test_analyze_counts_with_the_model_the_session_records():
    session = inspector.load(THREE)
    session.model = "gpt-4o"
    table = inspector.analyze(session).table
    assert (table.encoding, table.exact, table.label, table.model) == ("o200k_base", True, "o200k_base (exact)", "gpt-4o")
    table = inspector.analyze(session, model="claude-opus-4-6", profile="anthropic").table
    assert (table.encoding, table.exact, table.label) == ("claude", False, "claude≈o200k×1.16 (estimate)")


def test_cli_model_option_sets_the_tokenizer(capsys):
    d = as_json(capsys, "info", THREE, "--model", "gpt-5")
    assert (d["encoding"], d["exact"], d["tokenizer"]) == ("o200k_base", True, "o200k_base (exact)")
    d = as_json(capsys, "info", THREE, "--model", "claude-opus-4-8")
    assert (d["encoding"], d["exact"], d["tokenizer"]) == ("claude_4_7", False, "claude 4.7+≈o200k×1.5 (estimate)")
    d = as_json(capsys, "info", THREE, "--model", "gpt-5", "--encoding", "cl100k_base")
    assert (d["encoding"], d["exact"], d["tokenizer"]) == ("cl100k_base", False, "cl100k_base (estimate for gpt-5)")
    d = as_json(capsys, "info", THREE)  # the file records gpt-4.1-2025-04-14: its own tokenizer
    assert (d["encoding"], d["exact"], d["tokenizer"]) == ("o200k_base", True, "o200k_base (exact)")
