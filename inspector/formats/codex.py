"""Codex CLI rollouts: ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<ts>-<uuid>.jsonl``.

Every line is ``{"timestamp", "type", "payload"}``. How the records become a Session:

- ``session_meta``: its ``base_instructions`` (older: ``instructions``) become the system message
  at the front (Codex sends them as the request's ``instructions``); its ``dynamic_tools`` (the
  Codex app's own tools, 0.126 on) become the session's tool definitions (:func:`dynamic_tools`);
  id, cwd and CLI version go to ``Session.extra``.
- ``response_item``: a Responses API item, read by
  :class:`~inspector.formats.openai_responses.ItemReader` (one model response's reasoning,
  message and calls grouped into one assistant message; ``function_call`` /
  ``function_call_output`` and ``custom_tool_call`` / ``custom_tool_call_output`` linked by
  ``call_id``; developer messages as system messages, one recorded while a call ran placed
  after the call's output; ``ghost_snapshot`` skipped).
- ``response_item/agent_message`` (0.145 multi-agent): a sub-agent's message, sent to the model
  as input; it becomes a user message (``extra["record"] = "agent_message"``, with its author)
  whose readable text is counted (its ``encrypted_content`` parts cannot be).
- ``inter_agent_communication`` (later multi-agent rollouts: the message is a top-level record,
  no longer a ``response_item``): read as the ``agent_message`` item Codex sends for it, its
  ``content`` (or, encrypted, the header Codex writes before the unreadable payload).
- ``event_msg``: UI and telemetry. ``user_message``, ``agent_message`` and ``agent_reasoning``
  repeat text already in a ``response_item``, so they are skipped and never counted twice.
  ``token_count`` is the recorded usage of one model call (its ``last_token_usage``; repeats
  with unchanged totals and ``info: null`` updates are skipped). Which call it measures depends
  on the CLI version, so the reader looks at what is around it: newer CLIs (0.5x) write it when
  the response completed, after that response's items (and sometimes after its tool outputs),
  so it goes to the latest assistant message of the current turn that has no usage yet; 0.40
  writes it *before* the items of the response it measures (``turn_context``, ``token_count``,
  then ``reasoning``/``function_call``), so when no such message exists it is held and given to
  the next assistant message. Measured on two public 0.40 rollouts (50 pairs of consecutive
  calls with only tool output between them): recorded input growth minus (the earlier call's
  output + the added tool text) is within 150 tokens for 50 of 50 pairs this way (median 28),
  16 of 49 when each figure goes to the call before (median 311).
  OpenAI ``input_tokens`` include cached input; we store ``input - cached`` as ``input_tokens``
  and the cached part as ``cache_read_input_tokens``, so ``Usage.context_tokens`` is the
  recorded input. ``Usage.model`` is the latest ``turn_context`` model and
  ``Usage.reasoning_tokens`` the call's ``reasoning_output_tokens`` (encrypted reasoning later
  calls of the same turn send again without the file showing its text).
- A reply of reasoning alone with no usage after it is a model call cut short, not part of the
  next one: Codex ends a sampling request as soon as a reasoning item (or commentary message) is
  done while mail from another agent waits (``preempt_for_mailbox_mail`` in openai/codex
  ``core/src/session/turn.rs``), records that item, writes a ``token_count`` with unchanged totals
  (skipped as a repeat) and sends a new request with the item and the mail. It stays a call
  without recorded usage (22 of 359 calls in the public 0.145 rollout).
- ``compacted``: the context after it is its ``replacement_history`` (0.100+: what Codex sends
  from then on), added as messages, the first one with ``starts_context=True`` and
  ``is_summary=False`` (it is the user's first retained prompt or an injected developer
  message, not a summary); the ``compaction`` item inside it (remote compaction) is the summary,
  ``is_summary=True`` without starting the context again. Older files: its ``message`` summary
  as a user message with ``starts_context=True``. Earlier messages stay visible as no longer
  sent, the developer messages among them too: every system message read from the history
  (developer messages, ``additional_tools``) is marked ``extra["replaced_by_compaction"]``
  (:func:`inspector.units.sent_across_starts`), since Codex sends after a compaction only its
  ``session_meta`` instructions (the request's ``instructions``) and what the new history holds:
  the developer messages its replacement history repeats (0.140+), or the initial context Codex
  writes again at the next turn (0.137+), possibly revised (a changed skills list).
- Sub-agents (0.145 multi-agent): ``event_msg/sub_agent_activity`` names each spawned thread
  (``agent_thread_id``, ``agent_path``); the sub-agent's own rollout
  (``rollout-<time>-<thread id>.jsonl`` in the same day directory, or another day of the month) is
  read into ``Session.sidechains`` keyed by its agent path (``/root/review_pr36_38``); its own
  sub-agents are not read. A rollout the file names but the directory lacks is not listed.
- Paginated rollouts (0.146+) that continue another (a fork, or a backtrack that rewrote the
  thread: ``session_meta.history_base``): the earlier rollout's prefix is read first
  (:mod:`.codex_lineage`), its messages' sources naming that file; ``Session.extra
  ["history_base"]`` lists the files. A prefix not found beside the file is named in
  ``skipped``. The live follower reads the prefix first too.
- A sub-agent rollout spawned with the parent's history starts with a copy of it: records whose
  ``ordinal`` is below its ``session_meta.subagent_history_start_ordinal`` are read as context,
  their replies ``resent`` (the parent's calls) and their ``token_count`` skipped.
- ``turn_context`` (its model is each later call's ``Usage.model`` and, when no call records
  one, ``Session.model``; also kept in ``Session.extra["model"]``) and unknown record types are
  skipped with ``kind="ignored"``. ``Session.agent`` is ``codex``, ``agent_version`` the
  ``session_meta`` ``cli_version``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..model import REPLACED_BY_COMPACTION, Block, Message, RawBlock, Session, Skipped, SourceRef, TextBlock, ToolDefinition, Usage, new_source
from .base import Format, Probe, SessionFormatError, register
from .codex_lineage import lineage, own_session_meta, prefix_lines
from .discovery import Candidate, Discovery, SessionDetails, count_needles, first_records, walk
from .openai_responses import ITEM_HANDLERS, ItemReader
from .reading import OPENAI, ModelTally, usage_from
from .recordlines import feed_records
from .records import FIELD_ERRORS, head_records, ignored, malformed, parse_line

NAME = "codex"
RECORD_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
#: Records of 0.144+ that hold state, not model input, and why they are skipped.
STATE_RECORDS = {
    "world_state": "world_state (a snapshot of AGENTS.md and the environment; the messages hold what the model was sent)",
    "inter_agent_communication_metadata": "inter_agent_communication_metadata (whether a sub-agent message starts a turn)",
}
USAGE_FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")


def dynamic_tools(tools: Any) -> list[ToolDefinition]:
    """The tools the Codex app adds to every request (``session_meta.dynamic_tools``, 0.126 on):
    flat ``{namespace?, name, description, inputSchema, deferLoading}`` entries, or (0.145)
    ``{"type": "namespace", "name", "tools": [...]}`` groups. A tool whose ``deferLoading`` is
    true is not in the request until the model searches for it, so it is left out."""
    out: list[ToolDefinition] = []
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        if tool.get("type") == "namespace" and isinstance(tool.get("tools"), list):
            namespace = tool.get("name")
            members = [dict(t, namespace=namespace) for t in tool["tools"] if isinstance(t, dict)]
        else:
            members = [tool]
        for member in members:
            name = member.get("name")
            if not isinstance(name, str) or member.get("deferLoading") is True:
                continue
            schema = member.get("inputSchema")
            extra = {"namespace": member["namespace"]} if isinstance(member.get("namespace"), str) else {}
            out.append(ToolDefinition(name=name, description=str(member.get("description") or ""),
                                      parameters=schema if isinstance(schema, dict) else {}, extra=extra))
    return out


def _usage_delta(total: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
    previous = previous or {}
    return {k: total.get(k, 0) - previous.get(k, 0) for k in USAGE_FIELDS if isinstance(total.get(k), int)}


class CodexStream:
    """Incremental Codex rollout reader (a :class:`~inspector.formats.base.RecordStream`)."""

    def __init__(self, path: Path | None = None) -> None:
        self.session = Session(path=str(path) if path else None, format=NAME, agent=NAME)
        self._items = ItemReader(self.session.messages, self.session.skipped, prefix="response_item/", hold_system=True)
        self._usage_from = 0  # token_count attaches to an assistant message at or after this index
        self._turn_from = 0  # ... and at or after the latest turn_context
        self._last_total: dict[str, Any] | None = None
        #: Usage written before the response it measures (0.40), for the next assistant message.
        self._pending: tuple[Usage, dict[str, Any], SourceRef] | None = None
        self._model: str | None = None
        #: The current record (its timestamp is the clock of the call a token_count measures: read
        #: there, not on every line).
        self._record: dict[str, Any] = {}
        self._models = ModelTally(self.session)
        self.recognised = 0
        #: Sub-agent threads this thread spawned (``sub_agent_activity``): thread id -> agent path.
        self.sub_agents: dict[str, str] = {}
        #: A sub-agent rollout's ``subagent_history_start_ordinal``: records below it are the
        #: parent's history it inherited (None once its own records begin, or when it has none).
        self._own_from: int | None = None
        self._inherited_from = 0  # first message of the inherited history not yet marked

    def feed(self, line: bytes, line_no: int) -> None:
        record = parse_line(line, line_no, self.session.skipped)
        if record is not None:
            self.add(record, line_no)

    def read_file(self, path: Path) -> None:
        """Every record of a whole file, as :meth:`feed` would take its lines (one loop: the
        per-line calls of feeding cost about a tenth of the parse)."""
        feed_records(path, self.add, self.session.skipped)

    def take(self) -> tuple[int, list[Message]]:
        return self._items.take()

    def add(self, record: dict[str, Any], line_no: int) -> None:
        source = new_source(line_no, None, None)
        rtype, payload = record.get("type"), record.get("payload")
        if type(rtype) is not str or type(payload) is not dict:  # (records come from orjson: no subclasses)
            self.session.skipped.append(ignored(source, "record without a type and payload"))
            return
        self.recognised += 1
        if self._own_from is not None and self._inherited(record, rtype, payload, source):
            return
        try:
            if rtype == "response_item" and (t := payload.get("type")) != "agent_message":  # most records
                items = self._items
                try:  # (ItemReader.add's work, without its two calls: once per line)
                    handler = ITEM_HANDLERS.get(t)
                    msg = items._add(payload, source, False) if handler is None else handler(items, payload, t, source, False)
                except FIELD_ERRORS as exc:
                    items.malformed(payload, source, exc)
                    msg = None
                if msg is not None and msg.role == "system":
                    msg.extra[REPLACED_BY_COMPACTION] = True
                if self._pending is not None:
                    self._attach_pending(msg)
            elif rtype == "event_msg":  # (a third to half of a real rollout's records)
                self._record = record  # (a token_count reads its timestamp: not kept for response items)
                self._event(payload, source)
            else:
                self._dispatch(rtype, payload, source)
        except FIELD_ERRORS as exc:
            self.session.skipped.append(malformed(source, f"{rtype} record", exc))

    def _inherited(self, record: dict[str, Any], rtype: str, payload: dict[str, Any], source: SourceRef) -> bool:
        """Whether a record of a sub-agent rollout is one of the parent's history it starts with
        and was handled here: its ``token_count`` is skipped (the parent's calls, not this
        thread's); other records are read as context by :meth:`add`, their replies marked
        ``resent`` when the next record comes."""
        self._mark_inherited()
        ordinal = record.get("ordinal")
        if type(ordinal) is int and ordinal < self._own_from:  # type: ignore[operator]
            if rtype == "event_msg" and payload.get("type") == "token_count":
                self.session.skipped.append(ignored(source, "event_msg/token_count (the parent's, in the history this sub-agent inherits)"))
                return True
            return False
        self._own_from = None  # this thread's own records from here on
        self._items.close_response()
        self._usage_from = len(self.session.messages)
        return False

    def _mark_inherited(self) -> None:
        messages = self.session.messages
        for m in messages[self._inherited_from:]:
            if m.role == "assistant":
                m.resent = True
        self._inherited_from = len(messages)

    def _attach_pending(self, msg: Message | None) -> None:
        """Usage written before the response it measures (0.40) goes to that response's message."""
        if self._pending is not None and msg is not None and msg.role == "assistant" and msg.usage is None:
            usage, extra, _ = self._pending
            self._pending = None
            self._attach(msg.index, usage, extra)

    def _dispatch(self, rtype: str, payload: dict[str, Any], source: SourceRef) -> None:
        """Records other than a plain response item or an event (:meth:`add` reads those)."""
        if rtype == "response_item":  # a sub-agent's message
            self._agent_message(payload, source)
        elif rtype == "session_meta":
            self._session_meta(payload, source)
        elif rtype == "compacted":
            first = len(self.session.messages)
            self._compacted(payload, source)
            for m in self.session.messages[first:]:  # the history it replays: no new prompt
                if m.role == "user":
                    m.injected = "compaction"
        elif rtype == "turn_context":
            if isinstance(payload.get("model"), str):
                self._model = self.session.extra["model"] = payload["model"]
                self._models.fallback(self._model)
            self._turn_from = len(self.session.messages)
            self.session.skipped.append(ignored(source, "turn_context"))
        elif rtype == "inter_agent_communication":
            self._agent_message(_inter_agent_item(payload), source)
        elif rtype in STATE_RECORDS:
            self.session.skipped.append(ignored(source, STATE_RECORDS[rtype]))
        else:
            self.session.skipped.append(ignored(source, f"{rtype} (unknown record type)"))

    def _agent_message(self, payload: dict[str, Any], source: SourceRef) -> None:
        """A sub-agent's message to this agent (0.145 multi-agent): model input, like a user
        message. Its ``input_text`` parts are counted; ``encrypted_content`` parts cannot be
        read, so they are kept as blocks with no countable text."""
        self._items.close_response()
        self._items.release()
        blocks: list[Block] = []
        for part in payload.get("content") or []:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                blocks.append(TextBlock(text=part["text"]))
            elif isinstance(part, dict):
                blocks.append(RawBlock(raw=part, text=""))
        extra: dict[str, Any] = {"record": "agent_message"}
        for key in ("id", "author", "recipient"):
            if isinstance(payload.get(key), str):
                extra[key] = payload[key]
        self._items.append(Message(index=0, role="user", content=blocks, source=source, content_form="parts", extra=extra, injected="agent_message"))

    def _session_meta(self, payload: dict[str, Any], source: SourceRef) -> None:
        extra = self.session.extra
        for key, name in (("id", "session_id"), ("cwd", "cwd"), ("cli_version", "version"), ("originator", "originator"), ("model_provider", "model_provider")):
            if isinstance(payload.get(key), str):
                extra.setdefault(name, payload[key])
        if isinstance(payload.get("cli_version"), str):
            self.session.agent_version = payload["cli_version"]
        start = payload.get("subagent_history_start_ordinal")
        if type(start) is int and "subagent_history_start_ordinal" not in extra and not self.session.messages:
            extra["subagent_history_start_ordinal"] = self._own_from = start
        if not self.session.tools and not self.session.messages:
            self.session.tools = dynamic_tools(payload.get("dynamic_tools"))
        base = payload.get("base_instructions")
        text = base.get("text") if isinstance(base, dict) else base if isinstance(base, str) else payload.get("instructions")
        if isinstance(text, str) and text and not self.session.messages:
            self._items.append(Message(index=0, role="system", content=[TextBlock(text=text)], source=source, extra={"record": "session_meta"}))
        else:
            self.session.skipped.append(ignored(source, "session_meta"))

    def _event(self, payload: dict[str, Any], source: SourceRef) -> None:
        etype = payload.get("type")
        if etype == "token_count":
            self._token_count(payload, source)
            return
        if etype in ("task_started", "task_complete", "turn_aborted"):
            self._items.close_response()
        if etype == "sub_agent_activity" and isinstance(payload.get("agent_thread_id"), str):
            path = payload.get("agent_path")
            self.sub_agents.setdefault(payload["agent_thread_id"], path if isinstance(path, str) else payload["agent_thread_id"])
        self.session.skipped.append(ignored(source, f"event_msg/{etype}"))

    def _token_count(self, payload: dict[str, Any], source: SourceRef) -> None:
        info = payload.get("info")
        if not isinstance(info, dict):
            self.session.skipped.append(ignored(source, "event_msg/token_count (no usage info)"))
            return
        total = info.get("total_token_usage") if isinstance(info.get("total_token_usage"), dict) else None
        if total is not None and total == self._last_total:
            self.session.skipped.append(ignored(source, "event_msg/token_count (repeat)"))
            return
        last = info.get("last_token_usage")
        if not isinstance(last, dict):
            last = _usage_delta(total, self._last_total) if total is not None else None
        if total is not None:
            self._last_total = total
        if last is None:
            self.session.skipped.append(ignored(source, "event_msg/token_count (no usage info)"))
            return
        usage = usage_from(last, OPENAI, self._model)
        if usage is None:
            self.session.skipped.append(ignored(source, "event_msg/token_count (no usage info)"))
            return
        extra = {"model_context_window": info["model_context_window"]} if isinstance(info.get("model_context_window"), int) else {}
        timestamp = self._record.get("timestamp")
        if isinstance(timestamp, str):  # when the call's usage arrived: the cache model's clock
            extra["timestamp"] = timestamp
        messages = self.session.messages
        lower = max(self._usage_from, self._turn_from)
        target = next((i for i in range(len(messages) - 1, lower - 1, -1) if messages[i].role == "assistant"), None)
        if target is not None and messages[target].usage is None:
            self._attach(target, usage, extra)
            self._items.close_response()
            return
        if self._pending is not None:  # a count no response followed (an aborted call)
            self.session.skipped.append(ignored(self._pending[2], "event_msg/token_count (no model call to attach to)"))
        self._pending = (usage, extra, source)

    def _attach(self, target: int, usage: Usage, extra: dict[str, Any]) -> None:
        message = self.session.messages[target]
        message.usage = usage
        message.extra.update(extra)
        self._models.add(usage.model)
        self._items.dirty = min(self._items.dirty, target)
        self._usage_from = target + 1

    def _compacted(self, payload: dict[str, Any], source: SourceRef) -> None:
        self._items.close_response()
        self._items.release()
        first = len(self.session.messages)
        history = payload.get("replacement_history")
        if isinstance(history, list) and history:
            self._replacement(history, source)
        elif isinstance(payload.get("message"), str) and payload["message"]:
            self._items.append(Message(index=0, role="user", content=[TextBlock(text=payload["message"])], source=source))
        else:
            self._items.append(Message(index=0, role="user", content=[RawBlock(raw=payload, text="")], source=source, content_form="parts"))
        if len(self.session.messages) > first:
            start = self.session.messages[first]
            start.starts_context = True
            start.extra["record"] = "compacted"
            if isinstance(history, list) and history:  # the user's own messages, not a summary
                start.is_summary = False
        self._usage_from = len(self.session.messages)

    def _replacement(self, history: list[Any], source: SourceRef) -> None:
        """The context Codex sends from now on, item by item, its developer messages too (the
        ones before the compaction are no longer sent). Its ``compaction`` item (remote
        compaction) is the summary inside it, not a new start."""
        first = len(self.session.messages)
        for k, item in enumerate(history):
            ref = SourceRef(line=source.line, json_path=f"$.payload.replacement_history[{k}]")
            msg = self._items.add(item, ref)
            if msg is not None and msg.role == "system":  # replaced by the next compaction in turn
                msg.extra[REPLACED_BY_COMPACTION] = True
            if msg is not None and msg.extra.get("item_type") == "compaction":
                msg.starts_context = False
                msg.is_summary = True
        self._items.close_response()
        for msg in self.session.messages[first:]:
            if msg.role == "assistant":  # a reply of an earlier call, sent again
                msg.resent = True


def _inter_agent_item(payload: dict[str, Any]) -> dict[str, Any]:
    """A top-level ``inter_agent_communication`` record as the ``agent_message`` item Codex
    sends the model for it (``InterAgentCommunication::to_model_input_item``): its ``content``,
    or, when encrypted, a header naming the task and sender, then the unreadable payload."""
    item = {k: payload[k] for k in ("id", "author", "recipient") if k in payload}
    encrypted = payload.get("encrypted_content")
    if isinstance(encrypted, str):
        kind = "NEW_TASK" if payload.get("trigger_turn") else "MESSAGE"
        header = f"Message Type: {kind}\nTask name: {payload.get('recipient', '')}\nSender: {payload.get('author', '')}\nPayload:\n"
        item["content"] = [{"type": "input_text", "text": header}, {"type": "encrypted_content", "encrypted_content": encrypted}]
    else:
        item["content"] = [{"type": "input_text", "text": payload.get("content") if isinstance(payload.get("content"), str) else ""}]
    return item


def read(path: Path) -> Session:
    return _read(path, sub_agents=True)


def _read(path: Path, sub_agents: bool) -> Session:
    stream = CodexStream(path)
    own_meta = _feed_history_base(stream, path)
    stream.read_file(path)
    if not stream.recognised:
        raise SessionFormatError(path, "line 1", "no Codex rollout records found.", 'JSONL lines {"timestamp", "type", "payload"} (a Codex CLI rollout)')
    _own_fields(stream.session, own_meta)
    stream._items.release()  # system messages held for calls the file never answers
    if stream._own_from is not None:  # a sub-agent rollout that holds only inherited history
        stream._mark_inherited()
    if stream._pending is not None:  # counted before a response the file does not hold
        stream.session.skipped.append(ignored(stream._pending[2], "event_msg/token_count (no model call to attach to)"))
    for thread, agent_path in stream.sub_agents.items() if sub_agents else ():
        found = _sub_agent_file(path, thread)
        if found is None:
            continue
        try:
            side = _read(found, sub_agents=False)
        except SessionFormatError:
            stream.session.skipped.append(ignored(str(found), f"sub-agent rollout {thread} (not readable)"))
            continue
        stream.session.sidechains[agent_path] = [
            m.model_copy(update={"source": SourceRef(line=m.source.line, json_path=m.source.json_path, file=found.name)})
            for m in side.messages
        ]
    return stream.session


def _own_fields(session: Session, own_meta: dict[str, Any]) -> None:
    """The id, cwd and CLI version of this file's thread, not of the one it continues."""
    for key, name in (("id", "session_id"), ("cwd", "cwd"), ("cli_version", "version")):
        if isinstance(own_meta.get(key), str):
            session.extra[name] = own_meta[key]


def _feed_history_base(stream: CodexStream, path: Path) -> dict[str, Any]:
    """Feed ``stream`` the history a paginated rollout continues (:mod:`.codex_lineage`), before
    the file itself; their messages' sources name the earlier file. Returns the file's own
    ``session_meta`` payload when it has a ``history_base`` (else ``{}``)."""
    history = lineage(path)
    session = stream.session
    for prefix in history.prefixes:
        first, skipped = len(session.messages), len(session.skipped)
        for line_no, line in prefix_lines(prefix):
            stream.feed(line, line_no)
        for m in session.messages[first:]:
            m.source = SourceRef(line=m.source.line, json_path=m.source.json_path, file=prefix.path.name)
        session.skipped[skipped:] = [x.model_copy(update={"where": f"{prefix.path.name}, {x.where}"}) for x in session.skipped[skipped:]]
    if history.prefixes:
        session.extra["history_base"] = [{"file": p.path.name, "bytes": p.end, "thread_id": p.thread} for p in history.prefixes]
    if history.missing is not None:
        base = history.missing
        session.skipped.append(
            Skipped(where="line 1", reason=f"history before this file: the first {base['end_byte_offset']} bytes of rollout {base['thread_id']}, which is not beside it")
        )
    return own_session_meta(path) if history.prefixes or history.missing is not None else {}


def _sub_agent_file(path: Path, thread: str) -> Path | None:
    """The rollout of sub-agent thread ``thread``: ``rollout-<time>-<thread>.jsonl`` in the
    parent's day directory, or another day of its month (a sub-agent started after midnight)."""
    name = f"rollout-*-{thread}.jsonl"
    for candidates in (path.parent.glob(name), path.parent.parent.glob(f"*/{name}")):
        for found in sorted(candidates):
            if found != path:
                return found
    return None


def detect(probe: Probe) -> int:
    score = 0
    for r in head_records(probe):
        if "role" in r:
            return 0
        if r.get("type") in RECORD_TYPES and isinstance(r.get("payload"), dict):
            if r["type"] in ("session_meta", "response_item", "compacted"):
                return 95
            score = 80
    return score


def stream(path: Path) -> CodexStream:
    """The live follower's stream: the history a paginated rollout continues is fed first, as
    :func:`read` does, so a followed fork shows what its model was sent."""
    codex = CodexStream(path)
    _own_fields(codex.session, _feed_history_base(codex, path))
    return codex


def details(path: Path) -> SessionDetails:
    """Project and id from ``session_meta``; messages = ``response_item`` records."""
    project, sid = None, None
    for r in first_records(path, limit=5):
        payload = r.get("payload") if isinstance(r.get("payload"), dict) else {}
        if r.get("type") == "session_meta":
            project = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
            sid = payload.get("id") if isinstance(payload.get("id"), str) else None
            break
    return SessionDetails(project or "?", sid, None, count_needles(path, (b'"type":"response_item"',)))


#: Where Codex keeps rollouts under a home: the live ones by day, and the archived ones, moved
#: as they are to ``archived_sessions/`` (openai/codex ``ARCHIVED_SESSIONS_SUBDIR``).
ROLLOUT_PATTERNS = (("sessions", "*", "*", "*", "rollout-*.jsonl"), ("archived_sessions", "rollout-*.jsonl"))


def _scan(home: Path) -> Iterator[Candidate]:
    for pattern in ROLLOUT_PATTERNS:
        yield from walk(home, pattern)


#: ``sessions/YYYY/MM/DD/rollout-*.jsonl`` and ``archived_sessions/rollout-*.jsonl`` under
#: $CODEX_HOME or ~/.codex.
DISCOVERY = Discovery(
    agent="codex",
    label="Codex",
    option="codex-home",
    details=details,
    pattern=ROLLOUT_PATTERNS[0],
    env="CODEX_HOME",
    homes=("~/.codex",),
    scan=_scan,
)


FORMAT = register(
    Format(
        name=NAME,
        description="Codex CLI rollout JSONL (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)",
        detect=detect,
        read=read,
        suffix=".jsonl",
        stream=stream,
        discovery=DISCOVERY,
    )
)
