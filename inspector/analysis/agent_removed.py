"""What the agent had already removed: a pipeline's call total where the file shows more than was sent.

A call's *not in file* offset (:mod:`.predict`) is negative when the file shows more than the
call recorded: the agent had removed content the file still keeps. Seen on real transcripts:
a Claude Code 2.1.17 call recorded 95,864 after 138,395 with no record of why (its first
``microcompact_boundary`` comes 14 calls later and lists other, later results); a Codex 0.135
call's input fell from 75,676 to 45,812 with no compaction record; a generated file records a
constant. The prediction keeps the negative offset, since it matches
the recorded usage; but a pipeline that drops those messages would subtract them a second time,
down to a negative call total or a saving larger than the call.

The rule, in one place: the ``D = -not_in_file`` tokens the agent had removed belong to the file's
oldest messages (what Claude Code's microcompact clears and what a fifo drops first), so they are
the first a pipeline removes and they leave with them. A pipeline that removes ``R`` tokens of what
the call's baseline sends saves ``max(0, R - D)``: its call total is ``predicted - max(0, R - D)``
(:func:`credited`). Where the offset is not negative, nothing changes. Replay applies it to every
call (:func:`credited_column`), so compare, money and the viewer's chart, which read the replay,
agree. The proof that no total is negative: ``R`` is at most the messages' tokens, and
``predicted = overhead + hidden + messages - D`` with the re-sent reasoning ``hidden >= 0``.
Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..tokens import TokenTable
from ..units import SessionView
from .memo import kept


def removed_per_call(view: SessionView, table: TokenTable) -> list[int]:
    """Per model call: the tokens of the file's messages the agent had removed before sending it
    (``-not_in_file`` where that is negative, else 0). Kept on the view: do not change the list."""
    from .predict import predictions

    return kept(view, table, "agent_removed", lambda: [max(0, -p.not_in_file) for p in predictions(view, table)])


def credited(tokens: int, predicted: int, removed: int) -> int:
    """A pipeline's call total ``tokens`` (its plan's: overhead, the offset and the messages it
    keeps) once the ``removed`` tokens the agent had already taken out leave with the first
    messages the pipeline removes: ``predicted - max(0, saving - removed)``. A pipeline that adds
    tokens (a summary longer than what it replaces) keeps its own total."""
    saving = predicted - tokens
    if removed <= 0 or saving <= 0:
        return tokens
    return predicted - max(0, saving - removed)


def credited_column(view: SessionView, table: TokenTable, numbers: Sequence[int], tokens: Sequence[int]) -> Sequence[int]:
    """:func:`credited` for each call of ``numbers`` (1-based) whose pipeline total is ``tokens``
    (same order); ``tokens`` itself where no call had anything removed (most sessions)."""
    removed = removed_per_call(view, table)
    if not any(removed):
        return tokens
    from .predict import predictions

    predicted = predictions(view, table)
    out = list(tokens)
    for k, n in enumerate(numbers):
        d = removed[n - 1]
        if d:
            out[k] = credited(out[k], predicted[n - 1].predicted_tokens, d)
    return out


__all__ = ["credited", "credited_column", "removed_per_call"]
