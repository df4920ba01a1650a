"""Check a history against the OpenAI Chat Completions and Anthropic Messages rules.

Each :class:`Violation` carries the error text the provider returns for it, the index of the
offending message *in that provider's request*, and the source message it came from. The rules
and their texts live with each provider (:mod:`.openai`, :mod:`.anthropic`), which lay the
request out the way their writers do; this module gathers the per-message facts they read and
runs them.

:func:`validate_plan` reads the view's per-message lists (roles, call and result ids) and facts
cached once per view, not materialised messages, so it stays cheap on 50,000-message sessions
(the TUI validates every plan it shows). :func:`validate_messages` checks any list of messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from ..model import Message, TextBlock, ToolCallBlock, ToolResultBlock
from ..strategies.base import gc_paused
from ..strategies.common import kept_on_view, view_cache
from ..strategies.materialize import apply_edits
from . import anthropic, openai
from .anthropic import (
    ANTHROPIC_BAD_ID,
    ANTHROPIC_DUPLICATE_ID,
    ANTHROPIC_EMPTY,
    ANTHROPIC_MISSING,
    ANTHROPIC_NO_CONTENT,
    ANTHROPIC_ORPHAN,
    ANTHROPIC_RESULTS_FIRST,
    ANTHROPIC_SYSTEM,
)
from .common import PROVIDERS, Facts, Provider, Violation, unknown_provider
from .openai import OPENAI_DUPLICATE, OPENAI_EMPTY, OPENAI_MISSING, OPENAI_NULL, OPENAI_ORPHAN, OPENAI_UNKNOWN_ID

if TYPE_CHECKING:  # pragma: no cover
    from ..strategies.base import Plan
    from ..units import SessionView


def _check(slots, facts: Facts, provider: str, extract_system: bool = True) -> list[Violation]:
    if provider == "openai":
        return openai.check(slots, facts)
    if provider == "anthropic":
        return anthropic.check(slots, facts, extract_system)
    raise unknown_provider(provider)


# -- facts from messages -----------------------------------------------------------------------


def _message_facts(messages: Sequence[Message]) -> Facts:
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
        if results and any(map(openai.sent_beside_results, m.content)):
            other.add(key)
        if not has_content and not calls and not results:
            empty.add(key)
        if openai.null_content(m):
            null.add(key)
        if results and openai.result_images(m):
            images.add(key)

    def positions(key: int) -> tuple[int, ...]:
        return tuple(k for k, b in enumerate(messages[key].content) if isinstance(b, ToolResultBlock))

    return Facts(roles, call_ids, result_ids, other, empty, null, sources, positions, images, lambda key: call_positions(messages[key]))


def call_positions(m: Message) -> tuple[int, ...]:
    """Where ``m``'s tool calls stand in its exported content (empty text blocks are dropped)."""
    kept = [b for b in m.content if not (isinstance(b, TextBlock) and not b.text)]
    return tuple(k for k, b in enumerate(kept) if isinstance(b, ToolCallBlock))


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

_CACHE_ATTR = "_wire_cache"


class WireFacts:
    """The providers' facts about a view's messages, computed once per view (lazily)."""

    def __init__(self, view: SessionView) -> None:
        self.view = view

    @cached_property
    def empty(self) -> frozenset[int]:
        """Messages with no content a provider accepts: no blocks, or only empty text blocks."""
        out = []
        for i, m in enumerate(self.view.messages):
            content = m.content  # most messages start with a text that is not empty: one look
            if not content or (content[0].type == "text" and not content[0].text and _all_empty_text(content)):
                out.append(i)
        return frozenset(out)

    @cached_property
    def openai_null(self) -> frozenset[int]:
        """Messages OpenAI is sent with ``content: null`` where it rejects it (:func:`openai.null_content`)."""
        return frozenset(i for i, m in enumerate(self.view.messages) if m.content_form == "null" and openai.null_content(m))

    @cached_property
    def results_with_other(self) -> frozenset[int]:
        """Messages holding tool results and other content OpenAI is sent as a user message
        after the tool messages (:func:`openai.sent_beside_results`)."""
        messages = self.view.messages
        return frozenset(
            i for i, ids in enumerate(self.view.result_ids) if ids and any(map(openai.sent_beside_results, messages[i].content))
        )

    @cached_property
    def result_images(self) -> frozenset[int]:
        """Messages with a tool result holding images (:func:`openai.result_images`)."""
        messages = self.view.messages
        return frozenset(i for i in view_cache(self.view).result_parts if openai.result_images(messages[i]))

    @cached_property
    def whole_checks(self) -> dict[tuple[int, frozenset[int]], dict[str, list[Violation]]]:
        """:func:`validate_plan`'s verdicts on plans that send every message before a stop, by
        (stop, messages whose results hold images)."""
        return {}

    def facts(self, images: frozenset[int] | None = None) -> Facts:
        view, cache = self.view, view_cache(self.view)
        return Facts(
            view.roles,
            view.call_ids,
            view.result_ids,
            self.results_with_other,
            self.empty,
            self.openai_null,
            None,
            lambda key: cache.result_blocks[key],
            self.result_images if images is None else images,
            lambda key: call_positions(view.messages[key]),
        )


def _all_empty_text(content) -> bool:
    return all(isinstance(b, TextBlock) and not b.text for b in content)


def wire_facts(view: SessionView) -> WireFacts:
    """The view's :class:`WireFacts`, kept on the view."""
    return kept_on_view(view, _CACHE_ATTR, WireFacts)


def validate_plan(plan: Plan) -> dict[str, list[Violation]]:
    """Violations of the history ``plan`` sends, for each provider."""
    wire = wire_facts(plan.view)
    images = wire.result_images
    edited = [i for i in images if i in plan.edits]
    if edited:  # a cleared result loses its images
        messages, encoding = plan.view.messages, plan.table.encoding
        images = images.difference(
            i for i in edited if not openai.result_images(apply_edits(messages[i], plan.edits[i], encoding))
        )
    # A plan that sends every message it saw (it edits blocks, drops none, inserts none) is
    # checked like any other with the same stop and images: once (72 ms at 50,000 messages).
    stop, live = getattr(plan, "stop", None), getattr(plan, "live", None)  # also a bare request (compaction_requests)
    whole = live is not None and len(plan.sequence) == stop and live.count(1) == stop
    if whole:
        kept = wire.whole_checks.get((stop, images))
        if kept is not None:
            return {p: list(items) for p, items in kept.items()}
    facts = wire.facts(images)
    with gc_paused():
        found = {p: _check(plan.sequence, facts, p) for p in PROVIDERS}
    if whole:
        wire.whole_checks[(stop, images)] = {p: list(items) for p, items in found.items()}
    return found


def count_violations(slots: Sequence, facts: Facts) -> tuple[tuple[str, int], ...]:
    """``(provider, violations)`` of the request laid out from ``slots``, each provider in order:
    :func:`validate_plan`'s counts where ``facts`` are those it reads of the plan (for a request
    that edits nothing, ``wire_facts(view).facts()``, built once for many requests; the
    collector is left as it is, the caller's to pause around a burst)."""
    return tuple((p, len(_check(slots, facts, p))) for p in PROVIDERS)


def validate_session(view: SessionView) -> dict[str, list[Violation]]:
    """Violations of the whole session as recorded (every message, in file order)."""
    facts = wire_facts(view).facts()
    with gc_paused():
        return {p: _check(range(len(view)), facts, p) for p in PROVIDERS}


def validity(violations: dict[str, list[Violation]]) -> dict[str, bool]:
    """``{provider: True}`` for each provider with no violation."""
    return {provider: not items for provider, items in violations.items()}


__all__ = [
    "ANTHROPIC_BAD_ID",
    "ANTHROPIC_DUPLICATE_ID",
    "ANTHROPIC_EMPTY",
    "ANTHROPIC_MISSING",
    "ANTHROPIC_NO_CONTENT",
    "ANTHROPIC_ORPHAN",
    "ANTHROPIC_RESULTS_FIRST",
    "ANTHROPIC_SYSTEM",
    "OPENAI_DUPLICATE",
    "OPENAI_EMPTY",
    "OPENAI_MISSING",
    "OPENAI_NULL",
    "OPENAI_ORPHAN",
    "OPENAI_UNKNOWN_ID",
    "PROVIDERS",
    "Provider",
    "Violation",
    "WireFacts",
    "count_violations",
    "validate_messages",
    "validate_plan",
    "validate_session",
    "validity",
    "wire_facts",
]
