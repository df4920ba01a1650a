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
agree; a single plan's figures (``plan``, its ``--json``, export's summary line, the HTML report,
the viewer's header and gauge) come from :func:`plan_total`. The strategies' own triggers (fifo's
budget check) still read the plan's own total. The proof that no total is negative: ``R`` is at most the messages' tokens, and
``predicted = overhead + hidden + messages - D`` with the re-sent reasoning ``hidden >= 0``.
Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..tokens import TokenTable
from ..units import SessionView
from .memo import kept

if TYPE_CHECKING:  # pragma: no cover
    from ..strategies import Plan


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


def removed_at(view: SessionView, table: TokenTable, at_call: int | None) -> int:
    """What the agent had removed before model call ``at_call`` (1-based, negative from the end;
    None: the next call, whose offset the latest call's carries)."""
    call = view.call_for(at_call) if at_call is not None else None
    if call is not None:
        return removed_per_call(view, table)[call.number - 1]
    from .predict import next_call

    return max(0, -next_call(view, table).not_in_file)


@dataclass(frozen=True, slots=True)
class PlanTotal:
    """A plan's call total and saving as replay has them (:func:`plan_total`)."""

    tokens_before: int
    #: The call total shown: the plan's own once the agent's removals left with its first drops.
    tokens_after: int
    #: The plan's own total: the offset plus what the pipeline keeps (what its triggers read).
    plan_tokens_after: int
    #: The tokens the agent had removed that the file still shows (0: none).
    agent_removed: int

    @property
    def saving(self) -> int:
        return self.tokens_before - self.tokens_after

    @property
    def saving_pct(self) -> float:
        return 100.0 * self.saving / self.tokens_before if self.tokens_before else 0.0

    @property
    def credit(self) -> int:
        """Tokens the credit adds back to the plan's own total (0 where they agree)."""
        return self.tokens_after - self.plan_tokens_after

    def shown(self, tokens: int) -> int:
        """A total the plan passed through on the way (a stage's, before or after it) as replay
        would have it: :func:`credited` against the call's input."""
        return credited(tokens, self.tokens_before, self.agent_removed)

    @property
    def note(self) -> str:
        """Why the shown total differs from the plan's own; "" where they agree."""
        if not self.credit:
            return ""
        return (f"the agent had already removed {self.agent_removed:,} tokens the file still shows: they are the "
                f"first the pipeline removes (the plan's own total, which its budget checks read, is "
                f"{self.plan_tokens_after:,})")


def plan_total(plan: Plan) -> PlanTotal:
    """``plan``'s call total and saving with :func:`credited` applied: what replay gives for the
    same call (the plan's ``tokens_before`` is the call's ``predicted_tokens``)."""
    call = plan.call.number if plan.call is not None else None
    removed = removed_at(plan.view, plan.table, call)
    after = credited(plan.tokens_after, plan.tokens_before, removed)
    return PlanTotal(plan.tokens_before, after, plan.tokens_after, removed)


__all__ = ["PlanTotal", "credited", "credited_column", "plan_total", "removed_at", "removed_per_call"]
