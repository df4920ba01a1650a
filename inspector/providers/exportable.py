"""Whether a plan may be exported: a body the provider would reject is refused, rules listed.

The README promises an export the provider accepts. :func:`check_exportable` raises
:class:`~inspector.providers.export.ExportError` naming every rule the plan's history breaks for
that provider (the validator's own texts), so the CLI exits 2 and the TUI keeps its export prompt
open with the reason; ``--allow-invalid`` on the command line skips the check on purpose.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..formats.hints import ENDS_RUN
from .export import ExportError

if TYPE_CHECKING:  # pragma: no cover
    from ..model import Message, Session
    from ..strategies.base import Plan
    from .validate import Violation

NAMES = {"openai": "OpenAI", "anthropic": "Anthropic"}
#: Violations listed in the message; the rest are counted.
LISTED = 5


def session_files(session: Session) -> list[str]:
    """The other files the session's reader read (sub-agent transcripts, message files), as the
    messages name them: relative to the session directory, or to the session file's directory."""
    files = {m.source.file for m in session.messages if m.source is not None and m.source.file}
    for side in session.sidechains.values():
        files.update(m.source.file for m in side if m.source is not None and m.source.file)
    return sorted(files)


def violation_lines(plan: Plan, provider: str) -> list[str]:
    """One line per rule the plan's history breaks for ``provider``."""
    from .validate import validate_plan

    checked = getattr(plan, "violations", None)  # a CheckedPlan has them already
    lines = []
    for v in (checked if checked is not None else validate_plan(plan)).get(provider, ()):
        where = f"message #{v.source}" if v.source is not None else "an inserted message" if v.index is not None else "the request"
        if v.index is not None:
            where += f" (request position {v.index})"
        lines.append(f"{where}: {v.message}")
    return lines


#: How a refusal says the body can be written anyway, on the command line.
ALLOW_INVALID = "pass --allow-invalid to write it anyway"


def check_exportable(plan: Plan, provider: str, instead: str | None = None, anyway: str = ALLOW_INVALID) -> None:
    """ExportError listing the violations when ``provider`` would reject the plan's history.
    ``instead``: the end of the sentence saying how to export the last recorded call instead, its
    number as ``{call}`` (default: the commands' options; the viewer names its keys); ``anyway``:
    how to write the body all the same (the viewer has no such option and names the command's)."""
    lines = violation_lines(plan, provider)
    if not lines:
        return
    refusal = _pending_refusal(plan, provider, instead)
    if refusal is not None:
        raise ExportError(refusal)
    shown = "; ".join(lines[:LISTED]) + (f"; and {len(lines) - LISTED} more" if len(lines) > LISTED else "")
    source = plan.view.session.path or "the session"
    raise ExportError(
        f"refusing to export {source}: {NAMES.get(provider, provider)} would reject this request body "
        f"({len(lines)} rule break{'s' if len(lines) != 1 else ''}: {shown}). Choose a strategy or settings "
        f"whose plan is valid for {NAMES.get(provider, provider)}, or {anyway}."
    )


def pending_tool_call(plan: Plan, provider: str) -> tuple[int, tuple[str, ...]] | None:
    """``(message index, call ids)`` when the only rule the plan's history breaks for ``provider``
    is its last message: a tool call the file has no result for yet (a live session while the
    agent runs the tool, or a file cut mid-call). No strategy can mend that; the request of the
    last recorded call can be exported. None otherwise."""
    from .validate import validate_plan

    checked = getattr(plan, "violations", None)
    return trailing_call((checked if checked is not None else validate_plan(plan)).get(provider, ()), plan.view.session.messages)


def trailing_call(found: Sequence[Violation], messages: Sequence[Message]) -> tuple[int, tuple[str, ...]] | None:
    """``(message index, call ids)`` when the only breaks ``found`` in ``messages`` are the last
    message's tool calls, unanswered (:func:`pending_tool_call`); None otherwise."""
    last = len(messages) - 1
    if not found or any(v.rule != "missing_result" or v.source != last for v in found) or not messages[last].tool_calls:
        return None
    return last, tuple(c.id for c in messages[last].tool_calls)


def run_end(plan: Plan, index: int) -> str | None:
    """Why the run ended on message ``index``'s tool call (a submit or finish the agent never
    answers), as its reader recorded it; None: the call may still be running."""
    reason = plan.view.session.messages[index].extra.get(ENDS_RUN)
    return reason if isinstance(reason, str) else None


def _pending_refusal(plan: Plan, provider: str, instead: str | None = None) -> str | None:
    pending = pending_tool_call(plan, provider)
    if pending is None:
        return None
    index, ids = pending
    source = plan.view.session.path or "the session"
    instead = (instead or " (--at {call}), or pass --allow-invalid to write it anyway").format(call=len(plan.view.calls))
    ended = run_end(plan, index)
    why = f"the run ended on it ({ended}), so no result was ever written" if ended else "the agent was running it when the file was written"
    return (
        f"refusing to export {source}: it ends with a tool call the file has no result for"
        f"{'' if ended else ' yet'} (message #{index}: {', '.join(ids)}; {why}), and {NAMES.get(provider, provider)} "
        f"rejects a request that leaves a tool call unanswered. Export the request of the last recorded call instead"
        f"{instead}."
    )


__all__ = ["check_exportable", "pending_tool_call", "run_end", "session_files", "trailing_call", "violation_lines"]
