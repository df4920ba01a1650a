"""A pipeline's requests split against the chain's no-strategy simulation
(:func:`inspector.analysis.cache.resimulate`) give :func:`~inspector.analysis.cache.simulate`'s
splits, and a call whose request did not change keeps the base's split object."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.analysis.cache import (
    ANTHROPIC_TTL,
    NO_CACHE,
    CachePolicy,
    call_clock,
    policy_for,
    resimulate,
    simulate,
)

POLICIES = [policy_for("anthropic", "claude-sonnet-4-5"), policy_for("openai", "gpt-5.1"),
            policy_for("deepseek", "deepseek-chat"), policy_for("google", "gemini-2.5-pro"), NO_CACHE,
            CachePolicy(True, ANTHROPIC_TTL, 1024)]

request = st.tuples(st.integers(-500, 60_000), st.integers(-500, 60_000))
gap = st.none() | st.floats(0, 900, allow_nan=False)


@settings(max_examples=300, deadline=None)
@given(policy=st.sampled_from(POLICIES), calls=st.lists(st.tuples(request, request, st.booleans(), gap), max_size=40),
       warm=st.integers(0, 5_000))
def test_resimulating_a_pipeline_is_simulating_it(policy, calls, warm):
    base_requests = [base for base, _, _, _ in calls]
    requests = [base if keep else other for base, other, keep, _ in calls]
    times, t = [], 0.0
    for *_, step in calls:  # gaps of up to 15 minutes, some calls without a time
        if step is None:
            times.append(None)
        else:
            t += step
            times.append(t)
    base_splits = simulate(base_requests, times, policy, warm)
    got = resimulate(requests, base_requests, base_splits, call_clock(times, policy), policy, warm)
    assert got == simulate(requests, times, policy, warm)
    assert all(g is b for g, b, r, q in zip(got, base_splits, requests, base_requests) if r == q)


def test_the_clock_reads_lifetimes_and_the_minute():
    anthropic = policy_for("anthropic", "claude-sonnet-4-5")  # a 5-minute lifetime
    assert call_clock([0.0, 10.0, None, 30.0, 330.0, 330.5, 600.0], anthropic) == [
        (False, 1), (False, 2), (False, 1), (False, 3), (False, 1), (False, 2), (False, 1)]
    assert call_clock([0.0, 10.0, None, 30.0, 400.0, 400.5], anthropic) == [
        (False, 1), (False, 2), (False, 1), (False, 3), (True, 1), (False, 2)]
