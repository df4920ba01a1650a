"""Write-back hints kept in the model's ``extra`` dicts, and the rule writers use to emit extras.

Readers put two kinds of things in ``Message.extra``, a block's ``extra``, ``ToolDefinition.extra``
and ``Session.extra``:

- source fields the model has no slot for, verbatim (``refusal``, ``cache_control``, ``ts``...),
  and fields whose value is the default the writer leaves out (``"is_error": false``), so the
  writer can put them back;
- reserved hint keys (below, all starting with ``_``) that say how the source spelled something
  the model normalises (a ``developer`` role, the legacy ``function_call`` form, a missing key).

A writer emits extras only for a session read from its own format (cross-format exports must be
valid for the target API), never lets an extra override a field it wrote itself, and never emits
a hint key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: Keys the source record did not have, which the writer would otherwise emit.
OMIT = "_omit"
#: The source's role when the model maps it (``developer`` -> system, ``function`` -> tool).
ROLE = "_role"
#: OpenAI legacy ``function_call`` / ``functions`` / role ``function``.
LEGACY = "_legacy"
#: A part of a tool result the model has no type for, kept verbatim (its text is in the block).
RAW = "_raw"
#: JSONL: a tool call or result written as a block inside ``content``.
INLINE = "_inline"
#: The session came from a bare JSON list of messages (no enclosing object).
BARE = "_bare"
#: ``arguments`` / ``input`` was a JSON object in the source, not JSON text.
ARGS_OBJECT = "_args_object"
#: Extra fields of a nested object (``image_url``, ``function``, an image ``source``).
NESTED = "_nested"
#: JSONL: a tool call written in OpenAI's nested shape ``{"id", "function": {"name", "arguments"}}``;
#: the value holds the nested object's other fields.
FUNCTION = "_function"
#: JSONL: the file had a ``{"type": "session"}`` header line.
HEADER = "_header"
#: An OpenAI tool definition written flat (``{"type", "name", "parameters"}``) instead of nested.
FLAT = "_flat"
#: Not a write-back hint: on the assistant message whose tool call ended the agent's run (a
#: submit or finish call, which never gets a result), why the file says it ended
#: (``mini-swe-agent exit status Submitted``). Export refusals say so instead of "still running".
ENDS_RUN = "_ends_run"

RESERVED = frozenset({OMIT, ROLE, LEGACY, RAW, INLINE, BARE, ARGS_OBJECT, NESTED, FLAT, HEADER, FUNCTION, ENDS_RUN})


def emit_extra(out: dict[str, Any], extra: dict[str, Any], keep: bool = True) -> dict[str, Any]:
    """Add ``extra``'s source fields to ``out`` (without overriding) and drop keys it says were
    absent. ``keep=False`` (a cross-format write) leaves ``out`` as it is."""
    if not keep or not extra:
        return out
    for key, value in extra.items():
        if key not in out and key not in RESERVED:
            out[key] = value
    omit = extra.get(OMIT)
    if omit:
        for key in omit:
            out.pop(key, None)
    return out


def had_null_content(extra: dict[str, Any]) -> bool:
    """The source block had ``"content": null`` (kept in its extra; the model holds "")."""
    return "content" in extra and extra["content"] is None


def result_content(block: Any, keep: bool, dump_part: Callable[[Any, bool], dict]) -> Any:
    """A tool result block's ``content`` as a writer emits it: its text (``null`` again when the
    source had null content and ``keep`` says this is a round trip), or its parts, each written
    by ``dump_part(part, keep)``."""
    if isinstance(block.content, str):
        return None if (keep and block.content == "" and had_null_content(block.extra)) else block.content
    return [dump_part(p, keep) for p in block.content]


def plain_extra(extra: dict[str, Any]) -> dict[str, Any]:
    """``extra`` without hint keys."""
    return {k: v for k, v in extra.items() if k not in RESERVED}
