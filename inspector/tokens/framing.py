"""Provider framing profiles: the tokens a provider adds around message content.

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
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..model import ImageBlock


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
