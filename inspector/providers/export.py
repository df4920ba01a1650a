"""Export a pruned history as a request body a provider accepts, and write it safely.

:func:`export_request` takes a Plan (or an Analysis, exported unpruned) and hands the history it
sends to the provider's writer: :func:`inspector.providers.openai.export_body` (Chat
Completions, images of tool results moved to a user message after the batch) or
:func:`inspector.providers.anthropic.export_body` (system prompt and any inserted summary in the
top-level ``system`` field, tool results first in their user message). The plan counts moved
images with their tool result: the extra message's framing (a few tokens) is not in its figures.
:func:`write_export` writes JSON atomically (a temporary file in the same directory, then
``os.replace``) and refuses to write over the session file.
"""

from __future__ import annotations

import os
import tempfile
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


def write_export(body: dict[str, Any], out_path: str | Path, session_path: str | Path | None) -> Path:
    """Write ``body`` as indented JSON to ``out_path`` atomically; returns the path written.

    Raises :class:`ExportError` when ``out_path`` is the session file (compared after resolving
    links and ``..``), or is a directory, or its directory does not exist."""
    out = Path(out_path)
    target = out.resolve()
    if session_path is not None:
        source = Path(session_path).resolve()
        same = target == source
        if not same and target.exists() and source.exists():
            same = os.path.samefile(target, source)
        if same:
            raise ExportError(
                f"refusing to write the export to {out}: it is the session file being inspected "
                f"({source}); the inspector never modifies a session. Choose another output path."
            )
    if target.is_dir():
        raise ExportError(f"cannot write the export to {out}: it is a directory; give a file name.")
    directory = target.parent
    if not directory.is_dir():
        raise ExportError(f"cannot write the export to {out}: directory {directory} does not exist.")
    data = orjson.dumps(body, option=orjson.OPT_INDENT_2) + b"\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return target


__all__ = ["EXPORT_PROVIDERS", "ExportError", "export_request", "images_after_tool_messages", "write_export"]
