"""The fold lane: ``compact`` that keeps only its newest messages, compacted from counts alone.

LangChain's summarization (``keep=("messages", 20)``) compacts at nearly every call of a long
session (3,783 compactions at 10k messages). Where ``compact`` keeps no head and its tail is the
newest ``keep_tail_messages`` messages alone (no token or share tail, not moved to a user
message), every history such a compaction leaves has one shape: the system messages before the
tail, then the summary (it folds the one before, so it stands for every non-system message
before the tail), then every message from the tail's first ``t`` to the call. The next call's
request is that and the messages since; compacting it again (:func:`.compaction_step.compacted`
on that list, then :func:`.compaction.state_after`) comes down to where the new tail starts,
found from the non-system messages' counts and prefix sums: the replaced messages are the
non-system ones from ``t`` to there, their tokens a prefix-sum difference, the new summary's
``replaces`` the earlier one's extended by them. :class:`FoldLane` does that in O(the tail's
move) with no request list, no walk of it and no layout of what it took out; the summary is
:func:`~inspector.strategies.compact.summary_of`'s as before (its count is the definition).

It answers only for the histories it made (or before the first compaction, the whole history):
any other state goes the general way. tests/test_compaction_fold.py compares every compaction
with :func:`.compaction_step.compacted` and :func:`.compaction.state_after` on generated
sessions.
"""

from __future__ import annotations

from bisect import bisect_left
from types import SimpleNamespace

from ..strategies.base import Inserted
from ..strategies.compact import NAME as COMPACT, covers, summary_of
from ..strategies.incremental import facts
from ..strategies.index_runs import IndexRuns
from ..strategies.summarize import SharedCounts
from ..tokens import TokenTable
from ..units import SessionView
from .compaction_step import steps


def folds(view: SessionView, names: tuple[str, ...], settings) -> bool:
    """Whether :class:`FoldLane` stands for :func:`.compaction_step.compacted` on ``names``'
    states: ``compact`` alone compacted from its state, no head kept, the tail the newest
    ``keep_tail_messages`` messages alone."""
    return (names == (COMPACT,) and settings.keep_head_messages <= 0 and settings.keep_tail_tokens is None
            and settings.keep_tail_share <= 0 and not settings.tail_at_user and steps(view, names, settings))


class FoldLane:
    """Compactions of one replay (:func:`folds` holds) from the state each left: ask
    :meth:`compacted` with the states it made, or None before the first compaction.
    ``make(slots, boundary, call, after, folded, kept_tokens, kept_messages, lone)``: the state
    type (:class:`.compaction._State`)."""

    def __init__(self, view: SessionView, table: TokenTable, settings, shared: SharedCounts, make) -> None:
        f = facts(view, table)
        self.ns_prefix, self.ns_count, self.ns_index = f.ns_prefix, f.ns_count, f.ns_index
        self.prefix, self.unit_of, self.shared, self.make = table.prefix, view.unit_of, shared, make
        self.system = [i for i, role in enumerate(view.roles) if role == "system"]
        self.keep = settings.keep_tail_messages
        self.w = SimpleNamespace(view=view, table=table, settings=settings, tokens=table.totals)  # what summary_of reads
        self.made: object = None  # the last state made here
        self.tail = 0  # its tail's first message

    def knows(self, state) -> bool:
        """Whether :meth:`compacted` answers for ``state``."""
        return state is None or state is self.made

    def compacted(self, state, stop: int, call: int, after: int):
        """The state the compaction of call ``call`` (at message ``stop``; ``after``: the message
        of the call before it) leaves from ``state`` (None: no compaction yet), as
        :func:`.compaction.state_after` finds it after :func:`.compaction_step.compacted`;
        None where it replaces nothing."""
        ns_count, ns_index = self.ns_count, self.ns_index
        t = 0 if state is None else self.tail
        first = ns_count[t]  # the request's non-system source messages: ns_index[first:first + m]
        m = ns_count[stop] - first
        if not m:
            return None
        keep = self.keep
        start = m - min(keep, m) if keep else m  # (:func:`~inspector.strategies.compact._tail_start`)
        unit_of = self.unit_of
        while 0 < start < m and unit_of[ns_index[first + start - 1]] == unit_of[ns_index[first + start]]:
            start += 1  # not a safe cut: a tool exchange goes on across it
        if not start:
            return None
        cut = first + start
        new_t = ns_index[cut] if start < m else stop
        earlier: Inserted | None = None if state is None else state.slots[state.lone]
        if earlier is None:
            covered = list(ns_index[first:cut])
        elif new_t - t == start:  # no system message among them: one run after the earlier summary's
            covered = earlier.replaces.then(t, new_t)  # type: ignore[union-attr]
        else:
            covered = covers(list(ns_index[first:cut]), [earlier])  # type: ignore[assignment]
        summary = summary_of(self.w, covered, self.shared)  # type: ignore[arg-type]
        runs = summary.replaces
        if type(runs) is not IndexRuns:  # (every run of indices increases: never)
            raise AssertionError("a folding summary's messages stand in order")
        system = self.system
        at = bisect_left(system, new_t)  # the system messages before the tail stay, before the summary
        slots = (*system[:at], summary, *range(new_t, stop))
        prefix, ns_prefix = self.prefix, self.ns_prefix
        replaced = ns_prefix[new_t] - ns_prefix[t]  # (a prefix sum per message index, of the non-system ones)
        if state is None:
            tokens = prefix[stop] - replaced + summary.tokens
        else:
            tokens = state.kept_tokens + prefix[stop] - prefix[state.boundary] - replaced
            tokens += summary.tokens - earlier.tokens  # type: ignore[union-attr]
        messages = 1 + ns_count[stop] - ns_count[new_t]
        made = self.make(slots, stop, call, after, runs.runs, tokens, messages, at)
        self.made, self.tail = made, new_t
        return made


__all__ = ["FoldLane", "folds"]
