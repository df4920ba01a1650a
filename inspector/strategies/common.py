"""Helpers the strategies share: per-view caches and the "never split a tool exchange" repair.

Strategies run many times per second on the same view, so anything that needs the pydantic
messages (where the tool results sit inside a message, which messages are empty) is computed
once per :class:`~inspector.units.SessionView` and kept on it (:func:`view_cache`).
"""

from __future__ import annotations

from functools import cached_property, lru_cache

from ..model import TextBlock, ToolCallBlock, ToolResultBlock
from ..tokens import get_counter
from ..units import SessionView
from .base import Working

_CACHE_ATTR = "_strategy_cache"


class ViewCache:
    """Facts about a view's messages that strategies and the validator need, computed lazily."""

    def __init__(self, view: SessionView) -> None:
        self.view = view

    @cached_property
    def result_blocks(self) -> list[tuple[int, ...]]:
        """``result_blocks[i]``: positions in ``messages[i].content`` of its tool results,
        in the same order as ``view.result_ids[i]``."""
        out: list[tuple[int, ...]] = [()] * len(self.view)
        for i, ids in enumerate(self.view.result_ids):
            if ids:
                out[i] = tuple(k for k, b in enumerate(self.view.messages[i].content) if isinstance(b, ToolResultBlock))
        return out

    @cached_property
    def result_chars(self) -> list[tuple[int, ...]]:
        """``result_chars[i]``: characters of each tool result's text, as ``result_blocks[i]``."""
        blocks = self.result_blocks
        messages = self.view.messages
        return [tuple(len(messages[i].content[k].text) for k in ks) if ks else () for i, ks in enumerate(blocks)]

    @cached_property
    def call_blocks(self) -> list[tuple[int, ...]]:
        """``call_blocks[i]``: positions of the tool calls, in the order of ``view.call_ids[i]``."""
        out: list[tuple[int, ...]] = [()] * len(self.view)
        for i, ids in enumerate(self.view.call_ids):
            if ids:
                out[i] = tuple(k for k, b in enumerate(self.view.messages[i].content) if isinstance(b, ToolCallBlock))
        return out

    @cached_property
    def empty(self) -> frozenset[int]:
        """Messages with no content a provider accepts: no blocks, or only empty text blocks."""
        return frozenset(
            i
            for i, m in enumerate(self.view.messages)
            if all(isinstance(b, TextBlock) and not b.text for b in m.content)
        )

    @cached_property
    def results_with_other(self) -> frozenset[int]:
        """Messages holding tool results and other non-empty content too (text, images)."""
        messages = self.view.messages
        return frozenset(
            i
            for i, ids in enumerate(self.view.result_ids)
            if ids
            and any(
                not isinstance(b, ToolResultBlock) and not (isinstance(b, TextBlock) and not b.text)
                for b in messages[i].content
            )
        )

    @cached_property
    def cross_turn_units(self) -> tuple[int, ...]:
        """Units whose messages lie in more than one turn (a result arriving after the user
        spoke again). Cutting at a turn boundary can split only these."""
        turn_of = self.view.turn_of
        return tuple(
            u.id for u in self.view.units if len(u.indices) > 1 and len({turn_of[i] for i in u.indices}) > 1
        )

    @cached_property
    def plain_user(self) -> bytearray:
        """1 for a user message a person wrote (no tool results): where a turn starts."""
        roles, results = self.view.roles, self.view.result_ids
        return bytearray(1 if r == "user" and not results[i] else 0 for i, r in enumerate(roles))


def view_cache(view: SessionView) -> ViewCache:
    cache = view.__dict__.get(_CACHE_ATTR)
    if cache is None:
        cache = ViewCache(view)
        view.__dict__[_CACHE_ATTR] = cache
    return cache


@lru_cache(maxsize=4096)
def count_text(encoding: str, text: str) -> int:
    """Tokens of a short string (markers, placeholders, tool names), cached."""
    return get_counter(encoding).count(text)


def keep_units_whole(w: Working, drop: set[int]) -> set[int]:
    """Remove from ``drop`` every message of a unit that would otherwise be split (some of its
    live messages dropped, some kept): a tool exchange is kept or dropped as a whole.

    For cuts made at turn starts: only units spanning turns can be split there, so only those
    are checked. Returns ``drop`` (edited in place)."""
    cache = view_cache(w.view)
    live, units, stop = w.live, w.view.units, w.stop
    for uid in cache.cross_turn_units:
        members = [i for i in units[uid].indices if i < stop and live[i]]
        dropped = [i for i in members if i in drop]
        if dropped and len(dropped) != len(members):
            drop.difference_update(dropped)
    return drop


def non_system_count(w: Working) -> int:
    """Messages in the history that are not system messages (inserted ones included)."""
    roles = w.view.roles
    return sum(1 for s in w.order if (roles[s] != "system" if type(s) is int else s.role != "system"))
