"""Token counting: counters, provider framing, per-message counts, the per-session table, and
which tokenizer a model uses.

- :mod:`.counters`: exact tiktoken encodings loaded offline, Claude estimates, chars/4.
- :mod:`.models`: the tokenizer for a model (:func:`tokenizer_for`, :func:`resolve`).
- :mod:`.framing`: the tokens a provider adds around content (profiles, images).
- :mod:`.messages`: what one message adds to a request.
- :mod:`.table`: every message counted once, kept in a :class:`TokenTable`.
- :mod:`.batch`: :func:`count_texts`, many texts counted at once: remembered counts looked up
  in :mod:`.cache` (on disk, by content hash; ``--no-cache``), the rest on :mod:`.pool`'s
  workers (one pool per process, never nested).
"""

from .batch import count_texts
from .counters import (
    CLAUDE_O200K_SCALE,
    DEFAULT_ENCODING,
    ENCODINGS,
    ApproxCounter,
    Counter,
    EncodingUnavailable,
    ScaledCounter,
    TiktokenCounter,
    get_counter,
    get_counter_or_fallback,
)
from .framing import ANTHROPIC, OPENAI, PROFILES, Profile, get_profile
from .messages import MessageCount, count_message, count_tool_definitions
from .models import Resolution, resolve, resolve_or_fallback, tokenizer_for
from .table import CountCancelled, TokenTable, count_session

__all__ = [
    "ANTHROPIC",
    "CLAUDE_O200K_SCALE",
    "DEFAULT_ENCODING",
    "ENCODINGS",
    "OPENAI",
    "PROFILES",
    "ApproxCounter",
    "CountCancelled",
    "Counter",
    "EncodingUnavailable",
    "MessageCount",
    "Profile",
    "Resolution",
    "ScaledCounter",
    "TiktokenCounter",
    "TokenTable",
    "count_message",
    "count_session",
    "count_texts",
    "count_tool_definitions",
    "get_counter",
    "get_counter_or_fallback",
    "get_profile",
    "resolve",
    "resolve_or_fallback",
    "tokenizer_for",
]
