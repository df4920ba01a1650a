"""Replay: what every model call of a session cost in input tokens, and would cost under a pipeline.

For model call k (the k-th assistant message), the *baseline* is the input it had: every message
before it (from the last compaction recorded before it, system messages always), plus the
request overhead (tool definitions, reply priming) and the reasoning re-sent within the turn:
:func:`inspector.analysis.baseline.baseline_tokens`. ``recorded_tokens`` is the usage the file
recorded for that call, when it has one. ``predicted_tokens`` is the whole input the call had,
the part the file does not show included (:mod:`inspector.analysis.predict`, fitted on earlier
calls only); ``tokens`` is that input under the pipeline (the part not in the file is never
dropped), applied at that call with that call's
turn as the current turn. A one-strategy pipeline with a fast path replays every call in about
one pass (:mod:`inspector.strategies.incremental`, proven equal to the per-call plans by a property test); the rest
plan each call on its own (O(calls x messages), in forked processes when asked).
``calls`` computes only a subset.

Every planned call also records how many leading tokens of its request repeat the previous
call's (``shared_tokens``, :mod:`inspector.analysis.requests`): what :mod:`inspector.analysis.money`
prices, so money never plans a call of its own. A fast path has no plans: where its decisions
have layouts (:mod:`inspector.strategies.layouts`) the shared prefix comes from those, in about
one pass too, when ``shared=True`` asks (or later, :func:`with_shared_tokens`); where they have
none ``shared=True`` plans every call instead.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from ..strategies.params import SettingsBase as Settings
from ..strategies.params import settings_model
from ..strategies.incremental import replay_tokens
from ..strategies.base import Working
from ..strategies.pipeline import parse_pipeline, run
from ..strategies.summarize import SharedCounts
from ..tokens import TokenTable
from ..units import SessionView
from .agent_removed import credited, credited_column, removed_per_call
from .baseline import baseline_tokens, resent_reasoning
from .compaction import CompactingValidity, compacting, replay_compacting, request_history, sizes_from_state, validity_of
from .compaction_requests import CompactShares
from .compaction_stages import MASKED, MaskedStates
from .context import recorded_input
from .edit_shares import EditShares
from .requests import LayoutChain, RequestChain, appended_op


@dataclass(frozen=True, slots=True)
class CallReplay:
    call: int  # 1-based model call number
    message_index: int  # the assistant message the call produced
    turn: int
    baseline_tokens: int  # the call's input the file shows, without any pipeline
    recorded_tokens: int | None  # Usage.context_tokens the file recorded for it, if any
    tokens: int  # the call's whole input under the pipeline (not_in_file included)
    predicted_tokens: int  # the call's whole input without any pipeline: baseline + not_in_file
    model: str | None = None  # the model that served the call, where the file says
    #: "call", or "summary": the summarisation call a compaction adds before call ``call``.
    kind: str = "call"
    #: The strategy whose compaction took effect just before this call (stateful replay), or None.
    compacted_by: str | None = None
    #: Leading tokens of this call's request (``tokens``) equal to the previous call's: the
    #: part the prompt cache can read (:mod:`.requests`). None: not known (a fast path's call,
    #: a summary call, or a subset whose previous call was not computed).
    shared_tokens: int | None = None

    @property
    def not_in_file(self) -> int:
        return self.predicted_tokens - self.baseline_tokens

    @property
    def saving(self) -> int:
        return self.predicted_tokens - self.tokens


class CallRows(Sequence[CallReplay]):
    """A stateless replay's rows (every one a model call, ``kind`` "call") kept as its columns:
    the call numbers, each call's tokens and shared prefix, beside the per-call facts every
    replay of the view shares (:func:`call_facts`). A :class:`CallReplay` is built when read: a
    compare at 50,000 messages reads one row of 22,000 per pipeline, and building them all took
    ~0.04 s a pipeline. Equal to a list of the same rows; pickled as that list."""

    __slots__ = ("_view", "_facts", "numbers", "tokens", "shares")

    def __init__(self, view: SessionView, facts: CallFacts, numbers: Sequence[int], tokens: Sequence[int],
                 shares: Sequence[int | None]) -> None:
        self._view, self._facts = view, facts
        self.numbers, self.tokens, self.shares = numbers, tokens, shares

    def __len__(self) -> int:
        return len(self.numbers)

    def __getitem__(self, k):  # type: ignore[override]
        if isinstance(k, slice):
            return [self._row(i) for i in range(*k.indices(len(self.numbers)))]
        if k < 0:
            k += len(self.numbers)
        if not 0 <= k < len(self.numbers):
            raise IndexError(k)
        return self._row(k)

    def __iter__(self) -> Iterator[CallReplay]:
        return map(self._row, range(len(self.numbers)))

    def _row(self, k: int) -> CallReplay:
        n, f = self.numbers[k], self._facts
        call, p = self._view.calls[n - 1], f.predicted[n - 1]
        return CallReplay(n, call.message_index, call.turn, f.baselines[n - 1], f.recorded[n - 1], self.tokens[k],
                          p.predicted_tokens, p.model, "call", None, self.shares[k])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (CallRows, list, tuple)):
            return NotImplemented
        return len(self) == len(other) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))

    def __reduce__(self):
        return list, (list(self),)

    def baseline_total(self) -> int:
        baselines = self._facts.baselines
        return sum(baselines[n - 1] for n in self.numbers)

    def predicted_total(self) -> int:
        predicted = self._facts.predicted
        return sum(predicted[n - 1].predicted_tokens for n in self.numbers)


@dataclass
class Replay:
    pipeline: tuple[str, ...]
    settings: Settings
    calls: list[CallReplay] | CallRows = field(default_factory=list)
    #: Model calls the session has; ``len(calls)`` is smaller when only a subset was computed.
    session_calls: int = 0

    @property
    def baseline_total(self) -> int:
        rows = self.calls
        return rows.baseline_total() if type(rows) is CallRows else sum(c.baseline_tokens for c in rows)

    @property
    def predicted_total(self) -> int:
        rows = self.calls
        return rows.predicted_total() if type(rows) is CallRows else sum(c.predicted_tokens for c in rows)

    @property
    def total(self) -> int:
        rows = self.calls
        return sum(rows.tokens) if type(rows) is CallRows else sum(c.tokens for c in rows)

    @property
    def saving(self) -> int:
        return self.predicted_total - self.total

    @property
    def savings_pct(self) -> float:
        base = self.predicted_total
        return 100.0 * self.saving / base if base else 0.0

    @property
    def complete(self) -> bool:
        rows = self.calls
        if type(rows) is CallRows:
            return len(rows) == self.session_calls
        return sum(1 for c in rows if c.kind == "call") == self.session_calls


class ReplayCancelled(Exception):
    """``cancelled()`` said stop (:func:`replay`, :func:`~inspector.analysis.money.session_money`)."""


def replay(
    view: SessionView,
    table: TokenTable,
    pipeline: Sequence[str] | str = (),
    settings: Settings | None = None,
    calls: Sequence[int] | None = None,
    progress: Callable[[int, int], None] | None = None,
    workers: int = 1,
    shared: bool = False,
    cancelled: Callable[[], bool] | None = None,
) -> Replay:
    """Per-call input tokens with and without ``pipeline``. ``calls``: the 1-based call numbers
    to compute (default: all). ``progress(done, total)`` is called as calls complete.
    ``cancelled()`` is asked before each call the serial and stateful paths plan (not by the
    fast path, which is one pass, nor by forked workers); True stops with :class:`ReplayCancelled`.

    ``workers > 1`` plans the calls in that many forked processes (they inherit the view and the
    table, so nothing is counted or pickled again) when there are enough calls to be worth it
    and the platform can fork; results are identical to the serial path. Only for callers
    without threads of their own (the CLI), since forking a threaded process is unsafe.
    ``shared``: every call gets its ``shared_tokens``: from the fast path's layouts (which
    give its tokens too), or, for a pipeline without them, by planning every call."""
    names = parse_pipeline(pipeline)
    settings = settings or settings_model()()
    numbers = list(range(1, len(view.calls) + 1)) if calls is None else sorted(set(calls))
    for n in numbers:
        if not 1 <= n <= len(view.calls):
            raise ValueError(f"model call {n} out of range: the session has {len(view.calls)} calls")
    if compacting(names):  # the history after a compaction is a state: replay call by call
        facts = call_facts(view, table)
        return _replay_compacting(view, table, names, settings, numbers, progress, facts.predicted, facts.hidden, shared,
                                  cancelled)
    tokens, shares = replay_columns(view, table, names, settings, numbers, progress, workers, shared, cancelled)
    return assemble(view, table, names, settings, numbers, tokens, shares)


def replay_columns(
    view: SessionView, table: TokenTable, names: tuple[str, ...], settings: Settings, numbers: Sequence[int],
    progress: Callable[[int, int], None] | None = None, workers: int = 1, shared: bool = False,
    cancelled: Callable[[], bool] | None = None,
) -> tuple[Sequence[int], Sequence[int | None]]:
    """:func:`replay`'s ``(tokens, shared_tokens)`` per call of ``numbers`` (1-based, sorted) of a
    stateless pipeline ``names``: two columns, no rows (a forked compare sends them back)."""
    facts = call_facts(view, table)
    predicted, hidden = facts.predicted, facts.hidden
    shares: list[int | None] = [None] * len(numbers)
    fast = None
    if names and shared:  # one pass over the fast path's layouts gives both (None: plan every call)
        found = _fast_requests(view, table, names, settings, facts, numbers)
        if found is not None:
            fast, shares = found
    elif names:
        fast = replay_tokens(view, table, names, settings, hidden, numbers)
    if not names or fast is not None:
        tokens = fast if fast is not None else [predicted[n - 1].predicted_tokens for n in numbers]
        if progress is not None:
            progress(len(numbers), len(numbers))
    elif workers > 1 and len(numbers) >= _PARALLEL_MIN_CALLS and "fork" in multiprocessing.get_all_start_methods():
        tokens, shares = _pipeline_tokens_forked(view, table, names, settings, hidden, numbers, progress, workers)
    else:
        tokens, shares = [], []
        chain = RequestChain(view, table)
        for done, n in enumerate(numbers, 1):
            if cancelled is not None and cancelled():
                raise ReplayCancelled(f"replay cancelled at call {n}")
            t, s = _pipeline_tokens(view, table, names, settings, n, hidden[n - 1], chain)
            tokens.append(t)
            shares.append(s)
            if progress is not None:
                progress(done, len(numbers))
    return credited_column(view, table, numbers, tokens), shares


def assemble(view: SessionView, table: TokenTable, names: tuple[str, ...], settings: Settings, numbers: Sequence[int],
             tokens: Sequence[int], shares: Sequence[int | None]) -> Replay:
    """The :class:`Replay` of the calls ``numbers`` from their :func:`replay_columns` (its rows
    built when read, :class:`CallRows`)."""
    return Replay(names, settings, CallRows(view, call_facts(view, table), numbers, tokens, shares), len(view.calls))


def with_shared_tokens(view: SessionView, table: TokenTable, result: Replay, cancelled: Callable[[], bool] | None = None) -> Replay:
    """Every call of ``result``'s pipeline with its ``shared_tokens``, as
    ``replay(..., shared=True)`` makes it: from the fast path's layouts when ``result`` is
    complete and they exist (its tokens are kept), else replayed again (``cancelled``: as
    :func:`replay`'s)."""
    rows = result.calls
    numbers = rows.numbers if type(rows) is CallRows else [c.call for c in rows]
    if result.pipeline and not compacting(result.pipeline) and len(numbers) == result.session_calls:
        found = _fast_requests(view, table, result.pipeline, result.settings, call_facts(view, table), numbers)
        if found is not None:
            found = found[1]
            if type(rows) is CallRows:
                return Replay(result.pipeline, result.settings, CallRows(view, call_facts(view, table), rows.numbers, rows.tokens,
                                                                         found), result.session_calls)
            out = Replay(result.pipeline, result.settings, session_calls=result.session_calls)
            # every field in order (dataclasses.replace costs ~10 us a call, 15 pipelines x every call in compare)
            out.calls = [CallReplay(c.call, c.message_index, c.turn, c.baseline_tokens, c.recorded_tokens, c.tokens,
                                    c.predicted_tokens, c.model, c.kind, c.compacted_by, s) for c, s in zip(result.calls, found)]
            return out
    return replay(view, table, result.pipeline, result.settings, shared=True, cancelled=cancelled)


def _fast_requests(view, table, names, settings, facts: CallFacts, numbers: Sequence[int]) -> tuple[list[int], list[int | None]] | None:
    """``(tokens, shared_tokens)`` of each call of ``numbers`` from the layouts of the fast path
    (:class:`.requests.LayoutChain`): a layout says what the request sends, so its total too
    (the property test checks both against the plans). The calls whose layout (or whose
    previous call's) is not known are planned, both of them, as :class:`.requests.RequestChain`
    needs. None: the pipeline has no fast path, or its fast path no layouts."""
    from ..strategies.layouts import PLAIN, replay_layouts, span_cuts

    got = replay_layouts(view, table, names, settings, facts.hidden)
    if got is None:
        return None
    f, layout_of = got
    chain = LayoutChain(view, table, f, [p.not_in_file for p in facts.predicted])
    direct = None if chain.with_reasoning else EditShares(chain.layouts, chain.prefix, view.calls, chain.turn_first, chain.codex)
    # the calls of a one-run pipeline answered in one pass from their runs (EditShares.span_lane), the rest below
    lane = span_cuts(f, names, settings, facts.hidden) if direct is not None and len(numbers) == len(view.calls) else None
    lane_shares, lane_sent = direct.span_lane(*lane, f.turns) if lane is not None else ((), ())
    if lane_shares and None not in lane_shares:  # (numbers: every call)
        overhead, hidden = table.overhead, facts.hidden
        return [overhead + h + s for h, s in zip(hidden, lane_sent)], lane_shares
    planned = RequestChain(view, table)
    overhead, hidden = table.overhead, facts.hidden
    stops, turns, prefix, ops = f.stops, f.turns, chain.prefix, chain.layouts.op
    # a call whose layout keeps the previous call's sends its request with the messages since
    # appended (appended_op): O(1), where no reasoning is re-sent and no Codex turn starts
    appending = not chain.with_reasoning
    codex = chain.codex
    tokens: list[int] = []
    out: list[int | None] = []
    plain = ops(PLAIN).sent
    last_n, last_layout = 0, None  # the last call and its layout: the next call's previous
    answered_n, answered_sent = 0, 0  # the last call answered from its layout, and what its request sends
    for n in numbers:
        if lane_shares and (lane_s := lane_shares[n - 1]) is not None:
            answered_n, answered_sent = n, lane_sent[n - 1]
            out.append(lane_s)
            tokens.append(overhead + hidden[n - 1] + answered_sent)
            continue
        layout = layout_of(n)
        before = (last_layout if last_n == n - 1 else layout_of(n - 1)) if n > 1 else None
        last_n, last_layout = n, layout
        got = None
        if answered_n == n - 1:
            sent_p = answered_sent
            if appending and layout is not None and not (codex and turns[n - 1] != turns[n - 2]):
                stop_p, stop_c = stops[n - 2], stops[n - 1]
                if before is layout or before == layout:  # appended_op's commonest answer, inline
                    if not (layout and layout[-1][1] > stop_p):
                        got = prefix[n - 2] + sent_p, sent_p + plain[stop_c] - plain[stop_p]
                else:
                    op = appended_op(before, layout, stop_p, stop_c)
                    if op is not None:
                        since = ops(op).sent
                        got = prefix[n - 2] + sent_p, sent_p + since[stop_c] - since[stop_p]
        else:
            sent_p = None
        if got is None and direct is not None:
            got = direct.call(n, layout, before, sent_p)
        if got is None and layout is not None and (n == 1 or before is not None):
            got = chain.head_dropped(n, before, layout) if n > 1 else None
            if got is None:
                got = (chain.shared(n, before, layout) if n > 1 else 0), chain.sent(n, layout)
        if got is not None:
            out.append(got[0])
            answered_n, answered_sent = n, got[1]
            tokens.append(overhead + hidden[n - 1] + answered_sent)
            continue
        if n > 1 and planned.last_call != n - 1:
            _pipeline_tokens(view, table, names, settings, n - 1, facts.hidden[n - 2], planned)
        t, s = _pipeline_tokens(view, table, names, settings, n, facts.hidden[n - 1], planned)
        tokens.append(t)
        out.append(s)
    return tokens, out


@dataclass(frozen=True)
class CallFacts:
    """What every replay of a view needs per model call, whatever the pipeline: computed once
    per (view, table) and kept on the view (compare replays a dozen pipelines on the same one)."""

    table: TokenTable
    baselines: list[int]
    predicted: list  # predict.CallPrediction per call
    #: Each plan's overhead beyond the table's: the part not in the file and the re-sent reasoning.
    hidden: list[int]
    recorded: list[int | None]


def call_facts(view: SessionView, table: TokenTable) -> CallFacts:
    """The :class:`CallFacts` of ``view`` counted with ``table``."""
    kept = view.__dict__.get("_call_facts")
    if kept is not None and kept.table is table:
        return kept
    from .predict import predictions  # predict builds on baseline_tokens above

    baselines = baseline_tokens(view, table)
    predicted = predictions(view, table, baselines)
    resent = resent_reasoning(view, table)
    hidden = [p.not_in_file + r for p, r in zip(predicted, resent)]
    recorded = [recorded_input(view, n) for n in range(1, len(view.calls) + 1)]
    kept = view.__dict__["_call_facts"] = CallFacts(table, baselines, predicted, hidden, recorded)
    return kept


def replay_and_validity(view: SessionView, table: TokenTable, names: tuple[str, ...], settings: Settings,
                        shared: bool = False) -> tuple[Replay, CompactingValidity]:
    """A compacting pipeline's :func:`replay` of every call and its every-call validity
    (:func:`.compaction.compacting_validity`) from one pass of the stateful replay."""
    facts = call_facts(view, table)
    checked: list = []
    result = _replay_compacting(view, table, names, settings, list(range(1, len(view.calls) + 1)), None, facts.predicted,
                                facts.hidden, shared, checked=checked)
    return result, validity_of(checked)


def _replay_compacting(view, table, names, settings, numbers, progress, predicted, hidden, shared=False,
                       cancelled=None, checked: list | None = None) -> Replay:
    """The stateful replay; ``shared``: each call gets its ``shared_tokens``, from its state's
    layout where the history is sized from the state (:class:`.compaction_requests.CompactShares`),
    else from every call's request built. ``checked``: gets every call validated
    (:func:`.compaction.replay_compacting` with ``validate``)."""
    wanted = set(numbers)
    out = Replay(names, settings, session_calls=len(view.calls))
    shares: dict[int, int | None] = {}
    keep = on_state = masked = counts = laid_out = None
    if shared and sizes_from_state(view, names):  # the requests follow from each call's state
        def build(n: int, state) -> Working:
            return request_history(view, table, names, settings, n, state, hidden[n - 1], masked, counts)

        masked = MaskedStates(view, table, settings) if names == MASKED else None  # one for the sizes and the layouts
        counts = SharedCounts()  # one for the replay's summaries and those of the requests built again
        laid_out = CompactShares(view, table, [p.not_in_file for p in predicted], build, masked.layout if masked else None)
        on_state = laid_out.put
    elif shared:
        chain = RequestChain(view, table)
        keep = lambda n, w: shares.__setitem__(n, chain.feed(n, w))  # noqa: E731
    removed = removed_per_call(view, table)
    calls = replay_compacting(view, table, names, settings, hidden, checked is not None, on_request=keep, on_state=on_state,
                              masked=masked, counts=counts)
    if laid_out is not None:
        shares = laid_out.shares()
    for c in calls:
        if checked is not None:
            checked.append(c)
        if cancelled is not None and cancelled():
            raise ReplayCancelled(f"replay cancelled at call {c.call}")
        if c.call in wanted:
            # a summary call the compaction adds has no counterpart without the pipeline
            p = predicted[c.call - 1]
            predicted_tokens, model = (p.predicted_tokens, p.model) if c.kind == "call" else (0, p.model)
            shared = shares.get(c.call) if c.kind == "call" else None
            tokens = credited(c.tokens, predicted_tokens, removed[c.call - 1]) if c.kind == "call" else c.tokens
            out.calls.append(CallReplay(c.call, c.message_index, c.turn, c.baseline_tokens, c.recorded_tokens, tokens,
                                        predicted_tokens, model, c.kind, c.compacted_by, shared))
    if progress is not None:
        progress(len(numbers), len(numbers))
    return out


_PARALLEL_MIN_CALLS = 200
_CHUNK = 32
_forked_job: tuple | None = None  # (view, table, names, settings, hidden), inherited by forked workers


def _pipeline_tokens(
    view: SessionView, table: TokenTable, names: tuple[str, ...], settings: Settings, n: int, not_in_file: int,
    chain: RequestChain,
) -> tuple[int, int | None]:
    """Call ``n``'s tokens under the pipeline and the leading tokens it shares with call n-1."""
    w, _, _ = run(view, table, names, settings, n, not_in_file)
    return w.total(), chain.feed(n, w)


def _forked_chunk(chunk: list[int]) -> list[tuple[int, int | None]]:
    view, table, names, settings, hidden = _forked_job  # type: ignore[misc]
    chain = RequestChain(view, table)
    first = chunk[0]
    if first > 1:  # the call before the chunk, for the first call's shared prefix
        _pipeline_tokens(view, table, names, settings, first - 1, hidden[first - 2], chain)
    return [_pipeline_tokens(view, table, names, settings, n, hidden[n - 1], chain) for n in chunk]


def _pipeline_tokens_forked(view, table, names, settings, hidden, numbers, progress, workers):
    """``(tokens, shared_tokens)`` per call of ``numbers``, planned in forked processes."""
    global _forked_job
    chunks = [numbers[i : i + _CHUNK] for i in range(0, len(numbers), _CHUNK)]
    _forked_job = (view, table, names, settings, hidden)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            tokens: list[int] = []
            shares: list[int | None] = []
            for part in pool.imap(_forked_chunk, chunks):
                tokens.extend(t for t, _ in part)
                shares.extend(s for _, s in part)
                if progress is not None:
                    progress(len(tokens), len(numbers))
    finally:
        _forked_job = None
    return tokens, shares


__all__ = ["CallFacts", "CallReplay", "CallRows", "Replay", "ReplayCancelled", "baseline_tokens", "call_facts", "replay", "with_shared_tokens"]
