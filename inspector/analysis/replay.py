"""Replay: what every model call of a session cost in input tokens, and would cost under a pipeline.

For model call k (the k-th assistant message), the *baseline* is the input it had: every message
before it (from the last compaction recorded before it, system messages always), plus the
request overhead (tool definitions, reply priming). It comes from prefix sums, in O(1) per call.
``recorded_tokens`` is the usage the file recorded for that call, when it has one. ``tokens``
is the input the call would have had under the pipeline, applied at that call with that call's
turn as the current turn: one plan per call, so a full replay costs O(calls x messages).
``calls`` computes only a subset (a sample first on huge sessions, the rest later).
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..strategies.base import Settings
from ..strategies.pipeline import parse_pipeline, run
from ..tokens import TokenTable
from ..units import SessionView
from .baseline import call_baselines, resent_reasoning
from .compaction import compacting, replay_compacting


@dataclass(frozen=True, slots=True)
class CallReplay:
    call: int  # 1-based model call number
    message_index: int  # the assistant message the call produced
    turn: int
    baseline_tokens: int  # the call's input without any pipeline
    recorded_tokens: int | None  # Usage.context_tokens the file recorded for it, if any
    tokens: int  # the call's input under the pipeline
    #: "call", or "summary": the summarisation call a compaction adds before call ``call``.
    kind: str = "call"
    #: The strategy whose compaction took effect just before this call (stateful replay), or None.
    compacted_by: str | None = None

    @property
    def saving(self) -> int:
        return self.baseline_tokens - self.tokens


@dataclass
class Replay:
    pipeline: tuple[str, ...]
    settings: Settings
    calls: list[CallReplay] = field(default_factory=list)
    #: Model calls the session has; ``len(calls)`` is smaller when only a subset was computed.
    session_calls: int = 0

    @property
    def baseline_total(self) -> int:
        return sum(c.baseline_tokens for c in self.calls)

    @property
    def total(self) -> int:
        return sum(c.tokens for c in self.calls)

    @property
    def saving(self) -> int:
        return self.baseline_total - self.total

    @property
    def savings_pct(self) -> float:
        base = self.baseline_total
        return 100.0 * self.saving / base if base else 0.0

    @property
    def complete(self) -> bool:
        return sum(1 for c in self.calls if c.kind == "call") == self.session_calls


def baseline_tokens(view: SessionView, table: TokenTable) -> list[int]:
    """The input tokens of every model call without pruning, in call order (:mod:`.baseline`)."""
    return call_baselines(view, table)


def replay(
    view: SessionView,
    table: TokenTable,
    pipeline: Sequence[str] | str = (),
    settings: Settings | None = None,
    calls: Sequence[int] | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
) -> Replay:
    """Per-call input tokens with and without ``pipeline``. ``calls``: the 1-based call numbers
    to compute (default: all). ``progress(done, total)`` is called as calls complete.

    ``workers > 1`` plans the calls in that many forked processes (they inherit the view and the
    table, so nothing is counted or pickled again) when there are enough calls to be worth it
    and the platform can fork; results are identical to the serial path. Only for callers
    without threads of their own (the CLI), since forking a threaded process is unsafe."""
    names = parse_pipeline(pipeline)
    settings = settings or Settings()
    numbers = list(range(1, len(view.calls) + 1)) if calls is None else sorted(set(calls))
    for n in numbers:
        if not 1 <= n <= len(view.calls):
            raise ValueError(f"model call {n} out of range: the session has {len(view.calls)} calls")
    if compacting(names):  # the history after a compaction is a state: replay call by call
        return _replay_compacting(view, table, names, settings, numbers, progress)
    baselines = baseline_tokens(view, table)
    if not names:
        tokens = [baselines[n - 1] for n in numbers]
        if progress is not None:
            progress(len(numbers), len(numbers))
    elif workers > 1 and len(numbers) >= _PARALLEL_MIN_CALLS and "fork" in multiprocessing.get_all_start_methods():
        tokens = _pipeline_tokens_forked(view, table, names, settings, numbers, progress, workers)
    else:
        tokens = []
        for done, n in enumerate(numbers, 1):
            tokens.append(_pipeline_tokens(view, table, names, settings, n))
            if progress is not None:
                progress(done, len(numbers))
    if names:  # reasoning re-sent within a turn is outside the messages a strategy plans
        resent = resent_reasoning(view, table)
        tokens = [t + resent[n - 1] for n, t in zip(numbers, tokens)]
    messages = view.messages
    out = Replay(names, settings, session_calls=len(view.calls))
    for n, t in zip(numbers, tokens):
        call = view.calls[n - 1]
        usage = messages[call.message_index].usage
        recorded = usage.context_tokens if usage is not None else None
        out.calls.append(CallReplay(n, call.message_index, call.turn, baselines[n - 1], recorded, t))
    return out


def _replay_compacting(view, table, names, settings, numbers, progress) -> Replay:
    wanted = set(numbers)
    out = Replay(names, settings, session_calls=len(view.calls))
    for c in replay_compacting(view, table, names, settings):
        if c.call in wanted:
            out.calls.append(CallReplay(c.call, c.message_index, c.turn, c.baseline_tokens, c.recorded_tokens, c.tokens, c.kind, c.compacted_by))
    if progress is not None:
        progress(len(numbers), len(numbers))
    return out


_PARALLEL_MIN_CALLS = 200
_CHUNK = 32
_forked_job: tuple | None = None  # (view, table, names, settings), inherited by forked workers


def _pipeline_tokens(view: SessionView, table: TokenTable, names: tuple[str, ...], settings: Settings, n: int) -> int:
    w, _, _ = run(view, table, names, settings, n)
    return w.total()


def _forked_chunk(chunk: list[int]) -> list[int]:
    view, table, names, settings = _forked_job  # type: ignore[misc]
    return [_pipeline_tokens(view, table, names, settings, n) for n in chunk]


def _pipeline_tokens_forked(view, table, names, settings, numbers, progress, workers) -> list[int]:
    global _forked_job
    chunks = [numbers[i : i + _CHUNK] for i in range(0, len(numbers), _CHUNK)]
    _forked_job = (view, table, names, settings)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            tokens: list[int] = []
            for part in pool.imap(_forked_chunk, chunks):
                tokens.extend(part)
                if progress is not None:
                    progress(len(tokens), len(numbers))
    finally:
        _forked_job = None
    return tokens


__all__ = ["CallReplay", "Replay", "baseline_tokens", "replay"]
