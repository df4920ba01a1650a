"""The per-call rows of ``info``'s report (recorded usage, recorded cost), built when read.

A session of 50,000 messages has about 22,000 model calls that recorded usage; as one dict per
call, the usage rows held about 10 MB until the command ended and the cost rows 11 MB, while the
table shows the first 60. :class:`UsageRows` keeps the position of each call that recorded usage
(an ``array``) and builds a call's dict from the view, the calls' baselines and predictions (which
the analysis keeps anyway); :class:`CostRows` keeps each call's number, chain, model and cost
parts in arrays. A table reads a handful of rows, ``--json`` writes them all, one at a time.

Both are a :class:`~collections.abc.Sequence` of dicts: ``len``, indexing, slices (a list), and
iteration; equal to a list of the same dicts. Nothing here prints.
"""

from __future__ import annotations

from array import array
from decimal import Decimal
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from ..units import SessionView
    from .money import CallMoney
    from .prices import Cost
    from .predict import CallPrediction


def ratio(recorded: int | None, estimate: int) -> float | None:
    """recorded / estimate, rounded for display (None without a recording or an estimate)."""
    if recorded is None or estimate <= 0:
        return None
    return round(recorded / estimate, 3)


class RowsWhenRead(Sequence[dict[str, Any]]):
    """A sequence of report rows that builds row ``k`` when it is read (:meth:`row`)."""

    def __len__(self) -> int:
        raise NotImplementedError

    def row(self, k: int) -> dict[str, Any]:
        raise NotImplementedError

    def rows(self, start: int, stop: int) -> list[dict[str, Any]]:
        """Rows ``start:stop`` (a report with many rows may build them in one pass)."""
        return [self.row(j) for j in range(start, stop)]

    def __getitem__(self, k):  # type: ignore[override]
        if isinstance(k, slice):
            start, stop, step = k.indices(len(self))
            return self.rows(start, max(start, stop)) if step == 1 else [self.row(j) for j in range(start, stop, step)]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        return self.row(k)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (self.row(k) for k in range(len(self)))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (RowsWhenRead, list)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  (like the list it stands for)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self)} rows)"


class UsageRows(RowsWhenRead):
    """One row per model call that recorded usage (calls in order), built when read; the totals
    of the report (:attr:`recorded_total`, :attr:`estimate_total`, :attr:`output_total`) are
    summed once, without building a row."""

    def __init__(self, view: SessionView, baselines: Sequence[int], predicted: Sequence[CallPrediction]) -> None:
        self._view, self._baselines, self._predicted = view, baselines, predicted
        messages = view.messages
        self._calls = array("l")  # positions in view.calls of the calls that recorded usage
        recorded_total = estimate_total = output_total = 0
        for k, call in enumerate(view.calls):
            usage = messages[call.message_index].usage
            recorded = usage.context_tokens if usage is not None else None
            if recorded is None:
                continue
            self._calls.append(k)
            recorded_total += recorded
            estimate_total += baselines[k]
            output_total += usage.output_tokens or 0
        self.recorded_total, self.estimate_total, self.output_total = recorded_total, estimate_total, output_total

    def __len__(self) -> int:
        return len(self._calls)

    def row(self, k: int) -> dict[str, Any]:
        """The ``k``-th row: the call, what the file recorded for it and our estimate."""
        c = self._calls[k]
        call = self._view.calls[c]
        usage = self._view.messages[call.message_index].usage
        assert usage is not None  # (only calls that recorded usage are listed)
        recorded, estimate = usage.context_tokens, self._baselines[c]
        return {
            "call": call.number,
            "message_index": call.message_index,
            "turn": call.turn,
            "input_tokens": usage.input_tokens,
            "cache_read_input_tokens": usage.cache_read_input_tokens,
            "cache_creation_input_tokens": usage.cache_creation_input_tokens,
            "output_tokens": usage.output_tokens,
            "recorded": recorded,
            "estimate": estimate,
            "ratio": ratio(recorded, estimate),
            "predicted": self._predicted[c].predicted_tokens,
        }


class CostRows(RowsWhenRead):
    """``{call, sidechain, model, recorded_cost}`` per priced call (main session and sidechains,
    in the order given), ``recorded_cost`` the cost's parts in dollars or None; built when read
    from arrays, so the calls (and their cache splits) need not be kept. :attr:`priced` counts
    the rows with a cost."""

    def __init__(self, calls: Sequence[CallMoney]) -> None:
        self._call = array("l")
        self._sidechain: list[str | None] = []
        self._model: list[str | None] = []
        self._priced = array("b")
        self._parts = array("d")  # COST_PARTS per row (zeros where there is no cost)
        self.priced = 0
        for c in calls:
            self.append(c.call, c.sidechain, c.model, c.recorded_cost)

    def append(self, call: int, sidechain: str | None, model: str | None, recorded_cost: Cost | None) -> None:
        """Add the row of one call (its number, chain, model and recorded cost)."""
        self._call.append(call)
        self._sidechain.append(sidechain)
        self._model.append(model)
        cost = None if recorded_cost is None else recorded_cost.as_json()
        if cost is not None and tuple(cost) != COST_PARTS:
            raise ValueError(f"a cost with the parts {sorted(cost)}, not {list(COST_PARTS)}")
        self._priced.append(cost is not None)
        self._parts.extend(cost.values() if cost is not None else _NO_PARTS)
        self.priced += cost is not None

    @classmethod
    def unpriced(cls, numbers: Sequence[int]) -> CostRows:
        """The rows of main-session calls ``numbers`` none of which has a model or a cost (what
        :meth:`__init__` makes of their :class:`CallMoney`, without them)."""
        rows = cls(())
        rows._call = array("l", numbers)
        rows._sidechain = rows._model = [None] * len(numbers)
        rows._priced = array("b", bytes(len(numbers)))
        return rows

    def __len__(self) -> int:
        return len(self._call)

    def row(self, k: int) -> dict[str, Any]:
        at = k * len(COST_PARTS)
        cost = dict(zip(COST_PARTS, self._parts[at : at + len(COST_PARTS)])) if self._priced[k] else None
        return {"call": self._call[k], "sidechain": self._sidechain[k], "model": self._model[k], "recorded_cost": cost}


class RecordedBill:
    """What the file's recorded usage cost, a call at a time: the :class:`CostRows` and the sums
    of the recorded costs, all calls and the sidechains' (added as ``Money.total`` and
    ``Money.sidechain_total`` add them, in the same order: the same Decimal). ``total`` and
    ``sidechains`` are None where no call of theirs was priced."""

    def __init__(self) -> None:
        self.rows = CostRows(())
        self._total = self._sidechains = Decimal(0)
        self._known = self._known_sidechains = False

    def add(self, call: int, sidechain: str | None, model: str | None, recorded_cost: Cost | None) -> None:
        self.rows.append(call, sidechain, model, recorded_cost)
        if recorded_cost is not None:
            self._total += recorded_cost.total
            self._known = True
            if sidechain is not None:
                self._sidechains += recorded_cost.total
                self._known_sidechains = True

    @property
    def total(self) -> Decimal | None:
        return self._total if self._known else None

    @property
    def sidechains(self) -> Decimal | None:
        return self._sidechains if self._known_sidechains else None


#: The parts of a cost in dollars, as ``Cost.as_json`` writes them.
COST_PARTS = ("input", "cache_read", "cache_write", "output", "total")
_NO_PARTS = (0.0,) * len(COST_PARTS)


__all__ = ["COST_PARTS", "CostRows", "RecordedBill", "RowsWhenRead", "UsageRows", "ratio"]
