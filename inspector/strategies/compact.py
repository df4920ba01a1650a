"""``compact``: when a trigger fires, summarise the history and keep a verbatim tail.

The auto-compaction of coding agents and frameworks (presets.md 2.1, strategies.md 2-3), in one
strategy with its three parts as parameters:

- **Trigger** (any that is set fires): input ``>= usable - compact_margin`` where usable is
  ``context_window - reserved_output`` (Claude Code: 13,000 below the window minus 20,000
  reserved), input ``>= compact_share x usable`` (Codex 0.9, Gemini CLI 0.5), input
  ``> compact_tokens`` (Anthropic ``compact_20260112``, LangChain ``("tokens", n)``), or more
  than ``compact_messages`` non-system messages (OpenHands ``max_size``). With none set, it
  fires when over ``budget``.
- **Kept**: the first ``keep_head_messages`` non-system messages (OpenHands ``keep_first``),
  and a tail: the newest ``keep_tail_messages`` messages, the newest messages within
  ``keep_tail_tokens``, or the newest ``keep_tail_share`` of the history's tokens (Gemini keeps
  30 %, measured there in characters). The tail starts at a tool-exchange boundary, moved
  forward (the kept tail is never larger than asked), or at a plain user message with
  ``tail_at_user``. ``keep_user_tokens`` instead keeps only the most recent user messages a
  person wrote, newest first, while they fit that many tokens, and harness context; it
  summarises everything else, earlier summaries included, which the new one replaces (Codex:
  20,000; :func:`codex_user_kinds`).
- **Count** (the stateful replay, :mod:`inspector.analysis.compaction`): the trigger is asked
  with the input the agent measures. ``compact_count="input"``: the previous call's recorded
  input plus our count of what was added since (Claude Code's preTokens); ``"codex"``: Codex's
  own count (:mod:`inspector.analysis.codex_count`).
- **Summary**: one user message of at most ``summary_tokens`` tokens (offline: the same
  extractive stand-in as ``summarize``), before the tail, or after the kept user messages. The
  earlier summaries between the head and the tail are folded into it (:func:`earlier_summaries`):
  it stands for what they replaced too (its ``replaces``), so one summary stands after the head.

System messages are always kept; a tool call is never separated from its results.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from .base import Inserted, Reason, Status, Working, reason
from .common import kept_on_view, view_cache
from .index_runs import index_runs, union
from .params import Param
from .pipeline import register
from .summarize import SharedCounts, _safe_cuts, _SummaryBuilder, safe_cut_at, summary_message
from ..tokens import get_counter, get_profile
from ..units import injected_kind, is_summary_text

NAME = "compact"
_REPLACED = "summarized by compact: fired because {}; replaced by one summary"
_INSERTED = "inserted by compact: simulated summary of {} messages, at most {} tokens"
#: ``str(Reason(_INSERTED, (n, cap)))`` for int arguments (one per compaction: thousands in a replay)
_INSERTED_INTS = _INSERTED.replace("{}", "{:,}")


@register(
    NAME,
    (
        "budget",
        Param("context_window", int, 200_000, "the model's context window", label="window", unit="tokens", ge=1, step=10_000, percent_step=True),
        Param("reserved_output", int, 0, "tokens reserved for the reply (usable = window minus this)", unit="tokens", ge=0, step=1000),
        Param("compact_margin", int | None, None, "fire when input >= usable window minus this", unit="tokens", ge=0, step=1000),
        Param("compact_share", float, 0.0, "fire when input >= this share of the usable window (0: off)", ge=0, le=1, step=0.05),
        Param("compact_tokens", int | None, None, "fire when input > this", unit="tokens", ge=0, step=10_000, percent_step=True),
        Param("compact_messages", int | None, None, "fire when there are more messages than this", unit="messages", ge=0),
        Param("keep_head_messages", int, 0, "first messages kept verbatim", unit="messages", ge=0),
        Param("keep_tail_messages", int | None, None, "newest messages kept verbatim", unit="messages", ge=0),
        Param("keep_tail_tokens", int | None, None, "newest messages kept verbatim within this many tokens", unit="tokens", ge=0, step=1000),
        Param("keep_tail_share", float, 0.0, "newest share of the history's tokens kept verbatim", ge=0, le=1, step=0.05),
        Param("tail_at_user", bool, False, "start the kept tail only at a plain user message"),
        Param("keep_user_tokens", int | None, None, "keep only recent user messages within this many tokens", unit="tokens", ge=0, step=1000),
        Param("compact_count", Literal["input", "codex"], "input",
              "what the replay's trigger counts: the recorded input plus what was added since, or Codex's own count"),
        "summary_tokens",
    ),
    "When the trigger fires (tokens, share of the window, or message count), replaces the history "
    "by one summary plus a verbatim tail, as coding agents' auto-compaction does. Frees most of "
    "the window at once, but everything outside the tail survives only as the summary, which "
    "costs a model call of its own.",
    panel=False,
)
def compact(w: Working) -> None:
    why = fired(w)
    if why is not None:
        compact_now(w, why)


def compact_now(w: Working, why: Reason, shared: SharedCounts | None = None) -> None:
    """Summarise now (the trigger fired for ``why``): keep the head and tail, insert the summary.
    ``shared``: what the summaries of one replay count alike (:func:`summary_of`)."""
    s = w.settings
    seq = [i for i in w.order if type(i) is int and w.view.roles[i] != "system"]
    if not seq:
        return
    if s.keep_user_tokens is not None:
        kinds = codex_user_kinds(w.view)
        kept = _recent_user_messages(w, seq, s.keep_user_tokens, kinds)
        replaced = [i for i in seq if i not in kept and kinds[i] != CODEX_CONTEXT]
        summary_after = max(kept) if kept else None
        # Codex rebuilds the history from the user messages and the one new summary: every
        # earlier summary goes (collect_user_messages skips them, is_summary_message)
        w.remove_inserted([x for x in w.inserted if x.by == NAME and x.kind == "summary"])
        covered = replaced
    else:
        head = _head_end(w, seq, s.keep_head_messages)
        tail = _tail_start(w, seq, head)
        replaced = seq[head:tail]
        summary_after = seq[head - 1] if head else None
        if not replaced:
            return
        earlier = earlier_summaries(w.order, seq, head, tail)
        covered = covers(replaced, earlier)
        w.remove_inserted(earlier)
    if not replaced:
        return
    item = summary_of(w, covered, shared)
    w.drop_many(replaced, NAME, Reason(_REPLACED, (str(why),)), Status.SUMMARIZED)
    w.insert(summary_position(w.order, w.view.roles, summary_after), item)


def earlier_summaries(order: list, seq: list[int], head: int, tail: int) -> list[Inserted]:
    """The summaries of earlier compactions that stand in ``order`` between the kept head
    (``seq[:head]``) and the kept tail (from ``seq[tail]``): the new summary folds them in, as
    every agent modelled here does (OpenHands' condenser summarises the forgotten events, the
    previous summary among them; LangChain's middleware, Aider's ChatSummary and Claude Code
    summarise the earlier summary with the rest)."""
    lo, hi = between(order, seq, head, tail)
    return compact_summaries(order[lo:hi])


def compact_summaries(slots: list) -> list[Inserted]:
    """The summaries of ``compact`` among ``slots``."""
    return [x for x in slots if type(x) is not int and x.by == NAME and x.kind == "summary"]


def between(order: list, seq: list[int], head: int, tail: int) -> tuple[int, int]:
    """``(lo, hi)``: ``order[lo:hi]`` stands between the kept head (``seq[:head]``) and the kept
    tail (from ``seq[tail]``); its non-system source messages are ``seq[head:tail]``."""
    lo = order.index(seq[head - 1]) + 1 if head else 0
    hi = order.index(seq[tail]) if tail < len(seq) else len(order)
    return lo, hi


def covers(replaced: list[int], earlier: list[Inserted]) -> Sequence[int]:
    """What the new summary stands for: the messages it replaces now and those the earlier
    summaries it folds in replaced, in order (its size is that of a summary of them all): runs
    that extend the earlier summary's where it folds one (:func:`.index_runs.union`)."""
    if not earlier:
        return replaced
    if len(earlier) == 1:  # (most compactions of a replay that folds: no generator)
        return union((earlier[0].replaces, replaced))
    return union([*(x.replaces for x in earlier), replaced])


def usable_window(s) -> int:
    return max(s.context_window - s.reserved_output, 0)


def trigger_tokens(s) -> int | None:
    """The smallest input at which the token triggers fire (the lowest of those set), or None."""
    usable = usable_window(s)
    found = []
    if s.compact_margin is not None:
        found.append(usable - s.compact_margin)
    if s.compact_share > 0:  # fires at input >= share x usable; rounded first against float noise
        found.append(math.ceil(round(s.compact_share * usable, 6)))
    if s.compact_tokens is not None:
        found.append(s.compact_tokens + 1)
    return min(found) if found else None


def fired(w: Working) -> Reason | None:
    """Why the trigger fires at this call, or None."""
    messages = sum(1 for i in w.order if type(i) is not int or w.view.roles[i] != "system")
    return fires(w.settings, w.running, messages)


def fires(s, total: int, messages: int) -> Reason | None:
    """Why the trigger fires for a history of ``total`` input tokens and ``messages`` non-system
    messages, or None (the stateful replay asks with the input the agent itself measured)."""
    usable = usable_window(s)
    if s.compact_margin is not None and total >= usable - s.compact_margin:
        return reason("input {} >= window {} - reserved {} - margin {}", (total, s.context_window, s.reserved_output, s.compact_margin))
    if s.compact_share > 0 and total >= s.compact_share * usable:
        return reason("input {} >= {} of usable window {}", (total, f"{s.compact_share:g}", usable))
    if s.compact_tokens is not None and total > s.compact_tokens:
        return reason("input {} > {}", (total, s.compact_tokens))
    if s.compact_messages is not None and messages > s.compact_messages:
        return reason("{} messages > {}", (messages, s.compact_messages))
    unset = s.compact_margin is None and s.compact_share <= 0 and s.compact_tokens is None and s.compact_messages is None
    if unset and s.budget is not None and total > s.budget:
        return reason("input {} > budget {}", (total, s.budget))
    return None


def _head_end(w: Working, seq: list[int], n: int) -> int:
    """Positions ``seq[:head]`` kept as the head: ``n`` messages, moved forward past a split exchange."""
    if n <= 0:
        return 0
    safe = _safe_cuts(w, seq)
    head = min(n, len(seq))
    while head < len(seq) and not safe[head]:
        head += 1
    return head


def _tail_start(w: Working, seq: list[int], head: int) -> int:
    """Position in ``seq`` where the verbatim tail starts (``len(seq)``: no tail)."""
    s = w.settings
    m = len(seq)
    tokens = w.tokens
    start = m
    if s.keep_tail_messages is not None:
        start = min(start, m - min(s.keep_tail_messages, m)) if s.keep_tail_messages else start
    limit = None
    if s.keep_tail_tokens is not None:
        limit = s.keep_tail_tokens
    if s.keep_tail_share > 0:
        share = int(s.keep_tail_share * sum(tokens[i] for i in seq))
        limit = share if limit is None else max(limit, share)
    if limit is not None:
        used, p = 0, m
        while p > head and used + tokens[seq[p - 1]] <= limit:
            p -= 1
            used += tokens[seq[p]]
        start = min(start, p)
    start = max(start, head)
    safe = safe_cut_at(w, seq)
    if not s.tail_at_user:
        while start < m and not safe(start):
            start += 1
        return start
    plain_user = view_cache(w.view).plain_user
    while start < m and (not safe(start) or not plain_user[seq[start]]):
        start += 1
    return start


#: :func:`codex_user_kinds`: a user message Codex keeps within ``keep_user_tokens``; harness
#: context (``<environment_context>``, AGENTS.md) Codex rebuilds as its initial context.
CODEX_USER, CODEX_CONTEXT = 1, 2
#: ``is_legacy_compaction_warning_message``: warnings Codex wrote as user messages, never kept.
_CODEX_WARNINGS = (
    "Warning: The maximum number of unified exec processes you can keep open is ",
    "Warning: apply_patch was requested via exec_command. Use the apply_patch tool instead of exec_command.",
    "Warning: Your account was flagged for potentially high-risk cyber activity",
)


def codex_user_kinds(view) -> bytearray:
    """Per message, what Codex's compaction does with it (openai/codex
    ``codex-rs/core/src/compact.rs`` at e06dd0e: ``collect_user_messages``; 0.14x:
    ``codex_context_manager::collect_compaction_user_messages``): :data:`CODEX_USER` for a user
    message with text that a person (or the calling program) wrote, the only messages it keeps;
    :data:`CODEX_CONTEXT` for harness context it rebuilds (``is_contextual_user_message_content``),
    kept here like the system prompt and not counted; 0 for the rest, which the summary replaces:
    replies, tool exchanges, sub-agent messages (``agent_message`` items are not user
    messages), earlier summaries (``is_summary_message``), its own warnings, image-only messages."""
    return kept_on_view(view, "_codex_user_kinds", _codex_user_kinds)


def codex_replaced(view) -> tuple[bytearray, bytearray]:
    """Per message, 1 where a Codex compaction that keeps no user message replaces it (all but
    the system prompt and harness context), and 1 where one that keeps every user message does:
    what it folds is the first up to its oldest kept user message, the second from there on."""
    return kept_on_view(view, "_codex_replaced", _codex_replaced)


def _codex_replaced(view) -> tuple[bytearray, bytearray]:
    kinds, roles = codex_user_kinds(view), view.roles
    context = bytearray(1 if r != "system" and k != CODEX_CONTEXT else 0 for r, k in zip(roles, kinds))
    users = bytearray(1 if x and k != CODEX_USER else 0 for x, k in zip(context, kinds))
    return context, users


def _codex_user_kinds(view) -> bytearray:
    plain_user = view_cache(view).plain_user
    out = bytearray(len(plain_user))
    for i, m in enumerate(view.messages):
        if not plain_user[i] or m.injected == "agent_message" or (m.starts_context if m.is_summary is None else m.is_summary):
            continue
        text = m.text
        if not text:
            continue
        if injected_kind(text) is not None:
            out[i] = CODEX_CONTEXT
        elif not is_summary_text(text) and not text.startswith(_CODEX_WARNINGS):
            out[i] = CODEX_USER
    return out


def _recent_user_messages(w: Working, seq: list[int], limit: int, kinds: bytearray) -> set[int]:
    """The newest :data:`CODEX_USER` messages of ``seq`` while they fit ``limit`` tokens (Codex cuts
    the one that crosses the limit to what is left; it is left out whole here)."""
    tokens = w.tokens
    kept: set[int] = set()
    used = 0
    for i in reversed(seq):
        if kinds[i] != CODEX_USER:
            continue
        if used + tokens[i] > limit:
            break
        used += tokens[i]
        kept.add(i)
    return kept


def summary_position(order: list, roles, after: int | None) -> int:
    """Where the summary goes in ``order`` (the history without what it replaces): after the
    kept head's last message ``after``, or before the first non-system source message."""
    if after is None:
        return next((p for p, slot in enumerate(order) if type(slot) is int and roles[slot] != "system"), len(order))
    return order.index(after) + 1


def summary_of(w: Working, replaced: Sequence[int], shared: SharedCounts | None = None) -> Inserted:
    """The summary message that replaces ``replaced`` (of ``w`` it reads the view, the table and
    the settings; ``shared``: what every summary counts alike, kept from one compaction to the
    next, as the replay that compacts from its state does: its text is then built when read).
    Its ``replaces``: :class:`.index_runs.IndexRuns` where ``replaced`` increases."""
    s = w.settings
    counter = get_counter(w.table.encoding)
    profile = get_profile(w.table.profile)
    replaces = index_runs(replaced)
    if shared is None:
        builder = _SummaryBuilder(w, list(replaced), counter, profile, s.summary_tokens, role="user")
    else:
        builder = shared.builder(w, replaces, counter, profile, s.summary_tokens, "user")
    n = len(replaces)
    cap = s.summary_tokens
    why = _INSERTED_INTS.format(n, cap) if type(cap) is int else str(Reason(_INSERTED, (n, cap)))
    return summary_message(builder, n, replaces, w.table, by=NAME, reason=why, deferred=shared is not None)
