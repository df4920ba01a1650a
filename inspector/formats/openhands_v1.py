"""OpenHands V1 conversations (the software-agent-sdk, ``openhands-sdk`` 1.x): events as the SDK
persists them (:mod:`.openhands_v1_store` finds and orders them), turned into what the model is
sent, following the SDK's own ``View`` and ``LLMConvertibleEvent.events_to_messages``.

- ``SystemPromptEvent`` -> the system message (``system_prompt``, then ``dynamic_context`` as a
  second text block); its ``tools`` -> tool definitions. The SDK stores each tool's name
  (``title``), description and action type, not its parameter schema: parameters are empty here,
  so what the schemas cost shows as not in the file when usage is recorded.
- ``MessageEvent`` -> its ``llm_message`` (role, text and image content, ``extended_content``
  appended as the SDK does; Anthropic ``thinking_blocks`` of an agent reply as thinking). An agent
  message is a model call: its usage is the one recorded for its ``llm_response_id``.
- ``ActionEvent`` -> an assistant message with ``tool_call`` (id, name, the exact argument JSON).
  Consecutive actions of one ``llm_response_id`` (parallel calls) are ONE message: the first
  one's ``thought`` and thinking, then every call. A later action of a response already read (not
  next to it) is a message of its own, as the SDK sends it, but not a model call (``resent``).
- ``ObservationEvent`` -> a ``tool`` message answering ``tool_call_id``: the observation's content
  (after ``[An error occurred during execution.]`` when ``is_error``; a ``TerminalObservation``
  with the SDK's metadata prefix, suffix, working directory, interpreter and exit code lines),
  then ``extended_content``. ``AgentErrorEvent`` -> its ``error`` (``is_error``);
  ``UserRejectObservation`` -> ``Action rejected: <reason>``.
- ``Condensation`` is the session's own compaction. The SDK drops ``forgotten_event_ids`` from
  the view and, when both ``summary`` and ``summary_offset`` are set, inserts the summary as a
  user message at that offset of what remains (a summary a later condensation may forget in
  turn). Everything read stays in the session; at the condensation we add copies of the new view
  after the system prompt (``extra["copy_of_event"]``), the first with ``starts_context=True``,
  so every later call is counted with exactly what the SDK sent. Copied assistant messages are
  ``resent`` (no call of their own); the summary is ``is_summary``/``injected="compaction"``.
- Usage: ``base_state.json`` ``stats.usage_to_metrics.<usage id>.token_usages`` holds one record
  per LLM response (``response_id``, ``prompt_tokens`` which includes ``cache_read_tokens`` and
  ``cache_write_tokens`` as LiteLLM counts them, ``completion_tokens``, ``reasoning_tokens``).
  It is matched to the message of that ``llm_response_id``; calls no message answers (the
  condenser's summaries, usage id ``condenser``) are summed per usage id in ``extra["other_calls"]``.
- ``session.provider`` is ``anthropic`` when the model LiteLLM was given is a Claude model (its
  requests then have Anthropic's framing); the format's own provider (OpenAI's) otherwise. Model
  names lose LiteLLM's routing prefix (``anthropic/``, ``litellm_proxy/prod/``...);
  ``extra["llm_model"]`` keeps the configured name.
- Bookkeeping events (state updates, pauses, token ids, hooks, condensation requests, errors) and
  unknown kinds are skipped with ``kind="ignored"``.

Adjacent plain user messages are one message, as the SDK sends them (``extra["merged_events"]``
lists their events): after a condensation that keeps the task and inserts its summary after it,
the task and the summary are one message that starts the context (a summary unit).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..model import Block, ImageBlock, Message, Session, SourceRef, TextBlock, ThinkingBlock, ToolCallBlock, ToolDefinition, ToolResultBlock, Usage
from .base import Format, Probe, register
from .discovery import Discovery
from .openhands_v1_store import EVENT_FILE, Loaded, active_branch, details, events_dir_of, events_in_document, load, scan
from .reading import ModelTally, UsageKeys, image_block, usage_from
from .records import FIELD_ERRORS, ignored, int_or_none, malformed

NAME = "openhands_v1"
AGENT = "openhands"
ERROR_HEADER = "[An error occurred during execution.]\n"

#: The SDK's ``TokenUsage`` (LiteLLM's ``prompt_tokens`` includes cache reads and writes).
TOKEN_USAGE = UsageKeys(
    input=("prompt_tokens",),
    output=("completion_tokens",),
    cache_read=("cache_read_tokens",),
    cache_write=("cache_write_tokens",),
    reasoning=("reasoning_tokens",),
    input_includes_cache=True,
)
#: Separately reported cache reads (ACP agents): ``prompt_tokens`` is then the uncached rest.
SEPARATE_CACHE = replace(TOKEN_USAGE, input_includes_cache=False)


def token_usage(record: dict[str, Any]) -> Usage | None:
    """One ``TokenUsage`` record as :class:`Usage`."""
    prompt = int_or_none(record.get("prompt_tokens")) or 0
    cached = (int_or_none(record.get("cache_read_tokens")) or 0) + (int_or_none(record.get("cache_write_tokens")) or 0)
    return usage_from(record, SEPARATE_CACHE if cached > prompt else TOKEN_USAGE, served_model(record.get("model")))


def served_model(configured: Any) -> str | None:
    """The model name without LiteLLM's routing prefix (``litellm_proxy/prod/claude-opus-4-5``
    -> ``claude-opus-4-5``), as price tables and tokenizers know it."""
    if not isinstance(configured, str):
        return None
    return configured.rsplit("/", 1)[-1] or None


def recorded_usage(base_state: dict[str, Any]) -> dict[str, tuple[str, Usage]]:
    """``{response id: (usage id, usage)}`` from the state's ``stats.usage_to_metrics`` (the
    agent's LLM is ``agent``, the condenser's ``condenser``); the first record of an id wins."""
    stats = base_state.get("stats") if isinstance(base_state.get("stats"), dict) else {}
    metrics = stats.get("usage_to_metrics") if isinstance(stats.get("usage_to_metrics"), dict) else {}
    out: dict[str, tuple[str, Usage]] = {}
    for usage_id, m in metrics.items():
        records = m.get("token_usages") if isinstance(m, dict) and isinstance(m.get("token_usages"), list) else []
        for k, r in enumerate(records):
            if isinstance(r, dict) and (usage := token_usage(r)) is not None:
                rid = r.get("response_id")
                out.setdefault(rid if isinstance(rid, str) and rid else f"{usage_id}#{k}", (str(usage_id), usage))
    return out


def unmatched_calls(recorded: dict[str, tuple[str, Usage]], matched: set[str]) -> dict[str, dict[str, int]]:
    """Recorded calls no message answers (the condenser's summaries...), summed per usage id."""
    out: dict[str, dict[str, int]] = {}
    for rid, (usage_id, u) in recorded.items():
        if rid in matched:
            continue
        row = out.setdefault(usage_id, {"calls": 0, "input_tokens": 0, "output_tokens": 0})
        row["calls"] += 1
        row["input_tokens"] += u.context_tokens or 0
        row["output_tokens"] += u.output_tokens or 0
    return out


# --- content ------------------------------------------------------------------------------------


def content_blocks(parts: Any) -> list[Block]:
    """SDK ``TextContent`` / ``ImageContent`` items as blocks (an image content holds URLs); a
    plain string (early 1.0 observations such as ``ExecuteBashObservation``) is one text."""
    if isinstance(parts, str):
        return [TextBlock(text=parts)]
    out: list[Block] = []
    for p in parts if isinstance(parts, list) else []:
        if not isinstance(p, dict):
            continue
        if p.get("type") == "image":
            out.extend(image_block(u) for u in p.get("image_urls") or [] if isinstance(u, str))
        elif isinstance(p.get("text"), str):
            out.append(TextBlock(text=p["text"]))
    return out


def thinking(blocks: Any) -> list[Block]:
    out: list[Block] = []
    for b in blocks if isinstance(blocks, list) else []:
        if isinstance(b, dict) and b.get("type") == "redacted_thinking":
            out.append(ThinkingBlock(thinking=str(b.get("data", "")), redacted=True))
        elif isinstance(b, dict) and isinstance(b.get("thinking"), str):
            out.append(ThinkingBlock(thinking=b["thinking"], signature=b.get("signature") if isinstance(b.get("signature"), str) else None))
    return out


def _terminal_text(observation: dict[str, Any]) -> str:
    """``TerminalObservation.to_llm_content``'s text: output framed by its metadata."""
    meta = observation.get("metadata") if isinstance(observation.get("metadata"), dict) else {}
    text = "".join(p["text"] for p in observation.get("content") or [] if isinstance(p, dict) and isinstance(p.get("text"), str))
    out = f"{meta.get('prefix') or ''}{text}{meta.get('suffix') or ''}"
    if meta.get("working_dir"):
        out += f"\n[Current working directory: {meta['working_dir']}]"
    if meta.get("py_interpreter_path"):
        out += f"\n[Python interpreter: {meta['py_interpreter_path']}]"
    exit_code = meta.get("exit_code", -1)
    if exit_code is not None and exit_code != -1:
        out += f"\n[Command finished with exit code {exit_code}]"
    return out


def observation_parts(event: dict[str, Any]) -> list[TextBlock | ImageBlock]:
    """What an ``ObservationEvent`` sends: ``observation.to_llm_content`` + ``extended_content``."""
    obs = event.get("observation") if isinstance(event.get("observation"), dict) else {}
    parts: list[Any] = [TextBlock(text=ERROR_HEADER)] if obs.get("is_error") else []
    if obs.get("kind") == "TerminalObservation":
        parts.append(TextBlock(text=_terminal_text(obs)))
    else:
        parts.extend(content_blocks(obs.get("content")))
    return parts + content_blocks(event.get("extended_content"))


def tool_result(event: dict[str, Any]) -> ToolResultBlock:
    kind = event.get("kind")
    name = event.get("tool_name") if isinstance(event.get("tool_name"), str) else None
    call_id = str(event.get("tool_call_id", ""))
    if kind == "AgentErrorEvent":
        return ToolResultBlock(tool_call_id=call_id, content=str(event.get("error", "")), is_error=True, name=name)
    if kind == "UserRejectObservation":
        reason = event.get("rejection_reason", "User rejected the action")
        return ToolResultBlock(tool_call_id=call_id, content=f"Action rejected: {reason}", name=name)
    parts = observation_parts(event)
    content: str | list[Any] = parts[0].text if len(parts) == 1 and isinstance(parts[0], TextBlock) else parts
    obs = event.get("observation") if isinstance(event.get("observation"), dict) else {}
    return ToolResultBlock(tool_call_id=call_id, content=content, is_error=bool(obs.get("is_error")), name=name)


def tool_definitions(tools: Any) -> list[ToolDefinition]:
    out = []
    for t in tools if isinstance(tools, list) else []:
        if not isinstance(t, dict):
            continue
        name = t.get("title") or t.get("name")
        if isinstance(name, str):
            rest = {k: t[k] for k in ("action_type", "observation_type", "kind") if isinstance(t.get(k), str)}
            out.append(ToolDefinition(name=name, description=str(t.get("description") or ""), extra=rest))
    return out


# --- events -> messages -------------------------------------------------------------------------


def _plain_user(m: Message) -> bool:
    return m.role == "user" and not m.tool_results


class Builder:
    """Feeds events in order; keeps the messages and the SDK's current view (a list of messages)."""

    def __init__(self, session: Session, usage: dict[str, tuple[str, Usage]]) -> None:
        self.session = session
        self.usage = usage
        self.models = ModelTally(session)
        self.messages: list[Message] = []
        self.view: list[Message] = []
        self.responses: set[str] = set()
        self.batch: tuple[str, Message] | None = None  # the open action batch: (response id, message)

    def emit(self, msg: Message) -> Message:
        self.view.append(msg)
        self.send(msg)
        return msg

    def send(self, msg: Message) -> None:
        """Add ``msg`` to the messages; a plain user message right after another joins it, as
        ``events_to_messages`` does (not across a context start). The view keeps both apart."""
        last = self.messages[-1] if self.messages else None
        if last is not None and not msg.starts_context and _plain_user(msg) and _plain_user(last):
            merged = last.model_copy(deep=True)  # the view may hold ``last`` itself
            merged.content.extend(b.model_copy(deep=True) for b in msg.content)
            merged.extra.setdefault("merged_events", [last.extra.get("copy_of_event", last.extra.get("event_id"))]).append(
                msg.extra.get("copy_of_event", msg.extra.get("event_id")))
            if msg.is_summary:
                merged.is_summary = True
            merged.injected = merged.injected or msg.injected
            self.messages[-1] = merged
            return
        msg.index = len(self.messages)
        self.messages.append(msg)

    def call(self, msg: Message, response_id: Any) -> None:
        """Mark ``msg`` a model call with its recorded usage, or resent when its response was read."""
        rid = response_id if isinstance(response_id, str) else None
        if rid is not None and rid in self.responses:
            msg.resent = True
            return
        if rid is not None:
            self.responses.add(rid)
            recorded = self.usage.get(rid)
            msg.usage = recorded[1] if recorded is not None else None
        self.models.add(msg.usage.model if msg.usage is not None else None)

    def feed(self, event: dict[str, Any], where: str) -> None:
        kind = event.get("kind")
        source = SourceRef(file=where) if not where.startswith("$") else SourceRef(json_path=where)
        extra: dict[str, Any] = {"event_id": event.get("id")}
        if kind != "ActionEvent":
            self.batch = None
        if kind == "SystemPromptEvent":
            blocks = content_blocks([event.get("system_prompt"), event.get("dynamic_context")])
            self.emit(Message(index=0, role="system", content=blocks, source=source, content_form="blocks", extra=extra))
            self.session.tools = tool_definitions(event.get("tools"))
        elif kind == "MessageEvent":
            llm = event["llm_message"]
            role = llm.get("role") if llm.get("role") in ("user", "assistant", "system") else "user"
            blocks = thinking(llm.get("thinking_blocks")) if role == "assistant" else []
            blocks += content_blocks(llm.get("content")) + content_blocks(event.get("extended_content"))
            if isinstance(llm.get("reasoning_content"), str) and llm["reasoning_content"]:
                extra["reasoning_content"] = llm["reasoning_content"]
            msg = self.emit(Message(index=0, role=role, content=blocks, source=source, content_form="blocks", extra=extra))
            if role == "assistant":
                self.call(msg, event.get("llm_response_id"))
        elif kind == "ActionEvent":
            self.action(event, source, extra)
        elif kind in ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation"):
            self.emit(Message(index=0, role="tool", content=[tool_result(event)], source=source, extra=extra))
        elif kind == "CondensationSummaryEvent":
            self.emit(Message(index=0, role="user", content=[TextBlock(text=str(event.get("summary", "")))], source=source, injected="compaction", is_summary=True, extra=extra))
        elif kind == "Condensation":
            self.condense(event, source, where)
        else:
            self.session.skipped.append(ignored(where, str(kind)))

    def action(self, event: dict[str, Any], source: SourceRef, extra: dict[str, Any]) -> None:
        call = event["tool_call"]
        block = ToolCallBlock(id=str(call.get("id", event.get("tool_call_id", ""))), name=str(call.get("name", event.get("tool_name", ""))), arguments=str(call.get("arguments", "{}")))
        rid = event.get("llm_response_id")
        if self.batch is not None and self.batch[0] == rid:
            self.batch[1].content.append(block)
            self.batch[1].extra.setdefault("event_ids", [self.batch[1].extra["event_id"]]).append(event.get("id"))
            return
        blocks = thinking(event.get("thinking_blocks")) + content_blocks(event.get("thought")) + [block]
        if isinstance(event.get("reasoning_content"), str) and event["reasoning_content"]:
            extra["reasoning_content"] = event["reasoning_content"]
        msg = self.emit(Message(index=0, role="assistant", content=blocks, source=source, content_form="blocks", extra=extra))
        self.call(msg, rid)
        self.batch = (rid, msg) if isinstance(rid, str) else None

    def condense(self, event: dict[str, Any], source: SourceRef, where: str) -> None:
        """Apply a ``Condensation`` to the view and add the new view's copies (module docstring)."""
        forgotten = event.get("forgotten_event_ids")
        gone = {str(i) for i in forgotten} if isinstance(forgotten, list) else set()
        view = [m for m in self.view if str(m.extra.get("event_id")) not in gone]
        summary, offset = event.get("summary"), int_or_none(event.get("summary_offset"))
        note = None
        if isinstance(summary, str) and offset is not None and offset >= 0:
            note = Message(index=0, role="user", content=[TextBlock(text=summary)], source=source, injected="compaction", is_summary=True,
                           extra={"event_id": f"{event.get('id')}-summary", "condensation": event.get("id")})
            view.insert(min(offset, len(view)), note)
        kept = [m for m in view if m.role != "system"]
        self.session.extra.setdefault("condensations", []).append({"event_id": event.get("id"), "forgotten": len(gone), "summary": isinstance(summary, str) and offset is not None})
        if not kept:
            self.view = view
            self.session.skipped.append(ignored(where, "Condensation (nothing kept)"))
            return
        copies = [m if m is note else self._copy(m) for m in kept]  # the summary is new, not a copy
        copies[0].starts_context = True
        if copies[0].is_summary is None:
            copies[0].is_summary = False
        for c in copies:
            self.send(c)
        self.view = view
        self.batch = None

    @staticmethod
    def _copy(m: Message) -> Message:
        c = m.model_copy(deep=True, update={"extra": {**m.extra, "copy_of_event": m.extra.get("copy_of_event", m.extra.get("event_id"))}, "starts_context": False})
        if c.role == "assistant":
            c.resent, c.usage = True, None
        return c


def to_session(path: Path, loaded: Loaded) -> Session:
    session = Session(path=str(path), format=NAME, agent=AGENT)
    active_branch(loaded)
    session.skipped.extend(loaded.skipped)
    recorded = recorded_usage(loaded.base_state)
    builder = Builder(session, recorded)
    for event, where in loaded.events:
        try:
            builder.feed(event, where)
        except (*FIELD_ERRORS, KeyError) as exc:
            builder.batch = None
            session.skipped.append(malformed(where, str(event.get("kind", "event")), exc))
    session.messages = builder.messages
    _state_facts(session, loaded.base_state, builder.models)
    others = unmatched_calls(recorded, builder.responses)
    if others:
        session.extra["other_calls"] = others
    return session


def _state_facts(session: Session, state: dict[str, Any], models: ModelTally) -> None:
    agent = state.get("agent") if isinstance(state.get("agent"), dict) else {}
    llm = agent.get("llm") if isinstance(agent.get("llm"), dict) else {}
    configured = llm.get("model") if isinstance(llm.get("model"), str) else None
    models.fallback(served_model(configured))
    if configured:
        session.extra["llm_model"] = configured
    if session.model and ("claude" in session.model or "anthropic/" in (configured or "")):
        session.provider = "anthropic"  # LiteLLM sends it through Anthropic's Messages API
    if isinstance(state.get("id"), str):
        session.extra["conversation_id"] = state["id"]
    if isinstance(state.get("execution_status"), str):
        session.extra["execution_status"] = state["execution_status"]


def read(path: Path) -> Session:
    return to_session(path, load(path))


def detect(probe: Probe) -> int:
    p = probe.path
    if probe.is_dir:
        return 95 if events_dir_of(p) is not None else 0
    if p.name in ("base_state.json",) and events_dir_of(p.parent) is not None:
        return 95
    if EVENT_FILE.fullmatch(p.name):
        return 0  # one event is not a conversation: open its directory
    return 93 if events_in_document(probe.document) is not None else 0


#: The OpenHands CLI keeps conversations in ``~/.openhands/conversations/<id>/``
#: (``OPENHANDS_CONVERSATIONS_DIR`` overrides it).
DISCOVERY = Discovery(
    agent=AGENT,
    label="OpenHands",
    option="openhands-dir",
    details=details,
    env="OPENHANDS_CONVERSATIONS_DIR",
    homes=("~/.openhands/conversations",),
    scan=scan,
)

FORMAT = register(
    Format(
        name=NAME,
        description="OpenHands V1 conversation (software-agent-sdk: base_state.json + events/event-NNNNN-<id>.json)",
        detect=detect,
        read=read,
        follow="rewrite",
        discovery=DISCOVERY,
    )
)
