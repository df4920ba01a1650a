"""Defects found reviewing the merged main as a user (one test per defect, each fixed beside it)."""

from __future__ import annotations

from inspector.analysis.cache import NO_CACHE, policy_for


def test_a_session_without_a_cache_says_so_not_a_minimum_of_2_to_the_62():
    # replay's money footnote on a session whose model no price table knows read
    # "Cache model: implicit (reads only), lifetime 0 min, minimum 4611686018427387904 tokens"
    assert policy_for(None, None) is NO_CACHE
    assert NO_CACHE.label == "none (nothing is read from a provider cache)"
    assert policy_for("anthropic", "claude-sonnet-4-5", breakpoints=False).label == NO_CACHE.label
