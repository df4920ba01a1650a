"""Check a history against the OpenAI Chat Completions and Anthropic Messages rules.

Each :class:`Violation` carries the error text the provider returns for it (quoted from real
API responses, misspellings included; see strategies.md section 9.3), the index of the offending
message *in that provider's request*, and the source message it came from.

The request is laid out the way :mod:`inspector.export` writes it:

OpenAI
    every message in order; a message holding tool results becomes one ``tool`` message per
    result, followed by a ``user`` message for any other content it has (Claude Code puts
    reminders next to results). System messages stay where they are (OpenAI accepts them
    anywhere).
Anthropic
    system messages, wherever they are (the system prompt, an inserted summary, one in the
    middle of the history), move to the top-level ``system`` field, so they never break the "no
    system role" rule; :func:`validate_messages` with ``extract_system=False`` checks a list
    sent as is. ``tool`` messages become ``tool_result`` blocks, and a run of consecutive
    ``tool`` messages is merged into one ``user`` message. Nothing else is merged, so
    ``messages.N`` indices count the request's messages after these two steps.

Rules checked. OpenAI: a ``tool`` message must answer a call of the assistant message right
before it (only tool messages of the same batch in between); every call of an assistant message
must be answered before any other message; content may be null (empty) only on an assistant
message with tool calls; the history may not be empty. Anthropic: every ``tool_result`` must
answer a ``tool_use`` of the previous message; every ``tool_use`` needs its ``tool_result`` in
the next message; no empty message except a final assistant one; no ``system`` role in
``messages`` (only when not extracted); at least one message.

:func:`validate_plan` reads the view's per-message lists (roles, call and result ids), not
materialised messages, so it stays cheap on 50,000-message sessions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from .model import Message, TextBlock, ToolCallBlock, ToolResultBlock

if TYPE_CHECKING:  # pragma: no cover
    from .strategies.base import Plan
    from .units import SessionView

Provider = Literal["openai", "anthropic"]
PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic")

OPENAI_EMPTY = (
    "Invalid 'messages': empty array. Expected an array with minimum length 1, "
    "but got an empty array instead."
)
OPENAI_ORPHAN = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'."
OPENAI_UNKNOWN_ID = "Invalid parameter: 'tool_call_id' of '{}' not found in 'tool_calls' of previous message."
OPENAI_MISSING = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. The following tool_call_ids did not have response messages: {}"
)
OPENAI_NULL = "Invalid value for 'content': expected a string, got null."

ANTHROPIC_EMPTY = "messages: at least one message is required"
ANTHROPIC_SYSTEM = (
    'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, '
    'not "system" as an input message role.'
)
ANTHROPIC_ORPHAN = (
    "messages.{}.content.{}: unexpected `tool_use_id` found in `tool_result` blocks: {}. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)
ANTHROPIC_MISSING = (
    "messages.{}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. "
    "Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)
ANTHROPIC_NO_CONTENT = "messages.{}: all messages must have non-empty content except for the optional final assistant message"


@dataclass(frozen=True, slots=True)
class Violation:
    """One rule a provider would reject the request for."""

    provider: Provider
    #: Position of the offending message in that provider's request (None: the whole request).
    index: int | None
    #: The source message (session index) it comes from; None for inserted messages.
    source: int | None
    #: Short rule name: empty_history, orphan_result, missing_result, empty_content, system_role.
    rule: str
    #: The error text the provider returns.
    message: str

    def __str__(self) -> str:
        return self.message


# An entry is one history message, reduced to what the rules need:
# (role, call ids, result ids, has content besides results, empty, source index, key)
# ``key`` finds the content positions of its results when an Anthropic error needs them.
Entry = tuple[str, tuple[str, ...], tuple[str, ...], bool, bool, "int | None", int]


def _check_openai(entries: Sequence[Entry]) -> list[Violation]:
    out: list[Violation] = []
    if not entries:
        return [Violation("openai", None, None, "empty_history", OPENAI_EMPTY)]
    pos = 0
    batch: tuple[str, ...] = ()  # call ids of the assistant message the current tool run answers
    pending: list[str] = []
    batch_pos, batch_source = -1, None
    in_batch = False
    for role, calls, results, other, empty, source, _key in entries:
        if results or role == "tool":
            for rid in results:
                if not in_batch:
                    out.append(Violation("openai", pos, source, "orphan_result", OPENAI_ORPHAN))
                elif rid not in batch:
                    out.append(Violation("openai", pos, source, "orphan_result", OPENAI_UNKNOWN_ID.format(rid)))
                elif rid in pending:
                    pending.remove(rid)
                pos += 1
            if not results:  # a tool message answering nothing
                out.append(Violation("openai", pos, source, "orphan_result", OPENAI_ORPHAN))
                pos += 1
            if not other:
                continue
            role = "user"  # the rest of the message follows the tool messages
            calls = ()
        if in_batch and pending:
            out.append(Violation("openai", batch_pos, batch_source, "missing_result", OPENAI_MISSING.format(", ".join(pending))))
        in_batch = False
        if calls and role == "assistant":
            in_batch = True
            batch, pending = calls, list(calls)
            batch_pos, batch_source = pos, source
        elif empty:
            out.append(Violation("openai", pos, source, "empty_content", OPENAI_NULL))
        pos += 1
    if in_batch and pending:
        out.append(Violation("openai", batch_pos, batch_source, "missing_result", OPENAI_MISSING.format(", ".join(pending))))
    return out


def _check_anthropic(
    entries: Sequence[Entry], positions: Callable[[int], tuple[int, ...]], extract_system: bool = True
) -> list[Violation]:
    # Lay out the request: [role, uses, [(K, id, source)], empty, first source]
    request: list[list] = []
    merging = False  # the last request message is a run of tool messages
    out: list[Violation] = []
    for role, calls, results, other, empty, source, key in entries:
        if role == "system":
            if extract_system:
                continue
            out.append(Violation("anthropic", len(request), source, "system_role", ANTHROPIC_SYSTEM))
            request.append(["system", (), [], empty, source])
            merging = False
            continue
        if role == "tool":
            if merging:
                msg = request[-1]
                msg[3] = False
            else:
                msg = ["user", (), [], False, source]
                request.append(msg)
                merging = True
            base = len(msg[2])
            msg[2].extend((base + n, rid, source) for n, rid in enumerate(results))
            continue
        merging = False
        tool_results: list = []
        if results:
            ks = positions(key)
            tool_results = [(ks[n] if n < len(ks) else n, rid, source) for n, rid in enumerate(results)]
        request.append([role, calls if role == "assistant" else (), tool_results, empty and not results, source])
    if not request:
        return out + [Violation("anthropic", None, None, "empty_history", ANTHROPIC_EMPTY)]
    last = len(request) - 1
    for n, (role, uses, tool_results, empty, source) in enumerate(request):
        if tool_results:
            prev = request[n - 1] if n else None
            allowed = prev[1] if prev is not None and prev[0] == "assistant" else ()
            for k, rid, src in tool_results:
                if rid not in allowed:
                    out.append(Violation("anthropic", n, src, "orphan_result", ANTHROPIC_ORPHAN.format(n, k, rid)))
        if uses:
            nxt = request[n + 1] if n < last else None
            answered = {rid for _, rid, _ in nxt[2]} if nxt is not None and nxt[0] == "user" else set()
            missing = [u for u in uses if u not in answered]
            if missing:
                out.append(Violation("anthropic", n, source, "missing_result", ANTHROPIC_MISSING.format(n, ", ".join(missing))))
        if empty and not (n == last and role == "assistant"):
            out.append(Violation("anthropic", n, source, "empty_content", ANTHROPIC_NO_CONTENT.format(n)))
    out.sort(key=lambda v: -1 if v.index is None else v.index)
    return out


def _check(entries: Sequence[Entry], provider: str, positions, extract_system: bool = True) -> list[Violation]:
    if provider == "openai":
        return _check_openai(entries)
    if provider == "anthropic":
        return _check_anthropic(entries, positions, extract_system)
    raise ValueError(f"unknown provider {provider!r}; choose one of: {', '.join(PROVIDERS)}")


# -- entries from messages ---------------------------------------------------------------------


def _message_entry(m: Message, key: int) -> Entry:
    calls: list[str] = []
    results: list[str] = []
    other = False
    empty = True
    for b in m.content:
        if isinstance(b, ToolCallBlock):
            calls.append(b.id)
            empty = False
        elif isinstance(b, ToolResultBlock):
            results.append(b.tool_call_id)
            empty = False
        elif isinstance(b, TextBlock) and not b.text:
            continue
        else:
            other = True
            empty = False
    source = m.index if m.index >= 0 else None
    return (m.role, tuple(calls), tuple(results), other, empty, source, key)


def validate_messages(
    messages: Sequence[Message], provider: Provider, *, extract_system: bool = True
) -> list[Violation]:
    """Violations of ``messages`` sent to ``provider`` ("openai" or "anthropic").

    ``extract_system``: for Anthropic, system messages go to the top-level ``system`` field (as
    the exporter does); False checks the list as sent, where each one is an error."""
    entries = [_message_entry(m, k) for k, m in enumerate(messages)]

    def positions(key: int) -> tuple[int, ...]:
        return tuple(k for k, b in enumerate(messages[key].content) if isinstance(b, ToolResultBlock))

    return _check(entries, provider, positions, extract_system)


# -- entries from a view (no pydantic access in the loop) --------------------------------------


def _view_entries(view: SessionView, slots: Iterable) -> list[Entry]:
    from .strategies.common import view_cache

    cache = view_cache(view)
    empty = cache.empty
    roles, call_ids, result_ids = view.roles, view.call_ids, view.result_ids
    other = cache.results_with_other
    entries: list[Entry] = []
    append = entries.append
    for s in slots:
        if type(s) is int:
            results = result_ids[s]
            append((roles[s], call_ids[s], results, bool(results) and s in other, s in empty, s, s))
        else:  # an inserted message: text only
            append((s.role, (), (), True, not s.text, None, -1))
    return entries


def _view_positions(view: SessionView) -> Callable[[int], tuple[int, ...]]:
    from .strategies.common import view_cache

    return lambda key: view_cache(view).result_blocks[key]


def validate_plan(plan: Plan) -> dict[str, list[Violation]]:
    """Violations of the history ``plan`` sends, for each provider."""
    entries = _view_entries(plan.view, plan.sequence)
    positions = _view_positions(plan.view)
    return {p: _check(entries, p, positions) for p in PROVIDERS}


def validate_session(view: SessionView) -> dict[str, list[Violation]]:
    """Violations of the whole session as recorded (every message, in file order)."""
    entries = _view_entries(view, range(len(view)))
    positions = _view_positions(view)
    return {p: _check(entries, p, positions) for p in PROVIDERS}


__all__ = ["PROVIDERS", "Violation", "validate_messages", "validate_plan", "validate_session"]
