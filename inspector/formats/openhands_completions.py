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
- A reply that calls ``finish`` ends the run (``hints.ENDS_RUN``): that call never gets a result.
- ``session.provider`` is ``anthropic`` for a Claude model (LiteLLM sends it through Anthropic's
  Messages API), as for OpenHands V1 conversations. Responses API logs (``llm_path:
  "responses"``, ``input`` instead of ``messages``) are not read: the reader says so.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ..model import Session, Skipped, Usage, new_source
from .base import Format, Probe, SessionFormatError, register
from .hints import ENDS_RUN
from .jsondoc import ShapeError, json_path
from .openai_chat import session_from_document
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


def _one(path: Path, doc: dict[str, Any]) -> Session:
    """The session of one log: its request, then its reply with the call's usage."""
    if not isinstance(doc.get("messages"), list):
        raise SessionFormatError(path, "$.input", "a Responses API completion log (llm_path \"responses\"): not read yet.", 'a Chat Completions log with "messages"')
    reply = _reply(doc)
    prompted = "raw_messages" in doc
    request = {"messages": [*doc["messages"], *([reply] if reply is not None else [])]}
    tools = _sent_tools(doc, prompted)
    if tools:
        request["tools"] = tools
    try:
        session = session_from_document(request, str(path))
    except ShapeError as err:
        raise SessionFormatError(path, json_path(err.path), err.problem) from None
    session.format = NAME
    session.agent = "openhands"
    session.extra = {k: doc[k] for k in ("context_window",) if k in doc}
    if prompted:
        session.extra["prompted_tool_calls"] = True
    usage = _usage(doc)
    if reply is not None and usage is not None:
        session.messages[-1].usage = usage
    if reply is not None and any(c.name == "finish" for c in session.messages[-1].tool_calls):
        session.messages[-1].extra[ENDS_RUN] = "OpenHands finish"
    session.model = usage.model if usage is not None else None
    if session.model and "claude" in session.model:
        session.provider = "anthropic"  # LiteLLM sends it through Anthropic's Messages API
    return session


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
    sent = latest.get("messages")
    others: dict[str, int] = {}
    for p, doc in logs[:-1]:
        request = doc.get("messages")
        at = len(request) if isinstance(request, list) else -1
        usage = _usage(doc)
        if isinstance(sent, list) and 0 < at < len(session.messages) and sent[:at] == request and session.messages[at].role == "assistant":
            session.messages[at].usage = usage
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
