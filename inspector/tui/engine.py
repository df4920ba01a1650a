"""The TUI's bridge to the library: everything the workers compute, and nothing they draw.

A :class:`Snapshot` is an immutable request (session view, token table, pipeline state, replay
cursor, generation); :func:`compute_plan` turns it into a :class:`PlanResult` with the rows the
message list shows, the gauge's tokens by kind and the provider violations by message. It runs
in a worker thread and never touches a widget. Replays go through the public API
(``inspector.replay``: the view and table the app holds are passed as an Analysis, never counted
again); plans take ``inspector.plan``'s two steps with the call's overhead remembered per view
(:class:`ViewInfo`), and the last few results are kept, so a key that returns to an earlier
pipeline costs no plan. This module only arranges results for display. No Textual here.
"""

from __future__ import annotations

import json
import threading
import time
from collections import OrderedDict
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

import inspector

from ..analysis.context import recorded_input
from ..analysis.planning import CheckedPlan
from ..analysis.agent_removed import PlanTotal, plan_total
from ..analysis.predict import not_in_file_at, resent_at
from ..analysis.replay import call_facts
from ..analysis.session import of as analysis_of
from ..model import ImageBlock, Message, RawBlock, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from ..providers import Violation, validity
from ..strategies import Inserted, Status
from ..strategies import plan as run_plan
from ..tokens import TokenTable, count_session
from ..analysis.breakdown import CATEGORY_LABELS, MESSAGE_CATEGORIES, window_categories
from ..units import SUMMARY, TRUNCATED_IN_SOURCE, SessionView, UnitKind
from .state import PipelineState
from .text import one_line

#: Gauge categories, in gauge order: (key, label). "overhead" is tool definitions + reply priming.
CATEGORIES = tuple((key, CATEGORY_LABELS[key]) for key in (*MESSAGE_CATEGORIES, "not_in_file", "overhead"))
_CATEGORY_INDEX = {key: k for k, (key, _) in enumerate(CATEGORIES)}
_KIND_CODE = {UnitKind(key): code for code, key in enumerate(MESSAGE_CATEGORIES)}  # a message's category
Row = int | Inserted


@dataclass(frozen=True)
class Snapshot:
    """Everything a plan depends on, frozen at the moment the user changed something."""

    generation: int
    view: SessionView
    table: TokenTable
    state: PipelineState
    at_call: int | None


@dataclass(frozen=True, slots=True)
class RuleBreak:
    provider: str  # "openai" / "anthropic"
    text: str  # the provider's error text


@dataclass
class PlanResult:
    snapshot: Snapshot
    plan: CheckedPlan | None
    rows: Sequence[Row]
    row_of: Sequence[int]  # message index -> row in ``rows`` (-1: not in this context)
    by_category: list[int]  # tokens after the plan per CATEGORIES entry
    before_by_category: list[int]
    sent_messages_before: int  # tokens of the messages the call would send, before pruning
    violations: dict[str, list[Violation]] = field(default_factory=dict)
    breaks: dict[int, list[RuleBreak]] = field(default_factory=dict)  # source index -> rules broken
    inserted_breaks: dict[int, list[RuleBreak]] = field(default_factory=dict)  # row -> rules broken
    error: str | None = None
    seconds: float = 0.0
    #: The call total and saving as replay has them (None: no plan); the gauge's "not in file"
    #: after the plan carries its credit (:mod:`inspector.analysis.agent_removed`).
    total: PlanTotal | None = None
    #: The reasoning the call re-sends, part of the plan's ``not_in_file`` (which is shown as
    #: "not in file" proper plus this, as ``info`` counts them).
    resent: int = 0

    @property
    def generation(self) -> int:
        return self.snapshot.generation

    @property
    def tokens_before(self) -> int:
        return self.plan.tokens_before if self.plan else 0

    @property
    def tokens_after(self) -> int:
        return self.total.tokens_after if self.total is not None else 0

    def stage_saving(self, stage) -> int:
        """What ``stage`` of the plan saved, as replay has it (the agent's removals credited)."""
        total = self.total
        if total is None:
            return stage.tokens_before - stage.tokens_after
        return total.shown(stage.tokens_before) - total.shown(stage.tokens_after)

    @property
    def valid(self) -> dict[str, bool]:
        return validity(self.violations)


#: Plan results kept per view (a strategy toggled off again, or a budget stepped back, is shown
#: without planning again; and what :mod:`.speculate` planned ahead: the ~13 changes one key away).
#: A result without inserted messages keeps its rows as ranges: 2-4 MB each at 50,000 messages.
KEPT_RESULTS = 16


class ViewInfo:
    """Per-message facts the list draws, computed lazily and kept for the view's lifetime, and
    what the planning worker can reuse between changes of the same view: the overhead a call
    adds that no strategy can drop, and the last few plan results."""

    def __init__(self, view: SessionView) -> None:
        self.view = view
        n = len(view)
        units = view.units
        self.category = bytearray(_KIND_CODE[units[view.unit_of[i]].kind] for i in range(n))
        self._previews: dict[int, str] = {}
        self._tools: dict[int, str] = {}
        self._hidden: dict[int | None, int] = {}
        self._resent: dict[int | None, int] = {}
        self._hidden_table: TokenTable | None = None
        self._results: OrderedDict[tuple, PlanResult] = OrderedDict()
        self._results_lock = threading.Lock()
        self._of_kind: list[list[int]] | None = None
        self._sent_by_kind: dict[int, list[int]] = {}  # stop -> tokens per kind before any plan

    def of_kind(self, stop: int) -> list[list[int]]:
        """Per unit-kind code, the indices of that kind's messages before ``stop``."""
        if self._of_kind is None:
            lists: list[list[int]] = [[] for _ in _KIND_CODE]
            for i, code in enumerate(self.category):
                lists[code].append(i)
            self._of_kind = lists
        return [idx if not idx or idx[-1] < stop else idx[: bisect_left(idx, stop)] for idx in self._of_kind]

    def sent_by_kind(self, table: TokenTable, stop: int) -> list[int]:
        """Tokens per unit kind of the messages before ``stop`` (in ``table``'s counts), once per
        table and stop."""
        if table is not self._hidden_table:
            self.hidden_at(table, None)  # resets what was kept for the previous table
        sums = self._sent_by_kind.get(stop)
        if sums is None:
            get = table.totals.__getitem__
            sums = self._sent_by_kind[stop] = [sum(map(get, idx)) for idx in self.of_kind(stop)]
        return sums

    def hidden_at(self, table: TokenTable, at_call: int | None) -> int:
        """What a plan at ``at_call`` adds to its overhead (not in file + re-sent reasoning), as
        :func:`inspector.plan` computes it, once per table (at 50,000 messages it walks every
        call: ~0.1 s, which every key would otherwise pay)."""
        if table is not self._hidden_table:
            self._hidden, self._resent, self._hidden_table, self._sent_by_kind = {}, {}, table, {}
        hidden = self._hidden.get(at_call)
        if hidden is None:
            view = self.view
            call = view.call_for(at_call) if at_call is not None else None
            hidden = call_facts(view, table).hidden[call.number - 1] if call is not None else not_in_file_at(view, table, at_call)
            self._hidden[at_call] = hidden
        return hidden

    def resent_at(self, table: TokenTable, at_call: int | None) -> int:
        """The re-sent reasoning within :meth:`hidden_at` (:func:`inspector.analysis.predict.resent_at`)."""
        self.hidden_at(table, at_call)  # resets what was kept for the previous table
        resent = self._resent.get(at_call)
        if resent is None:
            resent = self._resent[at_call] = resent_at(self.view, table, at_call)
        return resent

    def kept_result(self, snap: Snapshot) -> PlanResult | None:
        """A result planned earlier for the same table, pipeline, settings and call, re-stamped
        with ``snap``'s generation."""
        key = result_key(snap)
        with self._results_lock:
            kept = self._results.get(key)
            if kept is None or kept.snapshot.table is not snap.table or kept.snapshot.view is not snap.view:
                return None
            self._results.move_to_end(key)
        return replace(kept, snapshot=snap, seconds=0.0)

    def has_result(self, snap: Snapshot) -> bool:
        """Whether :meth:`kept_result` would find ``snap``'s plan (without marking it used)."""
        kept = self._results.get(result_key(snap))
        return kept is not None and kept.snapshot.table is snap.table and kept.snapshot.view is snap.view

    def keep_result(self, result: PlanResult) -> None:
        key = result_key(result.snapshot)
        with self._results_lock:  # the key's worker and the speculating one both keep results
            self._results[key] = result
            self._results.move_to_end(key)
            while len(self._results) > KEPT_RESULTS:
                self._results.popitem(last=False)

    def keep_from(self, old: ViewInfo, upto: int) -> None:
        """Reuse ``old``'s previews and tool names of messages before ``upto`` (a followed
        session changed only the messages from ``upto`` on)."""
        self._previews = {i: t for i, t in old._previews.items() if i < upto}
        self._tools = {i: t for i, t in old._tools.items() if i < upto}

    def preview(self, i: int) -> str:
        text = self._previews.get(i)
        if text is None:
            text = preview_of(self.view.messages[i])
            self._previews[i] = text
        return text

    def tool(self, i: int) -> str:
        name = self._tools.get(i)
        if name is None:
            names = self.view.tool_names[i]
            name = ",".join(dict.fromkeys(names)) if names else ""
            self._tools[i] = name
        return name

    def truncated_in_source(self, i: int) -> bool:
        return bool(self.view.flags[i] & TRUNCATED_IN_SOURCE)

    def is_summary(self, i: int) -> bool:
        return bool(self.view.flags[i] & SUMMARY)


def preview_of(message: Message, limit: int = 240) -> str:
    """One line that says what a message is: its text, its tool calls, or its results. Thinking
    comes last (marked ``[thinking]``) so a long chain of thought never pushes the answer or the
    tool call out of the line."""
    parts: list[str] = []
    budget = limit
    # sorted() is stable: the other blocks keep their order, thinking blocks follow them
    for block in sorted(message.content, key=lambda b: isinstance(b, ThinkingBlock)):
        if budget <= 0:
            break
        if isinstance(block, TextBlock):
            piece = block.text[:budget + 8]
        elif isinstance(block, ToolCallBlock):
            piece = f"{block.name}({block.arguments[:budget + 8]})"
        elif isinstance(block, ToolResultBlock):
            content = block.content if isinstance(block.content, str) else block.text
            piece = ("ERROR " if block.is_error else "") + content[:budget + 8]
        elif isinstance(block, ImageBlock):
            size = f" {block.width}x{block.height}" if block.width and block.height else ""
            piece = f"[image{size} {block.media_type or ''}]".replace(" ]", "]")
        elif isinstance(block, ThinkingBlock):
            piece = "[thinking]" if block.redacted else f"[thinking] {block.thinking[:60]}"
        elif isinstance(block, RawBlock):
            piece = f"[{block.raw.get('type', 'block')}] {block.text[:budget]}"
        else:  # pragma: no cover - the Block union is closed
            piece = ""
        if piece.strip():
            parts.append(piece)
            budget -= len(piece)
    if not parts:
        return "(empty)"
    return one_line("  ".join(parts), limit)


@dataclass(frozen=True, slots=True)
class RowsUpTo(Sequence[int]):
    """``row_of`` of a plan that inserts nothing: message ``i`` is row ``i`` before ``stop``, and
    in no row after it (-1). Two numbers, where a list of 50,000 was 2 MB per kept result."""

    stop: int
    n: int

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(self.n))]
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i if i < self.stop else -1


def build_rows(plan: CheckedPlan) -> tuple[Sequence[Row], Sequence[int]]:
    """The list's rows for a plan: every source message the call saw, in order, with inserted
    messages where they are sent (the same order as :meth:`Plan.decisions`, without formatting
    any reason)."""
    n = len(plan.view)
    if not inserted_of(plan):  # every message before the stop, in order: ranges, not lists
        return range(plan.stop), RowsUpTo(plan.stop, n)
    rows: list[Row] = []
    row_of = [-1] * n
    next_source = 0
    append = rows.append
    for slot in plan.sequence:
        if type(slot) is int:
            while next_source <= slot:
                row_of[next_source] = len(rows)
                append(next_source)
                next_source += 1
        else:
            append(slot)
    while next_source < plan.stop:
        row_of[next_source] = len(rows)
        append(next_source)
        next_source += 1
    return rows, row_of


def inserted_of(plan: CheckedPlan) -> list:
    """``plan.inserted``, without walking a sequence of source messages only (the sequence holds
    each live message once and the inserted ones: counting the live ones is done in C)."""
    return plan.inserted if len(plan.sequence) != plan.live.count(1) else []


def result_key(snap: Snapshot) -> tuple:
    """What a plan result depends on: the counts, the pipeline and settings, the call."""
    return (id(snap.table), snap.state.pipeline, snap.state.settings, snap.at_call)


def compute_plan(snap: Snapshot, info: ViewInfo) -> PlanResult:
    """Plan the snapshot and arrange the result for display (runs in a worker thread); a
    result planned before for the same inputs is reused (:meth:`ViewInfo.kept_result`)."""
    t0 = time.perf_counter()
    kept = info.kept_result(snap)
    if kept is not None:
        kept.seconds = time.perf_counter() - t0
        return kept
    result = _compute_plan(snap, info)
    result.seconds = time.perf_counter() - t0
    if result.plan is not None and result.error is None:
        info.keep_result(result)
    return result


def _compute_plan(snap: Snapshot, info: ViewInfo) -> PlanResult:
    state = snap.state
    try:
        # inspector.plan's own two steps, with the call's overhead computed once per table
        hidden = info.hidden_at(snap.table, snap.at_call)
        plan = CheckedPlan.of(run_plan(snap.view, snap.table, state.pipeline, state.settings, snap.at_call, hidden))
    except Exception as exc:  # a strategy bug must not take the UI down: show it
        return PlanResult(snap, None, [], [-1] * len(snap.view), [0] * len(CATEGORIES), [0] * len(CATEGORIES), 0,
                          error=f"{type(exc).__name__}: {exc}")
    rows, row_of = build_rows(plan)
    after, before = _by_category(plan, info)
    sent_before = sum(before)
    overhead = snap.table.overhead
    after[_CATEGORY_INDEX["overhead"]] = overhead
    before[_CATEGORY_INDEX["overhead"]] = overhead
    total = plan_total(plan)
    before[_CATEGORY_INDEX["not_in_file"]] = plan.not_in_file
    after[_CATEGORY_INDEX["not_in_file"]] = plan.not_in_file + total.credit
    result = PlanResult(snap, plan, rows, row_of, after, before, sent_before, total=total,
                        resent=info.resent_at(snap.table, snap.at_call))
    try:
        violations = plan.violations
    except Exception as exc:  # a validator bug must not take the UI down: say so, keep the plan
        violations = {}
        result.error = f"validation unavailable: {type(exc).__name__}: {exc}"
    result.violations = violations
    for provider, items in violations.items():
        for v in items:
            source, text = v.source, v.message
            if source is not None:
                result.breaks.setdefault(source, []).append(RuleBreak(provider, text))
            else:
                pos = v.index
                row = _row_of_position(plan, rows, pos) if pos is not None else None
                if row is not None:  # an inserted message's row
                    result.inserted_breaks.setdefault(row, []).append(RuleBreak(provider, text))
    return result


def _by_category(plan: CheckedPlan, info: ViewInfo) -> tuple[list[int], list[int]]:
    """Tokens per gauge category of the messages the call saw (before ``plan.stop``), after the
    plan and before it (:func:`~inspector.analysis.breakdown.window_categories`; the before sums
    are kept per call by ``info``)."""
    stop = plan.stop
    by, status, category = plan.by, plan.status, info.category
    not_sent: list[tuple[int, int]] = []  # dropped "by source": the agent compacted them away
    i = -1
    while True:  # list.index finds the few messages dropped by source at C speed
        try:
            i = by.index("source", i + 1, stop)
        except ValueError:
            break
        if status[i] is Status.DROPPED:
            not_sent.append((i, category[i]))
    before, after = window_categories(
        info.of_kind(stop), plan.table.totals.__getitem__, plan.tokens_after_of.__getitem__,
        [(item.kind, item.tokens) for item in inserted_of(plan)], not_sent=not_sent,
        before=info.sent_by_kind(plan.table, stop))
    rest = [0] * (len(CATEGORIES) - len(MESSAGE_CATEGORIES))
    return after + rest, before + rest


def _row_of_position(plan: CheckedPlan, rows: Sequence[Row], position: int) -> int | None:
    """The row of the ``position``-th message the plan sends (0-based), or None."""
    if not 0 <= position < len(plan.sequence):
        return None
    slot = plan.sequence[position]
    if type(slot) is int:
        return None
    for k, r in enumerate(rows):
        if r is slot:
            return k
    return None


# --- replay ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class CallPoint:
    call: int  # 1-based
    baseline: int  # the whole input without a pipeline (predicted_tokens: the part not in the file included)
    tokens: int
    recorded: int | None
    compacted_by: str | None = None  # the strategy whose compaction took effect just before the call


def replay_order(n_calls: int, first: int = 160) -> list[int]:
    """Call numbers in the order a progressive replay computes them: ``first`` evenly spaced
    calls (so the chart has a shape at once), then every other call."""
    if n_calls <= 0:
        return []
    if n_calls <= first:
        return list(range(1, n_calls + 1))
    step = n_calls / first
    sample = sorted({min(n_calls, 1 + int(k * step)) for k in range(first)} | {n_calls})
    chosen = set(sample)
    return sample + [c for c in range(1, n_calls + 1) if c not in chosen]


def replay_points(view: SessionView, table: TokenTable, state: PipelineState, calls: Sequence[int]) -> list[CallPoint]:
    """Baseline and pipeline input tokens of model calls ``calls`` (through inspector.replay)."""
    result = inspector.replay(analysis_of(view, table), state.pipeline, settings=state.settings, calls=list(calls))
    return [CallPoint(c.call, c.predicted_tokens, c.tokens, c.recorded_tokens, c.compacted_by)
            for c in result.calls if c.kind == "call"]


#: What the file recorded as the input of a model call (the totals bar shows it beside the estimate).
recorded_at = recorded_input


# --- counting -------------------------------------------------------------------------------

def count(messages: Sequence[Message], tools, encoding: str, profile: str, previous: TokenTable | None = None,
          keep: int | None = None, progress: Callable[[int, int], None] | None = None,
          cancelled: Callable[[], bool] | None = None) -> TokenTable:
    """Count ``messages``; reuse ``previous`` counts for the first ``keep`` messages."""
    return count_session(messages, tools, encoding=encoding, profile=profile, previous=first_counts(previous, keep),
                         progress=progress, cancelled=cancelled)


def first_counts(previous: TokenTable | None, keep: int | None) -> TokenTable | None:
    """``previous`` cut to its first ``keep`` messages (the rest changed and must be counted again)."""
    if previous is not None and keep is not None and keep < len(previous.counts):
        return TokenTable(previous.encoding, previous.profile, previous.exact, previous.counts[:keep],
                          previous.totals[:keep], previous.prefix[: keep + 1], previous.tools, previous.reply_priming)
    return previous


# --- detail ---------------------------------------------------------------------------------

#: Content above this size is shown as it is, not re-indented as JSON (keeps opening instant).
PRETTY_LIMIT = 2_000_000


def pretty_json(text: str) -> str:
    """``text`` re-indented when it is a JSON object or array (and not huge); else unchanged."""
    s = text.strip()
    if len(s) > PRETTY_LIMIT or not s or s[0] not in "[{":
        return text
    try:
        return json.dumps(json.loads(s), indent=2, ensure_ascii=False)
    except ValueError:
        return text


def _head(text: str, max_chars: int | None) -> tuple[str, bool]:
    if max_chars is None or len(text) <= max_chars:
        return text, False
    return text[:max_chars], True


def _body(text: str, max_chars: int | None) -> str:
    head, cut = _head(text, max_chars)
    if cut:
        return head + f"\n… {len(text) - len(head):,} more characters (enter opens the full message)"
    return pretty_json(text)


def detail_sections(message: Message, counts: Iterable[int] | None = None, max_chars: int | None = None) -> list[tuple[str, str]]:
    """(heading, body) for each content block of a message: text, pretty JSON arguments and
    results, image and thinking summaries. Body text is raw: the viewer escapes it. With
    ``max_chars`` each body is cut there (a preview that never parses a huge block)."""
    counts = list(counts) if counts is not None else []
    out: list[tuple[str, str]] = []
    for k, block in enumerate(message.content):
        tokens = f" · {counts[k]:,} tokens" if k < len(counts) else ""
        if isinstance(block, TextBlock):
            out.append((f"text{tokens}", _head(block.text, max_chars)[0]))
        elif isinstance(block, ToolCallBlock):
            out.append((f"tool call {block.name} (id {block.id}){tokens}", _body(block.arguments, max_chars)))
        elif isinstance(block, ToolResultBlock):
            err = " · is_error" if block.is_error else ""
            content = block.content if isinstance(block.content, str) else block.text
            extra = ""
            if not isinstance(block.content, str):
                images = sum(1 for p in block.content if isinstance(p, ImageBlock))
                extra = f" · {images} image part(s)" if images else ""
            out.append((f"tool result for {block.tool_call_id}{err}{extra}{tokens}", _body(content, max_chars)))
        elif isinstance(block, ImageBlock):
            size = f"{block.width}x{block.height}" if block.width and block.height else "size unknown"
            out.append((f"image{tokens}", f"{block.media_type or 'image'}, {size}, {block.source_kind}, {len(block.data):,} characters of data (not shown)"))
        elif isinstance(block, ThinkingBlock):
            body = "(redacted)" if block.redacted else _head(block.thinking, max_chars)[0]
            out.append((f"thinking{tokens} (not re-sent to the model)", body))
        elif isinstance(block, RawBlock):
            body = block.text or json.dumps(block.raw, indent=2, ensure_ascii=False)
            out.append((f"{block.raw.get('type', 'raw')} block{tokens}", _head(body, max_chars)[0]))
    if not out:
        out.append(("(no content)", ""))
    return out
