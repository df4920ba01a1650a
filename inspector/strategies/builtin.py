"""Registers every built-in strategy (import for side effects), in the order help screens list them."""

from . import (  # noqa: F401
    fifo,
    sliding_window,
    summarize,
    truncate_results,
    tool_pruning,
    clear_tool_uses,
)

BUILTIN = ("fifo", "sliding_window", "summarize", "truncate_results", "tool_pruning", "clear_tool_uses")
