"""The per-session token table: every message counted once, with prefix sums.

Strategies read the table and never tokenize whole messages again (they only count small
strings such as markers). What a message costs is :func:`~inspector.tokens.messages.count_message`
under a counter (:mod:`~inspector.tokens.counters`) and a profile (:mod:`~inspector.tokens.framing`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate

from ..model import Message, ToolDefinition
from .batch import Cancelled, start_prefetch, tiktoken_base
from .counters import DEFAULT_ENCODING, get_counter
from .framing import get_profile
from .messages import MessageCount, count_message, count_tool_definitions
from .models import resolve


@dataclass
class TokenTable:
    """Per-message token counts of one session under one counter and profile, plus prefix sums.

    ``totals[i]`` is what message ``i`` adds to a request; ``prefix[i]`` is the sum of
    ``totals[:i]``. A request made of messages ``S`` costs ``sum(totals[S]) + overhead``, where
    ``overhead`` is the tool definitions plus the reply priming.
    """

    encoding: str
    profile: str
    exact: bool
    counts: list[MessageCount]
    totals: list[int]
    prefix: list[int]
    tools: int
    reply_priming: int
    #: The model the counts are for, when known (decides ``exact`` and ``label``).
    model: str | None = None

    @property
    def label(self) -> str:
        """The counter for people: ``o200k_base``, ``claude≈o200k×1.19 (estimate)``."""
        return resolve(self.model, self.encoding, self.profile).label

    @property
    def overhead(self) -> int:
        return self.tools + self.reply_priming

    def range_total(self, start: int, stop: int) -> int:
        """Sum of ``totals[start:stop]`` in O(1)."""
        return self.prefix[stop] - self.prefix[start]

    def __len__(self) -> int:
        return len(self.totals)


def count_session(
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition] = (),
    *,
    encoding: str = DEFAULT_ENCODING,
    profile: str = "openai",
    model: str | None = None,
    previous: TokenTable | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> TokenTable:
    """Count every message once. With ``previous`` (same encoding and profile), the messages it
    already counted are reused and only new ones are tokenized: a followed session that grows by
    appends is never re-counted. ``progress(done, total)`` is called every 256 messages;
    ``cancelled()`` returning True stops early with :class:`CountCancelled`."""
    return start_count_session(messages, tools, encoding=encoding, profile=profile, model=model,
                               previous=previous)(progress, cancelled)


def start_count_session(
    messages: Sequence[Message],
    tools: Sequence[ToolDefinition] = (),
    *,
    encoding: str = DEFAULT_ENCODING,
    profile: str = "openai",
    model: str | None = None,
    previous: TokenTable | None = None,
) -> Callable[..., TokenTable]:
    """:func:`count_session` in two steps: the texts are gathered and their counting starts now
    (on the pool's workers for a large session); the returned ``finish(progress=None,
    cancelled=None)`` waits for the counts and builds the table. What the caller does in between
    (building the session's view) runs while the workers count."""
    counter = get_counter(encoding)
    prof = get_profile(profile)
    counts: list[MessageCount] = []
    if previous is not None and previous.encoding == encoding and previous.profile == profile:
        counts = previous.counts[: min(len(previous.counts), len(messages))]
    total = len(messages)
    first = len(counts)
    texts = _texts(messages, first) if total - first > 1 else None
    finish_prefetch = None
    if texts is not None and tiktoken_base(counter) is not None:
        finish_prefetch = start_prefetch(counter, _recorded(texts, messages, tools, prof, first))

    def finish(progress: Callable[[int, int], None] | None = None,
               cancelled: Callable[[], bool] | None = None) -> TokenTable:
        used = counter
        if finish_prefetch is not None:
            todo = total - first

            def chars_progress(done: int, of: int) -> None:
                if progress is not None:
                    progress(first + (todo * done // of if of else todo), total)

            try:
                used = finish_prefetch(chars_progress, cancelled)
            except Cancelled:
                raise CountCancelled(first) from None
        all_counts = counts + _counted(messages, first, used, prof, texts)
        if progress is not None:
            progress(total, total)
        totals = [c.total for c in all_counts]
        return TokenTable(
            encoding=encoding,
            profile=profile,
            exact=resolve(model, encoding, profile).exact,
            counts=all_counts,
            totals=totals,
            prefix=[0, *accumulate(totals)],
            tools=count_tool_definitions(tools, used, prof),
            reply_priming=prof.reply_priming,
            model=model,
        )

    return finish


class _Recorder:
    """A counter that counts nothing and remembers every text it was asked about."""

    exact = False
    name = label = "recorder"

    def __init__(self, texts: list[str] | None = None) -> None:
        self.texts: list[str] = [] if texts is None else texts

    def count(self, text: str) -> int:
        self.texts.append(text)
        return 0

    def head(self, text: str, max_tokens: int) -> str:  # pragma: no cover - never cut
        return text


def _texts(messages: Sequence[Message], first: int) -> list[str | None]:
    """For each message from ``first`` on, the text of its one text block when that is all it
    holds (no ``name``): what most messages of a long chat are, counted without a pass through
    :func:`count_message`; None for every other message."""
    out: list[str | None] = []
    append = out.append
    for i in range(first, len(messages)):
        m = messages[i]
        content = m.content
        if len(content) == 1 and not m.name:
            block = content[0]
            append(block.text if block.type == "text" else None)
        else:
            append(None)
    return out


def _counted(messages: Sequence[Message], first: int, counter, prof, texts: list[str | None] | None) -> list[MessageCount]:
    """The count of every message from ``first`` on: a message of one text block (``texts``) as
    :func:`count_message` would count it, from one lookup of its text; equal counts are one
    shared (frozen) object, which a long chat of short messages holds hundreds of thousands of."""
    if texts is None:
        return [count_message(messages[i], counter, prof) for i in range(first, len(messages))]
    count = counter.count
    role_framing: dict[str, int] = {}
    shared: dict[tuple[int, int], MessageCount] = {}
    out: list[MessageCount] = []
    append = out.append
    for i, text in enumerate(texts, first):
        m = messages[i]
        if text is None:
            append(count_message(m, counter, prof))
            continue
        framing = role_framing.get(m.role)
        if framing is None:
            framing = role_framing[m.role] = prof.per_message + (count(m.role) if prof.count_role else 0)
        n = count(text)
        c = shared.get((framing, n))
        if c is None:
            c = shared[framing, n] = MessageCount(framing + n, framing, (n,), 0)
        append(c)
    return out


def _recorded(texts, messages, tools, prof, first) -> list[str]:
    """Every text :func:`_counted` will count for ``messages`` (from ``first``) and ``tools``.
    ``texts``: the one text of each single-text message (:func:`_texts`)."""
    recorder = _Recorder([t for t in texts if t is not None])
    if prof.count_role:
        recorder.texts.extend({messages[i].role for i, t in enumerate(texts, first) if t is not None})
    for i, t in enumerate(texts, first):
        if t is None:
            count_message(messages[i], recorder, prof)
    count_tool_definitions(tools, recorder, prof)
    return recorder.texts


class CountCancelled(Exception):
    """Counting was cancelled after ``done`` messages."""

    def __init__(self, done: int) -> None:
        super().__init__(f"counting cancelled after {done} messages")
        self.done = done
