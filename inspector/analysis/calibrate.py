"""Recorded usage next to the inspector's estimate, and the factor that scales one to the other.

Claude Code, Codex, OpenHands, recent Strands, LangChain and mini-swe-agent files record the
input tokens of each model call (``Message.usage`` on the assistant message of that call). The
estimate for call k is its baseline input from :func:`inspector.analysis.context.baseline_tokens` (the
messages it saw plus tool definitions and reply priming). The recorded side is
``Usage.context_tokens``: input plus cache reads plus cache writes, so cached input is not missed.

The two differ for known reasons: the agent's own system prompt and tool definitions are usually
not in the file, and a different tokenizer. :func:`calibration_factor` is ``sum(recorded) /
sum(estimated)`` over the calls that have both (a token-weighted ratio, so a few tiny calls do not
dominate); ``--calibrate`` multiplies estimates by it (:func:`scale`). Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..tokens import TokenTable
from ..units import SessionView
from .context import baseline_tokens

if TYPE_CHECKING:  # pragma: no cover
    from .session import Analysis


@dataclass(frozen=True, slots=True)
class CallUsage:
    call: int  # 1-based model call number
    message_index: int
    estimated: int  # the inspector's count of the call's input
    recorded: int | None  # Usage.context_tokens the file recorded, if any
    input_tokens: int | None  # uncached input
    cache_read_tokens: int | None
    cache_creation_tokens: int | None
    output_tokens: int | None

    @property
    def ratio(self) -> float | None:
        """recorded / estimated for this call (None without a recording or an estimate)."""
        if self.recorded is None or self.estimated <= 0:
            return None
        return self.recorded / self.estimated


def call_usage(view: SessionView, table: TokenTable) -> list[CallUsage]:
    """One row per model call: estimate, recorded total and its parts (cache kept apart)."""
    rows = []
    for call, estimate in zip(view.calls, baseline_tokens(view, table)):
        usage = view.messages[call.message_index].usage
        rows.append(
            CallUsage(
                call=call.number,
                message_index=call.message_index,
                estimated=estimate,
                recorded=usage.context_tokens if usage is not None else None,
                input_tokens=usage.input_tokens if usage is not None else None,
                cache_read_tokens=usage.cache_read_input_tokens if usage is not None else None,
                cache_creation_tokens=usage.cache_creation_input_tokens if usage is not None else None,
                output_tokens=usage.output_tokens if usage is not None else None,
            )
        )
    return rows


def calibration_factor(view: SessionView, table: TokenTable) -> float | None:
    """``sum(recorded) / sum(estimated)`` over calls with both; None when no call has both."""
    recorded = estimated = 0
    for row in call_usage(view, table):
        if row.recorded is not None and row.estimated > 0:
            recorded += row.recorded
            estimated += row.estimated
    if not estimated:
        return None
    return recorded / estimated


def scale(tokens: int, factor: float | None) -> int:
    """An estimate scaled by a calibration factor (unchanged when there is none)."""
    return tokens if factor is None else round(tokens * factor)


@dataclass(frozen=True, slots=True)
class Calibration:
    """How ``--calibrate`` scales the inspector's token estimates: ``cal(tokens)``.

    A view over the reported numbers only: the TokenTable and the plans stay in the inspector's
    own counts (strategies decide on those). Without ``--calibrate``, or with nothing recorded to
    calibrate against, ``cal(tokens)`` is ``tokens``. Recorded figures are never scaled.
    """

    requested: bool = False
    factor: float | None = None  # calibration_factor: sum(recorded) / sum(estimated)
    calls: int = 0  # model calls with both a recording and an estimate
    note: str | None = None  # why nothing was scaled, when --calibrate was given in vain

    def __call__(self, tokens: int) -> int:
        return scale(tokens, self.factor)

    def total(self, values: Iterable[int]) -> int:
        """The sum of the scaled values, so a column of calibrated figures adds up to its footer."""
        return sum(map(self, values))

    def report(self) -> dict[str, Any] | None:
        if not self.requested:
            return None
        return {"factor": self.factor, "calls": self.calls, "note": self.note}


NO_CALIBRATION = Calibration()


def calibration(analysis: Analysis, requested: bool = True) -> Calibration:
    """The factor from the usage the session recorded, or a note that there is none."""
    if not requested:
        return NO_CALIBRATION
    view, table = analysis.view, analysis.table
    factor = calibration_factor(view, table)
    if not factor:  # None: no call recorded usage; 0: every recording says 0 input tokens
        what = "no input token usage for any model call" if factor is None else "0 input tokens for every model call"
        return Calibration(
            requested=True,
            note=f"Nothing to calibrate against: {analysis.session.path} records {what}, "
            "so the figures are the inspector's own estimates.",
        )
    calls = sum(1 for row in call_usage(view, table) if row.recorded is not None and row.estimated > 0)
    return Calibration(requested=True, factor=factor, calls=calls)


__all__ = ["NO_CALIBRATION", "CallUsage", "Calibration", "calibration", "calibration_factor", "call_usage", "scale"]
