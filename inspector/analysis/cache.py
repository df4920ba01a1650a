"""The prompt-cache model: how much of each model call's input is read from the provider's cache,
written to it, or sent uncached.

A *request* is the sequence of pieces the call sends, in order, each a ``(key, tokens)`` pair:
equal keys mean equal content (the fixed prefix of system prompt, tool definitions and what the
file does not show; then every message in the state the pipeline left it). For call k the longest
common prefix with call k-1's request is read from cache when

- call k is sent within the cache lifetime after call k-1 (``ttl_seconds``; unknown times count
  as within), and
- the prefix is at least the provider's minimum cacheable length.

The rest of the input is written to the cache where the provider charges writes and the agent
marks cache breakpoints (Anthropic; Claude Code does), else it is plain input (OpenAI, Gemini and
DeepSeek cache implicitly, reads only; OpenAI caches in 128-token steps, DeepSeek in 64-token
ones). Output is not modelled here.

DeepSeek's "Context Caching on Disk" (https://api-docs.deepseek.com/guides/kv_cache) is on by
default for every request: a later request's prefix repeated from an earlier one is a cache hit
(billed at the cache-hit price); "the cache system uses 64 tokens as a storage unit; content less
than 64 tokens will not be cached", it is "best-effort" (no hit is guaranteed), and unused entries
are cleared "typically within a few hours to a few days" (modelled as no expiry).

OpenAI routes a request to the machine that holds its prefix by a hash of the prompt's start and
the ``prompt_cache_key`` (Codex sends its conversation id); "if requests for the same prefix and
prompt_cache_key combination exceed a certain rate (approximately 15 requests per minute), some
may overflow and get routed to additional machines, reducing cache effectiveness" (OpenAI's
prompt-caching guide). A request sent when ``r`` requests of the session (itself included) fall
in the last minute, ``r`` above that rate, is taken to overflow with probability ``(r - 15) / r``
(the share of the minute's requests beyond what one machine takes); an overflowed request reads
only what every machine holds: the agent's fixed prefix (``warm``). The split is the expectation.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass

Piece = tuple[Hashable, int]

#: Minimum cacheable prompt length by model family, from the providers' prompt-caching docs
#: (Anthropic: 1,024 on Sonnet/Opus 4-4.1, 2,048 on Haiku 3-3.5, 4,096 on Opus 4.5+ and Haiku 4.5;
#: OpenAI: 1,024; Gemini implicit caching: 1,024 on Flash, 4,096 on Pro). First match wins.
_MIN_TOKENS: tuple[tuple[str, int], ...] = (
    ("claude-opus-4-5", 4096), ("claude-opus-4-6", 4096), ("claude-opus-4-7", 4096), ("claude-opus-4-8", 4096),
    ("claude-haiku-4-5", 4096), ("claude-3-haiku", 2048), ("claude-3-5-haiku", 2048),
    ("gemini-2.5-pro", 4096), ("gemini-3-pro", 4096), ("gemini", 1024),
)
_DEFAULT_MIN_TOKENS = 1024
ANTHROPIC_TTL = 300.0
ANTHROPIC_TTL_1H = 3600.0
#: OpenAI keeps a cached prefix 5-10 minutes idle (up to an hour off-peak); Codex files carry
#: no per-call times, so this mostly matters for files that do.
OPENAI_TTL = 600.0
OPENAI_OVERFLOW_RPM = 15
#: DeepSeek's cache storage unit: cached lengths are multiples of it, shorter prefixes uncached.
DEEPSEEK_CACHE_UNIT = 64


@dataclass(frozen=True, slots=True)
class CachePolicy:
    """How one provider caches prompts."""

    writes: bool  # the uncached suffix is written (billed as cache write), not plain input
    ttl_seconds: float | None  # None: no expiry modelled
    min_tokens: int
    step: int = 1  # cached lengths are multiples of this (OpenAI: 128)
    #: Requests per minute one cache machine takes for one prefix before the rest overflow to
    #: others (OpenAI: about 15); None: no overflow.
    overflow_rpm: int | None = None
    #: Why the policy differs from the provider's usual one, said in :attr:`label` ("" if not).
    why: str = ""

    @property
    def label(self) -> str:
        if self.min_tokens >= _NEVER:
            return "none (nothing is read from a provider cache)" + (f": {self.why}" if self.why else "")
        ttl = "no expiry" if self.ttl_seconds is None else f"{self.ttl_seconds / 60:g} min"
        kind = "read + write" if self.writes else "implicit (reads only)"
        return f"{kind}, lifetime {ttl}, minimum {self.min_tokens} tokens"


_NEVER = 1 << 62  # a minimum no request reaches: nothing is cached
NO_CACHE = CachePolicy(writes=False, ttl_seconds=0.0, min_tokens=_NEVER)
#: Anthropic caches only up to the ``cache_control`` breakpoints the agent marks; an agent that
#: marks none (:func:`marks_breakpoints`) has nothing cached.
NO_BREAKPOINTS = CachePolicy(
    writes=False, ttl_seconds=0.0, min_tokens=_NEVER,
    why="no recorded call reads or writes the cache, so the agent marks no cache breakpoints",
)


def marks_breakpoints(recorded: Iterable[tuple[int | None, int | None, int | None]], minimum: int) -> bool:
    """Whether an agent on a provider whose cache needs breakpoints (Anthropic) marks them, from
    its calls' recorded ``(cache read, cache write, whole input)`` tokens (None: not recorded):
    False only where some call long enough to be cached (``minimum``, the policy's) records its
    cache tokens and no call read or wrote any; where nothing tells, the usual assumption (it
    marks them, as Claude Code does) stays."""
    seen = False
    for read, write, total in recorded:
        if read or write:
            return True
        seen = seen or ((read is not None or write is not None) and (total or 0) >= minimum)
    return not seen


def policy_for(provider: str | None, model: str | None, *, long_ttl: bool = False, breakpoints: bool = True) -> CachePolicy:
    """The cache policy for ``provider`` (a genai-prices provider id) and ``model``. ``long_ttl``:
    the agent writes one-hour cache entries; ``breakpoints``: the agent marks cache_control
    (without them Anthropic caches nothing)."""
    name = (model or "").lower()
    minimum = next((n for key, n in _MIN_TOKENS if key in name), _DEFAULT_MIN_TOKENS)
    if provider == "anthropic" or name.startswith("claude"):
        if not breakpoints:
            return NO_BREAKPOINTS
        return CachePolicy(True, ANTHROPIC_TTL_1H if long_ttl else ANTHROPIC_TTL, minimum)
    if provider == "openai" or name.startswith(("gpt", "o1", "o3", "o4", "codex")):
        return CachePolicy(False, OPENAI_TTL, _DEFAULT_MIN_TOKENS, step=128, overflow_rpm=OPENAI_OVERFLOW_RPM)
    if provider == "deepseek" or name.startswith("deepseek"):
        return CachePolicy(False, None, DEEPSEEK_CACHE_UNIT, step=DEEPSEEK_CACHE_UNIT)
    if provider == "google" or name.startswith("gemini"):
        return CachePolicy(False, None, minimum)
    return NO_CACHE


@dataclass(frozen=True, slots=True)
class CacheSplit:
    """One call's input: read from cache, written to it, and sent uncached (they add up to it)."""

    read_tokens: int
    write_tokens: int
    uncached_tokens: int

    @property
    def total(self) -> int:
        return self.read_tokens + self.write_tokens + self.uncached_tokens

    def as_json(self) -> dict[str, int]:
        return {"read_tokens": self.read_tokens, "write_tokens": self.write_tokens, "uncached_tokens": self.uncached_tokens}


def common_prefix_tokens(previous: Sequence[Piece], current: Sequence[Piece]) -> int:
    """Tokens of the longest run of equal pieces at the start of both requests."""
    total = 0
    for (a, n), (b, _) in zip(previous, current):
        if a != b:
            break
        total += n
    return total


def split_call(
    total: int, shared: int, gap_seconds: float | None, policy: CachePolicy, warm: int = 0, per_minute: int = 1
) -> CacheSplit:
    """The split of a call of ``total`` input tokens that shares ``shared`` leading tokens with
    the previous call, sent ``gap_seconds`` after it (None: unknown, or the first call). After
    the lifetime only ``warm`` tokens (the agent's fixed prefix, kept cached by its other
    sessions) can still be read. ``per_minute``: the session's requests in the minute up to this
    one, itself included (the overflow rule in the module docstring)."""
    expired = gap_seconds is not None and policy.ttl_seconds is not None and gap_seconds > policy.ttl_seconds
    return _splitter(policy, warm)(total, shared, expired, per_minute)


def _splitter(policy: CachePolicy, warm: int) -> Callable[[int, int, bool, int], CacheSplit]:
    """:func:`split_call` for one policy and warm prefix, ``gap_seconds`` given as whether the
    lifetime ran out: the policy read once (:func:`simulate` splits every call of a chain with
    one, 16 chains of 22,000 calls in a compare at 50,000 messages)."""
    counts = split_counts(policy, warm)

    def split(total: int, shared: int, expired: bool, per_minute: int) -> CacheSplit:
        read, write, uncached = counts(total, shared, expired, per_minute)
        return CacheSplit(read, write, uncached)

    return split


def split_counts(policy: CachePolicy, warm: int) -> Callable[[int, int, bool, int], tuple[int, int, int]]:
    """:func:`_splitter` as ``(read, write, uncached)``, no :class:`CacheSplit` built: what a sum
    over many calls reads (:mod:`.money_sums` splits 15 pipelines of every call in a compare)."""
    minimum, step, rpm, writes = policy.min_tokens, policy.step, policy.overflow_rpm, policy.writes

    def counts(total: int, shared: int, expired: bool, per_minute: int) -> tuple[int, int, int]:
        if shared > total:
            shared = total
        if expired and shared > warm:
            shared = warm
        read = 0 if shared < minimum else shared - shared % step
        if rpm is not None and per_minute > rpm:
            overflow = (per_minute - rpm) / per_minute
            kept = min(shared, warm)
            read = round((1 - overflow) * read + overflow * (0 if kept < minimum else kept - kept % step))
        rest = total - read
        if writes and total >= minimum:
            return read, rest, 0
        return read, 0, rest

    return counts


def simulate(
    requests: Sequence[tuple[int, int]],
    times: Sequence[float | None],
    policy: CachePolicy,
    warm: int = 0,
) -> list[CacheSplit]:
    """Splits for consecutive calls given per call ``(total tokens, tokens shared with the
    previous call's request)`` and the calls' times in seconds (None where unknown). The first
    call's ``shared`` is what was already cached before the session (the agent's fixed prefix
    left warm by an earlier session), usually 0; ``warm`` is that prefix, still readable when the
    lifetime has run out between two calls."""
    return simulate_on(requests, call_clock(times, policy), policy, warm)


def simulate_on(requests: Sequence[tuple[int, int]], clock: Sequence[tuple[bool, int]], policy: CachePolicy,
                warm: int = 0) -> list[CacheSplit]:
    """:func:`simulate` with the chain's :func:`call_clock` already read."""
    split = _splitter(policy, warm)
    # a request is never below 0 tokens: where the file's count exceeds what was recorded, the
    # part not in the file is negative and a pruned request could come out below 0
    return [split(total if total > 0 else 0, shared if shared > 0 else 0, expired, per_minute)
            for (total, shared), (expired, per_minute) in zip(requests, clock)]


def entry_lifetimes(writes: Iterable[tuple[int | None, int | None]], default: float | None) -> list[float | None]:
    """Per call of a chain, the lifetime of the cache entry it leaves (the one it writes, or the
    one it reads and so refreshes), from its recorded ``(cache write, one-hour part of it)``
    (None: not recorded): one hour where it wrote one-hour entries, five minutes where it wrote
    entries none of which were one-hour ones, else the previous call's (the first call's:
    ``default``). Claude Code writes one-hour entries or five-minute ones by the account and
    settings, and a session can change from one to the other."""
    out: list[float | None] = []
    lifetime = default
    for write, one_hour in writes:
        if one_hour:
            lifetime = ANTHROPIC_TTL_1H
        elif write and one_hour is not None:
            lifetime = ANTHROPIC_TTL
        out.append(lifetime)
    return out


def call_clock(times: Sequence[float | None], policy: CachePolicy,
               lifetimes: Sequence[float | None] | None = None) -> list[tuple[bool, int]]:
    """Per call of a chain (its time in seconds, None where unknown), what :func:`simulate` reads
    of the clock: whether the lifetime ran out since the previous call with a time, and the
    requests in the minute up to it, itself included (1 where its time is unknown). They depend on
    the times alone, so every pipeline priced on a chain shares them (:func:`resimulate`).
    ``lifetimes``: per call, the lifetime of the cache entry it leaves (:func:`entry_lifetimes`;
    the next call reads that entry); None: the policy's for every call."""
    out: list[tuple[bool, int]] = []
    append, ttl = out.append, policy.ttl_seconds
    previous_time: float | None = None
    recent: deque[float] = deque()  # times of the requests in the last minute
    for k, t in enumerate(times):
        if t is None:  # no gap known, one request in its minute
            append((False, 1))
            if lifetimes is not None:
                ttl = lifetimes[k]
            continue
        recent.append(t)
        while recent[0] <= t - 60.0:
            recent.popleft()
        append((k > 0 and previous_time is not None and ttl is not None and t - previous_time > ttl, len(recent)))
        previous_time = t
        if lifetimes is not None:  # the entry this call leaves is the one the next call reads
            ttl = lifetimes[k]
    return out


def resimulate(
    requests: Sequence[tuple[int, int]],
    base_requests: Sequence[tuple[int, int]],
    base_splits: Sequence[CacheSplit],
    clock: Sequence[tuple[bool, int]],
    policy: CachePolicy,
    warm: int = 0,
) -> list[CacheSplit]:
    """:func:`simulate` of ``requests`` on a chain already simulated with ``base_requests``
    (giving ``base_splits``; ``clock``: its :func:`call_clock`): a call's split depends on its
    own request and the clock only, so a call whose request is the base one gets the base's
    split object itself (``is`` tells a caller it is unchanged), and only the others are split."""
    split = _splitter(policy, warm)
    return [same if request == base else split(request[0] if request[0] > 0 else 0, request[1] if request[1] > 0 else 0,
                                               *tick)
            for request, base, same, tick in zip(requests, base_requests, base_splits, clock)]


__all__ = [
    "ANTHROPIC_TTL", "ANTHROPIC_TTL_1H", "CachePolicy", "CacheSplit", "DEEPSEEK_CACHE_UNIT", "NO_BREAKPOINTS", "NO_CACHE", "OPENAI_OVERFLOW_RPM", "OPENAI_TTL",
    "Piece",
    "call_clock", "common_prefix_tokens", "entry_lifetimes", "marks_breakpoints", "policy_for", "resimulate", "simulate", "simulate_on", "split_call",
    "split_counts",
]
