"""What the readers share, one home each: message content ("string, list or null") to blocks, an
image to an :class:`~inspector.model.ImageBlock` with its size, recorded usage objects to
:class:`~inspector.model.Usage` (each provider's spelling declared as a :class:`UsageKeys`), and
the model a session mostly used. The text of provider blocks the model has no type for is
:mod:`inspector.formats.rawtext`'s.

No format knowledge lives here beyond the spellings of usage objects; the format modules say which
helper applies to which part of their records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..model import Block, ImageBlock, Session, TextBlock, Usage, new_text, new_usage
from .imagesize import image_size, split_data_url

ContentForm = str  # "string", "parts", "blocks" or "null" (see Message.content_form)


# --- content: string, list or null -------------------------------------------------------------


def content_blocks(
    content: Any,
    convert: Callable[[Any, int], Block | None],
    list_form: ContentForm = "parts",
    *,
    keep_empty: bool = False,
    other: Callable[[Any], list[Block]] | None = None,
) -> tuple[list[Block], ContentForm]:
    """Message ``content`` as blocks and the form the file wrote it in.

    ``None`` -> no blocks ("null"); a string -> one text block ("string"; an empty string gives
    none unless ``keep_empty``); a list -> ``convert(part, k)`` for each part, leaving out parts it
    returns None for (``list_form``). Anything else goes to ``other`` (which may raise), or is
    read as a one-part list.
    """
    if content is None:
        return [], "null"
    if isinstance(content, str):
        return ([new_text(content, {})] if content or keep_empty else []), "string"
    if not isinstance(content, list):
        if other is not None:
            return other(content), list_form
        content = [content]
    blocks = []
    for k, part in enumerate(content):
        block = convert(part, k)
        if block is not None:
            blocks.append(block)
    return blocks, list_form


# --- images ------------------------------------------------------------------------------------


def image_block(
    data: Any,
    *,
    media_type: str | None = None,
    source_kind: str | None = None,
    detail: str | None = None,
    extra: dict[str, Any] | None = None,
) -> ImageBlock:
    """An image from what the file holds: a ``data:`` URL, a bare base64 payload
    (``source_kind="base64"``), a URL or a file id. Base64 images get their width and height read
    from their header, so every reader's images are counted the same way."""
    data = "" if data is None else str(data)
    payload: str | None = None
    split = split_data_url(data)
    if split is not None:
        media_type = media_type or split[0]
        source_kind, payload = "base64", split[1]
    elif source_kind == "base64":
        payload = data
    elif source_kind not in ("url", "file"):
        source_kind = "url"
    size = image_size(payload) if payload else None
    return ImageBlock(
        media_type=media_type if isinstance(media_type, str) else None,
        source_kind=source_kind,
        data=data,
        detail=detail if isinstance(detail, str) else None,
        width=size[0] if size else None,
        height=size[1] if size else None,
        extra=extra or {},
    )


# --- text -------------------------------------------------------------------------------------------


def joined_text(blocks: Iterable[Any]) -> str:
    """The text blocks among ``blocks``, joined with newlines (what a text-only slot receives)."""
    return "\n".join(b.text for b in blocks if isinstance(b, TextBlock))


# --- recorded usage ------------------------------------------------------------------------------


#: No model call reads or writes this many tokens: a recorded count beyond it (or below 0) is
#: not a count, and is read as not recorded.
MAX_RECORDED_COUNT = 10**10


def _count(value: Any) -> int | None:
    """``value`` when it is a recorded count (an int, not a bool, from 0 to the maximum)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_RECORDED_COUNT:
        return value
    return None


_COUNT_NAMES = ("input", "output", "cache_read", "cache_write", "cache_write_1h", "reasoning")


def recorded_usage(input: int | None, output: int | None, cache_read: int | None, cache_write: int | None,
                   cache_write_1h: int | None, reasoning: int | None, model: str | None, speed: Any = None) -> Usage:
    """The :class:`Usage` of counts read from a record (each a count or None): a one-hour write
    larger than the whole write is dropped, and ``speed`` kept only where it is a speed other than
    the standard one (a short word: Anthropic's "fast")."""
    if cache_write_1h is not None and cache_write_1h > (cache_write or 0):
        cache_write_1h = None  # a part larger than its whole
    if speed is not None and not (type(speed) is str and speed != "standard" and len(speed) <= 32):
        speed = None
    return new_usage(input, output, cache_read, cache_write, cache_write_1h, reasoning, model, speed=speed)


def _usage_reader(keys: UsageKeys) -> Callable[[Any, str | None], Usage | None]:
    """``(raw, model) -> Usage | None``: :func:`usage_from` for ``keys``. For each of the six
    counts (input, output, cache read, cache write, 1h write, reasoning), the first of its paths in
    ``keys`` that holds a count (:func:`_count`), else None; then the input made the uncached rest
    where ``keys.input_includes_cache``; then :func:`recorded_usage`.

    Generated once per :class:`UsageKeys` as straight-line code from the keys' own paths: readers
    call it once per model response, and a loop over the spellings and their paths cost about
    twice as much (Anthropic's keys on the 2-vCPU machine: 1.36 us a call, against 0.76); the
    whole of it in one function, not a counts reader called by another: 0.2-0.3 us less a call."""
    body = ["def read_usage(raw, model=None):",
            "    if not isinstance(raw, dict):",
            "        return None",
            "    get = raw.get"]
    for name in _COUNT_NAMES:
        paths = getattr(keys, name)
        body.append(f"    {name} = None")
        for depth, path in enumerate(paths):
            pad = "    " * (depth + 1)
            first, *rest = path.split(".")
            body.append(f"{pad}value = get({first!r})")
            body += [f"{pad}value = value.get({key!r}) if isinstance(value, dict) else None" for key in rest]
            body += [f"{pad}if value is not None:",
                     f"{pad}    {name} = value if type(value) is int and 0 <= value <= {MAX_RECORDED_COUNT} else _count(value)"]
            if depth < len(paths) - 1:
                body.append(f"{pad}if {name} is None:")
    if keys.input_includes_cache:
        body += ["    if input is not None:",
                 "        input -= (cache_read or 0) + (cache_write or 0)",
                 "        if input < 0:  # more cached than the whole input: the record contradicts itself",
                 "            input = None"]
    speed = f"get({keys.speed!r})" if keys.speed else "None"
    body.append(f"    return recorded_usage(input, output, cache_read, cache_write, cache_write_1h, reasoning, model, {speed})")
    scope: dict[str, Any] = {"_count": _count, "recorded_usage": recorded_usage}
    exec("\n".join(body), scope)  # noqa: S102 (generated from the keys' own paths, repr-quoted)
    return scope["read_usage"]


@dataclass(frozen=True)
class UsageKeys:
    """How one provider or library spells a usage object (dotted paths, first found wins)."""

    input: tuple[str, ...]
    output: tuple[str, ...]
    cache_read: tuple[str, ...] = ()
    cache_write: tuple[str, ...] = ()
    #: The part of the cache write with the one-hour lifetime (Anthropic's ``cache_creation``).
    cache_write_1h: tuple[str, ...] = ()
    reasoning: tuple[str, ...] = ()
    #: The key of the speed the call ran at (Anthropic's ``speed``: "fast" mode has its own prices).
    speed: str | None = None
    #: The input figure already includes cached input (OpenAI, LiteLLM, LangChain); the cached
    #: parts are taken out so ``input_tokens`` is the uncached rest, as Anthropic records it.
    input_includes_cache: bool = False
    #: ``(raw, model) -> Usage | None``, :func:`usage_from` with these keys (:func:`_usage_reader`;
    #: filled in, never passed).
    usage: Callable[[Any, str | None], Usage | None] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "usage", _usage_reader(self))


ANTHROPIC = UsageKeys(
    input=("input_tokens",),
    output=("output_tokens",),
    cache_read=("cache_read_input_tokens",),
    cache_write=("cache_creation_input_tokens",),
    cache_write_1h=("cache_creation.ephemeral_1h_input_tokens",),
    speed="speed",
)
#: OpenAI Chat Completions and Responses (and Codex's ``last_token_usage``), LiteLLM's extras too.
OPENAI = UsageKeys(
    input=("input_tokens", "prompt_tokens"),
    output=("output_tokens", "completion_tokens"),
    cache_read=("cached_input_tokens", "input_tokens_details.cached_tokens", "prompt_tokens_details.cached_tokens", "cache_read_input_tokens"),
    # Codex's rollouts; the Responses usage's input_tokens_details (Azure OpenAI documents it)
    cache_write=("cache_creation_input_tokens", "cache_write_input_tokens", "input_tokens_details.cache_write_tokens"),
    reasoning=("reasoning_output_tokens", "output_tokens_details.reasoning_tokens", "completion_tokens_details.reasoning_tokens"),
    input_includes_cache=True,
)
LANGCHAIN = UsageKeys(
    input=("input_tokens",),
    output=("output_tokens",),
    cache_read=("input_token_details.cache_read",),
    cache_write=("input_token_details.cache_creation",),
    cache_write_1h=("input_token_details.ephemeral_1h_input_tokens",),
    reasoning=("output_token_details.reasoning",),
    input_includes_cache=True,
)
#: Bedrock Converse as Strands stores it (``inputTokens`` excludes cached input).
BEDROCK = UsageKeys(
    input=("inputTokens",),
    output=("outputTokens",),
    cache_read=("cacheReadInputTokens",),
    cache_write=("cacheWriteInputTokens",),
)


def usage_from(raw: Any, keys: UsageKeys, model: str | None = None) -> Usage | None:
    """A recorded usage object as :class:`Usage`, cache reads and writes kept apart from the rest
    of the input; None when ``raw`` is not an object. A count that is not an integer from 0 to
    :data:`MAX_RECORDED_COUNT`, or that contradicts the others, is None."""
    return keys.usage(raw, model)


# --- the model a session used ---------------------------------------------------------------------


class ModelTally:
    """Keeps ``session.model`` the model most calls recorded (the first seen on a tie), or a
    fallback the file names elsewhere (a config record) when no call records one."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.counts: Counter[str] = Counter()
        self.order: dict[str, int] = {}  # first seen
        self.best: str | None = None

    def add(self, model: str | None) -> None:
        if not model:
            return
        if model == self.best:  # the leader stays the leader (and session.model is it already)
            self.counts[model] += 1
            return
        counts = self.counts
        counts[model] += 1
        order = self.order.setdefault(model, len(self.order))
        best = self.best
        # only this model's count moved: it is the new leader, or the leader stays (once per call,
        # not a scan of every model seen)
        if best is None or counts[model] > counts[best] or (counts[model] == counts[best] and order < self.order[best]):
            self.best = best = model
        self.session.model = best

    def fallback(self, model: str | None) -> None:
        if model and not self.counts and self.session.model is None:
            self.session.model = model


__all__ = [
    "ANTHROPIC",
    "BEDROCK",
    "LANGCHAIN",
    "OPENAI",
    "ModelTally",
    "UsageKeys",
    "content_blocks",
    "image_block",
    "joined_text",
    "usage_from",
]
