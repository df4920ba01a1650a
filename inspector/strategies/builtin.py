"""Registers every built-in strategy (import for side effects), in the order help screens and the
TUI panel list them. A new strategy is one module plus one line here."""

from . import (  # noqa: F401
    fifo,
    sliding_window,
    summarize,
    truncate_results,
    tool_pruning,
    clear_tool_uses,
    mask_tool_outputs,
    last_n_observations,
    thinking_prune,
    compact,
    trim_messages,
    strands_window,
)
from . import first_stage  # noqa: E402,F401  (fifo and trim_messages planned from cut points)
