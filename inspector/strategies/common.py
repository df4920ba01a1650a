"""Helpers the strategies share: per-view caches and the "never split a tool exchange" repair.

Strategies run many times per second on the same view, so anything that needs the pydantic
messages (where the tool results sit inside a message, how long each result is) is computed
once per :class:`~inspector.units.SessionView` and kept on it (:func:`view_cache`).
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from functools import cached_property, lru_cache
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from ..model import ToolCallBlock, ToolResultBlock
from ..tokens import get_counter
from ..units import SessionView

if TYPE_CHECKING:  # pragma: no cover  (base imports this module: no import back at run time)
    from .base import Working

_CACHE_ATTR = "_strategy_cache"
T = TypeVar("T")


class ViewCache:
    """Facts about a view's messages that strategies need, computed lazily. (The providers keep
    their own per-view facts: :class:`inspector.providers.validate.WireFacts`.)"""

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
    def result_parts(self) -> frozenset[int]:
        """Messages with a tool result given as a list of parts (text and images), not a string."""
        messages = self.view.messages
        return frozenset(
            i
            for i, ks in enumerate(self.result_blocks)
            if ks and any(not isinstance(messages[i].content[k].content, str) for k in ks)
        )

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
    def result_max_chars(self) -> list[int]:
        """Characters of the longest tool result in each message (0 without results)."""
        return [max(lengths, default=0) for lengths in self.result_chars]

    @cached_property
    def call_messages(self) -> list[int]:
        """Indices of the messages that make tool calls."""
        return [i for i, ids in enumerate(self.view.call_ids) if ids]

    @cached_property
    def call_results(self) -> list[tuple[tuple[int, int] | None, ...]]:
        """``call_results[i][n]``: where the result of call ``view.call_ids[i][n]`` is, as
        (message, content block), or None when the session has no result for it.

        Paired in message order as :func:`~inspector.units.build_view` pairs them: a result
        answers the latest call with its id still waiting for one, so agents that reuse ids
        (``call_0`` in every turn) get each result paired with its own call."""
        view = self.view
        call_ids, result_ids, result_blocks = view.call_ids, view.result_ids, self.result_blocks
        out: list[tuple] = [()] * len(view)
        found: dict[int, list] = {}
        waiting: dict[str, tuple[int, int]] = {}  # call id -> (call message, position in it)
        for j in range(len(view)):
            calls = call_ids[j]
            if calls:
                found[j] = [None] * len(calls)
                for n, cid in enumerate(calls):
                    waiting[cid] = (j, n)
            else:
                ids = result_ids[j]
                for n, rid in enumerate(ids):
                    call = waiting.pop(rid, None)
                    if call is not None:
                        found[call[0]][call[1]] = (j, result_blocks[j][n])
        for i, where in found.items():
            out[i] = tuple(where)
        return out

    @cached_property
    def cross_turn_units(self) -> tuple[int, ...]:
        """Units whose messages lie in more than one turn (a result arriving after the user
        spoke again). Cutting at a turn boundary can split only these."""
        turn_of = self.view.turn_of
        return tuple(
            u.id for u in self.view.units if len(u.indices) > 1 and len({turn_of[i] for i in u.indices}) > 1
        )

    @cached_property
    def units_simple(self) -> bool:
        """Every unit is a run of consecutive messages in one turn with no system message: then
        a history cut between units is a cut between index runs, and fast paths apply."""
        roles, turn_of = self.view.roles, self.view.turn_of
        for u in self.view.units:
            ix = u.indices
            if len(ix) > 1:
                first, last = ix[0], ix[-1]
                if last - first + 1 != len(ix) or turn_of[first] != turn_of[last]:
                    return False
                if any(roles[i] == "system" for i in ix):
                    return False
        return True

    @cached_property
    def turn_start(self) -> dict[int, int]:
        """First message index of each turn number."""
        return {t.number: t.start for t in self.view.turns}

    @cached_property
    def guards(self) -> dict[tuple[int, int], TurnGuard]:
        """:func:`protected_in_turn` by (stop, current turn)."""
        return {}

    @cached_property
    def system_indices(self) -> list[int]:
        return [i for i, r in enumerate(self.view.roles) if r == "system"]

    @cached_property
    def opening_unit_before(self) -> dict[int, tuple[int, ...]]:
        """For each turn opened by a message that also carries tool results (a person typed
        while a tool loop ran), the members of that message's tool exchange that lie before the
        turn (the assistant message with the calls, sibling results): they belong to the turn
        for protection and for cuts at its start. Turns opened by a plain user message are not
        listed."""
        view = self.view
        units, unit_of, result_ids = view.units, view.unit_of, view.result_ids
        out: dict[int, tuple[int, ...]] = {}
        for t in view.turns:
            q = t.user_index
            if q is None or not result_ids[q]:
                continue
            before = tuple(i for i in units[unit_of[q]].indices if i < t.start)
            if before:
                out[t.number] = before
        return out

    @cached_property
    def plain_user(self) -> bytearray:
        """1 for a user message a person wrote with no tool results: a cut there splits no
        exchange (a turn can also open at a message carrying results, see
        :attr:`opening_unit_before`)."""
        roles, results = self.view.roles, self.view.result_ids
        return bytearray(1 if r == "user" and not results[i] else 0 for i, r in enumerate(roles))


def kept_on_view(view: SessionView, key: str, make: Callable[[SessionView], T]) -> T:
    """``make(view)``, computed once and kept on the view under ``key`` (a view never changes:
    a followed session gets a new one)."""
    cache = view.__dict__.get(key)
    if cache is None:
        cache = view.__dict__[key] = make(view)
    return cache


def view_cache(view: SessionView) -> ViewCache:
    return kept_on_view(view, _CACHE_ATTR, ViewCache)


@lru_cache(maxsize=4096)
def count_text(encoding: str, text: str) -> int:
    """Tokens of a short string (markers, placeholders, tool names), cached."""
    return get_counter(encoding).count(text)


def keep_units_whole(w: Working, drop: list[int]) -> list[int]:
    """``drop`` (ascending) without the messages of any unit it would split (some of the unit's
    live messages dropped, some kept): a tool exchange is kept or dropped as a whole.

    For cuts made at turn starts: only units spanning turns can be split there, so only those
    are checked (usually there are none and ``drop`` is returned as is)."""
    cache = view_cache(w.view)
    if not cache.cross_turn_units or not drop:
        return drop
    live, units, stop = w.live, w.view.units, w.stop
    dropping = set(drop)
    for uid in cache.cross_turn_units:
        members = [i for i in units[uid].indices if i < stop and live[i]]
        dropped = [i for i in members if i in dropping]
        if dropped and len(dropped) != len(members):
            dropping.difference_update(dropped)
    return [i for i in drop if i in dropping]


def non_system_count(w: Working) -> int:
    """Messages in the history that are not system messages (inserted ones included)."""
    live, stop = w.live, w.stop
    live_system = sum(1 for i in view_cache(w.view).system_indices if i < stop and live[i])
    inserted_system = sum(1 for item in w.inserted if item.role == "system")
    return len(w.order) - live_system - inserted_system


def current_turn_start(w: Working) -> int:
    """Index where the current turn starts: every live message before it is a candidate for
    dropping (system messages and :func:`current_opening_unit` aside)."""
    return min(view_cache(w.view).turn_start.get(w.current_turn, 0), w.stop)


def opening_unit_before(w: Working, turn: int) -> tuple[int, ...]:
    """Messages before ``turn`` of the tool exchange whose results message opens it (empty for
    a turn opened by a plain user message); see :attr:`ViewCache.opening_unit_before`."""
    return view_cache(w.view).opening_unit_before.get(turn, ())


def current_opening_unit(w: Working) -> tuple[int, ...]:
    """The messages before the current turn that are protected with it: the call (and sibling
    results) of the exchange whose results message opens the current turn."""
    return tuple(i for i in opening_unit_before(w, w.current_turn) if i < w.stop)


def turn_cut(w: Working, turn: int) -> int:
    """Where to cut the history so ``turn`` and everything after it are kept: the turn's start,
    moved back to the call of the exchange whose results message opens the turn."""
    start = view_cache(w.view).turn_start.get(turn, 0)
    before = opening_unit_before(w, turn)
    return min(before[0], start) if before else start


@dataclass(frozen=True, slots=True)
class TurnGuard:
    """What no strategy drops or edits in the current turn of a call's history: the turn's
    *opening* (its prompt, what the harness sent with it up to the first model reply, and the
    exchange whose results the prompt carries) and the *latest exchange* (the last model reply
    with the results and messages after it: what the call answers), each with every message of
    its tool exchanges, so a call is never split from its result. System messages (and what the
    file does not show) are protected everywhere.

    Budget- and count-based strategies (fifo, summarize, clear_tool_uses) may act on the rest of
    the current turn; turn-based ones (tool_pruning, sliding_window) keep the turn whole."""

    #: First message of the current turn (its prompt; 0 for a history with no prompt).
    start: int
    #: First message of the latest exchange: it and everything after it are protected.
    tail: int
    #: Every protected message index of the turn (and of the exchange its prompt answers).
    members: frozenset[int]

    def __contains__(self, i: object) -> bool:
        return i in self.members


def protected_in_turn(w: Working) -> TurnGuard:
    """The :class:`TurnGuard` of ``w``'s call (computed once per view, stop and turn)."""
    cache = view_cache(w.view)
    key = (w.stop, w.current_turn)
    guard = cache.guards.get(key)
    if guard is None:
        guard = cache.guards[key] = _guard(w.view, w.stop, w.current_turn)
    return guard


def _guard(view: SessionView, stop: int, turn: int) -> TurnGuard:
    cache = view_cache(view)
    roles, units, unit_of = view.roles, view.units, view.unit_of
    start = min(cache.turn_start.get(turn, 0), stop)
    first_reply = next((i for i in range(start, stop) if roles[i] == "assistant"), stop)
    tail = next((i for i in range(stop - 1, first_reply - 1, -1) if roles[i] == "assistant"), start)
    members = set(range(start, first_reply))
    members.update(range(tail, stop))
    members.update(i for i in cache.opening_unit_before.get(turn, ()) if i < stop)
    for uid in {unit_of[i] for i in members}:  # each unit once: 20,000 parallel results share one
        if uid >= 0:
            members.update(j for j in units[uid].indices if j < stop)
    return TurnGuard(start, tail, frozenset(members))


def candidates(w: Working, in_turn: bool = False) -> list[int]:
    """Live non-system source messages before the current turn, oldest first, without the
    current turn's opening exchange (:func:`current_opening_unit`). ``in_turn``: followed by the
    current turn's messages that :func:`protected_in_turn` does not protect."""
    limit = current_turn_start(w)
    if in_turn:
        guard = protected_in_turn(w)
        roles, order = w.view.roles, w.order
        tail = order if w.inserted else order[bisect_left(order, limit) :]
        inside = [i for i in tail if type(i) is int and i >= limit and roles[i] != "system" and i not in guard]
        before = candidates(w)
        return before + inside if inside else before
    order, roles = w.order, w.view.roles
    protected = current_opening_unit(w)
    if not w.inserted:  # order is sorted: take the prefix, then take out the few system messages
        head = order[: bisect_left(order, limit)]
        system = [i for i in view_cache(w.view).system_indices if i < limit]
        if not system and not protected:
            return head
        drop = set(system)
        drop.update(protected)
        return [i for i in head if i not in drop]
    protected_set = set(protected)
    return [i for i in order if type(i) is int and i < limit and roles[i] != "system" and i not in protected_set]
