"""The types every strategy shares: statuses, the working history, the plan (settings: .params).

A pipeline run starts from a :class:`Working` copy of the history a model call would see (plain
lists indexed by message position, counts taken from the :class:`~inspector.tokens.TokenTable`),
lets each strategy edit it in order, and freezes the result into a :class:`Plan`. Strategies
are pure: they read the view and the table, write only the ``Working`` they are given, and never
print or do I/O. Reasons are stored as small tuples and formatted only when someone reads them,
so a plan over 50,000 messages costs little more than its loops.
"""

from __future__ import annotations

import gc
from bisect import bisect_left
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from operator import mul
from string import Formatter
from enum import Enum
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Union

from ..tokens import TokenTable
from ..units import ModelCall, SessionView

if TYPE_CHECKING:  # pragma: no cover
    from ..model import Message
    from .params import SettingsBase as Settings


def __getattr__(name: str) -> Any:
    """``Settings``: the model of every parameter declared so far (see :mod:`.params`)."""
    if name == "Settings":
        from .params import settings_model

        return settings_model()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector around a burst of allocations.

    A plan allocates tens of thousands of small objects on a 50,000-message session; with a
    loaded session's millions of live objects, each full collection those allocations trigger
    costs 50-100 ms (measured: a validation went from 350 ms to 70 ms). Plans create no cycles,
    so nothing is lost; collection resumes afterwards."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class Status(str, Enum):
    KEPT = "kept"
    DROPPED = "dropped"
    TRUNCATED = "truncated"
    SUMMARIZED = "summarized"
    CLEARED = "cleared"
    INSERTED = "inserted"


class Reason(NamedTuple):
    """A reason kept as a format string and its arguments; ``str()`` renders it.

    Numbers are rendered with thousands separators, so templates use plain ``{}`` fields. A
    tuple, so strategies can make one per dropped unit cheaply (see :func:`reason`).
    """

    template: str
    args: tuple[Any, ...] = ()

    def __str__(self) -> str:
        template, args = self
        for a in args:
            if type(a) is not int:  # bool, float, str, an int subclass...: the general rendering
                return template.format(*(f"{a:,}" if isinstance(a, int) and not isinstance(a, bool) else a for a in args))
        comma = _COMMA_TEMPLATES.get(template, "")
        if comma == "":
            comma = _comma_template(template)
            if len(_COMMA_TEMPLATES) < 4096:  # templates are the strategies' own: a few hundred at most
                _COMMA_TEMPLATES[template] = comma
        if comma is None:
            return template.format(*(f"{a:,}" for a in args))
        return comma.format(*args)


#: template -> the same template with each bare ``{}`` written ``{:,}`` (None: a field is not bare),
#: so a reason of int arguments renders with one ``str.format`` (``plan --json`` renders 600,000).
_COMMA_TEMPLATES: dict[str, str | None] = {}


def _comma_template(template: str) -> str | None:
    """``template`` with each bare ``{}`` field written ``{:,}``; None if any field is not bare."""
    try:
        fields = list(Formatter().parse(template))
    except ValueError:
        return None
    if any(name is not None and (name != "" or spec or conversion) for _, name, spec, conversion in fields):
        return None
    return "".join(
        literal.replace("{", "{{").replace("}", "}}") + ("" if name is None else "{:,}")
        for literal, name, _, _ in fields
    )


_new_tuple = tuple.__new__


def reason(template: str, args: tuple[Any, ...] = ()) -> Reason:
    """``Reason(template, args)`` without the keyword handling: for hot loops."""
    return _new_tuple(Reason, (template, args))


class PerIndex(NamedTuple):
    """One reason object for a whole run of messages whose arguments differ by message: the
    :class:`Reason` of message ``i`` is built from ``args_of(i)`` only when someone reads it
    (:meth:`Plan.why`), so a plan that drops 50,000 messages stores one object, not 50,000."""

    template: str
    args_of: Callable[[int], tuple[Any, ...]]

    def at(self, index: int) -> Reason:
        return _new_tuple(Reason, (self.template, self.args_of(index)))


@dataclass(frozen=True, slots=True)
class Inserted:
    """A message a strategy adds to the history: a summary or a placeholder."""

    role: Literal["system", "user", "assistant"]
    kind: Literal["summary", "placeholder"]
    text: str
    tokens: int
    by: str
    reason: str
    #: True when the text is a stand-in (an offline summary), not what a real run would send.
    simulated: bool = True
    #: The source messages it replaces, in order, for display: a tuple, or a ``compact``
    #: summary's :class:`.index_runs.IndexRuns` (equal to the tuple of its indices).
    replaces: Sequence[int] = ()

    @property
    def text_key(self) -> Hashable:
        """What determines :attr:`text`, compared where two requests are: the text itself, or
        (:class:`.deferred.DeferredInserted`, a text built only when read) what it is built from."""
        return self.text


class BlockEdit(NamedTuple):
    """How one content block of a kept message changes: truncated, cleared, or removed (thinking).

    ``text`` is the new content (result text, or the new arguments JSON for ``clear_input``).
    It is ``None`` for a truncation whose text is built only when the plan is materialised
    (:mod:`inspector.strategies.materialize`): planning computes the size arithmetically and
    never cuts text it may not need. ``keep`` is then what the cut keeps (tokens, or characters
    when ``unit == "chars"``) and ``marker`` the text appended after the cut.
    """

    block: int
    kind: Literal["truncate", "clear", "clear_input", "remove"]
    text: str | None
    tokens_before: int
    tokens_after: int
    keep: int = 0
    unit: Literal["tokens", "chars"] = "tokens"
    marker: str = ""
    by: str = ""


Slot = Union[int, Inserted]


@dataclass
class Working:
    """The history a pipeline is editing. Indices are positions in the session.

    Invariants the helpers below keep (strategies should edit through them):

    - ``order`` holds the messages still sent, in order: a source index ``i`` is in ``order``
      exactly when ``live[i]`` is 1 (its status is kept, truncated or cleared);
      :class:`Inserted` messages sit between them.
    - ``running`` is :meth:`recount` (overhead + tokens of every slot in ``order``), maintained
      incrementally so :meth:`total` is O(1).
    """

    view: SessionView
    table: TokenTable
    settings: Settings
    call: ModelCall | None
    stop: int  # the history is messages[:stop]
    current_turn: int
    order: list[Slot]
    tokens: list[int]  # current tokens of each source message (index < stop)
    status: list[Status]
    by: list[str | None]
    reasons: list[Reason | PerIndex | str | None]
    edits: dict[int, list[BlockEdit]] = field(default_factory=dict)
    live: bytearray = field(default_factory=bytearray)
    running: int = -1  # -1: computed by __post_init__
    #: The Inserted messages in ``order`` (while there are none, ``order`` is sorted).
    inserted: list[Inserted] = field(default_factory=list)
    #: What the call sends that the file does not show (the agent's system prompt, tool
    #: definitions, reminders), supplied by analysis (:mod:`inspector.analysis.predict`). Part
    #: of the request overhead: in every total and trigger, never dropped.
    not_in_file: int = 0

    def __post_init__(self) -> None:
        if len(self.live) != self.stop:
            live = bytearray(self.stop)
            for s in self.order:
                if type(s) is int:
                    live[s] = 1
            self.live = live
        if self.running < 0:
            self.running = self.recount()

    @property
    def overhead(self) -> int:
        return self.table.overhead + self.not_in_file

    def total(self) -> int:
        """Tokens of the history as it stands, overhead included (O(1))."""
        return self.running

    def recount(self) -> int:
        """:meth:`total` computed from scratch (tests check the two agree)."""
        tokens = self.tokens
        return self.overhead + sum(tokens[s] if type(s) is int else s.tokens for s in self.order)

    def protected(self, i: int) -> bool:
        """System messages and what the current turn needs are never dropped by any strategy:
        the turn's prompt (with the exchange whose results it carries) and its latest exchange
        (:func:`~inspector.strategies.common.protected_in_turn`)."""
        if self.view.roles[i] == "system":
            return True
        from .common import protected_in_turn

        return i in protected_in_turn(self)

    def mark(self, i: int, status: Status, by: str, reason: Reason | str) -> None:
        """Take source message ``i`` out of the history (dropped or summarized). Call
        :meth:`compact` once after marking a batch: ``order`` is rebuilt there."""
        if self.live[i]:
            self.live[i] = 0
            self.running -= self.tokens[i]
        self.status[i] = status
        self.by[i] = by
        self.reasons[i] = reason

    def compact(self) -> None:
        """Rebuild ``order`` without the messages :meth:`mark` took out."""
        live = self.live
        self.order = [s for s in self.order if type(s) is not int or live[s]]

    def drop(self, indices, by: str, reason: Reason | str) -> None:
        """Drop ``indices`` (any iterable of source indices) with one shared reason."""
        live = [i for i in sorted(set(indices)) if self.live[i]]
        self.drop_many(live, by, reason)

    def drop_many(
        self,
        indices: list[int],
        by: str,
        reasons: Reason | str | list[Reason | str],
        status: Status = Status.DROPPED,
    ) -> None:
        """Take live messages ``indices`` (ascending) out of the history, with one shared reason
        or one per index, and update ``order``. The hot path of every dropping strategy: one
        contiguous run is written with slice assignments."""
        n = len(indices)
        if not n:
            return
        a, b = indices[0], indices[-1] + 1
        if b - a == n:
            self.status[a:b] = [status] * n
            self.by[a:b] = [by] * n
            self.reasons[a:b] = reasons if isinstance(reasons, list) else [reasons] * n
            self.live[a:b] = bytes(n)
            self.running -= sum(self.tokens[a:b])
            if not self.inserted:  # order is sorted: cut the run out directly
                order = self.order
                del order[bisect_left(order, a) : bisect_left(order, b)]
                return
        else:
            status_, by_, reasons_, live, tokens = self.status, self.by, self.reasons, self.live, self.tokens
            removed = 0
            if isinstance(reasons, list):
                for i, r in zip(indices, reasons):
                    status_[i] = status
                    by_[i] = by
                    reasons_[i] = r
                    live[i] = 0
                    removed += tokens[i]
            else:
                for i in indices:
                    status_[i] = status
                    by_[i] = by
                    reasons_[i] = reasons
                    live[i] = 0
                    removed += tokens[i]
            self.running -= removed
        self.compact()

    def edit(self, i: int, edit: BlockEdit, status: Status, reason: Reason | str) -> None:
        """Record a block edit on live message ``i`` and update its tokens."""
        self.edits.setdefault(i, []).append(edit)
        delta = edit.tokens_after - edit.tokens_before
        self.tokens[i] += delta
        self.running += delta
        self.status[i] = status
        self.by[i] = edit.by or self.by[i]
        self.reasons[i] = reason

    def block_tokens(self, i: int, k: int) -> int:
        """Current tokens of content block ``k`` of message ``i`` (after earlier stages' edits)."""
        for e in reversed(self.edits.get(i, ())):
            if e.block == k:
                return e.tokens_after
        return self.table.counts[i].blocks[k]

    def uncleared_tokens(self, i: int, k: int) -> int | None:
        """:meth:`block_tokens`, or None when an earlier stage cleared the block (the hot loops
        of the clearing strategies: most messages have no edit, and their count is the table's)."""
        if i not in self.edits:
            return self.table.counts[i].blocks[k]
        return None if self.block_edited(i, k, "clear") else self.block_tokens(i, k)

    def block_edited(self, i: int, k: int, kind: str) -> bool:
        return any(e.block == k and e.kind == kind for e in self.edits.get(i, ()))

    def insert(self, position: int, item: Inserted) -> None:
        """Insert ``item`` at ``position`` in ``order``."""
        self.order.insert(position, item)
        self.inserted.append(item)
        self.running += item.tokens

    def remove_inserted(self, items: list[Inserted]) -> None:
        """Take inserted messages ``items`` (each in ``order``) out of the history."""
        if not items:
            return
        gone = {id(x) for x in items}
        self.order = [s for s in self.order if type(s) is int or id(s) not in gone]
        self.inserted = [x for x in self.inserted if id(x) not in gone]
        self.running -= sum(x.tokens for x in items)


class Decision(NamedTuple):
    """What the plan does with one message, for display."""

    index: int | None
    status: Status
    tokens: int
    tokens_after: int
    by: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class StageTotal:
    strategy: str
    params: dict[str, Any]
    tokens_before: int
    tokens_after: int


@dataclass
class Plan:
    """The result of a pipeline at one model call: a decision for every message it saw."""

    view: SessionView
    table: TokenTable
    pipeline: tuple[str, ...]
    settings: Settings
    call: ModelCall | None
    stop: int
    current_turn: int
    sequence: list[Slot]
    status: list[Status]
    #: Tokens of each source message as edited (dropped ones included: see :attr:`tokens_after_of`).
    tokens: list[int]
    #: 1 for a source message still sent (see :class:`Working`).
    live: bytearray
    by: list[str | None]
    #: Raw reasons: a :class:`PerIndex` stands for one per message; read them with :meth:`why`.
    reasons: list[Reason | PerIndex | str | None]
    edits: dict[int, list[BlockEdit]]
    stages: list[StageTotal]
    tokens_before: int
    tokens_after: int
    #: The part of the request the file does not show, included in both totals.
    not_in_file: int = 0

    @property
    def budget(self) -> int | None:
        return self.settings.budget

    @property
    def saving(self) -> int:
        return self.tokens_before - self.tokens_after

    @property
    def saving_pct(self) -> float:
        return 100.0 * self.saving / self.tokens_before if self.tokens_before else 0.0

    @property
    def inserted(self) -> list[Inserted]:
        return [s for s in self.sequence if type(s) is not int]

    @cached_property
    def tokens_after_of(self) -> list[int]:
        """Tokens each source message is sent with (0 when it is not sent); built on first read."""
        return list(map(mul, self.tokens, self.live))  # live is 0 or 1: C speed, no Python loop

    def why(self, index: int) -> Reason | str | None:
        """The reason of message ``index`` (None: no strategy touched it), a lazy one built now."""
        reason = self.reasons[index]
        return reason.at(index) if type(reason) is PerIndex else reason

    def reason(self, index: int) -> str:
        """Why message ``index`` has its status ("kept" when no strategy touched it)."""
        reason = self.why(index)
        return str(reason) if reason is not None else "kept"

    def decision(self, index: int) -> Decision:
        return _new_tuple(
            Decision,
            (
                index,
                self.status[index],
                self.table.totals[index],
                self.tokens[index] if self.live[index] else 0,
                self.by[index],
                self.reason(index),
            ),
        )

    def decisions(self) -> list[Decision]:
        """One decision per message the call saw, with inserted messages where they are sent."""
        status, totals, after, by, reasons = self.status, self.table.totals, self.tokens_after_of, self.by, self.reasons
        rendered: dict[int, str] = {}  # reasons are shared between messages: render each once

        def one(i: int) -> Decision:
            r = reasons[i]
            if r is None:
                text = "kept"
            elif type(r) is str:
                text = r
            elif type(r) is PerIndex:
                text = str(r.at(i))
            else:
                text = rendered.get(id(r))
                if text is None:
                    text = rendered[id(r)] = str(r)
            return _new_tuple(Decision, (i, status[i], totals[i], after[i], by[i], text))

        with gc_paused():
            return [one(x) if type(x) is int else Decision(None, Status.INSERTED, 0, x.tokens, x.by, x.reason)
                    for x in self.order()]

    def order(self) -> list[int | Inserted]:
        """The request in order: each message index the call saw, and each inserted message
        where it is sent (what :meth:`decisions` describes, without building a decision)."""
        out: list[int | Inserted] = []
        next_source = 0
        for slot in self.sequence:
            if type(slot) is int:
                if slot >= next_source:
                    out.extend(range(next_source, slot + 1))
                    next_source = slot + 1
            else:
                out.append(slot)
        out.extend(range(next_source, self.stop))
        return out

    def messages_after(self) -> list[Message]:
        """The pruned history as messages (edits applied, inserted messages materialised)."""
        from .materialize import materialize

        return materialize(self)
