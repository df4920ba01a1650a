"""Registers every built-in format (import for side effects). One import per line: adding a
format is one module that registers its :class:`~inspector.formats.base.Format` (name, detect,
read, provider, follow kind, discovery) plus one line here; nothing else lists formats."""

from . import openai_chat  # noqa: F401
from . import anthropic  # noqa: F401
from . import jsonl  # noqa: F401
from . import claude_code  # noqa: F401
from . import codex  # noqa: F401
from . import openai_responses  # noqa: F401
from . import strands  # noqa: F401
from . import agents_sqlite  # noqa: F401
from . import langchain  # noqa: F401
from . import openhands  # noqa: F401
from . import swe_agent  # noqa: F401
from . import capture  # noqa: F401
from . import gemini_cli  # noqa: F401
from . import openhands_v1  # noqa: F401
from . import openhands_completions  # noqa: F401
from . import copilot_cli  # noqa: F401
