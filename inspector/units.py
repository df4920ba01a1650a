"""Turns, units and model calls: the structure strategies keep or drop together.

Built once per session (:func:`build_view`) into plain lists indexed by message position, so the
strategies' hot loops never touch pydantic objects.

- A *turn* starts at a user message that is not only tool results, and runs to the next one.
  Messages before the first such message (system prompts) are turn 0; turns are numbered from 1.
  A user message that carries tool results *and* text a person wrote (an interjection during a
  tool loop) starts a turn but stays in the tool exchange whose results it carries: strategies
  keep or drop that exchange whole, so a call is never split from its result.
- A turn's *final answer* is its last message when that is an assistant reply with no tool
  calls; a turn that ends any other way (the user interrupted a tool loop) has none.
- A *unit* is what is kept or dropped together: ``system``, ``user``, ``assistant`` (a reply with
  no tool calls, a turn's final answer), ``tool_exchange`` (an assistant message with tool calls
  plus every message carrying one of its results, parallel calls included) and ``summary``.
- Each assistant message is one *model call*; its input is every message before it (from the
  last recorded compaction on, plus the system prompts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from .model import Message, Session, TextBlock, ToolCallBlock, ToolResultBlock


class UnitKind(str, Enum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL_EXCHANGE = "tool_exchange"
    SUMMARY = "summary"
    #: What a call sent that the file does not show (the agent's system prompt, tool
    #: definitions, reminders): inferred from recorded usage by inspector.analysis.predict. It
    #: has no messages, so no Unit of this kind is ever built; views show it as its own row.
    NOT_IN_FILE = "not_in_file"


# Message flags (bit mask in SessionView.flags).
ORPHAN_RESULT = 1  # a tool result whose call is not in the session before it
ORPHAN_CALL = 2  # a tool call with no result after it
TRUNCATED_IN_SOURCE = 4  # a tool result already cut or cleared by the agent that wrote the file
SUMMARY = 8  # a message that summarises earlier history
FINAL_ANSWER = 16  # an assistant reply with no tool calls

FLAG_NAMES = {
    ORPHAN_RESULT: "orphan_result",
    ORPHAN_CALL: "orphan_call",
    TRUNCATED_IN_SOURCE: "truncated_in_source",
    SUMMARY: "summary",
    FINAL_ANSWER: "final_answer",
}

SUMMARY_PREFIXES = (
    "[Earlier conversation summary]:",
    "Here is a summary of the conversation to date",
    "This session is being continued from a previous conversation",
    "Another language model started to solve this problem and produced a summary",
)

TRUNCATION_MARKERS = (
    "[... truncated ",
    "[... result truncated",
    "... [truncated:",
    "[cleared]",
    "<MASKED>",
    "[Old tool result content cleared]",
    "[Cleared by context management]",
    "[tool result cleared]",
    "<persisted-output>",
    "[... Observation truncated",
    "Warning: truncated output",
)


def flag_names(flags: int) -> list[str]:
    return [name for bit, name in FLAG_NAMES.items() if flags & bit]


def is_summary_text(text: str) -> bool:
    return text.lstrip().startswith(SUMMARY_PREFIXES)


# Every marker contains one of these; four scans of a long result rule most of them out
# before the eleven exact ones run (tests check the list stays covering).
_MARKER_HINTS = ("truncat", "leared", "MASKED", "persisted-output")


def has_truncation_marker(text: str) -> bool:
    if not any(hint in text for hint in _MARKER_HINTS):
        return False
    return any(marker in text for marker in TRUNCATION_MARKERS)


class LazyFlags(Sequence[int]):
    """The message flags of a view, read like a list, whose TRUNCATED_IN_SOURCE bit is computed
    for a message when it is first read: scanning every tool result for markers was two thirds of
    building the view of a large session, while a screen reads the flags of the rows it shows."""

    __slots__ = ("_flags", "_unscanned", "_messages")

    def __init__(self, flags: list[int], unscanned: list[int], messages: Sequence[Message]) -> None:
        self._flags = flags
        self._unscanned = set(unscanned)
        self._messages = messages

    def _scan(self, i: int) -> None:
        self._unscanned.discard(i)
        if any(has_truncation_marker(r.text) for r in self._messages[i].tool_results):
            self._flags[i] |= TRUNCATED_IN_SOURCE

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self._flags)))]
        if self._unscanned:
            j = i + len(self._flags) if i < 0 else i
            if j in self._unscanned:
                self._scan(j)
        return self._flags[i]

    def __iter__(self):
        for j in sorted(self._unscanned):
            self._scan(j)
        return iter(self._flags)

    def __len__(self) -> int:
        return len(self._flags)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, LazyFlags)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


@dataclass(frozen=True, slots=True)
class Unit:
    id: int
    kind: UnitKind
    indices: tuple[int, ...]
    turn: int
    tool_names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Turn:
    number: int  # 0 for the preamble before the first user message, then 1, 2, ...
    start: int  # first message index
    stop: int  # one past the last message index
    user_index: int | None  # the message that opened it
    final_index: int | None  # the last assistant message with no tool calls, if any


@dataclass(frozen=True, slots=True)
class ModelCall:
    number: int  # 1-based
    message_index: int  # the assistant message this call produced
    turn: int
    context_start: int  # first non-system message the call saw (after a recorded compaction)


@dataclass
class SessionView:
    """The session's structure as flat lists indexed by message position."""

    session: Session
    roles: list[str]
    flags: list[int]
    unit_of: list[int]
    turn_of: list[int]
    units: list[Unit]
    turns: list[Turn]
    calls: list[ModelCall]
    call_ids: list[tuple[str, ...]]
    result_ids: list[tuple[str, ...]]
    #: Names of the tools a message calls or answers (for per-tool totals and exclude_tools).
    tool_names: list[tuple[str, ...]]

    @property
    def messages(self) -> list[Message]:
        return self.session.messages

    def __len__(self) -> int:
        return len(self.roles)

    def unit_kind(self, index: int) -> UnitKind:
        return self.units[self.unit_of[index]].kind

    def call_for(self, number: int | None) -> ModelCall | None:
        """The 1-based model call ``number`` (negative counts from the end); None: no calls."""
        if not self.calls:
            return None
        if number is None:
            return self.calls[-1]
        if number < 0:
            number = len(self.calls) + 1 + number
        if not 1 <= number <= len(self.calls):
            raise ValueError(f"model call {number} out of range: the session has {len(self.calls)} calls")
        return self.calls[number - 1]


def build_view(session: Session) -> SessionView:
    messages = session.messages
    n = len(messages)
    roles = [m.role for m in messages]
    flags = [0] * n
    unscanned: list[int] = []
    unit_of = [-1] * n
    turn_of = [0] * n
    call_ids: list[tuple[str, ...]] = [()] * n
    result_ids: list[tuple[str, ...]] = [()] * n
    tool_names: list[tuple[str, ...]] = [()] * n
    units_indices: list[list[int]] = []
    units_kind: list[UnitKind] = []
    units_turn: list[int] = []
    units_tools: list[list[str]] = []
    unit_of_call: dict[str, int] = {}  # id -> unit of the latest call with that id
    name_of_call: dict[str, str] = {}
    # Calls still waiting for a result, by id -> message index. Keyed on the latest call, so
    # agents that reuse ids (``call_0`` in every turn) pair each result with its own call.
    unanswered: dict[str, int] = {}

    def new_unit(kind: UnitKind, i: int, turn: int) -> int:
        uid = len(units_indices)
        units_indices.append([i])
        units_kind.append(kind)
        units_turn.append(turn)
        units_tools.append([])
        unit_of[i] = uid
        return uid

    turn = 0
    turn_starts: list[int] = []
    for i, m in enumerate(messages):
        calls: list[ToolCallBlock] = []
        results: list[ToolResultBlock] = []
        text_parts: list[str] = []
        for b in m.content:
            if isinstance(b, ToolCallBlock):
                calls.append(b)
            elif isinstance(b, ToolResultBlock):
                results.append(b)
            elif isinstance(b, TextBlock):
                text_parts.append(b.text)
        first_text = text_parts[0] if text_parts else ""
        summary = m.starts_context or (m.role in ("system", "user") and is_summary_text(first_text))

        if m.role == "user" and not m.only_tool_results:
            turn += 1
            turn_starts.append(i)
        turn_of[i] = turn

        if calls:
            ids = tuple(c.id for c in calls)
            call_ids[i] = ids
            tool_names[i] = tuple(c.name for c in calls)
            uid = new_unit(UnitKind.TOOL_EXCHANGE, i, turn)
            units_tools[uid].extend(tool_names[i])
            for c in calls:
                if c.id in unanswered:  # an earlier call with this id never got its result
                    flags[unanswered[c.id]] |= ORPHAN_CALL
                unit_of_call[c.id] = uid
                name_of_call[c.id] = c.name
                unanswered[c.id] = i
        elif results:
            ids = tuple(r.tool_call_id for r in results)
            result_ids[i] = ids
            tool_names[i] = tuple(name_of_call.get(r.tool_call_id) or r.name or "?" for r in results)
            owner = next((unit_of_call[c] for c in ids if c in unit_of_call), None)
            if any(c not in unit_of_call for c in ids):
                flags[i] |= ORPHAN_RESULT
            if owner is None:
                owner = new_unit(UnitKind.TOOL_EXCHANGE, i, turn)
                units_tools[owner].extend(tool_names[i])
            else:
                units_indices[owner].append(i)
                unit_of[i] = owner
            for c in ids:
                unanswered.pop(c, None)
            unscanned.append(i)  # TRUNCATED_IN_SOURCE: found when first read (LazyFlags)
        elif summary:
            new_unit(UnitKind.SUMMARY, i, turn)
        elif m.role == "system":
            new_unit(UnitKind.SYSTEM, i, turn)
        elif m.role == "assistant":
            new_unit(UnitKind.ASSISTANT, i, turn)
            flags[i] |= FINAL_ANSWER
        else:
            new_unit(UnitKind.USER, i, turn)
        if summary:
            flags[i] |= SUMMARY

    for i in unanswered.values():
        flags[i] |= ORPHAN_CALL

    units = [
        Unit(uid, units_kind[uid], tuple(units_indices[uid]), units_turn[uid], tuple(dict.fromkeys(units_tools[uid])))
        for uid in range(len(units_indices))
    ]

    turns: list[Turn] = []
    bounds = ([0] if not turn_starts or turn_starts[0] > 0 else []) + turn_starts + [n]
    first_number = 0 if not turn_starts or turn_starts[0] > 0 else 1
    for k in range(len(bounds) - 1):
        start, stop = bounds[k], bounds[k + 1]
        if start >= stop and not (start == 0 and n == 0):
            continue
        number = first_number + k
        final = None
        for j in range(stop - 1, start - 1, -1):
            if roles[j] == "system":
                continue
            if flags[j] & FINAL_ANSWER:
                final = j
            break
        user_index = start if number > 0 else None
        turns.append(Turn(number, start, stop, user_index, final))

    calls_out: list[ModelCall] = []
    context_start = 0
    for i, m in enumerate(messages):
        if m.starts_context:
            context_start = i
        if m.role == "assistant":
            calls_out.append(ModelCall(len(calls_out) + 1, i, turn_of[i], context_start))

    return SessionView(
        session=session,
        roles=roles,
        flags=LazyFlags(flags, unscanned, messages),
        unit_of=unit_of,
        turn_of=turn_of,
        units=units,
        turns=turns,
        calls=calls_out,
        call_ids=call_ids,
        result_ids=result_ids,
        tool_names=tool_names,
    )
