"""Check a history against the OpenAI Chat Completions and Anthropic Messages rules.

Each :class:`Violation` carries the error text the provider returns for it (quoted from real
API responses, misspellings included; see strategies.md section 9.3), the index of the offending
message *in that provider's request*, and the source message it came from.

The request is laid out the way :mod:`inspector.providers.export` writes it:

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
must be answered before any other message; content may be null only on an assistant message
with tool calls (null is what the exporter writes for a message recorded with null content and
nothing else to send; an empty or thinking-only message is written as "", which the API
accepts); the history may not be empty. Anthropic: every ``tool_result`` must
answer a ``tool_use`` of the previous message; every ``tool_use`` needs its ``tool_result`` in
the next message; no empty message except a final assistant one; no ``system`` role in
``messages`` and ``tool_result`` blocks first in their user message (both only for a list sent
as is); at least one message.

:func:`validate_plan` reads the view's per-message lists (roles, call and result ids), not
materialised messages, so it stays cheap on 50,000-message sessions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ..model import Message, TextBlock, ToolCallBlock, ToolResultBlock

if TYPE_CHECKING:  # pragma: no cover
    from ..strategies.base import Plan
    from ..units import SessionView

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
# Anthropic's tool-use documentation: in a user message, the ``tool_result`` blocks come first
# and any text after them. Worded here after the docs; the API's exact text is not recorded
# (strategies.md section 9.3, rule 5). Checked only for a list sent as is: the exporter reorders.
ANTHROPIC_RESULTS_FIRST = (
    "messages.{}.content.{}: `tool_result` blocks must come first in the content of a `user` "
    "message, before any text or other block."
)


@dataclass(frozen=True, slots=True)
class Violation:
    """One rule a provider would reject the request for."""

    provider: Provider
    #: Position of the offending message in that provider's request (None: the whole request).
    index: int | None
    #: The source message (session index) it comes from; None for inserted messages.
    source: int | None
    #: Short rule name: empty_history, orphan_result, missing_result, empty_content, system_role,
    #: results_not_first.
    rule: str
    #: The error text the provider returns.
    message: str

    def __str__(self) -> str:
        return self.message


# The checkers stream over ``slots`` (source indices, or Inserted messages for a plan) and read
# per-message facts from parallel arrays indexed by slot: roles, call ids, result ids, the set of
# result messages with other content, the set of empty messages, and ``sources`` (slot -> the
# source index to report; None means the slot is the source index). ``positions(slot)`` gives
# the content positions of a message's results, needed only to word an Anthropic error.


class _Facts:
    __slots__ = ("roles", "call_ids", "result_ids", "other", "empty", "null", "sources", "positions", "images")

    def __init__(self, roles, call_ids, result_ids, other, empty, null, sources, positions, images=frozenset()) -> None:
        self.roles, self.call_ids, self.result_ids = roles, call_ids, result_ids
        self.other, self.empty, self.null, self.sources, self.positions = other, empty, null, sources, positions
        self.images = images  # messages whose tool results carry images (OpenAI: moved to a user message)


def _check_openai(slots: Iterable, f: _Facts) -> list[Violation]:
    out: list[Violation] = []
    roles, call_ids, result_ids, other, null, sources = f.roles, f.call_ids, f.result_ids, f.other, f.null, f.sources
    pos = 0
    batch: frozenset[str] = frozenset()  # call ids of the assistant message the current tool run answers
    pending: dict[str, None] = {}  # its ids not answered yet, in order (a set: 20k parallel calls stay linear)
    batch_pos, batch_source = 0, None
    in_batch = False
    images, images_pending = f.images, False  # a user message with a tool run's images follows the run
    for s in slots:
        if type(s) is int:
            role = roles[s]
            results = result_ids[s]
            source = s if sources is None else sources[s]
            if results or role == "tool":
                for rid in results:
                    if not in_batch:
                        out.append(Violation("openai", pos, source, "orphan_result", OPENAI_ORPHAN))
                    elif rid not in batch:
                        out.append(Violation("openai", pos, source, "orphan_result", OPENAI_UNKNOWN_ID.format(rid)))
                    elif rid in pending:
                        del pending[rid]
                    pos += 1
                if not results:  # a tool message answering nothing
                    out.append(Violation("openai", pos, source, "orphan_result", OPENAI_ORPHAN))
                    pos += 1
                elif s in null:  # a tool message written with null content
                    out.append(Violation("openai", pos - 1, source, "empty_content", OPENAI_NULL))
                if s in images:
                    images_pending = True
                if s not in other:
                    continue
                role, calls, is_empty = "user", (), False  # its other content follows the tool messages
            else:
                calls = call_ids[s]
                is_empty = s in null
        else:  # an inserted message: its text, a string even when empty
            role, calls, is_empty, source = s.role, (), False, None
        if images_pending:  # the user message holding the tool run's images
            pos += 1
            images_pending = False
        if in_batch:
            if pending:
                out.append(Violation("openai", batch_pos, batch_source, "missing_result", OPENAI_MISSING.format(", ".join(pending))))
            in_batch = False
        if calls and role == "assistant":
            in_batch = True
            batch, pending = frozenset(calls), dict.fromkeys(calls)
            batch_pos, batch_source = pos, source
        elif is_empty:
            out.append(Violation("openai", pos, source, "empty_content", OPENAI_NULL))
        pos += 1
    if in_batch and pending:
        out.append(Violation("openai", batch_pos, batch_source, "missing_result", OPENAI_MISSING.format(", ".join(pending))))
    pos += images_pending
    if pos == 0:
        out.append(Violation("openai", None, None, "empty_history", OPENAI_EMPTY))
    return out


def _check_anthropic(slots: Iterable, f: _Facts, extract_system: bool = True) -> list[Violation]:
    out: list[Violation] = []
    roles, call_ids, result_ids, empty, sources = f.roles, f.call_ids, f.result_ids, f.empty, f.sources
    # Streaming over the request: ``cur_*`` is message n being built; when the next one starts,
    # it is checked against ``prev_*`` (message n - 1: its tool uses answered by message n's
    # results, and its emptiness, now known not to be the last message), then shifted. Result
    # positions and sources are looked up only to word an error.
    n = -1
    cur_role: str | None = None
    cur_uses: tuple[str, ...] = ()
    cur_ids: tuple[str, ...] | list[str] = ()  # result ids in message n
    cur_run: list[int | None] | None = None  # a run of tool messages: the source of each result
    cur_slot = None  # the slot of a user message holding results (for their content positions)
    cur_empty = False
    cur_source: int | None = None
    prev_role: str | None = None
    prev_uses: tuple[str, ...] = ()
    prev_empty = False
    prev_source: int | None = None

    as_is = not extract_system

    def orphans(n: int, ids, allowed, run, slot, source) -> None:
        # Exported, a message's results come first: result k is content.k. Sent as is, the
        # results stand where they are in the message.
        positions = f.positions(slot) if run is None and as_is else None
        allowed = set(allowed)
        for k, rid in enumerate(ids):
            if rid not in allowed:
                if run is None:
                    pos, src = (positions[k] if positions is not None and k < len(positions) else k), source
                else:
                    pos, src = k, run[k]
                out.append(Violation("anthropic", n, src, "orphan_result", ANTHROPIC_ORPHAN.format(n, pos, rid)))

    def unanswered(n: int, uses, answered, source) -> None:
        answered = set(answered)
        missing = [u for u in uses if u not in answered]
        if missing:
            out.append(Violation("anthropic", n, source, "missing_result", ANTHROPIC_MISSING.format(n, ", ".join(missing))))

    for s in slots:
        if type(s) is int:
            role = roles[s]
            if role == "system" and extract_system:
                continue
            source = s if sources is None else sources[s]
            ids = result_ids[s]
            if role == "tool":
                if cur_run is not None:
                    cur_ids.extend(ids)  # type: ignore[union-attr]
                    cur_run.extend([source] * len(ids))
                    continue
                role, uses, new_ids, run, slot, is_empty = "user", (), list(ids), [source] * len(ids), None, False
            else:
                uses = call_ids[s] if role == "assistant" else ()
                new_ids, run, slot, is_empty = ids, None, s, (not ids and s in empty)
        else:  # an inserted message: text only
            role = s.role
            if role == "system" and extract_system:
                continue
            source, uses, new_ids, run, slot, is_empty = None, (), (), None, None, not s.text
        if n >= 0:  # finish message n against message n - 1
            if cur_ids:
                allowed = prev_uses if prev_role == "assistant" else ()
                if not (len(cur_ids) == 1 and cur_ids[0] in allowed) and not set(cur_ids).issubset(allowed):
                    orphans(n, cur_ids, allowed, cur_run, cur_slot, cur_source)
            if prev_uses:
                answered = cur_ids if cur_role == "user" else ()
                if not (len(prev_uses) == 1 and prev_uses[0] in answered) and not set(prev_uses).issubset(answered):
                    unanswered(n - 1, prev_uses, answered, prev_source)
            if prev_empty:
                out.append(Violation("anthropic", n - 1, prev_source, "empty_content", ANTHROPIC_NO_CONTENT.format(n - 1)))
            prev_role, prev_uses, prev_empty, prev_source = cur_role, cur_uses, cur_empty, cur_source
        n += 1
        if role == "system":
            out.append(Violation("anthropic", n, source, "system_role", ANTHROPIC_SYSTEM))
        elif as_is and new_ids and run is None:
            misplaced = next((p for k, p in enumerate(f.positions(slot)) if p != k), None)
            if misplaced is not None:
                out.append(Violation("anthropic", n, source, "results_not_first", ANTHROPIC_RESULTS_FIRST.format(n, misplaced)))
        cur_role, cur_uses, cur_ids, cur_run, cur_slot, cur_empty, cur_source = role, uses, new_ids, run, slot, is_empty, source
    if n < 0:
        out.append(Violation("anthropic", None, None, "empty_history", ANTHROPIC_EMPTY))
        return out
    # The last message: checked against the one before it; its own uses have no next message.
    if cur_ids:
        allowed = prev_uses if prev_role == "assistant" else ()
        if not set(cur_ids).issubset(allowed):
            orphans(n, cur_ids, allowed, cur_run, cur_slot, cur_source)
    if prev_uses:
        unanswered(n - 1, prev_uses, cur_ids if cur_role == "user" else (), prev_source)
    if prev_empty:
        out.append(Violation("anthropic", n - 1, prev_source, "empty_content", ANTHROPIC_NO_CONTENT.format(n - 1)))
    if cur_uses:
        unanswered(n, cur_uses, (), cur_source)
    if cur_empty and cur_role != "assistant":
        out.append(Violation("anthropic", n, cur_source, "empty_content", ANTHROPIC_NO_CONTENT.format(n)))
    out.sort(key=lambda v: -1 if v.index is None else v.index)
    return out


def _check(slots, facts: _Facts, provider: str, extract_system: bool = True) -> list[Violation]:
    if provider == "openai":
        return _check_openai(slots, facts)
    if provider == "anthropic":
        return _check_anthropic(slots, facts, extract_system)
    raise ValueError(f"unknown provider {provider!r}; choose one of: {', '.join(PROVIDERS)}")


# -- facts from messages -----------------------------------------------------------------------


def _message_facts(messages: Sequence[Message]) -> _Facts:
    from ..strategies.common import openai_null_content, result_images, sent_beside_results

    roles, call_ids, result_ids, sources = [], [], [], []
    other, empty, null, images = set(), set(), set(), set()
    for key, m in enumerate(messages):
        calls: list[str] = []
        results: list[str] = []
        has_content = False
        for b in m.content:
            if isinstance(b, ToolCallBlock):
                calls.append(b.id)
            elif isinstance(b, ToolResultBlock):
                results.append(b.tool_call_id)
            elif not (isinstance(b, TextBlock) and not b.text):
                has_content = True
        roles.append(m.role)
        call_ids.append(tuple(calls))
        result_ids.append(tuple(results))
        sources.append(m.index if m.index >= 0 else None)
        if results and any(map(sent_beside_results, m.content)):
            other.add(key)
        if not has_content and not calls and not results:
            empty.add(key)
        if openai_null_content(m):
            null.add(key)
        if results and result_images(m):
            images.add(key)

    def positions(key: int) -> tuple[int, ...]:
        return tuple(k for k, b in enumerate(messages[key].content) if isinstance(b, ToolResultBlock))

    return _Facts(roles, call_ids, result_ids, other, empty, null, sources, positions, images)


def validate_messages(
    messages: Sequence[Message], provider: Provider, *, extract_system: bool = True
) -> list[Violation]:
    """Violations of ``messages`` sent to ``provider`` ("openai" or "anthropic").

    ``extract_system``: for Anthropic, the request the exporter writes (system messages in the
    top-level ``system`` field, tool results first in their user message); False checks the
    list as sent, where each system message is an error and so is a ``tool_result`` block after
    other content."""
    return _check(range(len(messages)), _message_facts(messages), provider, extract_system)


# -- facts from a view (no pydantic access in the loop) ----------------------------------------


def _view_facts(view: SessionView, images: frozenset[int] | None = None) -> _Facts:
    from ..strategies.common import view_cache

    cache = view_cache(view)
    return _Facts(
        view.roles,
        view.call_ids,
        view.result_ids,
        cache.results_with_other,
        cache.empty,
        cache.openai_null,
        None,
        lambda key: cache.result_blocks[key],
        cache.result_images if images is None else images,
    )


def validate_plan(plan: Plan) -> dict[str, list[Violation]]:
    """Violations of the history ``plan`` sends, for each provider."""
    from ..strategies.common import gc_paused

    from ..strategies.common import result_images, view_cache
    from ..strategies.materialize import apply_edits

    images = view_cache(plan.view).result_images
    edited = [i for i in images if i in plan.edits]
    if edited:  # a cleared result loses its images
        messages, encoding = plan.view.messages, plan.table.encoding
        images = images.difference(i for i in edited if not result_images(apply_edits(messages[i], plan.edits[i], encoding)))
    facts = _view_facts(plan.view, images)
    with gc_paused():
        return {p: _check(plan.sequence, facts, p) for p in PROVIDERS}


def validate_session(view: SessionView) -> dict[str, list[Violation]]:
    """Violations of the whole session as recorded (every message, in file order)."""
    from ..strategies.common import gc_paused

    facts = _view_facts(view)
    with gc_paused():
        return {p: _check(range(len(view)), facts, p) for p in PROVIDERS}


__all__ = ["PROVIDERS", "Violation", "validate_messages", "validate_plan", "validate_session"]
