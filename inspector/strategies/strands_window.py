"""``strands_sliding_window``: Strands Agents' ``SlidingWindowConversationManager``, exactly.

Its routine ``apply_management`` (strands-agents 1.62, ``sliding_window_conversation_manager.py``)
on the non-system messages (Strands keeps the system prompt outside ``agent.messages``): when
there are more than ``window_messages`` messages, the cut starts at ``len - window_messages`` and
moves forward to the first user message that carries no tool result (and is not a tool use
without its result right after); when there is none, to the first assistant tool use followed
by its results (a Python-only fallback that can drop the current turn's prompt); when there is
none either, nothing changes. ``window_messages=0`` clears the history. Everything before the
cut is dropped. A tool message (OpenAI shape) counts as a user message with a tool result.
The reactive tool-result truncation (on a context overflow) is not modelled. Tested against
Strands' own manager in tests/test_strands_parity.py.
"""

from __future__ import annotations

from .base import Working, reason
from .pipeline import register

NAME = "strands_sliding_window"
_WHY = "dropped by strands_sliding_window: before the trim point of a {}-message window ({} messages)"


@register(
    NAME,
    ("window_messages",),
    "Strands Agents' sliding window: keeps the last N messages, the cut moved forward to a plain "
    "user message or else to a tool call with its results. Reproduced exactly; in a long tool "
    "loop the fallback drops the prompt that started it.",
    panel=False,
)
def strands_sliding_window(w: Working) -> None:
    view = w.view
    roles, call_ids, result_ids = view.roles, view.call_ids, view.result_ids
    msgs = [i for i in w.order if type(i) is int and roles[i] != "system"]
    size = w.settings.window_messages
    n = len(msgs)
    if n <= size:
        return
    why = reason(_WHY, (size, n))
    if size == 0:
        w.drop_many(msgs, NAME, why)
        return

    def user(k: int) -> bool:
        return roles[msgs[k]] in ("user", "tool")

    def results(k: int) -> bool:
        return bool(result_ids[msgs[k]])

    trim = n - size
    while trim < n:
        if not user(trim) or results(trim):
            trim += 1
            continue
        if call_ids[msgs[trim]] and not (trim + 1 < n and results(trim + 1)):
            trim += 1
            continue
        break
    if trim >= n:
        trim = next(
            (k for k in range(n - size, n) if call_ids[msgs[k]] and k + 1 < n and user(k + 1) and results(k + 1)), None
        )
        if trim is None:
            return
    w.drop_many(msgs[:trim], NAME, why)
