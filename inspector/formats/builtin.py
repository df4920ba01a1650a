"""Registers every built-in format (import for side effects). One import per line."""

from . import openai_chat  # noqa: F401
from . import anthropic  # noqa: F401
from . import jsonl  # noqa: F401
