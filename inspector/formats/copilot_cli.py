"""GitHub Copilot CLI sessions: ``$COPILOT_HOME/session-state/<session id>/events.jsonl``
(``COPILOT_HOME`` defaults to ``~/.copilot``).

Every line is one event ``{"type", "data", "id", "timestamp", "parentId"}``, appended as the CLI
runs (the event types and their fields are the ones github/copilot-sdk generates from the CLI's
``session-events.schema.json``, ``nodejs/src/generated/session-events.ts``). Read here from
public Copilot CLI 1.0.64 to 1.0.68 sessions. How the events become a Session:

- ``session.start``: ``sessionId``, ``startTime`` and ``context.cwd`` go to ``Session.extra``,
  ``copilotVersion`` to ``Session.agent_version``; ``selectedModel`` is the model of the calls
  until a ``session.model_change`` names a ``newModel``.
- ``system.message``: the system prompt, as a system message (``role`` system or developer). The
  CLI records it again before every user message; the same text again is skipped with that
  reason, a different one is a system message of its own.
- ``user.message``: a user message of ``transformedContent``, the text the CLI sends (the typed
  ``content`` wrapped in the current time and reminders), else ``content``.
- ``assistant.message``: one model call, an assistant message of its ``reasoningText`` (thinking),
  ``content`` and each ``toolRequests`` entry (a tool call: ``toolCallId``, ``name``,
  ``arguments`` as JSON text). The file records no input usage: ``Usage`` holds the call's
  ``outputTokens`` and its model (the message's ``model``, else the current model).
- ``tool.execution_complete``: a ``tool`` message answering ``toolCallId``: ``result.content``
  (what the CLI sends the model; ``detailedContent`` is for display), or ``error.message`` with
  ``is_error`` when ``success`` is false. A result for a call no assistant message made (a tool
  the user ran) is skipped with that reason.
- ``system.notification``: text the CLI gives the model between calls (``<system_notification>``
  a background shell finished...; the next call acts on it): a user message with
  ``injected="notification"``.
- ``session.shutdown``: its recorded totals (per-model requests and tokens, the context's
  system, conversation and tool-definition tokens) go to ``Session.extra["shutdown"]``.
- Events of a sub-agent (``agentId`` set, or a tool event with ``parentToolCallId``) are not in
  the main context: skipped with that reason. So are hooks, permissions, turn boundaries,
  ``tool.execution_start`` (the call is read from its ``assistant.message``), notices and
  aborts. ``session.compaction_complete``, ``session.truncation`` and ``session.context_cleared``
  change what later calls are sent; no public file shows one, so they are skipped with that
  reason (the messages before them are then counted as still sent).

``Session.agent`` is ``copilot-cli``; ``Session.model`` the most used model; ``Session.provider``
``anthropic`` when that model is a Claude model (the format's own provider, OpenAI's, otherwise).
Every message keeps the event's ``id`` and ``timestamp`` in ``extra``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..model import STATED_HIDDEN, Block, Message, Session, SourceRef, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock, Usage
from .base import Format, Probe, SessionFormatError, register
from .discovery import Discovery, SessionDetails, count_needles, first_records
from .reading import MAX_RECORDED_COUNT, ModelTally
from .recordlines import feed_records
from .records import FIELD_ERRORS, head_records, ignored, int_or_none, json_text, malformed, parse_line

NAME = "copilot_cli"
AGENT = "copilot-cli"
PRODUCER = "copilot-agent"
EXPECTED = 'JSONL events {"type", "data", "id", "timestamp", "parentId"} (a GitHub Copilot CLI events.jsonl)'

#: Events that hold no message, and why they are skipped (the reason ``info`` counts).
SKIPPED = {
    "assistant.turn_start": "assistant.turn_start (turn boundary)",
    "assistant.turn_end": "assistant.turn_end (turn boundary)",
    "tool.execution_start": "tool.execution_start (the call is read from its assistant.message)",
    "session.info": "session.info (a notice the CLI shows, not sent to the model)",
    "session.warning": "session.warning (a notice the CLI shows, not sent to the model)",
    "session.error": "session.error (a notice the CLI shows, not sent to the model)",
    "abort": "abort (the user stopped the turn)",
    "session.compaction_complete": "session.compaction_complete (not applied: no public file shows what follows one)",
    "session.truncation": "session.truncation (not applied: no public file shows what follows one)",
    "session.context_cleared": "session.context_cleared (not applied: no public file shows what follows one)",
}
#: Families of bookkeeping events, by the part of the type before the dot.
SKIPPED_FAMILIES = {
    "hook": "{} (a hook the CLI ran, not sent to the model)",
    "permission": "{} (a permission prompt, not sent to the model)",
    "session": "{} (session state, not sent to the model)",
}
#: The ``session.shutdown`` figures kept in ``Session.extra["shutdown"]``.
SHUTDOWN_KEYS = ("shutdownType", "totalPremiumRequests", "modelMetrics", "currentModel", "currentTokens", "systemTokens", "conversationTokens", "toolDefinitionsTokens")


def _skip_reason(event_type: str) -> str:
    reason = SKIPPED.get(event_type)
    if reason is not None:
        return reason
    family = SKIPPED_FAMILIES.get(event_type.split(".", 1)[0])
    return family.format(event_type) if family is not None else f"{event_type} (unknown event type)"


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _count(value: Any) -> int | None:
    n = int_or_none(value)
    return n if n is not None and 0 <= n <= MAX_RECORDED_COUNT else None


def _result_text(data: dict[str, Any]) -> tuple[str, bool]:
    """What a ``tool.execution_complete`` sends the model, and whether it is an error."""
    if data.get("success") is False:
        error = data.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        return (message if isinstance(message, str) else json_text(error) if error is not None else ""), True
    result = data.get("result")
    content = result.get("content") if isinstance(result, dict) else result
    return (content if isinstance(content, str) else json_text(content) if content is not None else ""), False


class CopilotStream:
    """Incremental Copilot CLI ``events.jsonl`` reader (a :class:`~inspector.formats.base.RecordStream`)."""

    def __init__(self, path: Path | None = None) -> None:
        self.session = Session(path=str(path) if path else None, format=NAME, agent=AGENT)
        self._models = ModelTally(self.session)
        self._model: str | None = None  # selectedModel, then each model_change's newModel
        self._system: str | None = None  # the system prompt last read
        self._calls: dict[str, str] = {}  # tool call id -> tool name, of calls assistant messages made
        self._taken = 0
        self.recognised = 0

    def feed(self, line: bytes, line_no: int) -> None:
        record = parse_line(line, line_no, self.session.skipped)
        if record is not None:
            self.add(record, line_no)

    def read_file(self, path: Path) -> None:
        """Every event of a whole file, as :meth:`feed` would take its lines."""
        feed_records(path, self.add, self.session.skipped)

    def take(self) -> tuple[int, list[Message]]:
        first, messages = self._taken, self.session.messages
        self._taken = len(messages)
        return first, messages[first:]

    def add(self, record: dict[str, Any], line_no: int) -> None:
        source = SourceRef(line=line_no)
        etype, data = record.get("type"), record.get("data")
        if type(etype) is not str or type(data) is not dict:
            self.session.skipped.append(ignored(source, "record without a type and data"))
            return
        self.recognised += 1
        agent = record.get("agentId")
        if agent is not None or (etype.startswith("tool.") and data.get("parentToolCallId") is not None):
            who = f"sub-agent {agent}" if agent is not None else f"sub-agent of call {data.get('parentToolCallId')}"
            self.session.skipped.append(ignored(source, f"{etype} ({who}: not in the main context)"))
            return
        handler = HANDLERS.get(etype)
        if handler is None:
            self.session.skipped.append(ignored(source, _skip_reason(etype)))
            return
        try:
            handler(self, data, record, source)
        except FIELD_ERRORS as exc:
            self.session.skipped.append(malformed(source, f"{etype} event", exc))

    # --- events ---------------------------------------------------------------------------------

    def _message(self, role: str, content: list[Block], record: dict[str, Any], source: SourceRef, **fields: Any) -> Message:
        extra = {key: record[key] for key in ("id", "timestamp") if key in record}
        extra.update(fields.pop("extra", {}))
        msg = Message(index=len(self.session.messages), role=role, content=content, source=source, content_form="blocks", extra=extra, **fields)
        self.session.messages.append(msg)
        return msg

    def _start(self, data: dict[str, Any], record: dict[str, Any], source: SourceRef) -> None:
        session = self.session
        for key in ("sessionId", "startTime"):
            if isinstance(data.get(key), str):
                session.extra[key] = data[key]
        context = data.get("context") if isinstance(data.get("context"), dict) else {}
        if isinstance(context.get("cwd"), str):
            session.extra["cwd"] = context["cwd"]
        session.agent_version = _text(data.get("copilotVersion")) or session.agent_version
        self._set_model(_text(data.get("selectedModel")))

    def _model_change(self, data: dict[str, Any], record: dict[str, Any], source: SourceRef) -> None:
        self._set_model(_text(data.get("newModel")))

    def _set_model(self, model: str | None) -> None:
        if model:
            self._model = model
            self._models.fallback(model)
            self._provider()

    def _provider(self) -> None:
        model = self.session.model
        self.session.provider = "anthropic" if model and "claude" in model else None

    def _system_message(self, data: dict[str, Any], record: dict[str, Any], source: SourceRef) -> None:
        text = data["content"]
        if not isinstance(text, str):
            raise TypeError(f"content is {type(text).__name__}, not a string")
        if text == self._system:
            self.session.skipped.append(ignored(source, "system.message (the same system prompt again)"))
            return
        self._system = text
        self._message("system", [TextBlock(text=text)], record, source, extra={"role": data["role"]} if data.get("role") not in (None, "system") else {})

    def _user(self, data: dict[str, Any], record: dict[str, Any], source: SourceRef) -> None:
        text = _text(data.get("transformedContent"))
        if text is None:
            text = data["content"]
            if not isinstance(text, str):
                raise TypeError(f"content is {type(text).__name__}, not a string")
        self._message("user", [TextBlock(text=text)], record, source)

    def _assistant(self, data: dict[str, Any], record: dict[str, Any], source: SourceRef) -> None:
        content: list[Block] = []
        if _text(data.get("reasoningText")):
            content.append(ThinkingBlock(thinking=data["reasoningText"]))
        if _text(data.get("content")):
            content.append(TextBlock(text=data["content"]))
        for request in data.get("toolRequests") or []:
            call_id, name = str(request["toolCallId"]), str(request["name"])
            self._calls[call_id] = name
            content.append(ToolCallBlock(id=call_id, name=name, arguments=json_text(request.get("arguments", {}))))
        model = _text(data.get("model")) or self._model
        extra = {key: data[key] for key in ("messageId", "turnId", "apiCallId") if isinstance(data.get(key), str)}
        if _text(data.get("reasoningOpaque")) or _text(data.get("encryptedContent")):
            extra["encrypted_reasoning"] = True
        self._message("assistant", content, record, source, usage=Usage(output_tokens=_count(data.get("outputTokens")), model=model), extra=extra)
        self._models.add(model)
        self._provider()

    def _tool_result(self, data: dict[str, Any], record: dict[str, Any], source: SourceRef) -> None:
        call_id = str(data["toolCallId"])
        if call_id not in self._calls:
            self.session.skipped.append(ignored(source, "tool.execution_complete (a call no assistant message made)"))
            return
        text, is_error = _result_text(data)
        self._message("tool", [ToolResultBlock(tool_call_id=call_id, content=text, is_error=is_error, name=self._calls[call_id])], record, source)

    def _notification(self, data: dict[str, Any], record: dict[str, Any], source: SourceRef) -> None:
        text = data["content"]
        if not isinstance(text, str):
            raise TypeError(f"content is {type(text).__name__}, not a string")
        self._message("user", [TextBlock(text=text)], record, source, injected="notification")

    def _shutdown(self, data: dict[str, Any], record: dict[str, Any], source: SourceRef) -> None:
        self.session.extra["shutdown"] = {key: data[key] for key in SHUTDOWN_KEYS if key in data}
        tools = data.get("toolDefinitionsTokens")
        if type(tools) is int and tools >= 0:  # the tool definitions every request sends, not in the file
            self.session.extra[STATED_HIDDEN] = [
                tools, f"Copilot CLI's shutdown record: its tool definitions, {tools:,} tokens (line {source.line})"]
        self.session.skipped.append(ignored(source, "session.shutdown (totals read into the session's extra)"))


Handler = Callable[[CopilotStream, dict[str, Any], dict[str, Any], SourceRef], None]
HANDLERS: dict[str, Handler] = {
    "session.start": CopilotStream._start,
    "session.model_change": CopilotStream._model_change,
    "system.message": CopilotStream._system_message,
    "user.message": CopilotStream._user,
    "assistant.message": CopilotStream._assistant,
    "tool.execution_complete": CopilotStream._tool_result,
    "system.notification": CopilotStream._notification,
    "session.shutdown": CopilotStream._shutdown,
}


def read(path: Path) -> Session:
    stream = CopilotStream(path)
    stream.read_file(path)
    if not stream.recognised:
        raise SessionFormatError(path, "line 1", "no Copilot CLI events found.", EXPECTED)
    return stream.session


def stream(path: Path) -> CopilotStream:
    return CopilotStream(path)


def _is_event(r: dict[str, Any]) -> bool:
    return isinstance(r.get("type"), str) and isinstance(r.get("data"), dict) and "parentId" in r and "role" not in r


def detect(probe: Probe) -> int:
    records = head_records(probe, limit=5)
    if not records or not _is_event(records[0]):
        return 0
    first = records[0]
    if first["type"] == "session.start" and (first["data"].get("producer") == PRODUCER or "copilotVersion" in first["data"]):
        return 95
    known = set(HANDLERS) | set(SKIPPED)
    return 80 if all(_is_event(r) for r in records) and any(r["type"] in known for r in records) else 0


def details(path: Path) -> SessionDetails:
    """Project and id from ``session.start``; messages = user and assistant messages."""
    project, sid = None, None
    for r in first_records(path, limit=3):
        data = r.get("data") if isinstance(r.get("data"), dict) else {}
        if r.get("type") == "session.start":
            context = data.get("context") if isinstance(data.get("context"), dict) else {}
            project, sid = _text(context.get("cwd")), _text(data.get("sessionId"))
            break
    return SessionDetails(project or path.parent.name, sid or path.parent.name, None, count_needles(path, (b'"type":"user.message"', b'"type":"assistant.message"')))


#: ``session-state/<session id>/events.jsonl`` under $COPILOT_HOME or ~/.copilot.
PATTERN = ("session-state", "*", "events.jsonl")


DISCOVERY = Discovery(
    agent="copilot",
    label="Copilot CLI",
    option="copilot-home",
    details=details,
    pattern=PATTERN,
    env="COPILOT_HOME",
    homes=("~/.copilot",),
    aliases=("copilot-cli", "copilot_cli"),
)

FORMAT = register(
    Format(
        name=NAME,
        description="GitHub Copilot CLI session events (~/.copilot/session-state/<id>/events.jsonl)",
        detect=detect,
        read=read,
        suffix=".jsonl",
        stream=stream,
        discovery=DISCOVERY,
    )
)
