"""OpenHands completion logs (``LLM(log_completions=True)``): one JSON file per model call, each
the exact request and its response, written by the SDK's ``Telemetry`` (software-agent-sdk 1.x;
OpenHands V0 writes the same shape) to ``log_completions_folder`` as
``<model with / as __>-<unix time>[-<4 hex>].json``.

A file holds ``messages`` (what was sent, already formatted), ``tools``, ``kwargs``,
``context_window``, ``response`` (LiteLLM's ``ModelResponse``, with ``usage``), ``cost``,
``timestamp`` and ``latency_sec``. With prompt-based tool calling (models without native
function calling) ``raw_messages`` holds the function-calling form the agent built and
``raw_response`` the reply before conversion: ``messages`` (tools described in the system prompt, tool
results as user text) is what was sent; the reply is read from ``response`` (calls as
``tool_calls``; the next request re-sends it as text). The tool
definitions sent are ``kwargs["tools"]`` where the log has them (the call's own arguments), else
``tools`` except with prompt-based tool calling (the SDK then sends none).

- One file: its request messages (read as Chat Completions), then the reply (``choices[0].
  message``) carrying the call's usage (LiteLLM's ``prompt_tokens`` includes cache reads and
  writes) and ``response.model`` without LiteLLM's routing prefix.
- A directory of them: the calls in ``timestamp`` order; the session is the latest call's request
  and reply. An earlier call whose request is a prefix of the latest one gives its usage to its
  reply there (the message right after its request); a call of another conversation (a
  condenser's summary, a sub-agent) is listed in ``Session.skipped`` as ignored and its usage
  summed in ``extra["other_calls"]``.
- Each call's reply carries the log's ``timestamp`` (unix seconds, written when the reply
  arrived) as ``extra["timestamp"]`` (ISO 8601, as Claude Code writes it): the call is priced at
  that time (DeepSeek's off-peak rate) and the cache model sees the gaps between calls.
- A reply that calls ``finish`` ends the run (``hints.ENDS_RUN``): that call never gets a result.
- Responses API logs (``llm_path: "responses"``: ``instructions`` and ``input`` instead of
  ``messages``) are read as Responses items, the response's ``output`` as the reply.
- ``session.provider`` is ``anthropic`` for a Claude model (LiteLLM sends it through Anthropic's
  Messages API), as for OpenHands V1 conversations.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..model import Session, Skipped, Usage, new_source
from .base import Format, Probe, SessionFormatError, register
from .hints import ENDS_RUN
from .jsondoc import PathParts, ShapeError, shape_error
from .openai_chat import session_from_document
from .openai_responses import session_from_document as responses_session
from .openhands_v1 import served_model
from .reading import OPENAI, usage_from
from .records import ignored, load_json

NAME = "openhands_completions"
#: Keys only a completion log has next to ``messages`` and ``response``.
LOG_KEYS = ("context_window", "latency_sec", "cost")
#: ``litellm_proxy__anthropic__claude-sonnet-4-20250514-1757015025.972[-1a2b].json``
LOG_FILE = re.compile(r".+-\d{9,}\.\d{3}(?:-[0-9a-f]{4})?\.json")
#: Directory files looked at to detect a log folder.
DETECT_FILES = 8


def is_log(doc: Any) -> bool:
    """A parsed completion log: a request (``messages`` or Responses ``input``) with its
    ``response`` and the Telemetry's own keys."""
    return (
        isinstance(doc, dict)
        and isinstance(doc.get("response"), dict)
        and (isinstance(doc.get("messages"), list) or isinstance(doc.get("input"), list))
        and any(k in doc for k in LOG_KEYS)
    )


def _log_files(folder: Path) -> list[Path]:
    """The folder's files named as the Telemetry names its logs."""
    return sorted(Path(e.path) for e in os.scandir(folder) if LOG_FILE.fullmatch(e.name) and e.is_file())


def _reply(doc: dict[str, Any]) -> dict[str, Any] | None:
    """The assistant message of ``response`` (``raw_response`` is not used: SDK 1.0 wrote its
    tool calls as ``[{}]``)."""
    choices = doc["response"].get("choices")
    message = choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    return message if isinstance(message, dict) and message.get("role") == "assistant" else None


def _sent_tools(doc: dict[str, Any], prompted: bool) -> list[Any] | None:
    """The tool definitions the call sent: ``kwargs["tools"]`` when the log kept them there (the
    call's own arguments; SDK 1.0 logged them even with prompt-based tool calling), else ``tools``
    unless the tools were described in the prompt instead (SDK 1.x after 1.0 pops the copy)."""
    kwargs = doc.get("kwargs") if isinstance(doc.get("kwargs"), dict) else {}
    if isinstance(kwargs.get("tools"), list):
        return kwargs["tools"]
    return None if prompted or not isinstance(doc.get("tools"), list) else doc["tools"]


def _usage(doc: dict[str, Any]) -> Usage | None:
    response = doc["response"]
    model = response.get("model") if isinstance(response.get("model"), str) else None
    return usage_from(response.get("usage"), OPENAI, served_model(model))


def _call_time(doc: dict[str, Any]) -> str | None:
    """The log's ``timestamp`` (unix seconds) as ISO 8601 UTC; None when it has none."""
    stamp = doc.get("timestamp")
    if not isinstance(stamp, (int, float)) or isinstance(stamp, bool):
        return None
    try:
        return datetime.fromtimestamp(stamp, tz=timezone.utc).isoformat()
    except (OverflowError, OSError, ValueError):  # a time no calendar holds: the call has none
        return None


def _in_file(parts: PathParts, doc: dict[str, Any], request: dict[str, Any]) -> PathParts:
    """Where a value of the request :func:`_chat_session` builds sits in the log: the reply is
    ``response.choices[0].message``, tools taken from ``kwargs`` are there."""
    if parts[:1] == ("messages",) and len(parts) > 1 and parts[1] == len(doc["messages"]):
        return ("response", "choices", 0, "message", *parts[2:])
    if parts[:1] == ("tools",) and request.get("tools") is not doc.get("tools"):
        return ("kwargs", *parts)
    return parts


def _chat_session(path: Path, doc: dict[str, Any]) -> Session:
    """A Chat Completions log: its messages, then the reply of ``response``."""
    reply = _reply(doc)
    request = {"messages": [*doc["messages"], *([reply] if reply is not None else [])]}
    tools = _sent_tools(doc, "raw_messages" in doc)
    if tools:
        request["tools"] = tools
    try:
        session = session_from_document(request, str(path))
    except ShapeError as err:
        err.path = _in_file(err.path, doc, request)
        raise shape_error(path, None, err, NAME) from None
    if reply is None:
        return session
    usage = _usage(doc)
    session.messages[-1].usage = usage
    session.model = usage.model if usage is not None else None
    return session


def _responses_session(path: Path, doc: dict[str, Any]) -> Session:
    """A Responses API log (``llm_path: "responses"``): ``instructions``, ``input`` and the
    response's ``output`` (one assistant message with the call's usage)."""
    response = doc["response"]
    model = response.get("model") if isinstance(response.get("model"), str) else None
    request = {"instructions": doc.get("instructions"), "input": doc["input"], "output": response.get("output"), "usage": response.get("usage"), "model": served_model(model)}
    tools = _sent_tools(doc, False)
    if tools:
        request["tools"] = tools
    session = responses_session(request, path)
    session.model = served_model(model)
    for m in session.messages:  # the reply's items are the file's response.output, not $.output
        if m.source is not None and (m.source.json_path or "").startswith("$.output["):
            m.source = new_source(m.source.line, "$.response" + m.source.json_path[1:], m.source.file)
    return session


def _one(path: Path, doc: dict[str, Any]) -> Session:
    """The session of one log: its request, then its reply with the call's usage."""
    chat = isinstance(doc.get("messages"), list)
    session = _chat_session(path, doc) if chat else _responses_session(path, doc)
    session.format = NAME
    session.agent = "openhands"
    session.extra = {k: doc[k] for k in ("context_window",) if k in doc}
    if "raw_messages" in doc:
        session.extra["prompted_tool_calls"] = True
    last = session.messages[-1] if session.messages else None
    when = _call_time(doc)
    if when is not None and last is not None and last.usage is not None:
        last.extra["timestamp"] = when
    if last is not None and last.role == "assistant" and any(c.name == "finish" for c in last.tool_calls):
        last.extra[ENDS_RUN] = "OpenHands finish"
    if session.model and "claude" in session.model:
        session.provider = "anthropic"  # LiteLLM sends it through Anthropic's Messages API
    return session


def _request(doc: dict[str, Any]) -> tuple[Any, Any]:
    """What a log sent, to compare with a later call's: (instructions, messages or input)."""
    return doc.get("instructions"), doc.get("messages") if isinstance(doc.get("messages"), list) else doc.get("input")


def _timestamp(item: tuple[Path, dict[str, Any]]) -> tuple[float, str]:
    stamp = item[1].get("timestamp")
    return (float(stamp) if isinstance(stamp, (int, float)) else 0.0, item[0].name)


def _read_folder(folder: Path) -> Session:
    logs, skipped = [], []
    for p in _log_files(folder):
        try:
            doc = load_json(p)
        except (SessionFormatError, OSError) as exc:  # this file only
            skipped.append(Skipped(where=p.name, reason=str(exc)))
            continue
        if is_log(doc):
            logs.append((p, doc))
        else:
            skipped.append(ignored(p.name, "not a completion log"))
    if not logs:
        raise SessionFormatError(folder, None, "this folder holds no OpenHands completion log.", 'JSON files with "messages", "response" and "context_window" (log_completions)')
    logs.sort(key=_timestamp)
    latest_path, latest = logs[-1]
    session = _one(latest_path, latest)
    session.path = str(folder)
    instructions, sent = _request(latest)
    others: dict[str, int] = {}
    for p, doc in logs[:-1]:
        own, request = _request(doc)
        usage = _usage(doc)
        # its reply is where its own session puts it: the latest request resends the same items
        at = -1
        if own == instructions and isinstance(request, list) and sent[: len(request)] == request:
            try:
                at = len(_one(p, doc).messages) - 1
            except SessionFormatError:  # a malformed reply: its usage has no message to go on
                pass
        if 0 < at < len(session.messages) and session.messages[at].role == "assistant":
            session.messages[at].usage = usage
            when = _call_time(doc)
            if when is not None:
                session.messages[at].extra["timestamp"] = when
            continue
        skipped.append(ignored(p.name, "a call of another conversation (its request is not the start of the latest one)"))
        if usage is not None and usage.context_tokens is not None:
            others["calls"] = others.get("calls", 0) + 1
            others["input_tokens"] = others.get("input_tokens", 0) + usage.context_tokens
    for m in session.messages:  # the request paths are the latest file's
        if m.source is not None:
            m.source = new_source(m.source.line, m.source.json_path, latest_path.name)
    session.skipped = skipped + session.skipped
    if others:
        session.extra["other_calls"] = others
    session.extra["calls"] = len(logs)
    return session


def read(path: Path) -> Session:
    if path.is_dir():
        return _read_folder(path)
    doc = load_json(path)
    if not is_log(doc):
        raise SessionFormatError(path, "$", "this is not an OpenHands completion log.", 'an object with "messages", "response" and "context_window" (log_completions)')
    return _one(path, doc)


def detect(probe: Probe) -> int:
    if not probe.is_dir:
        return 94 if is_log(probe.document) else 0
    for p in _log_files(probe.path)[:DETECT_FILES]:
        try:
            if is_log(load_json(p)):
                return 94
        except (SessionFormatError, OSError):
            continue
    return 0


FORMAT = register(
    Format(
        name=NAME,
        description="OpenHands completion logs (log_completions: one request and response per JSON file, or their folder)",
        detect=detect,
        read=read,
    )
)
