"""What each model call really received: the part the file does not show, and the whole input.

Agents send more than their transcripts record: Claude Code's system prompt, tool definitions,
CLAUDE.md and ``<system-reminder>`` blocks, Codex's tool definitions and re-sent encrypted
reasoning. Where the file records usage, that gap is measured, not guessed:

``predicted_tokens`` of call k = ``offset + scale x baseline_k``, fitted on the usage recorded
for *earlier* calls of the same context only (never call k or later, so the same figure holds
while following a live session), where ``baseline_k`` is the inspector's own count of what the
file shows was sent (:func:`inspector.analysis.replay.baseline_tokens`).

The fit: ``offset`` is the residual (recorded - counted) of the latest earlier call that
recorded usage, ``scale`` is 1. Measured on the real Claude Code and Codex transcripts
(bench/bench_truth.py), this beat a scale fitted on recent deltas (3, 5 or 10 calls) and a
least-squares line over the last 5 calls: the hidden part is a prefix plus injections that
accumulate, so the newest residual is the best guide to the next one. A compaction (a summary
that starts the context) resets the fit; until the new context records usage, the offset is the
first residual of the context before it (the agent's own prefix, without the injections the
compaction removed).

Where nothing earlier is recorded, the offset is a documented typical size for the agent
(:data:`TYPICAL`), labelled "typical", or 0. A typical size is the part a session's *first* call
does not show; a transcript that starts mid-session (its first entry continues a record the file
does not hold, :data:`~inspector.model.UNSEEN_START`) was sent the conversation before it as
well, of a size only its first call's own record states: that call's offset is its own recorded -
counted, labelled "own record", and its context's first residual is not taken for the agent's
prefix after a compaction (the typical is). ``not_in_file`` (predicted - baseline) is the
*not in file* unit every total, budget and strategy trigger includes
(:class:`~inspector.units.UnitKind.NOT_IN_FILE`); only ``baseline_tokens`` leaves it out.
Pure functions, no I/O.
"""

from __future__ import annotations

import bisect
import copy
import re
from dataclasses import dataclass
from typing import Literal

from ..model import STATED_HIDDEN, UNSEEN_START, Session
from ..tokens import TokenTable
from ..tokens.models import tokenizer_for
from ..units import SessionView
from .baseline import baseline_tokens, next_resent_reasoning, resent_reasoning
from .context import system_prefix_at
from .memo import kept, kept_list
from .session_facts import agent_of, agent_version_of, call_model, continues_context, session_model

Basis = Literal["recorded", "before compaction", "stated", "typical", "own record", "none"]


@dataclass(frozen=True, slots=True)
class Typical:
    agent: str
    version_prefix: str  # "" matches every version
    tokens: int
    source: str
    #: The lowest version the entry is for ((2, 1, 100): 2.1.100 and later; () any), since
    #: prefixes cannot tell 2.1.1x from 2.1.1xx.
    since: tuple[int, ...] = ()
    #: "typical" (a median of public transcripts) or "stated" (the file's own figure, :data:`STATED_HIDDEN`).
    kind: str = "typical"
    #: The tokenizer of the models the entry is for (:func:`inspector.tokens.models.tokenizer_for`:
    #: "claude" up to Claude 4.6, "claude_4_7" from 4.7 on); "" every model. The same hidden prompt
    #: is ~1.3x more tokens in the newer tokenizer (CLAUDE_4_7_O200K_SCALE / CLAUDE_O200K_SCALE).
    tokenizer: str = ""


#: The part of the first call a file does not show, by agent and version (first match wins),
#: where nothing is recorded yet. Each figure is the median of ``recorded - counted`` at the first
#: recorded call of public main-session transcripts (cl100k_base unless the entry names another; sub-agent
#: files left out). It varies with the user's CLAUDE.md and MCP tools, so it is only a starting
#: point: the first recorded call replaces it.
TYPICAL: tuple[Typical, ...] = (
    Typical(
        "claude_code", "2.0.", 17_900,
        "median first-call gap of 3 public Claude Code 2.0.26-2.0.76 transcripts (17,638 to 23,842: "
        "system prompt, tool definitions, CLAUDE.md)",
    ),
    Typical(
        "claude_code", "2.1.", 18_200,
        "median of 2 public repositories' median first-call gaps of Claude Code 2.1.100+ main sessions on "
        "Claude models up to 4.6 (18,504 over 25 Opus 4.6 sessions, 17,919 over 4 Sonnet 4.6 sessions; 17,869 to "
        "21,150: their older tokenizer counts the same prompt ~1.3x smaller)",
        since=(2, 1, 100), tokenizer="claude",
    ),
    Typical(
        "claude_code", "2.1.", 25_200,
        "median first-call gap of 15 distinct public Claude Code 2.1.101-2.1.218 sessions (18,477 to 26,648: "
        "system prompt, tool definitions, CLAUDE.md, MCP tools; counted with the model's tokenizer); used for "
        "Claude 4.7+ models (5 public repositories' medians 12,811 to 27,367) and where the model is unknown",
        since=(2, 1, 100),
    ),
    Typical(
        "claude_code", "2.1.", 29_900,
        "median first-call gap of 8 public Claude Code 2.1.7-2.1.217 transcripts (18,514 to 44,372: "
        "system prompt, tool definitions, CLAUDE.md, MCP tools); used below 2.1.100",
    ),
    Typical(
        "claude_code", "", 26_400,
        "median first-call gap of 11 public Claude Code 2.0.26-2.1.217 transcripts (17,638 to 44,372)",
    ),
    Typical(
        "codex", "0.40.", 2_650,
        "median first-call gap of 2 public Codex 0.40 rollouts (2,632 and 2,668: tool definitions; "
        "the instructions are in the file)",
    ),
    Typical(
        "codex", "", 6_200,
        "median of 5 public repositories' median first-call gaps of Codex 0.118-0.145 main sessions "
        "(5,714 to 18,959; 75 distinct first calls, 5,271 to 19,739: tool definitions, MCP tools)",
    ),
    Typical(
        "gemini-cli", "", 12_100,
        "median first-call gap of 4 public Gemini CLI sessions of 2025-10 to 2026-02 (5,353 to 12,858: "
        "system prompt, tool definitions, GEMINI.md)",
    ),
)


def stated_hidden(session: Session) -> Typical | None:
    """What the file itself says its requests send beyond what it shows (:data:`STATED_HIDDEN`),
    as a :class:`Typical` of kind "stated"; None where it says nothing (or nothing readable)."""
    stated = session.extra.get(STATED_HIDDEN)
    if isinstance(stated, (list, tuple)) and len(stated) == 2 and type(stated[0]) is int and stated[0] >= 0 \
            and isinstance(stated[1], str):
        return Typical(agent_of(session) or "", "", stated[0], stated[1], kind="stated")
    return None


def typical_for(agent: str | None, version: str | None, model: str | None = None) -> Typical | None:
    """The first :data:`TYPICAL` entry for ``agent`` at ``version`` whose tokenizer is ``model``'s
    (an entry for one tokenizer is skipped where the model is not known)."""
    if agent is None:
        return None
    family = tokenizer_for(model) if model else None
    for entry in TYPICAL:
        if entry.agent == agent and (version or "").startswith(entry.version_prefix):
            if entry.since and _version_numbers(version) < entry.since:
                continue
            if entry.tokenizer and entry.tokenizer != family:
                continue
            return entry
    return None


def _version_numbers(version: str | None) -> tuple[int, ...]:
    """``"2.1.108"`` -> (2, 1, 108); the leading numbers only, a part's suffix ending them
    (``"0.145.0-alpha.18"`` -> (0, 145, 0), ``"2.1.108-beta"`` -> (2, 1, 108))."""
    numbers: list[int] = []
    for part in (version or "").split("."):
        digits = re.match(r"\d+", part)
        if digits is None:
            break
        numbers.append(int(digits.group()))
        if digits.end() < len(part):
            break
    return tuple(numbers)


@dataclass(frozen=True, slots=True)
class Fit:
    """``predicted = offset + scale x baseline`` for one call, and how it was inferred."""

    offset: int
    scale: float
    #: Earlier calls of this context that recorded usage (the data the fit had).
    calls: int
    basis: Basis
    #: The call the offset comes from: (call, recorded, counted); None for typical and none.
    anchor: tuple[int, int, int] | None = None
    typical: Typical | None = None
    #: Added to the anchor's residual: what the results a microcompact cleared since the anchor
    #: were counted above the input their calls recorded (:func:`cleared_excess`).
    cleared_excess: int = 0

    @property
    def how(self) -> str:
        """One line saying where the offset comes from ("inferred: recorded 18,607 at call 1 minus 292 counted")."""
        if self.basis == "own record" and self.anchor is not None:
            call, recorded, counted = self.anchor
            return (f"the file starts mid-session: the conversation before it is not in the file; recorded "
                    f"{recorded:,} at this call (call {call}) minus {counted:,} counted")
        if self.anchor is not None:
            call, recorded, counted = self.anchor
            when = "inferred" if self.basis == "recorded" else "inferred before the compaction"
            cleared = (f", plus {self.cleared_excess:,} the cleared results were counted above what they added"
                       if self.cleared_excess else "")
            return f"{when}: recorded {recorded:,} at call {call} minus {counted:,} counted{cleared}"
        if self.typical is not None:
            return f"{self.typical.kind}: {self.typical.source}"
        return "nothing recorded and no typical size known for this agent"

    def predict(self, baseline: int) -> int:
        return round(self.offset + self.scale * baseline)

    def not_in_file(self, baseline: int) -> int:
        return self.predict(baseline) - baseline

    def as_dict(self) -> dict[str, object]:
        return {"offset": self.offset, "scale": self.scale, "calls": self.calls, "basis": self.basis, "how": self.how}


@dataclass(frozen=True, slots=True)
class CallPrediction:
    call: int  # 1-based; len(view.calls) + 1 for the next call
    message_index: int  # the assistant message the call produced (len(view) for the next call)
    baseline_tokens: int
    recorded_tokens: int | None
    predicted_tokens: int
    fit: Fit
    model: str | None

    @property
    def not_in_file(self) -> int:
        return self.predicted_tokens - self.baseline_tokens

    @property
    def error(self) -> float | None:
        """(predicted - recorded) / recorded, where the call recorded usage."""
        if not self.recorded_tokens:
            return None
        return (self.predicted_tokens - self.recorded_tokens) / self.recorded_tokens


def recorded_tokens(view: SessionView) -> list[int | None]:
    """``Usage.context_tokens`` the file recorded for each model call (None where it has none)."""
    messages = view.messages
    out = []
    for call in view.calls:
        usage = messages[call.message_index].usage
        out.append(usage.context_tokens if usage is not None else None)
    return out


class _Fitter:
    """Walks the calls in order, fitting each from the calls before it."""

    def __init__(self, session: Session, excess: dict[int, int] | None = None, model: str | None = None) -> None:
        self.excess = excess or {}  # per microcompact's context start: cleared_excess
        self.shift = 0  # the excess of the microcompacts since the latest recorded call
        self.context_start = 0
        self.latest: tuple[int, int, int] | None = None  # (call, recorded, counted) in this context
        self.first: tuple[int, int, int] | None = None  # the first recorded call of this context
        self.before: tuple[int, int, int] | None = None  # the first recorded call of the context before
        self.calls = 0
        # the typical is the first call's (``model``: its model; a session's most used model may be another)
        self.typical = stated_hidden(session) or typical_for(agent_of(session), agent_version_of(session), model or session_model(session))
        self._fit: Fit | None = None  # the fit until the next enter() or record(): shared, it is frozen
        #: The file starts mid-session (:data:`UNSEEN_START`), and the calls are still in its first
        #: context: what a call there does not show includes the conversation before the file.
        self.unseen = session.extra.get(UNSEEN_START) is not None and not (session.messages and session.messages[0].starts_context)

    def enter(self, context_start: int, continues: bool = False) -> None:
        """Calls from here on see the context starting at ``context_start``; one that
        ``continues`` the context before it (:func:`continues_context`) keeps its fit."""
        if context_start != self.context_start:
            self.context_start = context_start
            if continues:
                if self.excess.get(context_start):
                    self.shift += self.excess[context_start]
                    self._fit = None
                return
            if not self.unseen:  # a first residual with the unseen conversation in it is no prefix
                self.before = self.first or self.before
            self.unseen = False
            self.latest = self.first = None
            self.calls = 0
            self.shift = 0
            self._fit = None

    def fit(self) -> Fit:
        if self._fit is None:
            self._fit = self._new_fit()
        return self._fit

    def _new_fit(self) -> Fit:
        if self.latest is not None:
            _, recorded, counted = self.latest
            return Fit(recorded - counted + self.shift, 1.0, self.calls, "recorded", self.latest, cleared_excess=self.shift)
        if self.before is not None:
            _, recorded, counted = self.before
            return Fit(recorded - counted, 1.0, 0, "before compaction", self.before)
        if self.typical is not None:
            return Fit(self.typical.tokens, 1.0, 0, "stated" if self.typical.kind == "stated" else "typical", typical=self.typical)
        return Fit(0, 1.0, 0, "none")

    def own_fit(self, call: int, recorded: int | None, counted: int) -> Fit | None:
        """The fit of a call that nothing earlier was recorded for, in the first context of a file
        that starts mid-session (:data:`UNSEEN_START`): its own recorded input less what the file
        shows, the only figure for the conversation before the file. None elsewhere."""
        if not self.unseen or self.latest is not None or not recorded:
            return None
        return Fit(recorded - counted, 1.0, 0, "own record", (call, recorded, counted))

    def record(self, call: int, recorded: int | None, counted: int) -> None:
        if not recorded:  # nothing recorded, or a 0 some agents write for a failed call
            return
        self.latest = (call, recorded, counted)
        self.shift = 0
        if self.first is None:
            self.first = self.latest
        self.calls += 1
        self._fit = None


def predictions(view: SessionView, table: TokenTable, baselines: list[int] | None = None) -> list[CallPrediction]:
    """One :class:`CallPrediction` per model call, each fitted on earlier calls only. Computed
    once per view and table (every plan of the viewer asks for its call's part)."""
    cache = _cache(view, table, baselines)
    if cache.calls is None:
        cache.calls = _fit_calls(view, cache.baselines, cache.recorded, cache.excess)
    return cache.calls


def next_call(view: SessionView, table: TokenTable) -> CallPrediction:
    """The call the agent would make next, after the whole session: what a live view shows."""
    from ..strategies.pipeline import context_start_of

    cache = _cache(view, table, None)
    if cache.next is None:
        fitter = copy.copy(cache.fitter)
        start = context_start_of(view, None)
        fitter.enter(start, continues_context(view.messages[start]) if start < len(view) else False)
        baseline = _next_baseline(view, table, start)
        fit = fitter.fit()
        cache.next = CallPrediction(len(view.calls) + 1, len(view), baseline, None, fit.predict(baseline), fit,
                                    _latest_model(view))
    return cache.next


@dataclass
class _Cache:
    """The fits of a view under a table: the fitter as the last call left it (all the next call
    needs, found without a prediction per call) and, once asked for, every call's prediction."""

    baselines: list[int]
    recorded: list[int | None]
    fitter: _Fitter
    excess: dict[int, int]
    calls: list[CallPrediction] | None = None
    next: CallPrediction | None = None


def _cache(view: SessionView, table: TokenTable, baselines: list[int] | None) -> _Cache:
    """The :class:`_Cache` of ``view`` under ``table``, kept on the view (:mod:`.memo`)."""
    return kept(view, table, "predictions", lambda: _walked(view, table, baselines))


def _walked(view: SessionView, table: TokenTable, baselines: list[int] | None) -> _Cache:
    baselines = baseline_tokens(view, table) if baselines is None else baselines
    recorded = recorded_tokens(view)
    excess = cleared_excess(view, table, baselines, recorded)
    fitter = _Fitter(view.session, excess, _first_call_model(view))
    for call, baseline, counted in zip(view.calls, baselines, recorded):
        if call.context_start != fitter.context_start:
            fitter.enter(call.context_start, continues_context(view.messages[call.context_start]))
        if counted:
            fitter.record(call.number, counted, baseline)
    return _Cache(baselines, recorded, fitter, excess)


def _first_call_model(view: SessionView) -> str | None:
    """The model the session's first call names (None: no call, or it names none): the one whose
    tokenizer the typical first-call size is counted in. It does not change as a followed file grows."""
    model = call_model(view.messages[view.calls[0].message_index]) if view.calls else None
    return model if model and not model.startswith("<") else None  # (not Claude Code's "<synthetic>")


def _fit_calls(view: SessionView, baselines: list[int], recorded: list[int | None],
               excess: dict[int, int]) -> list[CallPrediction]:
    fitter = _Fitter(view.session, excess, _first_call_model(view))
    messages = view.messages
    model_of_session = session_model(view.session)
    out = []
    for call, baseline, recorded in zip(view.calls, baselines, recorded):
        fitter.enter(call.context_start, continues_context(messages[call.context_start]))
        fit = fitter.own_fit(call.number, recorded, baseline) or fitter.fit()
        model = call_model(messages[call.message_index]) or model_of_session
        out.append(CallPrediction(call.number, call.message_index, baseline, recorded, fit.predict(baseline), fit, model))
        fitter.record(call.number, recorded, baseline)
    return out


#: A step's recorded growth over its counted growth outside this range says more about what
#: else the step sent (Claude Code's ~60-100 tokens per tool step, a cleared result) than about
#: how its messages tokenize: such a step's messages keep their counts.
_STEP_RATIO = (0.5, 1.5)
#: Only a message of at least this many counted tokens, and at least half its step's counted
#: growth, takes its step's ratio: on smaller ones the step's own extra tokens decide the ratio
#: (measured: 1.08-1.56 on steps under 6,500 tokens of the 2.1.17 file, where the same results
#: cleared freed less than counted).
_STEP_MIN_TOKENS = 1000


def cleared_excess(view: SessionView, table: TokenTable, baselines: list[int], recorded: list[int | None]) -> dict[int, int]:
    """Per microcompact (the index of the copy that starts its context, ``continues_context``):
    how many tokens the results it cleared were counted above what they added to the recorded
    input when they were first sent. The fit carries the residual across a microcompact, so the
    prediction after it falls by what the clearing freed *as counted*; the estimate tokenizer
    counted the cleared results of three public Claude Code 2.1.17 microcompacts 6-14 % above
    what their calls recorded (predictions 3.7 %, 1.6 % and 4.9 % low). Each cleared message's
    part is scaled by its step's ``(recorded growth) / (counted growth)`` (the call before the
    first call that sent it, and that call; in :data:`_STEP_RATIO`, else 1). Only calls before
    the microcompact are read."""
    messages = view.messages
    heads = [i for i, m in enumerate(messages) if m.extra.get("microcompact_boundary") is not None
             and m.extra.get("continues_context") is True]
    if not heads:
        return {}
    totals, calls = table.totals, view.calls
    call_at = [c.message_index for c in calls]

    def ratio(j: int) -> float:
        b = bisect.bisect_right(call_at, j)  # the first call that sent message j (0-based)
        if b == 0 or b >= len(calls) or calls[b - 1].context_start != calls[b].context_start:
            return 1.0
        rb, ra = recorded[b], recorded[b - 1]
        grown = baselines[b] - baselines[b - 1]
        if not rb or not ra or totals[j] < max(_STEP_MIN_TOKENS, grown / 2):
            return 1.0
        r = (rb - ra) / grown
        return r if _STEP_RATIO[0] <= r <= _STEP_RATIO[1] else 1.0

    latest: dict[tuple[str | None, int | None], int] = {}  # a source line: its latest message so far
    original: dict[tuple[str | None, int | None], int] = {}  # ... and the file's own message
    out: dict[int, int] = {}
    head_set = set(heads)
    i = 0
    while i < len(messages):
        if i in head_set:
            excess = 0.0
            k = i
            while k < len(messages) and messages[k].extra.get("microcompact_copy") is True and (k == i or k not in head_set):
                key = (messages[k].source.file, messages[k].source.line)
                before = latest.get(key)
                if before is not None and totals[before] > totals[k]:
                    excess += (totals[before] - totals[k]) * (1.0 - ratio(original.get(key, before)))
                k += 1
            for c in range(i, k):
                key = (messages[c].source.file, messages[c].source.line)
                latest[key] = c
            out[i] = round(excess)
            i = k
            continue
        key = (messages[i].source.file, messages[i].source.line)
        latest[key] = i
        original.setdefault(key, i)
        i += 1
    return out


def _latest_model(view: SessionView) -> str | None:
    """The model of the latest call, as its prediction names it (the file's, else the session's)."""
    calls, messages = view.calls, view.messages
    if not calls:
        return None
    session = session_model(view.session)
    if session:
        return call_model(messages[calls[-1].message_index]) or session
    return next((model for c in reversed(calls) if (model := call_model(messages[c.message_index]))), None)


def _next_baseline(view: SessionView, table: TokenTable, context_start: int) -> int:
    """The next call's baseline, as the calls' own: what the file shows plus the reasoning it re-sends."""
    visible = table.overhead + system_prefix_at(view, table, context_start) + table.range_total(context_start, len(view))
    return visible + next_resent_reasoning(view, table, context_start)


def hidden_per_call(view: SessionView, table: TokenTable) -> list[int]:
    """What every model call's plan adds to its request overhead, in call order: the *not in
    file* part plus the reasoning the call re-sends (neither is a message a strategy can drop)."""
    return kept_list(view, table, "hidden_per_call", lambda: [
        c.not_in_file + r for c, r in zip(predictions(view, table), resent_reasoning(view, table))])


__all__ = [
    "CallPrediction", "Fit", "TYPICAL", "Typical", "hidden_per_call", "next_call", "not_in_file_at", "predictions",
    "recorded_tokens", "resent_at", "tokenizer_label", "typical_for",
]


def not_in_file_at(view: SessionView, table: TokenTable, at_call: int | None) -> int:
    """What a plan at model call ``at_call`` (1-based, negative from the end; None: the next
    call) adds to its request overhead: the *not in file* part plus the re-sent reasoning, so the
    plan's total before any strategy is the call's ``predicted_tokens``."""
    from ..strategies.pipeline import context_start_of

    call = view.call_for(at_call) if at_call is not None else None
    if call is None:
        return next_call(view, table).not_in_file + next_resent_reasoning(view, table, context_start_of(view, None))
    return hidden_per_call(view, table)[call.number - 1]


def resent_at(view: SessionView, table: TokenTable, at_call: int | None) -> int:
    """The re-sent reasoning in :func:`not_in_file_at` (earlier calls' thinking or encrypted
    reasoning the call sends again, which the message rows count as 0); the rest is the *not
    in file* part proper, the ``not in file`` of ``info``."""
    from ..strategies.pipeline import context_start_of

    call = view.call_for(at_call) if at_call is not None else None
    if call is None:
        return next_resent_reasoning(view, table, context_start_of(view, None))
    return resent_reasoning(view, table)[call.number - 1]


def tokenizer_label(table: TokenTable, model: str | None = None) -> str:
    """Which tokenizer counted, and whether its counts are exact for the model it counted for
    (``--model`` or the session's; else ``model``, the call's): :func:`inspector.tokens.resolve`'s label."""
    from ..tokens import resolve

    return resolve(table.model or model, table.encoding, table.profile).label

