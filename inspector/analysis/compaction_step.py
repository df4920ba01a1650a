"""``compact``'s compaction at one call, from the compaction state, without building the history.

Where the stateful replay sizes every call from its state (:func:`.compaction.sizes_from_state`:
``compact`` alone, no compaction recorded in the file), call k's history is
:func:`.compaction_requests.request_slots`: the state's slots (what the last compaction kept,
its summary) then every message since the state's boundary, none of them edited. When the
trigger fires there, :func:`compacted` does what :func:`~inspector.strategies.compact.compact_now`
does to that history, with compact's own pieces (the head's end, the tail's start, the summary
and where it goes) on the sequence itself: O(the state's slots + the messages since), where
building the history (:func:`.compaction.build_history`) costs O(the session) per compaction.
OpenHands and LangChain's summarization compact at most calls of a long session.

Only where :func:`steps` says so: not under ``keep_user_tokens`` (its kept user messages are
found on a working history), nor where a tool exchange is not a run of messages within one
turn (compact's safe cuts then read which messages the working history still holds); the
caller builds the history there. After ``mask_tool_outputs`` (Claude Code's microcompact,
OpenCode, Gemini CLI) the history is the same sequence with some results masked: the tail is
measured in the masked sizes (:meth:`.compaction_stages.MaskedStates.tokens`), nothing else
compact reads changes. The step-by-step simulation (every history built and compacted) is the
definition: tests/test_incremental_replay.py and tests/test_compaction_stages.py compare both.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import NamedTuple

from ..strategies.base import Inserted
from ..strategies.common import view_cache
from ..strategies.compact import NAME as COMPACT, _head_end, _tail_start, between, covers, summary_of
from ..strategies.summarize import SharedCounts
from ..tokens import TokenTable
from ..units import SessionView
from .compaction_stages import MASKED


def steps(view: SessionView, names: tuple[str, ...], settings) -> bool:
    """Whether :func:`compacted` stands for building the history and compacting it."""
    return names in _STEPPED and settings.keep_user_tokens is None and view_cache(view).units_simple


_STEPPED = ((COMPACT,), MASKED)


class Compaction(NamedTuple):
    """What :func:`compacted` did to a history: the history after it and where its summary
    stands, and what it took out (the state it leaves is built from these in O(them):
    :func:`.compaction.state_after`)."""

    order: list
    at: int
    #: The source messages the summary replaces now, in order (none a system message).
    replaced: list[int]
    #: The earlier summaries it folds in (taken out of the history).
    earlier: list[Inserted]
    summary: Inserted


def compacted(view: SessionView, table: TokenTable, settings, order: list, shared: SharedCounts,
              tokens: Sequence[int] | None = None) -> Compaction | None:
    """``compact_now`` on the history ``order`` (source indices and inserted slots, no message
    edited but masked results): the history after it (the earlier summaries between the head and
    the tail folded into the new one), where its summary stands and what it took out; None when
    it replaces nothing. ``shared``: what the summaries count alike, one for every compaction of
    a replay. ``tokens``: each message's tokens in the history (default: the table's totals)."""
    roles = view.roles
    seq = [i for i in order if type(i) is int and roles[i] != "system"]
    if not seq:
        return None
    tokens = table.totals if tokens is None else tokens
    w = SimpleNamespace(view=view, table=table, settings=settings, tokens=tokens)  # what compact's pieces read
    head = _head_end(w, seq, settings.keep_head_messages)  # type: ignore[arg-type]
    tail = _tail_start(w, seq, head)  # type: ignore[arg-type]
    replaced = seq[head:tail]
    if not replaced:
        return None
    lo, hi = between(order, seq, head, tail)  # its non-system source messages are the ones replaced
    earlier: list[Inserted] = []  # folded into the new summary (as earlier_summaries finds them)
    middle: list = []  # what stays of order[lo:hi]: its system messages and other inserted slots
    for s in order[lo:hi]:
        if type(s) is int:
            if roles[s] == "system":
                middle.append(s)
        elif s.by == COMPACT and s.kind == "summary":
            earlier.append(s)
        else:
            middle.append(s)
    summary: Inserted = summary_of(w, covers(replaced, earlier), shared)  # type: ignore[arg-type]
    # where summary_position puts it: after the kept head's last message (order[lo - 1]), or before
    # the first non-system source message, the tail's first (order[hi]: none stands in ``middle``)
    at = lo if head else len(middle)
    out = order[:lo]
    out += middle
    out += order[hi:]
    out.insert(at, summary)
    return Compaction(out, at, replaced, earlier, summary)


def kept_slots(order: list, at: int) -> list:
    """The slots the compaction that put its summary at ``at`` keeps (as
    :func:`.compaction._kept_slots` finds them): every source message, the summary and the
    inserted messages after it. Every inserted slot of ``compact`` (alone or after masking) is a
    summary of other messages (no two equal), so each stands where it is."""
    return [s for s in order[:at] if type(s) is int] + order[at:]
