"""Export a pruned history as a request body a provider accepts, and write it safely.

:func:`export_request` takes a Plan (or an Analysis, exported unpruned) and hands the history it
sends to the provider's writer: :func:`inspector.providers.openai.export_body` (Chat
Completions, images of tool results moved to a user message after the batch) or
:func:`inspector.providers.anthropic.export_body` (system prompt and any inserted summary in the
top-level ``system`` field, tool results first in their user message). The plan counts moved
images with their tool result: the extra message's framing (a few tokens) is not in its figures.
:func:`write_export` writes JSON atomically (:func:`inspector.safeio.write_atomic`: a temporary
file in the same directory, then ``os.replace``) and refuses to write over any file of the session,
or over a device, FIFO or socket.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ..strategies import Plan, plan as make_plan
from . import anthropic, openai
from .common import PROVIDERS, Provider, unknown_provider
from .openai import images_after_tool_messages

if TYPE_CHECKING:  # pragma: no cover
    from ..analysis.session import Analysis

ExportProvider = Provider
EXPORT_PROVIDERS = PROVIDERS

_WRITERS = {"openai": openai.export_body, "anthropic": anthropic.export_body}


class ExportError(Exception):
    """The export cannot be written (it would overwrite the session, or the path is unusable)."""


def export_request(target: Plan | Analysis, provider: Provider) -> dict[str, Any]:
    """The request body for ``provider`` holding the history ``target`` sends (an Analysis: the
    whole session as the next call would send it, no strategy)."""
    writer = _WRITERS.get(provider)
    if writer is None:
        raise unknown_provider(provider)
    plan = target if isinstance(target, Plan) else make_plan(target.view, target.table)
    return writer(plan.view.session, plan.messages_after())


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
