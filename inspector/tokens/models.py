"""Which tokenizer a model uses, and the one place a count's tokenizer is decided.

:func:`tokenizer_for` maps a model name (as files record it: ``gpt-5-codex``,
``claude-sonnet-4-5-20250929``, ``openai/gpt-4o``, ``anthropic.claude-3-5-sonnet-20240620-v1:0``)
to a counter name of :mod:`inspector.tokens.counters`:

- OpenAI names go through tiktoken's own model table (``gpt-4o``/``4.1``/``4.5``/``5``,
  ``o1``/``o3``/``o4`` and ``gpt-oss`` -> o200k; ``gpt-4``/``gpt-3.5`` -> cl100k), plus any name
  with ``codex`` in it -> o200k_base (Codex models are GPT-5 variants).
- Claude names -> ``claude`` (Claude 3 through Opus 4.6, one tokenizer family), or
  ``claude_4_7`` from version 4.7 on (``claude-opus-4-7``, ``claude-opus-4-8``, ``claude-fable-5``).
- An OpenAI name of a generation newer than tiktoken's table (``gpt-6-astra``, ``gpt-7.2``,
  ``o5``) -> o200k_base, the newest OpenAI tokenizer there is, as an estimate (not exact): every
  OpenAI model since gpt-4o uses it, so it is far closer than cl100k_base.
- No name: ``claude`` when the provider is Anthropic, else cl100k_base; an unknown name likewise.

:func:`resolve` adds the overrides (``--encoding``, ``--model``) and says whether the count is
exact for the model: a tiktoken encoding is exact only for the models that use it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from . import counters
from .counters import DEFAULT_ENCODING, EncodingUnavailable

#: tiktoken encodings we do not ship, and the one we count with instead (not exact then).
_SUBSTITUTES = {"o200k_harmony": "o200k_base", "p50k_base": "cl100k_base", "p50k_edit": "cl100k_base", "r50k_base": "cl100k_base", "gpt2": "cl100k_base"}
#: The OpenAI encodings a model name can be exact under.
_EXACT_FOR_MODEL = {"o200k_harmony": "o200k_base", "o200k_base": "o200k_base", "cl100k_base": "cl100k_base"}


def _base_name(model: str) -> str:
    """``openai/gpt-4o`` -> ``gpt-4o``; ``claude-3-5-sonnet@20240620`` -> ``claude-3-5-sonnet``."""
    return model.strip().lower().rsplit("/", 1)[-1].split("@", 1)[0]


_VERSION_PART = re.compile(r"(?<![0-9])([0-9]{1,2})(?![0-9])")


def _claude_counter(name: str) -> str:
    """``claude`` for Claude 3 to 4.6, ``claude_4_7`` from 4.7 on (version = the first one- or
    two-digit numbers of the name: ``claude-3-5-sonnet-20241022`` 3.5, ``claude-fable-5`` 5)."""
    parts = [int(p) for p in _VERSION_PART.findall(name)[:2]]
    return "claude_4_7" if parts and tuple(parts) >= (4, 7) else "claude"


def _tiktoken_name(name: str) -> str | None:
    """tiktoken's encoding for an OpenAI model name, or None when tiktoken does not know it."""
    from tiktoken.model import encoding_name_for_model

    try:
        return encoding_name_for_model(name)
    except KeyError:
        return None


#: ``gpt-<major>`` or ``o<major>`` at the start of a name: an OpenAI model generation.
_OPENAI_GENERATION = re.compile(r"^(?:gpt-([0-9]{1,2})|o([0-9]))(?![0-9])")
#: The newest generations tiktoken's table knows (gpt-5, o4); later ones take o200k_base.
_NEWEST_KNOWN = {"gpt": 5, "o": 4}


def _newer_openai_generation(name: str) -> bool:
    """Whether ``name`` is an OpenAI model of a generation newer than tiktoken's table."""
    match = _OPENAI_GENERATION.match(name)
    if match is None:
        return False
    gpt, o = match.groups()
    return int(gpt) > _NEWEST_KNOWN["gpt"] if gpt is not None else int(o) > _NEWEST_KNOWN["o"]


def _family(model: str | None, provider: str | None) -> tuple[str, bool]:
    """``(counter name, whether that counter is the model's own tokenizer)``."""
    if model:
        name = _base_name(model)
        if "claude" in name:
            return _claude_counter(name), False
        encoding = _tiktoken_name(name)
        if encoding is not None:
            return _SUBSTITUTES.get(encoding, encoding), encoding in _EXACT_FOR_MODEL
        if "codex" in name:
            return "o200k_base", True
        if _newer_openai_generation(name):
            return "o200k_base", False
    if provider == "anthropic":
        return "claude", False
    return DEFAULT_ENCODING, model is None


def tokenizer_for(model: str | None, provider: str | None = None) -> str:
    """The counter name for ``model`` (``provider`` decides when the model is missing or unknown)."""
    return _family(model, provider)[0]


@dataclass(frozen=True)
class Resolution:
    """The counter a session is counted with, and what to tell people about it."""

    counter: str  # a name :func:`~inspector.tokens.counters.get_counter` accepts
    exact: bool  # an exact tokenizer, and the model's own when the model is known
    label: str  # ``o200k_base``, ``claude≈o200k×1.19 (estimate)``, ``cl100k_base (estimate for claude-…)``
    model: str | None


def resolve(model: str | None = None, encoding_override: str | None = None, provider: str | None = None) -> Resolution:
    """The counter for a session: ``encoding_override`` (``--encoding``) when given, else the
    tokenizer of ``model`` (``--model``, or the model the file records), else by ``provider``.

    ``exact`` is False for estimates (Claude, approx) and for an exact encoding forced onto a
    model that uses another tokenizer; the label then says which model it estimates.
    """
    own, own_exact = _family(model, provider)
    name = encoding_override or own
    counter = counters.get_counter(name)
    exact = counter.exact and (model is None or name == own and own_exact)
    label = counter.label
    if counter.exact:
        label = f"{name} (exact)" if exact else f"{name} (estimate for {model})"
    return Resolution(name, exact, label, model)


def resolve_or_fallback(
    model: str | None = None, encoding_override: str | None = None, provider: str | None = None
) -> tuple[Resolution, str | None]:
    """``(resolution, warning)``: :func:`resolve`, or cl100k_base and a message saying why."""
    try:
        return resolve(model, encoding_override, provider), None
    except EncodingUnavailable as exc:
        return resolve(model, DEFAULT_ENCODING, provider), f"{exc} Falling back to {DEFAULT_ENCODING}."


__all__ = ["Resolution", "resolve", "resolve_or_fallback", "tokenizer_for"]
