"""Provider wire rules: what OpenAI Chat Completions and Anthropic Messages accept, and how a
history is laid out for each.

One module per provider holds its rules, its error texts and its request writer
(:mod:`.openai`, :mod:`.anthropic`); :mod:`.validate` runs the checks over a plan, a session
view or a list of messages, :mod:`.export` writes a plan as a request body. The interface::

    check(plan)                         -> {"openai": [Violation...], "anthropic": [...]}
    check(messages, "anthropic")        -> [Violation...]
    export_request(plan, "openai")      -> the request body (a dict)

Depends on strategies (a Plan), units, model and the formats' write-back hints; never on
analysis or the views.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import overload

from ..model import Message
from ..strategies.base import Plan
from .common import PROVIDERS, Provider, Violation, unknown_provider
from .export import ExportError, export_request, write_export
# ``check``, not ``validate``: a function of that name would hide the ``.validate`` module.
from .validate import validate_messages, validate_plan, validate_session, validity


@overload
def check(target: Plan, provider: None = None) -> dict[str, list[Violation]]: ...
@overload
def check(target: Plan | Sequence[Message], provider: Provider) -> list[Violation]: ...
@overload
def check(target: Sequence[Message], provider: None = None) -> dict[str, list[Violation]]: ...


def check(target, provider=None):
    """The rules ``target`` (a Plan, or messages as sent) breaks: for ``provider``, or a dict
    for every provider when it is None."""
    if isinstance(target, Plan):
        found = validate_plan(target)
        if provider is None:
            return found
        if provider not in found:
            raise unknown_provider(provider)
        return found[provider]
    if provider is None:
        return {p: validate_messages(target, p) for p in PROVIDERS}
    return validate_messages(target, provider)


__all__ = [
    "PROVIDERS",
    "ExportError",
    "Provider",
    "Violation",
    "export_request",
    "check",
    "validate_messages",
    "validate_plan",
    "validate_session",
    "validity",
    "write_export",
]
