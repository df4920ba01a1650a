"""OpenHands (V0) trajectory exports: one JSON array of events (``save_trajectory_path``), each
``{id, source, action | observation, args | content + extras, cause?, tool_call_metadata?}``.

- ``system`` action -> the system message (its ``args.tools`` -> tool definitions); a ``message``
  action -> a user message (``source: "user"``) or an assistant reply (``source: "agent"``).
- Actions carrying ``tool_call_metadata`` are tool calls. Several actions can come from one model
  response; they share ``tool_call_metadata.model_response.id`` and become ONE assistant message
  rebuilt from that response (its text and every tool call with the exact argument JSON), with
  the response's ``usage`` (LiteLLM counts cached and cache-written input inside
  ``prompt_tokens``; both are split out so ``Usage.context_tokens`` is the prompt size). Without a
  stored response, the action's ``thought`` and ``args`` stand in.
- Observations carrying ``tool_call_metadata`` -> a ``tool`` message answering that call
  (``error`` observations set ``is_error``); an ``oh_aci`` file edit written before OpenHands
  0.24 answers with ``extras.formatted_output_and_error``, what the model got (its ``content``
  is the diff the UI shows).
- A ``finish`` action's message is marked as the run's end (``hints.ENDS_RUN``): its call never
  gets a result.
- ``condensation`` actions: what they forget stays in the session. At the condensation's place
  (so every earlier call keeps the history it had) we add what the later calls see instead: the
  ``summary`` as a user message with ``starts_context=True`` (a summary unit), then copies of the
  user messages the condenser kept (the task prompt in the kept head, any in the kept tail;
  ``extra["copy_of_event"]``). OpenHands puts the summary after the kept head; the order of these
  user messages does not change what they cost. Tool exchanges in the kept tail are not copied, because a copied
  assistant message would count as another model call: they show as no longer sent, so the
  estimate for calls after a condensation is lower than what OpenHands sent by that tail.
- Other events (``agent_state_changed``, ``recall``, ``null`` observations, state changes) and
  unknown ones are skipped with ``kind="ignored"``.
- **Evaluation output** (``evaluation/.../output.jsonl``: one benchmark instance per line, with
  ``instance_id``, ``history`` and ``metrics``): each instance's ``history`` is read as above
  (sources ``line N, $.history[k]``). The first instance is the session; the others are its
  sidechains keyed by ``instance_id`` (open one with ``--sidechain``); a notice in ``skipped``
  names the one shown. ``metrics.accumulated_token_usage`` goes to ``extra``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from ..model import SEPARATE_SESSIONS, Message, Session, Skipped, SourceRef, TextBlock, ToolCallBlock, ToolResultBlock, Usage
from .base import Format, Probe, SessionFormatError, register
from .hints import ENDS_RUN
from .openai_responses import tool_definitions
from .reading import OPENAI, ModelTally, image_block, usage_from
from ..safeio import open_input, read_line
from .records import FIELD_ERRORS, FIRST_LINE_CAP, head_records, ignored, json_text, load_json, malformed

NAME = "openhands"


def _events_of(doc: Any) -> list[Any] | None:
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict) and isinstance(doc.get("trajectory"), list) and "history" not in doc:
        return doc["trajectory"]
    return None


def _is_event(e: Any) -> bool:
    return isinstance(e, dict) and "source" in e and ("action" in e or "observation" in e)


def _response_message(response: dict[str, Any]) -> tuple[list[Any], Usage | None]:
    choices = response.get("choices") if isinstance(response.get("choices"), list) else []
    message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
    blocks: list[Any] = []
    if isinstance(message, dict):
        content = message.get("content")
        if isinstance(content, str) and content:
            blocks.append(TextBlock(text=content))
        elif isinstance(content, list):
            blocks.extend(TextBlock(text=p["text"]) for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
        for call in message.get("tool_calls") or []:
            fn = call.get("function") if isinstance(call, dict) else None
            if isinstance(fn, dict):
                blocks.append(ToolCallBlock(id=str(call.get("id", "")), name=str(fn.get("name", "")), arguments=json_text(fn.get("arguments", "{}"))))
    model = response.get("model") if isinstance(response.get("model"), str) else None
    return blocks, usage_from(response.get("usage"), OPENAI, model)


def _observation_text(event: dict[str, Any]) -> str:
    """What the model was sent for an observation: its ``content``, except an ``oh_aci`` file
    edit of OpenHands before 0.24 (Feb 2025), whose ``content`` is the diff while the model got
    ``extras.formatted_output_and_error`` (``File created successfully at: ...``)."""
    extras = event.get("extras") if isinstance(event.get("extras"), dict) else {}
    sent = extras.get("formatted_output_and_error")
    if event.get("observation") == "edit" and extras.get("impl_source") == "oh_aci" and isinstance(sent, str):
        return sent
    return str(event.get("content", ""))


def read(path: Path) -> Session:
    if _looks_like_output(path):
        return read_output(path)
    doc = load_json(path)
    events = _events_of(doc)
    if events is None:
        raise SessionFormatError(path, "$", "this is not an OpenHands trajectory.", "a JSON array of events with source and action/observation")
    return _read_events(path, events, lambda k: SourceRef(json_path=f"$[{k}]"))


def _read_events(path: Path, events: list[Any], where_of: Any) -> Session:
    """One trajectory's events as a session; ``where_of(k)`` is event ``k``'s SourceRef."""
    session = Session(path=str(path), format=NAME, agent=NAME)
    models = ModelTally(session)
    messages: list[Message] = []
    originals: list[tuple[Any, Message]] = []  # (event id, message) of messages read from events
    forgotten: set[Any] = set()
    response_message: dict[str, Message] = {}

    def emit(event: dict[str, Any], msg: Message) -> None:
        msg.index = len(messages)
        messages.append(msg)
        originals.append((event.get("id"), msg))

    for k, e in enumerate(events):
        source = where_of(k)
        where = str(source)
        try:
            if not _is_event(e):
                raise SessionFormatError(path, where, "not an OpenHands event.", "an object with source and action or observation")
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            meta = e.get("tool_call_metadata") if isinstance(e.get("tool_call_metadata"), dict) else None
            extra = {"event_id": e["id"]} if "id" in e else {}
            action, observation = e.get("action"), e.get("observation")

            if action == "system":
                emit(e, Message(index=0, role="system", content=[TextBlock(text=str(args.get("content", "")))], source=source, extra=extra))
                session.tools = tool_definitions(args.get("tools"))
            elif action == "message" and meta is None:
                role = "user" if e.get("source") == "user" else "assistant"
                blocks: list[Any] = [TextBlock(text=str(args.get("content", "")))]
                blocks += [image_block(u) for u in args.get("image_urls") or []]
                emit(e, Message(index=0, role=role, content=blocks, source=source, extra=extra))
            elif action == "condensation":
                ids = args.get("forgotten_event_ids")
                if isinstance(ids, list):
                    forgotten.update(ids)
                start, end = args.get("forgotten_events_start_id"), args.get("forgotten_events_end_id")
                if isinstance(start, int) and isinstance(end, int):
                    forgotten.update(range(start, end + 1))
                kept = [m for eid, m in originals if eid not in forgotten and m.role == "user" and not m.tool_results]
                view = [m.model_copy(deep=True, update={"extra": {**m.extra, "copy_of_event": m.extra.get("event_id")}}) for m in kept]
                summary = args.get("summary")
                if isinstance(summary, str) and summary:
                    view.insert(0, Message(index=0, role="user", content=[TextBlock(text=summary)], source=source, extra={**extra, "condensation": True}))
                if not view:
                    session.skipped.append(ignored(where, "condensation (nothing kept)"))
                    continue
                view[0].starts_context = True
                for m in view:
                    m.index = len(messages)
                    messages.append(m)
            elif action is not None and meta is not None:
                response = meta.get("model_response") if isinstance(meta.get("model_response"), dict) else None
                rid = response.get("id") if response else None
                if rid is not None and rid in response_message:
                    continue  # another action of a response already read
                if response is not None:
                    blocks, usage = _response_message(response)
                else:
                    thought = args.get("thought")
                    blocks = [TextBlock(text=thought)] if isinstance(thought, str) and thought else []
                    call_args = {a: v for a, v in args.items() if a != "thought"}
                    blocks.append(ToolCallBlock(id=str(meta.get("tool_call_id", "")), name=str(meta.get("function_name", action)), arguments=json_text(call_args)))
                    usage = None
                if action == "finish":
                    extra[ENDS_RUN] = "OpenHands finish"
                msg = Message(index=0, role="assistant", content=blocks, usage=usage, source=source, extra=extra)
                models.add(usage.model if usage is not None else None)
                if rid is not None:
                    response_message[rid] = msg
                emit(e, msg)
            elif observation is not None and meta is not None:
                block = ToolResultBlock(
                    tool_call_id=str(meta.get("tool_call_id", "")),
                    content=_observation_text(e),
                    is_error=observation == "error",
                    name=meta.get("function_name") if isinstance(meta.get("function_name"), str) else None,
                )
                emit(e, Message(index=0, role="tool", content=[block], source=source, extra=extra))
            else:
                session.skipped.append(ignored(where, f"action/{action}" if action is not None else f"observation/{observation}"))
        except FIELD_ERRORS as exc:
            session.skipped.append(malformed(where, "message", exc))

    session.messages = messages
    return session


# --- evaluation output: output.jsonl, one benchmark instance per line -------------------------

#: Fields every line of an OpenHands evaluation ``output.jsonl`` has.
OUTPUT_FIELDS = ("instance_id", "history")


def _is_output_record(r: Any) -> bool:
    return isinstance(r, dict) and all(k in r for k in OUTPUT_FIELDS) and isinstance(r["history"], list)


def _looks_like_output(path: Path) -> bool:
    with open_input(path) as f:
        first = f.read(1)
    if first != b"{":
        return False
    try:
        return _is_output_record(orjson.loads(read_line(path, FIRST_LINE_CAP)))
    except orjson.JSONDecodeError:
        return False


def read_output(path: Path) -> Session:
    """An evaluation ``output.jsonl``: each line one benchmark instance with its own ``history``
    of events. Each instance is a session: the first is shown, the others are sidechains keyed
    by ``instance_id`` (``--sidechain ID``). A notice in ``skipped`` says which is shown."""
    sessions: list[tuple[str, Session]] = []
    skipped: list[Skipped] = []
    with open_input(path) as f:
        for line_no, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:
                record = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                skipped.append(Skipped(where=f"line {line_no}", reason=f"not valid JSON ({exc})"))
                continue
            if not _is_output_record(record):
                skipped.append(Skipped(where=f"line {line_no}", reason="not an evaluation instance (no instance_id and history)"))
                continue
            instance = _read_events(path, record["history"], lambda k, n=line_no: SourceRef(line=n, json_path=f"$.history[{k}]"))
            instance.extra.update({"instance_id": str(record["instance_id"]), **_instance_facts(record)})
            sessions.append((str(record["instance_id"]), instance))
    if not sessions:
        raise SessionFormatError(path, None, "no evaluation instance found.", "JSONL lines with instance_id and history (OpenHands output.jsonl)")
    first_id, session = sessions[0]
    session.sidechains = {key: s.messages for key, s in sessions[1:]}
    session.extra["instances"] = [key for key, _ in sessions]
    session.extra[SEPARATE_SESSIONS] = [key for key, _ in sessions[1:]]
    if len(sessions) > 1:
        session.skipped.insert(0, ignored(
            "line 1",
            f"{len(sessions)} evaluation instances in this file: showing the first, {first_id}; "
            "the others are sidechains (open one with --sidechain INSTANCE_ID)",
        ))
    session.skipped.extend(skipped)
    return session


def _instance_facts(record: dict[str, Any]) -> dict[str, Any]:
    """What an instance line records beside its history: the recorded token totals and error."""
    out: dict[str, Any] = {}
    metrics = record.get("metrics")
    usage = metrics.get("accumulated_token_usage") if isinstance(metrics, dict) else None
    if isinstance(usage, dict):
        out["accumulated_token_usage"] = usage
    if isinstance(record.get("error"), str):
        out["error"] = record["error"]
    return out


def detect(probe: Probe) -> int:
    if not probe.is_dir and probe.head[:1] == b"{":
        records = head_records(probe, limit=1)
        if records and _is_output_record(records[0]):
            return 92
    events = _events_of(probe.document)
    if not events:
        return 0
    sample = [e for e in events[:50]]
    if all(_is_event(e) for e in sample):
        return 90
    return 0


FORMAT = register(
    Format(
        name=NAME,
        description="OpenHands trajectory export (a JSON array of events) or evaluation output.jsonl (one instance per line)",
        detect=detect,
        read=read,
    )
)
