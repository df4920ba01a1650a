"""Export a pruned history as a request body a provider accepts, and write it safely.

:func:`export_request` takes a Plan (or an Analysis, exported unpruned) and builds the body with
the format writers: OpenAI Chat Completions (``{"messages": [...], "tools": [...]}``) or
Anthropic Messages (system prompt and any inserted summary in the top-level ``system`` field,
tool results as ``tool_result`` blocks, listed first in their user message). OpenAI takes images
only in ``user`` messages ("Image URLs are only allowed for messages with role 'user'"), so images
a tool returned (screenshots) are moved out of its ``tool`` message into one ``user`` message
right after the batch's tool messages (:func:`images_after_tool_messages`); the validator lays the
request out the same way. The plan counts those images with their tool result: the extra
message's framing (a few tokens) is not in its figures. :func:`write_export` writes JSON atomically (a temporary
file in the same directory, then ``os.replace``) and refuses to write over any file of the session,
or over a device, FIFO or socket.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson

if TYPE_CHECKING:  # pragma: no cover
    from .. import Analysis
    from ..strategies.base import Plan

ExportProvider = Literal["openai", "anthropic"]
EXPORT_PROVIDERS = ("openai", "anthropic")


class ExportError(Exception):
    """The export cannot be written (it would overwrite the session, or the path is unusable)."""


def export_request(target: Plan | Analysis, provider: ExportProvider) -> dict[str, Any]:
    """The request body for ``provider`` holding the history ``target`` sends."""
    from ..strategies.base import Plan

    if isinstance(target, Plan):
        plan = target
    else:
        from ..strategies import plan as make_plan

        plan = make_plan(target.view, target.table)
    session = plan.view.session
    messages = plan.messages_after()
    if provider == "openai":
        from ..formats import openai_chat

        body = openai_chat.dump_request(session, messages)
        body["messages"] = images_after_tool_messages(body["messages"])
        return body
    if provider == "anthropic":
        from ..formats import anthropic

        return anthropic.dump_request(session, messages, results_first=True)
    raise ValueError(f"unknown provider {provider!r}; choose one of: {', '.join(EXPORT_PROVIDERS)}")


def images_after_tool_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """OpenAI messages with the ``image_url`` parts of ``tool`` messages moved into one ``user``
    message after each run of consecutive tool messages (all results of a batch come first, as
    the API requires). A tool message left with no part gets ``""`` as content."""
    out: list[dict[str, Any]] = []
    images: list[Any] = []
    for d in messages:
        if d.get("role") == "tool":
            content = d.get("content")
            if isinstance(content, list) and any(isinstance(p, dict) and p.get("type") == "image_url" for p in content):
                images.extend(p for p in content if isinstance(p, dict) and p.get("type") == "image_url")
                rest = [p for p in content if not (isinstance(p, dict) and p.get("type") == "image_url")]
                d = {**d, "content": rest or ""}
            out.append(d)
            continue
        if images:
            out.append({"role": "user", "content": images})
            images = []
        out.append(d)
    if images:
        out.append({"role": "user", "content": images})
    return out


def write_export(body: dict[str, Any], out_path: str | Path, session_path: str | Path | None, session_files: Iterable[str] = ()) -> Path:
    """Write ``body`` as indented JSON to ``out_path`` atomically (:func:`inspector.safeio.write_atomic`);
    returns the path written. ExportError when the target is a file of the session (``session_files``:
    the other files its reader read), not a regular file, a directory, or in a missing directory."""
    from ..safeio import OutputError, write_atomic

    data = orjson.dumps(body, option=orjson.OPT_INDENT_2) + b"\n"
    try:
        return write_atomic(out_path, data, session_path=session_path, session_files=session_files)
    except OutputError as exc:
        raise ExportError(str(exc)) from None


__all__ = ["EXPORT_PROVIDERS", "ExportError", "export_request", "images_after_tool_messages", "write_export"]
