"""Claude Code transcripts: ``~/.claude/projects/<slug>/<sessionId>.jsonl``, one entry per line.

How the file becomes a :class:`~inspector.model.Session`:

- **Main chain.** Entries point at their predecessor with ``parentUuid``. Lines are taken in
  file order; a human prompt whose parent is an earlier entry than the newest one is a rewind
  (the user went back and edited a prompt), so the messages after that parent leave the main
  chain (reported in ``Session.skipped`` as ``abandoned branch (rewound)``). Entries whose uuid was
  already seen (a resume replaying earlier lines) are skipped.
- **One model response, one message.** Claude Code writes each content block of an API response
  on its own line, repeating ``message.id`` / ``requestId`` and a partial ``usage``. Lines of the
  same response merge back into one assistant message (usage per field the largest seen, so it is
  counted once per call), even when a tool result line was written between two of its blocks.
  Consecutive user lines carrying tool results merge into one user message, as Claude Code does
  before it sends them.
- **Sidechains.** Entries with ``isSidechain`` (inline, older versions) and the sub-agent files
  next to the session (``<sessionId>/subagents/agent-*.jsonl``, 2.0.x ``agent-*.jsonl`` with the
  same ``sessionId``) go to ``Session.sidechains`` keyed by ``agentId``. A sub-agent transcript
  opened on its own (an ``agent-*.jsonl`` file, or any file whose first conversation entry is a
  sidechain root: ``isSidechain`` with no parent) is read as its own session, its entries the
  main chain (``extra["agent_id"]``).
- **Compaction.** A ``system``/``compact_boundary`` entry and the ``isCompactSummary`` user entry
  after it become one message: the summary, with ``starts_context=True`` and the boundary's
  metadata in ``extra["compact_boundary"]``. A ``preservedSegment`` (2.1.2xx partial compaction)
  is written again after the summary under new uuids but the same ``message.id``: those lines
  start new messages there (``extra["preserved_copy"]``, ``Message.resent``, no usage: the call was counted before
  the boundary), never merge into the response before it. Everything before stays in the session; the units
  module makes later calls' context start at the summary, so earlier messages show as no longer sent.
- **Microcompact.** A ``system``/``microcompact_boundary`` entry lists tool results
  (``microcompactMetadata.compactedToolIds``) that every later call sends as
  :data:`MICROCOMPACT_CLEARED`; the file keeps them whole. The current context is added again
  there as copies with those results cleared (replies ``resent``), the first copy starting the
  context with ``extra["microcompact_boundary"]`` and ``extra["continues_context"]`` (the hidden
  prefix and the turn's reasoning carry over, unlike after a summary).
- **Skipped on purpose** (``kind="ignored"``, ``reason`` = the record type): ``progress``,
  ``file-history-snapshot``, ``queue-operation``, ``attachment`` without model-bound text, titles, other ``system``
  subtypes (``system/turn_duration``...), synthetic API-error replies and any unknown record type.
  Unknown fields never fail a line.
- **Usage.** ``message.usage`` of each response -> :class:`~inspector.model.Usage` (input, output,
  cache read, cache creation kept apart; Anthropic's ``input_tokens`` excludes cached input), once
  per call however many lines the response was written on; ``Usage.model`` is ``message.model``.
  ``Session.agent`` is ``claude_code``, ``agent_version`` the latest ``version`` field,
  ``Session.model`` the model most main-chain calls used.
- **Injected content.** ``<system-reminder>`` text Claude Code wrote into a message (inside tool
  results, ``isMeta`` user entries) stays in that message and is counted. ``attachment`` records
  (2.1.x) whose text the record holds and Claude Code sends to the model (:func:`attachment_text`:
  SessionStart / UserPromptSubmit hook output, hook additional context, the skill, agent and
  deferred-tool listings, an edited file's snippet, a queued prompt, MCP instructions, a file's text, the
  skills given again after a compaction) are counted: the text is an
  ``isMeta`` user message of its own (``extra["record"] = "attachment/<type>"``, its block
  ``extra["attachment"]``), its own unit in the turn, not the person's prompt it follows (the
  skill listing alone is 4,000-34,000 characters); attachments in a row, or one right after other
  ``isMeta`` text, make one message. The reminder wrapper around it is not in the file
  and not counted. Other attachments (empty tool-hook successes, a todo
  reminder whose wording the file lacks, messages shown only to the user) are listed in
  ``skipped`` with a reason.

The headless ``claude -p --output-format stream-json`` log (``session_id``, no ``parentUuid``) reads
the same way; its ``parent_tool_use_id`` messages are sidechains.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from sys import intern
from typing import Any

import orjson
from msgspec import UNSET
from orjson import dumps as _dumps

from ..model import (
    MODEL_WINDOWS,
    RESOLVED_MODELS,
    UNSEEN_START,
    Block,
    ContentForm,
    ImageBlock,
    Message,
    RawBlock,
    ResultPart,
    Session,
    SourceRef,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    Usage,
    new_message,
    new_source,
    new_text,
    new_tool_call,
    new_tool_result,
)
from ..safeio import read_line
from . import claude_code_typed as typed
from .base import Format, Probe, SessionFormatError, register
from .discovery import Discovery, SessionDetails, count_needles, first_records
from .rawtext import raw_text
from .reading import ANTHROPIC, ModelTally, content_blocks, image_block, recorded_usage
from .recordlines import feed_records, feed_typed_records
from .records import FIELD_ERRORS, head_records, ignored, ignored_at, json_text, malformed, parse_line

NAME = "claude_code"

#: Record types that carry no conversation (seen in 2.0.x-2.1.x files); any other unknown type is
#: skipped the same way.
BOOKKEEPING = frozenset(
    {
        "progress",
        "file-history-snapshot",
        "queue-operation",
        "summary",
        "custom-title",
        "ai-title",
        "last-prompt",
        "agent-name",
        "permission-mode",
        "pr-link",
        "worktree-state",
        "agent-setting",
        "bridge-session",
        "attachment",
        "mode",  # 2.1.210+: the session's mode ("normal"), set by the user
        "file-history-delta",  # 2.1.210+: a file backup for rewind, not sent
    }
)
REWOUND = "abandoned branch (rewound)"
#: ``system`` subtypes the reader reads more of than the subtype (the typed path leaves them to
#: the dict path).
_SYSTEM_READ = ("compact_boundary", "microcompact_boundary", "init")
#: A response's recorded usage as :class:`~inspector.model.Usage` (``usage_from`` with Anthropic's keys).
_usage = ANTHROPIC.usage
#: Entry fields -> ``Session.extra`` keys, taken from the first entry that has each (as a string).
SESSION_FIELDS = (("cwd", "cwd"), ("version", "version"), ("gitBranch", "git_branch"))
#: ... and the session id (``sessionId``, or ``session_id`` in stream-json): every field watched.
_WATCHED_FIELDS = (*SESSION_FIELDS, ("sessionId", "session_id"), ("session_id", "session_id"))


# --- block conversion (Anthropic message content) ---------------------------------------------


def _image(block: dict[str, Any]) -> ImageBlock:
    source = block.get("source") if isinstance(block.get("source"), dict) else {}
    kind = source.get("type")
    data = source.get("data") or source.get("url") or source.get("file_id") or ""
    return image_block(data, media_type=source.get("media_type"), source_kind=kind if kind in ("base64", "url", "file") else "url")


def _result_content(content: Any) -> str | list[ResultPart]:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return json_text(content)
    parts: list[ResultPart] = []
    for part in content:
        if not isinstance(part, dict):
            parts.append(TextBlock(text=str(part)))
        elif part.get("type") == "image":
            parts.append(_image(part))
        elif part.get("type") == "text":
            parts.append(TextBlock(text=str(part.get("text", ""))))
        else:  # tool_reference, search_result...: keep the block, count its text
            parts.append(TextBlock(text=raw_text(part), extra={"block": part}))
    return parts


def _block(b: Any, k: int = 0) -> Block:
    if type(b) is not dict:
        return TextBlock(text=str(b))
    t = b.get("type")
    if t == "text":
        text = b.get("text", "")
        rest = {} if len(b) == 2 and "text" in b else {key: v for key, v in b.items() if key not in ("type", "text")}
        return new_text(text if type(text) is str else str(text), rest)
    if t == "tool_use":
        call_id, name, args = b.get("id", ""), b.get("name", ""), b.get("input", {})
        if type(args) is not str:  # (json_text, without its call for the usual object)
            try:
                args = _dumps(args).decode()
            except TypeError:
                args = json_text(args)
        # one string per tool name, not one per call
        return new_tool_call(call_id if type(call_id) is str else str(call_id), intern(name if type(name) is str else str(name)), args, {})
    if t == "tool_result":
        call_id, content = b.get("tool_use_id", ""), b.get("content")
        result = content if type(content) is str else _result_content(content)
        if "is_error" in b and b["is_error"]:
            return new_tool_result(call_id if type(call_id) is str else str(call_id), result, {}, is_error=True)
        return new_tool_result(call_id if type(call_id) is str else str(call_id), result, {})
    if t == "thinking":
        return ThinkingBlock(thinking=str(b.get("thinking", "")), signature=b.get("signature"))
    if t == "redacted_thinking":
        return ThinkingBlock(thinking=str(b.get("data", "")), redacted=True)
    if t == "image":
        return _image(b)
    return RawBlock(raw=b, text=raw_text(b))  # document, server_tool_use, web_search_tool_result, compaction...


def _typed_block(b: Any) -> Block:
    """A block of :mod:`.claude_code_typed` as the model block :func:`_block` makes of the same
    JSON; TypeError (orjson's) for a tool call's ``input`` orjson does not write (an integer
    beyond 64 bits, nesting deeper than orjson writes): :func:`_block` then takes the dict."""
    kind = type(b)
    if kind is typed.Text:
        return new_text(b.text, {})
    if kind is typed.ToolUse:
        args = b.input
        return new_tool_call(b.id, intern(b.name), args if type(args) is str else _dumps(args).decode(), {})
    if kind is typed.ToolResult:
        content = b.content
        if content is None:
            content = ""
        elif type(content) is list:
            content = [TextBlock(text=part.text) for part in content]
        if b.is_error:
            return new_tool_result(b.tool_use_id, content, {}, is_error=True)
        return new_tool_result(b.tool_use_id, content, {})
    if kind is typed.Thinking:
        return ThinkingBlock(thinking=b.thinking, signature=b.signature)
    return ThinkingBlock(thinking=b.data, redacted=True)


def _typed_usage(usage: typed.Usage | None, model: str | None) -> Usage | None:
    """:data:`_usage` of a typed usage (its counts checked by the decoder)."""
    if usage is None:
        return None
    cache = usage.cache_creation
    return recorded_usage(usage.input_tokens, usage.output_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens,
                          None if cache is None else cache.ephemeral_1h_input_tokens, None, model, usage.speed)


def _typed_extra(entry: typed.Stamped) -> dict[str, Any]:
    """:func:`_entry_extra` of a typed entry (whose uuid the typed path requires)."""
    if entry.timestamp is UNSET:
        extra: dict[str, Any] = {"uuid": entry.uuid}
    else:
        extra = {"uuid": entry.uuid, "timestamp": entry.timestamp}
    if entry.isMeta:
        extra["isMeta"] = True
    return extra


def _answers_parallel_call(call: Message, results: Message, blocks: list[Block]) -> bool:
    """``blocks`` (a user entry's content) are results of calls in ``call`` that ``results``, the
    user message right after ``call``, already answers some of."""
    if call.role != "assistant" or results.role != "user" or not _has_result(results.content):
        return False
    ids = {c.id for c in call.tool_calls}
    return all(type(b) is not ToolResultBlock or b.tool_call_id in ids for b in blocks)


def _has_result(blocks: list[Block]) -> bool:
    """Whether ``blocks`` hold a tool result (``Message.tool_results`` without building the list;
    this reader builds no subclass of the block types)."""
    for b in blocks:
        if type(b) is ToolResultBlock:
            return True
    return False


def _entry_extra(entry: dict[str, Any]) -> dict[str, Any]:
    """The ``extra`` of a message that starts at ``entry``: its uuid, timestamp and ``isMeta``."""
    if "uuid" in entry and "timestamp" in entry:  # (every entry of a transcript)
        extra: dict[str, Any] = {"uuid": entry["uuid"], "timestamp": entry["timestamp"]}
    else:
        extra = {key: entry[key] for key in ("uuid", "timestamp") if key in entry}
    if "isMeta" in entry and entry["isMeta"]:
        extra["isMeta"] = True
    return extra


def _other_content(content: Any) -> list[Block]:
    return [RawBlock(raw={"content": content}, text=json_text(content))]


def convert_blocks(content: Any) -> tuple[list[Block], str]:
    """Anthropic message ``content`` (string or blocks) -> model blocks and the content form."""
    return content_blocks(content, _block, "blocks", other=_other_content)


def _merge_usage(old: Usage | None, new: Usage | None) -> Usage | None:
    if old is None or new is None:
        return new or old
    if old == new:  # the same usage written again on the response's next line (the usual case)
        return old
    fields: dict[str, Any] = {"model": old.model or new.model, "speed": old.speed or new.speed}
    for name in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
                 "cache_creation_1h_input_tokens"):
        a, b = getattr(old, name), getattr(new, name)
        fields[name] = b if a is None else a if b is None else max(a, b)
    return Usage(**fields)


# --- one conversation (the main chain or one sidechain) ----------------------------------------


class _Conversation:
    """Messages of one chain, with the block-per-line and tool-result merging."""

    def __init__(self, messages: list[Message], file: str | None = None, models: ModelTally | None = None) -> None:
        self.messages = messages
        self.file = file
        self.models = models  # the main chain counts the model of each call for Session.model
        self.last_assistant: int | None = None
        self.pending_boundary: dict[str, Any] | None = None
        #: A ``microcompact_boundary`` not applied yet (entry, line, uuid, file): it applies to the
        #: next call, unless a compaction comes first and replaces the whole context.
        self.pending_micro: tuple[dict[str, Any], int, str | None, str | None] | None = None
        self.dirty = 0  # first index changed since the last take()
        #: message ids of responses before the latest compaction
        self.before_boundary: set[str] = set()
        #: The recorded usage and model of the last response line, and the Usage made of them.
        self._built_usage: tuple[Any, str | None, Usage | None] = (None, None, None)

    def _touch(self, index: int) -> None:
        if index < self.dirty:
            self.dirty = index

    def truncate(self, keep: int) -> list[Message]:
        dropped = self.messages[keep:]
        del self.messages[keep:]
        self._touch(keep)
        self.last_assistant = next((i for i in range(keep - 1, -1, -1) if self.messages[i].role == "assistant"), None)
        self.pending_boundary = None
        return dropped

    def add_assistant(self, entry: Any, extra_of: Callable[[Any], dict[str, Any]], usage_of: Callable[[Any, str | None], Usage | None],
                      model: Any, raw_usage: Any, mid: Any, rid: Any, stop: Any, blocks: list[Block], form: ContentForm, line_no: int) -> None:
        """An assistant entry (its message's ``model``, ``usage``, ``id`` and ``stop_reason``, its
        ``requestId``; ``blocks`` its content), merged into the response before it where Claude
        Code wrote one response over several lines. ``extra_of(entry)`` is the ``extra`` of a
        message that starts there, ``usage_of(raw_usage, model)`` its :class:`Usage` (the entry
        is a dict or a typed struct)."""
        if type(model) is str:  # one string per model, not one per call (20,000+ at 50k messages)
            model = recorded_model = intern(model)
        else:
            recorded_model, model = model, None
        resent = False
        last = self.last_assistant
        if last is not None and mid:
            prev = self.messages[last]
            if prev.extra.get("message_id") == mid and (not rid or not (prid := prev.extra.get("request_id")) or rid == prid):
                prev.content.extend(blocks)
                built_raw, built_model, built = self._built_usage
                # the response's next line repeats its usage (14,288 of 14,291 such lines in the
                # real transcripts): the Usage it makes equals the one prev holds, and merges to it
                if prev.usage is not built or raw_usage != built_raw or model != built_model:
                    usage = usage_of(raw_usage, model)
                    prev.usage = _merge_usage(prev.usage, usage)
                    self._built_usage = (raw_usage, model, usage)
                prev.extra.setdefault("lines", [prev.source.line]).append(line_no)
                if last < self.dirty:
                    self.dirty = last
                return
        usage = usage_of(raw_usage, model)
        self._built_usage = (raw_usage, model, usage)
        extra = extra_of(entry)
        if mid is not None:
            extra["message_id"] = mid
            if mid and mid in self.before_boundary:  # a preserved copy: that call's usage is counted once
                extra["preserved_copy"], usage, resent = True, None, True
        if rid is not None:
            extra["request_id"] = rid
        if recorded_model is not None:
            extra["model"] = recorded_model
        if stop is not None:
            extra["stop_reason"] = stop
        messages = self.messages
        self.last_assistant = index = len(messages)
        if self.models is not None:
            self.models.add(model)
        message = new_message(index, "assistant", blocks, new_source(line_no, None, self.file), form, extra, usage=usage, resent=resent)
        if self.pending_boundary is None:
            messages.append(message)  # (what _append does then, without its call)
        else:
            self._append(message)

    def add_user(self, entry: Any, extra_of: Callable[[Any], dict[str, Any]], summary: bool, blocks: list[Block], form: ContentForm,
                 line_no: int) -> None:
        """A user entry (``blocks`` its content, ``summary`` its ``isCompactSummary``; ``extra_of``
        as for :meth:`add_assistant`); consecutive tool results merge into one message."""
        joined = None  # the kind of harness text this message takes in (then not a person's words)
        messages = self.messages
        source = None
        if not summary and self.pending_boundary is None and messages and _has_result(blocks):
            prev = messages[-1]
            if prev.role == "user" and _has_result(prev.content):
                prev.content.extend(blocks)
                prev.content_form = "blocks"
                prev.extra.setdefault("lines", [prev.source.line]).append(line_no)
                if len(messages) - 1 < self.dirty:  # (_touch, without its call: once per result line)
                    self.dirty = len(messages) - 1
                return
            if prev.role == "user" and prev.injected is not None and len(messages) > 2 and _answers_parallel_call(messages[-3], messages[-2], blocks):
                # a parallel call's result written after the text another call's result brought in
                # (a Skill's body: isMeta, sourceToolUseID): Claude Code sends the results together,
                # before that text, so the result joins the other results
                results = messages[-2]
                results.content.extend(blocks)
                results.content_form = "blocks"
                results.extra.setdefault("lines", [results.source.line]).append(line_no)
                self._touch(len(messages) - 2)
                return
            if prev.injected == "attachment" and len(messages) > 1 and messages[-2].tool_calls:
                # hook text written between a call and its result (a PreToolUse hook's context):
                # Claude Code merges the two user messages, the results first as the API requires
                blocks = blocks + prev.content
                joined = prev.injected
                source = prev.source
                del messages[-1]
                self._touch(len(messages))
        extra = extra_of(entry)
        if source is None:
            source = new_source(line_no, None, self.file)
        else:
            extra["lines"] = [source.line, line_no]
        if summary:
            extra["isCompactSummary"] = True
        injected = "meta" if "isMeta" in extra else joined  # written by Claude Code, not typed
        message = new_message(len(messages), "user", blocks, source, form, extra, starts_context=summary, injected=injected)
        if self.pending_boundary is None:
            messages.append(message)  # (what _append does then, without its call)
        else:
            self._append(message, starts=summary)

    def add_attachment(self, entry: dict[str, Any] | typed.Attachment, text: str, line_no: int) -> None:
        """Attachment text the model is sent: a message of its own (``isMeta``, injected
        "attachment"), not part of the person's prompt before it; one right after other harness
        text (an attachment, an ``isMeta`` message) joins that message."""
        kind = entry["attachment"].get("type")
        block = TextBlock(text=text, extra={"attachment": kind})
        prev = self.messages[-1] if self.messages else None
        if prev is not None and prev.role == "user" and prev.injected in _HARNESS_KINDS and not prev.tool_results \
                and self.pending_boundary is None:
            prev.content.append(block)
            prev.content_form = "blocks"
            prev.extra.setdefault("lines", [prev.source.line]).append(line_no)
            self._touch(len(self.messages) - 1)
            return
        extra: dict[str, Any] = {key: entry[key] for key in ("uuid", "timestamp") if key in entry}
        extra.update(isMeta=True, record=f"attachment/{kind}")
        source = SourceRef(line=line_no, file=self.file)
        self._append(Message(index=0, role="user", content=[block], source=source, content_form="blocks", extra=extra, injected="attachment"))

    def microcompact(self, entry: dict[str, Any], line_no: int, uuid: str | None) -> str | None:
        """A ``microcompact_boundary``: every later call sends the current context with the
        listed tool results cleared (:data:`MICROCOMPACT_CLEARED`), while the file keeps them
        whole. The context is added again from here as copies (``extra["microcompact_copy"]``,
        replies ``resent``), the first one starting it with the boundary in
        ``extra["microcompact_boundary"]``. Returns why nothing was added, if nothing was."""
        meta = entry.get("microcompactMetadata")
        ids = meta.get("compactedToolIds") if isinstance(meta, dict) else None
        listed = {i for i in ids if isinstance(i, str)} if isinstance(ids, list) else set()
        start = next((i for i in range(len(self.messages) - 1, -1, -1) if self.messages[i].starts_context), 0)
        context = self.messages[start:]
        cleared = sum(1 for m in context for b in m.content if type(b) is ToolResultBlock and b.tool_call_id in listed)
        if self.pending_boundary is not None:
            return "system/microcompact_boundary (within a compaction: its summary starts the next context)"
        if not cleared:
            return f"system/microcompact_boundary (none of its {len(listed)} compactedToolIds is in the file)"
        first = len(self.messages)
        for m in context:
            content = [_cleared(b) if type(b) is ToolResultBlock and b.tool_call_id in listed else b for b in m.content]
            extra = {**m.extra, "microcompact_copy": True}
            extra.pop("compact_boundary", None)
            extra.pop("microcompact_boundary", None)
            extra.pop("continues_context", None)
            # a copied prompt opens no turn (as a Codex replacement history's): the calls after the
            # boundary stay in the turn they continue
            injected = m.injected or ("compaction" if m.role == "user" else None)
            copy = new_message(len(self.messages), m.role, content, m.source, m.content_form, extra, name=m.name,
                               injected=injected, resent=m.role == "assistant")
            self.messages.append(copy)
        head = self.messages[first]
        head.starts_context, head.is_summary = True, False
        head.extra["continues_context"] = True  # (analysis.session_facts.continues_context)
        head.extra["microcompact_boundary"] = {"line": line_no, "uuid": uuid, "microcompactMetadata": meta, "cleared": cleared}
        self.last_assistant = next((i for i in range(len(self.messages) - 1, first - 1, -1) if self.messages[i].role == "assistant"), None)
        return None

    def _append(self, message: Message, starts: bool = False) -> None:
        if self.pending_boundary is not None:
            message.extra["compact_boundary"] = self.pending_boundary
            self.pending_boundary = None
            starts = True
        if starts:  # no response continues across a compaction: the preserved segment Claude Code
            self.last_assistant = None  # writes again after the summary keeps its message ids
            self.before_boundary.update(m.extra["message_id"] for m in self.messages if m.role == "assistant" and "message_id" in m.extra)
        message.starts_context = starts
        message.index = len(self.messages)
        self.messages.append(message)


#: The injected kinds of a message an attachment joins (harness text; never a person's prompt).
_HARNESS_KINDS = frozenset({"attachment", "meta"})

#: What Claude Code sends instead of a tool result a microcompact cleared (its
#: ``TIME_BASED_MC_CLEARED_MESSAGE``).
MICROCOMPACT_CLEARED = "[Old tool result content cleared]"


def _cleared(block: ToolResultBlock) -> ToolResultBlock:
    return new_tool_result(block.tool_call_id, MICROCOMPACT_CLEARED, {**block.extra, "microcompact_cleared": True},
                           is_error=block.is_error, name=block.name)


#: Hook events whose output Claude Code adds to the model's context (the hooks reference: stdout of
#: SessionStart and UserPromptSubmit hooks is added as context; tool hooks' stdout is not).
CONTEXT_HOOK_EVENTS = frozenset({"SessionStart", "UserPromptSubmit"})


def _strings(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(v for v in value if isinstance(v, str))
    return ""


def attachment_text(attachment: Any) -> str:
    """The text of an ``attachment`` record that reaches the model ("" when none does or the
    record does not hold it): hook output and additional context, the skill listing, the added
    agent lines and deferred tool names (2.1.168+ send them as ``<system-reminder>`` text), an
    edited file's snippet and a queued prompt (2.1.101+: the recorded input grows by at least
    their size at the next call), an MCP server's added instructions, a file's text (an
    @-mention; the files Claude Code restores after a compaction) and the invoked skills' text
    it gives again after a compaction. A file's text is counted as the file holds it (the line
    numbers Claude Code adds are not in the file)."""
    if not isinstance(attachment, dict):
        return ""
    kind = attachment.get("type")
    if kind == "hook_success" and attachment.get("hookEvent") in CONTEXT_HOOK_EVENTS:
        return _strings(attachment.get("content"))
    if kind in ("hook_additional_context", "skill_listing"):
        return _strings(attachment.get("content"))
    if kind == "agent_listing_delta":
        return _strings(attachment.get("addedLines"))
    if kind == "deferred_tools_delta":
        return _strings(attachment.get("addedNames"))
    if kind == "edited_text_file":  # the changed lines of a file the user or a linter edited
        return _strings(attachment.get("snippet"))
    if kind == "queued_command":  # a prompt or task notification that arrived while the agent worked
        return _strings(attachment.get("prompt"))
    if kind == "mcp_instructions_delta":  # an MCP server's instructions, sent as the listings are
        return _strings(attachment.get("addedBlocks"))
    if kind == "file":  # a file's text: an @-mention, or one restored after a compaction
        content = attachment.get("content")
        file = content.get("file") if isinstance(content, dict) and content.get("type") == "text" else None
        return _strings(file.get("content")) if isinstance(file, dict) else ""
    if kind == "invoked_skills":  # the skills used so far, given again after a compaction
        skills = attachment.get("skills")
        return "\n".join(_strings(s.get("content")) for s in skills if isinstance(s, dict)) if isinstance(skills, list) else ""
    return ""


def _attachment_reason(entry: dict[str, Any]) -> str:
    """Why an ``attachment`` record with no :func:`attachment_text` is not counted (a tool hook's
    empty success, a todo reminder in a wording the file does not hold, a message shown only
    to the user)."""
    att = entry.get("attachment")
    kind = att.get("type") if isinstance(att, dict) and isinstance(att.get("type"), str) else None
    what = f"attachment/{kind}" if kind else "attachment"
    return f"{what} (no text the file holds reaches the model; not counted)"


# --- the stream -------------------------------------------------------------------------------


def _is_human_prompt(entry: dict[str, Any]) -> bool:
    if entry.get("isMeta") or entry.get("isCompactSummary"):
        return False
    content = entry["message"].get("content")
    if isinstance(content, list):
        return not any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)
    return True


class ClaudeCodeStream:
    """Incremental Claude Code reader (a :class:`~inspector.formats.base.RecordStream`)."""

    def __init__(self, path: Path | None = None) -> None:
        self.session = Session(path=str(path) if path else None, format=NAME, agent=NAME)
        self._main = _Conversation(self.session.messages, models=ModelTally(self.session))
        self._sides: dict[str, _Conversation] = {}
        self._parent: dict[str, str | None] = {}
        self._side_root: dict[str, str] = {}
        #: The main chain's entries in order (a dict keeps its insertion order: a rewind pops the
        #: entries after its parent), and for each the number of messages up to it.
        self._upto: dict[str, int] = {}
        self._leaf: str | None = None
        #: A sub-agent transcript opened on its own (named ``agent-*.jsonl``, or whose first
        #: conversation entry is a sidechain root): its sidechain entries are the main chain.
        self._sidechain_file = path is not None and path.name.startswith("agent-")
        self._first_entry_seen = self._sidechain_file
        #: Lines that looked like Claude Code entries (to tell "empty" from "not this format").
        self.recognised = 0
        #: SESSION_FIELDS keys whose ``extra`` entry is not set yet.
        self._unseen_fields = tuple(key for key, _ in _WATCHED_FIELDS)

    # RecordStream protocol
    def feed(self, line: bytes, line_no: int) -> None:
        if self._add_typed(line, line_no):
            return
        entry = parse_line(line, line_no, self.session.skipped)
        if entry is not None:
            try:  # (add's work, without its call: once per line)
                self._add(entry, line_no, None, None)
            except FIELD_ERRORS as exc:
                self._malformed(entry, line_no, None, exc)

    def read_file(self, path: Path) -> None:
        """Every entry of a whole file, as :meth:`feed` would take its lines (one loop: the
        per-line calls of feeding cost about a tenth of the parse)."""
        feed_typed_records(path, typed.DECODER, typed.REFUSED, self._take, self._add, self.session.skipped, guard=FIELD_ERRORS,
                           on_error=self._malformed_line)

    def take(self) -> tuple[int, list[Message]]:
        first = min(self._main.dirty, len(self.session.messages))
        self._main.dirty = len(self.session.messages)
        return first, self.session.messages[first:]

    # entries
    def add(self, entry: dict[str, Any], line_no: int, file: str | None = None, side_key: str | None = None) -> None:
        """Consume one entry; an entry whose fields have unexpected types goes to ``skipped``."""
        try:
            self._add(entry, line_no, file, side_key)
        except FIELD_ERRORS as exc:
            self._malformed(entry, line_no, file, exc)

    def _malformed_line(self, entry: dict[str, Any], line_no: int, exc: Exception) -> None:
        """:meth:`_malformed` for an entry of the session file itself (feed_records' ``on_error``)."""
        self._malformed(entry, line_no, None, exc)

    def _malformed(self, entry: dict[str, Any], line_no: int, file: str | None, exc: Exception) -> None:
        where = SourceRef(line=line_no, file=file)
        self.session.skipped.append(malformed(where, f"{entry.get('type')} record", exc))

    def _add(self, entry: dict[str, Any], line_no: int, file: str | None = None, side_key: str | None = None) -> None:
        # once per line: the values' types are tested with ``type() is`` (every entry comes from
        # orjson: no subclasses), fields most lines lack with ``in``
        rtype = entry.get("type")
        if type(rtype) is not str:
            self.session.skipped.append(ignored_at(line_no, file, "record without a type"))
            return
        uuid = entry.get("uuid")
        if type(uuid) is not str:
            uuid = None
        elif uuid in self._parent:
            self.session.skipped.append(ignored_at(line_no, file, f"{rtype} (duplicate uuid, replayed entry)"))
            return
        self.recognised += 1
        for key in self._unseen_fields:  # (none once all are seen; a file may lack some for good)
            if key in entry:
                self._note_session_fields(entry)
                break
        version = entry.get("version")
        if version != self.session.agent_version and type(version) is str:
            self.session.agent_version = version  # the latest: a resumed session may run a newer CLI
        parent = entry.get("parentUuid") or entry.get("logicalParentUuid")
        if type(parent) is not str:
            parent = None
        if uuid is not None:
            self._parent[uuid] = parent
        if not self._first_entry_seen and side_key is None and rtype in ("user", "assistant"):
            self._first_entry_seen = True  # a transcript that starts as a sidechain is one
            self._sidechain_file = bool(entry.get("isSidechain")) and parent is None and not self.session.messages
            if self._sidechain_file and isinstance(entry.get("agentId"), str):
                self.session.extra.setdefault("agent_id", entry["agentId"])
            self._note_unseen_start(parent)
        main = self._main
        if side_key is not None or (not self._sidechain_file and (entry.get("isSidechain") or "parent_tool_use_id" in entry and entry["parent_tool_use_id"])):
            conv = self._side(entry, uuid, parent, file, side_key)
        else:
            conv = main

        msg = entry.get("message")
        if type(msg) is dict and (rtype == "user" or rtype == "assistant"):
            if rtype == "assistant" and ("isApiErrorMessage" in entry and entry["isApiErrorMessage"] or msg.get("model") == "<synthetic>"):
                self.session.skipped.append(ignored_at(line_no, file, "assistant/<synthetic> (API error reply)"))
            else:
                if conv is main and parent is not None and parent != self._leaf and rtype == "user" and _is_human_prompt(entry):
                    self._rewind_to(parent)
                if conv.pending_micro is not None:
                    self._microcompact(conv)
                content = msg.get("content")
                if type(content) is list:  # the usual form, without content_blocks' per-part callback
                    blocks, form = list(map(_block, content)), "blocks"
                else:
                    blocks, form = convert_blocks(content)
                if rtype == "assistant":
                    conv.add_assistant(entry, _entry_extra, _usage, msg.get("model"), msg.get("usage"), msg.get("id"), entry.get("requestId"),
                                       msg.get("stop_reason"), blocks, form, line_no)
                else:
                    conv.add_user(entry, _entry_extra, "isCompactSummary" in entry and bool(entry["isCompactSummary"]), blocks, form,
                                  line_no)
                    if "toolUseResult" in entry and type(result := entry["toolUseResult"]) is dict and "resolvedModel" in result:
                        self._note_resolved_model(result["resolvedModel"])
        elif rtype == "attachment" and (text := attachment_text(entry.get("attachment"))):
            if conv.pending_micro is not None:
                self._microcompact(conv)
            conv.add_attachment(entry, text, line_no)
        elif rtype == "system" and entry.get("subtype") == "microcompact_boundary":
            if conv.pending_micro is not None:
                self._microcompact(conv)
            conv.pending_micro = (entry, line_no, uuid, file)
        elif rtype == "system" and entry.get("subtype") == "compact_boundary":
            if conv.pending_micro is not None:  # the compaction replaces the context it would have cleared
                _, micro_line, _, micro_file = conv.pending_micro
                conv.pending_micro = None
                self.session.skipped.append(ignored_at(micro_line, micro_file, f"system/microcompact_boundary (superseded by the compaction at line {line_no} before any call)"))
            conv.pending_boundary = {
                "line": line_no,
                "uuid": uuid,
                **({"compactMetadata": entry["compactMetadata"]} if "compactMetadata" in entry else {}),
                **({"compact_metadata": entry["compact_metadata"]} if "compact_metadata" in entry else {}),
            }
        else:
            self._skip_bookkeeping(entry, rtype, line_no, file)

        if conv is main and uuid is not None:
            self._upto[uuid] = len(main.messages)
            self._leaf = uuid

    def _add_typed(self, line: bytes, line_no: int) -> bool:
        """:meth:`_take` of the line decoded by :mod:`.claude_code_typed` (False: not decoded)."""
        try:
            return self._take(typed.decode(line), line_no)
        except typed.REFUSED:
            return False

    def _take(self, e: typed.Entry, line_no: int) -> bool:  # noqa: C901 (add's steps, in one place)
        """A line of the session file decoded by :mod:`.claude_code_typed`, added as :meth:`add`
        adds it, when it is a main-chain user, assistant or attachment entry or a
        record skipped on purpose, with nothing else to decide: the structs answer in C what
        :meth:`add` asks every line (record type, field types, a sidechain, an API error reply, a
        compaction summary), and a message's blocks are built from the typed parts
        (:func:`_typed_block`). False, with nothing changed, for any other line
        (the first conversation entry, a field not seen yet, a duplicate uuid, a possible rewind,
        a pending microcompact, a compaction, a shape the structs do not take): :meth:`add` then
        takes its dict."""
        uuid = e.uuid
        if type(uuid) is not str:
            if isinstance(e, typed.Stamped):  # (a message's extra: the dict path's, for an entry without a uuid)
                return False
            uuid = None
        elif uuid in self._parent:
            return False
        for key in self._unseen_fields:  # (``_note_session_fields`` would read it)
            if getattr(e, key) is not UNSET:
                return False
        if not self._sidechain_file and (e.isSidechain or e.parent_tool_use_id):
            return False
        parent = e.parentUuid or e.logicalParentUuid
        kind = e.kind
        main = self._main
        if kind == "assistant" or kind == "user":
            msg = e.message
            content = msg.content
            if not self._first_entry_seen or main.pending_micro is not None:
                return False
            if kind == "assistant":
                if e.isApiErrorMessage or msg.model == "<synthetic>":
                    return False
            elif e.isCompactSummary or (parent is not None and parent != self._leaf and not e.isMeta
                                        and (type(content) is not list or not any(type(b) is typed.ToolResult for b in content))):
                return False  # (a summary; a person's prompt after an earlier entry: maybe a rewind)
            else:
                try:
                    used = typed.use_result(e.toolUseResult)
                except typed.REFUSED:
                    return False
            if type(content) is list:
                try:
                    blocks, form = list(map(_typed_block, content)), "blocks"
                except TypeError:  # (a tool call's input orjson does not write: the dict path's)
                    return False
            elif content is None:
                blocks, form = [], "null"
            else:
                blocks, form = ([new_text(content, {})] if content else []), "string"
        elif kind == "attachment":
            text = attachment_text(e.attachment)
            if text and main.pending_micro is not None:
                return False
        elif kind == "system" and e.subtype in _SYSTEM_READ:
            return False
        self.recognised += 1
        version = e.version
        if version != self.session.agent_version and type(version) is str:
            self.session.agent_version = version
        if uuid is not None:
            self._parent[uuid] = parent
        if kind == "assistant":
            main.add_assistant(e, _typed_extra, _typed_usage, msg.model, msg.usage, msg.id, e.requestId, msg.stop_reason, blocks, form, line_no)
        elif kind == "user":
            main.add_user(e, _typed_extra, False, blocks, form, line_no)
            if used is not None and used.resolvedModel is not UNSET:  # (as add notes it)
                self._note_resolved_model(used.resolvedModel)
        elif kind == "attachment" and text:
            main.add_attachment(e, text, line_no)
        else:
            self._skip_bookkeeping(e, kind, line_no, None)  # type: ignore[arg-type]
        if uuid is not None:
            self._upto[uuid] = len(main.messages)
            self._leaf = uuid
        return True

    def _note_unseen_start(self, parent: str | None) -> None:
        """``Session.extra[UNSEEN_START]``: the record the first conversation entry's chain starts
        from, where the file does not hold it (the chain's root has a parent: the file starts
        mid-session). Called once, at the first user or assistant entry of the main chain."""
        node = parent
        for _ in range(len(self._parent) + 1):  # (bounded: a chain cannot loop back)
            if node is None or node not in self._parent:
                break
            node = self._parent[node]
        if node is not None:
            self.session.extra[UNSEEN_START] = node

    def _note_resolved_model(self, model: Any) -> None:
        """``Session.extra[RESOLVED_MODELS]``: a sub-agent's model as Claude Code resolved it."""
        if isinstance(model, str) and model not in (seen := self.session.extra.setdefault(RESOLVED_MODELS, [])):
            seen.append(model)

    def _note_model_windows(self, entry: dict[str, Any]) -> None:
        """``Session.extra[MODEL_WINDOWS]``: the window a stream-json ``result`` record states per model."""
        usage = entry.get("modelUsage")
        if not isinstance(usage, dict):
            return
        for model, figures in usage.items():
            window = figures.get("contextWindow") if isinstance(figures, dict) else None
            if type(window) is int and window > 0:
                self.session.extra.setdefault(MODEL_WINDOWS, {})[model] = window

    def _microcompact(self, conv: _Conversation) -> None:
        """Apply the microcompact ``conv`` holds (:meth:`_Conversation.microcompact`)."""
        entry, line_no, uuid, file = conv.pending_micro  # type: ignore[misc]
        conv.pending_micro = None
        reason = conv.microcompact(entry, line_no, uuid)
        if reason:
            self.session.skipped.append(ignored_at(line_no, file, reason))

    def finish(self) -> None:
        """A microcompact the file ends on applies to the next call: apply it now."""
        for conv in (self._main, *self._sides.values()):
            if conv.pending_micro is not None:
                self._microcompact(conv)

    def _skip_bookkeeping(self, entry: dict[str, Any], rtype: str, line_no: int, file: str | None) -> None:
        if rtype == "system":
            subtype = entry.get("subtype")
            reason = f"system/{subtype}" if isinstance(subtype, str) else "system"
            if subtype == "init" and "session_id" in entry:  # stream-json header
                for key in ("model", "tools", "cwd"):
                    if key in entry:
                        self.session.extra.setdefault(key, entry[key])
        elif rtype in ("summary", "custom-title", "ai-title"):
            reason = rtype
            title = entry.get("summary") or entry.get("customTitle") or entry.get("aiTitle") or entry.get("title")
            if isinstance(title, str):
                self.session.extra["title"] = title
        elif rtype == "attachment":
            reason = _attachment_reason(entry)
        elif rtype in BOOKKEEPING or rtype == "result":
            reason = rtype
            if rtype == "result":  # stream-json's last record: the window of each model it ran
                self._note_model_windows(entry)
        else:
            reason = f"{rtype} (unknown record type)"
        self.session.skipped.append(ignored_at(line_no, file, reason))

    def _note_session_fields(self, entry: dict[str, Any]) -> None:
        """``extra`` fields from the first entries that have them (:data:`_WATCHED_FIELDS`)."""
        extra = self.session.extra
        if "session_id" not in extra:
            sid = entry.get("sessionId") or entry.get("session_id")
            if isinstance(sid, str):
                extra["session_id"] = sid
        for key, name in SESSION_FIELDS:
            if name not in extra and isinstance(entry.get(key), str):
                extra[name] = entry[key]
        self._unseen_fields = tuple(key for key, name in _WATCHED_FIELDS if name not in extra)

    def _side(self, entry, uuid, parent, file, side_key) -> _Conversation:
        key = side_key or entry.get("agentId") or entry.get("parent_tool_use_id")
        if not isinstance(key, str):
            root = self._side_root.get(parent, uuid) if parent else uuid
            key = root or "sidechain"
            if uuid:
                self._side_root[uuid] = key
        conv = self._sides.get(key)
        if conv is None:
            messages: list[Message] = []
            self.session.sidechains[key] = messages
            conv = self._sides[key] = _Conversation(messages, file)
        return conv

    def _rewind_to(self, parent: str) -> None:
        node: str | None = parent
        for _ in range(len(self._parent) + 1):
            if node is None or node in self._upto:
                break
            if node not in self._parent:
                return  # parent from another file (a resume): nothing to rewind
            node = self._parent[node]
        if node is None or node not in self._upto:
            return
        keep = self._upto[node]
        for m in self._main.truncate(keep) if keep < len(self.session.messages) else ():
            self.session.skipped.append(ignored(m.source, REWOUND))
        upto = self._upto  # (each entry is in it once: a replayed uuid is skipped)
        while True:  # the entries after ``node``, newest first
            last, count = upto.popitem()
            if last == node:
                upto[last] = count
                break

    def add_side_file(self, path: Path, label: str) -> None:
        """Read a sub-agent transcript into ``session.sidechains`` (key: its agentId)."""
        key = path.stem[len("agent-") :] if path.stem.startswith("agent-") else path.stem
        def add(entry: dict[str, Any], line_no: int) -> None:
            agent = entry.get("agentId")
            self.add(entry, line_no, file=label, side_key=agent if isinstance(agent, str) else key)

        feed_records(path, add, self.session.skipped, label)


# --- format entry points -----------------------------------------------------------------------


def _subagent_files(path: Path, session_id: str | None) -> list[Path]:
    files = sorted((path.parent / path.stem / "subagents").glob("agent-*.jsonl"))
    if session_id:  # 2.0.x: agent-<id>.jsonl beside the session, tied to it by sessionId
        for candidate in sorted(path.parent.glob("agent-*.jsonl")):
            try:
                first = orjson.loads(read_line(candidate, 1 << 20) or b"null")
            except (OSError, orjson.JSONDecodeError):
                continue
            if isinstance(first, dict) and first.get("sessionId") == session_id:
                files.append(candidate)
    return files


def read(path: Path) -> Session:
    stream = ClaudeCodeStream(path)
    stream.read_file(path)
    if not stream.recognised:
        raise SessionFormatError(path, "line 1", "no Claude Code transcript entries found.",
                                 "JSONL lines with a 'type' and a 'message' or 'uuid' (a Claude Code transcript)")
    if not stream._sidechain_file:
        for side in _subagent_files(path, stream.session.extra.get("session_id")):
            stream.add_side_file(side, str(side.relative_to(path.parent)))
    stream.finish()
    return stream.session


def detect(probe: Probe) -> int:
    score = 0
    for r in head_records(probe):
        if "role" in r or "payload" in r:
            return 0  # the inspector's JSONL / Codex
        t = r.get("type")
        if not isinstance(t, str):
            continue
        keyed = "uuid" in r or "parentUuid" in r or "sessionId" in r
        if t in ("user", "assistant") and isinstance(r.get("message"), dict):
            if keyed:
                return 95
            if "session_id" in r:
                score = max(score, 70)  # claude -p stream-json
        elif t == "system" and keyed and "subtype" in r:
            score = max(score, 90)
        elif t in BOOKKEEPING and (keyed or "leafUuid" in r or "snapshot" in r or "messageId" in r):
            score = max(score, 60)
        elif t == "system" and r.get("subtype") == "init" and "session_id" in r:
            score = max(score, 70)
    return score


def stream(path: Path) -> ClaudeCodeStream:
    return ClaudeCodeStream(path)


def details(path: Path) -> SessionDetails:
    """Project (``cwd``), session id and title from the first records; messages = user and
    assistant records (one response written as several block lines counts once per line)."""
    project, sid, title = None, None, None
    for r in first_records(path):
        if project is None and isinstance(r.get("cwd"), str):
            project = r["cwd"]
        if sid is None and isinstance(r.get("sessionId"), str):
            sid = r["sessionId"]
        if title is None and r.get("type") in ("summary", "custom-title", "ai-title"):
            t = r.get("summary") or r.get("customTitle") or r.get("aiTitle") or r.get("title")
            title = t if isinstance(t, str) else None
    messages = count_needles(path, (b'"type":"user"', b'"type":"assistant"'))
    return SessionDetails(project or path.parent.name, sid or path.stem, title, messages)


#: ``projects/<slug>/<session>.jsonl`` under $CLAUDE_CONFIG_DIR (a comma-separated list, as
#: ccusage accepts) or ~/.claude and ~/.config/claude; ``agent-*.jsonl`` files belong to a session.
DISCOVERY = Discovery(
    agent="claude",
    label="Claude Code",
    option="claude-dir",
    details=details,
    pattern=("projects", "*", "*.jsonl"),
    env="CLAUDE_CONFIG_DIR",
    homes=("~/.claude", "~/.config/claude"),
    exclude="agent-*",
    aliases=("claude_code", "claude-code"),
)


FORMAT = register(
    Format(
        name=NAME,
        description="Claude Code transcript JSONL (~/.claude/projects/*/<session>.jsonl)",
        detect=detect,
        read=read,
        suffix=".jsonl",
        stream=stream,
        provider="anthropic",
        discovery=DISCOVERY,
    )
)
