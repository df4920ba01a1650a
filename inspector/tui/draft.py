"""What the message list shows of a big session before its first plan: one row per message of
the file as parsed, with a chars/4 estimate, drawn at once while the structure (turns, units,
model calls), the counts and the plan are built off the UI thread. No Textual here."""

from __future__ import annotations

from collections.abc import Sequence

from ..model import Message, ToolCallBlock, ToolResultBlock
from ..tokens import count_message, get_counter, get_profile
from .engine import preview_of


class Draft:
    """Per-row facts of the parsed messages, computed for the rows drawn only."""

    def __init__(self, messages: Sequence[Message], profile: str) -> None:
        self.messages = messages
        self._profile = get_profile(profile)
        self._estimates: dict[int, int] = {}
        self._previews: dict[int, str] = {}

    def __len__(self) -> int:
        return len(self.messages)

    def estimate(self, i: int) -> int:
        """The message's chars/4 estimate, framing included (what the estimated table will say)."""
        n = self._estimates.get(i)
        if n is None:
            n = self._estimates[i] = count_message(self.messages[i], get_counter("approx"), self._profile).total
        return n

    def preview(self, i: int) -> str:
        text = self._previews.get(i)
        if text is None:
            text = self._previews[i] = preview_of(self.messages[i])
        return text

    def role(self, i: int) -> str:
        return self.messages[i].role

    def tool(self, i: int) -> str:
        """The tools a message calls, or the tool a result names (results that name only a call
        id get their tool once the calls are paired, with the plan)."""
        names = [b.name for b in self.messages[i].content
                 if isinstance(b, ToolCallBlock) or (isinstance(b, ToolResultBlock) and b.name)]
        return ",".join(dict.fromkeys(names))
