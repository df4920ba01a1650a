"""SWE-agent ``.traj`` files and mini-swe-agent ``*.traj.json`` trajectories.

- SWE-agent: one JSON object; the conversation is ``history`` (chat messages with ``role``,
  ``content``, and SWE-agent's ``agent``, ``message_type``, ``thought``, ``action``, ``is_demo``
  kept in ``extra``). Function-calling configs give assistant ``tool_calls`` (OpenAI shape) answered
  by ``role: "tool"`` messages with a ``tool_call_ids`` list (or ``tool_call_id``); older configs
  send observations as user messages, which is what the model saw, so they stay user messages.
  ``history`` keeps everything: history processors (``last_n_observations``...) only changed the
  per-step ``query`` copies, which are not read; re-simulate them with a strategy instead.
  ``info.model_stats`` (session totals, not per call) goes to ``Session.extra["model_stats"]``.
  A demonstration file holds only ``history`` (no ``trajectory`` or ``info``).
- mini-swe-agent: ``{"info", "messages", "trajectory_format": "mini-swe-agent-..."}``; OpenAI-shape
  messages whose ``extra.response.usage`` is the usage of the call that produced them (its
  ``extra.response.model`` is ``Usage.model``); LiteLLM's ``reasoning_content`` becomes a thinking
  block. 2.x ends with a ``{"role": "exit"}`` message (exit status and submission): skipped with
  that reason, as it is never sent to the model; the submit call before it, which never gets a
  result, is marked as the run's end (``extra[hints.ENDS_RUN]``: the exit status). ``info.mini_version`` is ``agent_version``.
  A message's ``extra.timestamp`` (unix seconds, when mini-swe-agent got the reply or the
  output) is kept as ``extra["timestamp"]``, as the file has it: calls are priced at their time.
- mini-swe-agent's Responses API models (``litellm_response``, ``openrouter_response``,
  ``portkey_response``) store each model response whole (``{"object": "response", "output": [...],
  "usage"}``, no ``role``) and tool outputs as ``function_call_output`` items: such a trajectory
  is read as Responses items, each response's output flattened as the agent sends it (one
  assistant message with its ``usage``), chat-shaped system and task messages as they are.
- Only the first id of a ``tool_call_ids`` list gets the result (one result per observation);
  the others are kept in ``extra["tool_call_ids"]``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..model import Message, Session, SourceRef, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock
from .base import Format, Probe, SessionFormatError, register
from .hints import ENDS_RUN
from .openai_responses import ItemReader
from .reading import OPENAI, ModelTally, content_blocks, image_block, joined_text, usage_from
from .records import FIELD_ERRORS, ignored, json_text, load_json, malformed

NAME = "swe_agent"
EXTRA_FIELDS = ("agent", "message_type", "thought", "action", "is_demo", "tags")


def _conversation(doc: Any) -> tuple[list[Any], str, bool] | None:
    """``(messages, json path, is_mini)`` of a trajectory document, or None."""
    if not isinstance(doc, dict):
        return None
    fmt = doc.get("trajectory_format")
    if isinstance(fmt, str) and fmt.startswith("mini-swe-agent") and isinstance(doc.get("messages"), list):
        return doc["messages"], "$.messages", True
    history = doc.get("history")
    if isinstance(history, list) and ("trajectory" in doc or "info" in doc or _agent_messages(history)):
        return history, "$.history", False
    return None


def _agent_messages(history: list[Any]) -> bool:
    """Whether ``history`` is SWE-agent's own (a demonstration ``.traj`` holds only it): its first
    message carries the ``agent`` and ``message_type`` SWE-agent writes on every message."""
    first = history[0] if history else None
    return isinstance(first, dict) and "role" in first and "agent" in first and "message_type" in first


def _part(part: Any, k: int) -> Any:
    if isinstance(part, str):
        return TextBlock(text=part)
    if isinstance(part, dict) and part.get("type") == "image_url":
        url = part.get("image_url")
        return image_block(url.get("url", "") if isinstance(url, dict) else url or "")
    if isinstance(part, dict):
        extra = {k: v for k, v in part.items() if k not in ("type", "text")}
        return TextBlock(text=str(part.get("text", "")), extra=extra)
    return None


def _reasoning(raw: dict[str, Any]) -> ThinkingBlock | None:
    """LiteLLM's ``reasoning_content`` (DeepSeek, Qwen... thinking), on the message or in its
    ``provider_specific_fields``."""
    fields = raw.get("provider_specific_fields") if isinstance(raw.get("provider_specific_fields"), dict) else {}
    text = raw.get("reasoning_content") or fields.get("reasoning_content")
    return ThinkingBlock(thinking=text, extra={"field": "reasoning_content"}) if isinstance(text, str) and text else None


def _injected(raw: dict, prompted: bool) -> str | None:
    """A user-role message the agent wrote: a demonstration (``is_demo``: part of the setup), or,
    once the task prompt was given, an observation of the last action (format-error reminders
    included). None: the task prompt."""
    if raw.get("is_demo") or raw.get("message_type") == "demonstration":
        return "demonstration"
    return "observation" if prompted else None


def _responses_shaped(items: list[Any]) -> bool:
    """A mini-swe-agent trajectory of a Responses API model (response objects, typed items)."""
    return any(isinstance(m, dict) and (m.get("object") == "response" or m.get("type") in ("function_call_output", "message")) for m in items)


def _read_responses(session: Session, items: list[Any], prefix: str, models: ModelTally) -> None:
    """A Responses-shaped mini-swe-agent trajectory (module docstring) into ``session``."""
    reader = ItemReader(session.messages, session.skipped)
    for k, raw in enumerate(items):
        where = f"{prefix}[{k}]"
        if isinstance(raw, dict) and raw.get("role") == "exit":
            session.skipped.append(ignored(where, "exit (mini-swe-agent's end of run: exit status and submission, not sent to the model)"))
            continue
        if not (isinstance(raw, dict) and raw.get("object") == "response"):
            item = {key: v for key, v in raw.items() if key != "extra"} if isinstance(raw, dict) else raw
            reader.close_response()
            reader.add(item, SourceRef(json_path=where))
            continue
        reader.close_response()
        for j, item in enumerate(raw.get("output") if isinstance(raw.get("output"), list) else []):
            reader.add(item, SourceRef(json_path=f"{where}.output[{j}]"))
        index = reader.close_response()
        model = raw.get("model") if isinstance(raw.get("model"), str) else None
        if index is not None:
            session.messages[index].usage = usage_from(raw.get("usage"), OPENAI, model)
            models.add(model)
    reader.release()


def _is_time(value: Any) -> bool:
    """Seconds since the epoch, as mini-swe-agent writes ``extra.timestamp``."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _mark_run_end(session: Session, exit_message: dict[str, Any]) -> None:
    """The submit command ends a mini-swe-agent 2.x run: its output is the exit message's
    submission, never a tool result. Its call, still unanswered, is marked as the run's end."""
    last = session.messages[-1] if session.messages else None
    if last is None or last.role != "assistant" or not last.tool_calls:
        return
    extra = exit_message.get("extra") if isinstance(exit_message.get("extra"), dict) else {}
    status = extra.get("exit_status")
    last.extra[ENDS_RUN] = f"mini-swe-agent exit status {status}" if isinstance(status, str) and status else "mini-swe-agent exit"


def read(path: Path) -> Session:
    doc = load_json(path)
    found = _conversation(doc)
    if found is None:
        raise SessionFormatError(path, "$", "this is not a SWE-agent trajectory.", 'an object with "history" and "trajectory" (.traj) or a mini-swe-agent "messages" list')
    items, prefix, mini = found
    session = Session(path=str(path), format=NAME, agent="mini-swe-agent" if mini else "swe-agent")
    models = ModelTally(session)
    if mini and _responses_shaped(items):
        _read_responses(session, items, prefix, models)
        items = []
    prompted = False  # the task prompt has been read: later user messages are observations
    for k, raw in enumerate(items):
        where = f"{prefix}[{k}]"
        try:
            if mini and isinstance(raw, dict) and raw.get("role") == "exit":
                session.skipped.append(ignored(where, "exit (mini-swe-agent's end of run: exit status and submission, not sent to the model)"))
                _mark_run_end(session, raw)
                continue
            if not isinstance(raw, dict) or raw.get("role") not in ("system", "user", "assistant", "tool"):
                raise SessionFormatError(path, where, "not a chat message.", 'an object with "role" system, user, assistant or tool')
            role = raw["role"]
            extra = {f: raw[f] for f in EXTRA_FIELDS if f in raw}
            if mini and isinstance(raw.get("extra"), dict) and _is_time(raw["extra"].get("timestamp")):
                extra["timestamp"] = raw["extra"]["timestamp"]
            blocks, form = content_blocks(raw.get("content"), _part)
            usage = None
            if role == "tool":
                ids = raw.get("tool_call_ids") or ([raw["tool_call_id"]] if raw.get("tool_call_id") else [""])
                if len(ids) > 1:
                    extra["tool_call_ids"] = ids
                result_content = raw["content"] if isinstance(raw.get("content"), str) else joined_text(blocks)
                blocks = [ToolResultBlock(tool_call_id=str(ids[0]), content=result_content)]
            elif role == "assistant":
                thinking = _reasoning(raw)
                if thinking is not None:
                    blocks.insert(0, thinking)
                for call in raw.get("tool_calls") or []:
                    fn = call.get("function") if isinstance(call, dict) else None
                    if isinstance(fn, dict):
                        blocks.append(ToolCallBlock(id=str(call.get("id", "")), name=str(fn.get("name", "")), arguments=json_text(fn.get("arguments", "{}"))))
                response = (raw.get("extra") or {}).get("response") if mini and isinstance(raw.get("extra"), dict) else None
                if isinstance(response, dict):
                    model = response.get("model") if isinstance(response.get("model"), str) else None
                    usage = usage_from(response.get("usage"), OPENAI, model)
                    models.add(model)
            injected = _injected(raw, prompted) if role == "user" else None
            prompted = prompted or (role == "user" and injected is None)
            session.messages.append(Message(index=len(session.messages), role=role, content=blocks, usage=usage, source=SourceRef(json_path=where), content_form=form, extra=extra, injected=injected))
        except FIELD_ERRORS as exc:
            session.skipped.append(malformed(where, "message", exc))

    info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
    session.extra = {k: info[k] for k in ("model_stats", "exit_status", "submission", "mini_version") if k in info}
    if mini:
        session.extra["trajectory_format"] = doc["trajectory_format"]
    version = info.get("mini_version") or info.get("swe_agent_version")
    session.agent_version = version if isinstance(version, str) else None
    config = info.get("config") if isinstance(info.get("config"), dict) else {}
    configured = (config.get("model") or {}).get("model_name") if isinstance(config.get("model"), dict) else None
    models.fallback(configured if isinstance(configured, str) else None)
    return session


def detect(probe: Probe) -> int:
    found = _conversation(probe.document)
    if found is None:
        return 0
    return 95 if found[2] or probe.path.suffix == ".traj" else 92


FORMAT = register(
    Format(
        name=NAME,
        description="SWE-agent .traj trajectory (history) or mini-swe-agent .traj.json",
        detect=detect,
        read=read,
    )
)
