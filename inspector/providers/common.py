"""What every provider module shares: the provider names, a rule violation, and the per-message
facts a checker reads.

A checker (``openai.check``, ``anthropic.check``) streams over ``slots`` (source indices, or
:class:`~inspector.strategies.Inserted` messages for a plan) and reads per-message facts from
the parallel arrays of a :class:`Facts`, indexed by slot. :mod:`.validate` builds the facts from
pydantic messages or, cheaply, from a session view.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

Provider = Literal["openai", "anthropic"]
PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic")


def unknown_provider(provider: object) -> ValueError:
    """The error for a provider name that is not one of :data:`PROVIDERS`."""
    return ValueError(f"unknown provider {provider!r}; choose one of: {', '.join(PROVIDERS)}")


@dataclass(frozen=True, slots=True)
class Violation:
    """One rule a provider would reject the request for."""

    provider: Provider
    #: Position of the offending message in that provider's request (None: the whole request).
    index: int | None
    #: The source message (session index) it comes from; None for inserted messages.
    source: int | None
    #: Short rule name: empty_history, orphan_result, missing_result, empty_content, system_role,
    #: results_not_first, invalid_tool_id, duplicate_tool_id.
    rule: str
    #: The error text the provider returns.
    message: str

    def __str__(self) -> str:
        return self.message


class Facts:
    """Per-message facts of a history, as parallel arrays indexed by slot.

    ``roles``, ``call_ids``, ``result_ids``: as on :class:`~inspector.units.SessionView`.
    ``other``: messages holding tool results and other content OpenAI is sent after the tool
    messages. ``empty``: messages with no content a provider accepts. ``null``: messages the
    OpenAI writer sends with ``content: null`` where the API rejects it. ``images``: messages
    whose tool results carry images (OpenAI: moved to a user message). ``sources``: slot -> the
    source index to report (None: the slot is the source index). ``positions(slot)``: the
    content positions of a message's results, needed only to word an Anthropic error;
    ``call_positions(slot)``, the same for its tool calls (None: calls counted among calls only).
    """

    __slots__ = ("roles", "call_ids", "result_ids", "other", "empty", "null", "sources", "positions", "images", "call_positions")

    def __init__(
        self,
        roles: Sequence[str],
        call_ids: Sequence[tuple[str, ...]],
        result_ids: Sequence[tuple[str, ...]],
        other: frozenset[int] | set[int],
        empty: frozenset[int] | set[int],
        null: frozenset[int] | set[int],
        sources: Sequence[int | None] | None,
        positions: Callable[[int], tuple[int, ...]],
        images: frozenset[int] | set[int] = frozenset(),
        call_positions: Callable[[int], tuple[int, ...]] | None = None,
    ) -> None:
        self.roles, self.call_ids, self.result_ids = roles, call_ids, result_ids
        self.other, self.empty, self.null, self.sources, self.positions = other, empty, null, sources, positions
        self.images, self.call_positions = images, call_positions

    def call_position(self, slot: int, k: int) -> int:
        """The content position of call ``k`` of message ``slot`` as the exporter writes it."""
        if self.call_positions is None:
            return k
        positions = self.call_positions(slot)
        return positions[k] if k < len(positions) else k


__all__ = ["PROVIDERS", "Facts", "Provider", "Violation", "unknown_provider"]
