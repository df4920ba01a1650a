"""Claude Code lines decoded straight into typed structs (msgspec): the usual lines' questions
answered by the decoder, in C, instead of by the reader, per line, in Python.

orjson turns every line into dicts of every field; the reader then reads a dozen of them, checks
each one's type, and asks of every line the questions only a few lines answer yes to (a
sidechain, an API error reply, a compaction summary, a field not seen yet). A decoder of
:data:`DECODER` builds only the fields the reader uses, checks their types while it parses and
skips the rest. The structs accept only the shapes the reader handles without a question: any
other shape raises one of :data:`REFUSED` and the line goes to the dict path (orjson and
:meth:`~inspector.formats.claude_code.ClaudeCodeStream.add`), which decides as it always has. So
a field of an unexpected type, a text block with fields the model keeps in ``extra``
(``cache_control``, ``citations``), an image, a block or record type the structs do not list all
take that path.

A value the reader keeps as JSON (a tool call's ``input``) is msgspec's, which is orjson's but
for an integer beyond 64 bits (msgspec keeps it exact, orjson makes it a float): ``orjson.dumps``
of such an input raises, as it does for nesting deeper than it writes, and the reader leaves the
line to the dict path (``ClaudeCodeStream._take``). One
difference is left: a number beyond a double's range (``1e400``) in a field the reader never
reads is skipped by msgspec, while orjson refuses the whole line; such a line now loads.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Union

import msgspec
from msgspec import UNSET, Raw, Struct, UnsetType

from .reading import MAX_RECORDED_COUNT

#: What a line the structs do not fit raises (RecursionError: nesting deeper than msgspec goes).
REFUSED = (msgspec.DecodeError, RecursionError)

Str = Union[str, None]
Flag = Union[bool, None]


class Text(Struct, tag_field="type", tag="text", forbid_unknown_fields=True):
    """A text block with nothing the model keeps in ``extra`` (other fields: the dict path)."""

    text: str


class ToolUse(Struct, tag_field="type", tag="tool_use"):
    id: str = ""
    name: str = ""
    #: Any JSON value (msgspec's values are orjson's, but for an integer beyond 64 bits, which
    #: orjson makes a float: ``orjson.dumps`` of such an input raises, and the line is refused).
    input: Any = msgspec.field(default_factory=dict)


class TextPart(Struct, tag_field="type", tag="text"):
    """A text part of a tool result (its other fields are not kept, as on the dict path)."""

    text: str = ""


class ToolResult(Struct, tag_field="type", tag="tool_result"):
    tool_use_id: str = ""
    content: Union[str, list[TextPart], None] = None
    is_error: Flag = None


class Thinking(Struct, tag_field="type", tag="thinking"):
    thinking: str = ""
    signature: Str = None


class RedactedThinking(Struct, tag_field="type", tag="redacted_thinking"):
    data: str = ""


Content = Union[str, list[Union[Text, ToolUse, ToolResult, Thinking, RedactedThinking]], None]

#: A count the usage reader takes (an int, not a bool, from 0 to its maximum); any other value
#: refuses the line, and the dict path's reader reads it.
Count = Annotated[int, msgspec.Meta(ge=0, le=MAX_RECORDED_COUNT)]


class CacheCreation(Struct):
    ephemeral_1h_input_tokens: Union[Count, None] = None


class Usage(Struct):
    """``message.usage``: the counts Anthropic's usage keys (``reading.ANTHROPIC``) read."""

    input_tokens: Union[Count, None] = None
    output_tokens: Union[Count, None] = None
    cache_read_input_tokens: Union[Count, None] = None
    cache_creation_input_tokens: Union[Count, None] = None
    cache_creation: Union[CacheCreation, None] = None
    speed: Any = None


class Message(Struct):
    """An entry's ``message``: what the reader reads of it."""

    content: Content = None
    id: Str = None
    model: Str = None
    usage: Union[Usage, None] = None
    stop_reason: Str = None


class Entry(Struct, tag_field="type"):
    """The fields every record type shares (absent ones UNSET where presence matters)."""

    #: The record type (the struct's tag).
    kind: ClassVar[str] = ""
    uuid: Union[str, None, UnsetType] = UNSET
    parentUuid: Str = None  # noqa: N815 (the file's own field names)
    logicalParentUuid: Str = None  # noqa: N815
    version: Union[str, None, UnsetType] = UNSET
    cwd: Union[str, None, UnsetType] = UNSET
    gitBranch: Union[str, None, UnsetType] = UNSET  # noqa: N815
    sessionId: Union[str, None, UnsetType] = UNSET  # noqa: N815
    session_id: Union[str, None, UnsetType] = UNSET
    isSidechain: Flag = None  # noqa: N815
    parent_tool_use_id: Str = None

    # the reader's handlers of rare records read a dict: these read a struct the same way (a field
    # absent from the line is absent here; the record's struct has every field they read)
    def get(self, key: str, default: Any = None) -> Any:
        value = getattr(self, key, UNSET)
        return default if value is UNSET else value

    def __contains__(self, key: str) -> bool:
        return getattr(self, key, UNSET) is not UNSET

    def __getitem__(self, key: str) -> Any:
        value = getattr(self, key, UNSET)
        if value is UNSET:
            raise KeyError(key)
        return value


class Stamped(Entry, kw_only=True):
    """An entry that may start a message: its timestamp and ``isMeta`` go to the message's extra."""

    timestamp: Union[str, None, UnsetType] = UNSET
    isMeta: Flag = None  # noqa: N815


class Said(Stamped, kw_only=True):
    """A user or assistant entry."""

    message: Message


class UseResult(Struct):
    """A user entry's ``toolUseResult`` object: what the reader reads of it."""

    resolvedModel: Any = UNSET  # noqa: N815


_use_result = msgspec.json.Decoder(UseResult).decode


def use_result(raw: Raw) -> UseResult | None:
    """A ``toolUseResult`` that is an object, as :class:`UseResult` (None: absent or not an object)."""
    with memoryview(raw) as view:
        return _use_result(view) if len(view) and view[0] == 0x7B else None


class User(Said, tag="user"):
    kind: ClassVar[str] = "user"
    isCompactSummary: Flag = None  # noqa: N815
    #: As JSON, not parsed (often a copy of the tool's whole result): :func:`use_result` reads it.
    toolUseResult: Raw = Raw(b"")  # noqa: N815


class Assistant(Said, tag="assistant"):
    kind: ClassVar[str] = "assistant"
    requestId: Str = None  # noqa: N815
    isApiErrorMessage: Flag = None  # noqa: N815


class Attachment(Stamped, tag="attachment"):
    kind: ClassVar[str] = "attachment"
    attachment: Any = None


class System(Entry, tag="system"):
    kind: ClassVar[str] = "system"
    subtype: Any = None


class Title(Entry):
    """A record that may name the session (``summary``, ``custom-title``, ``ai-title``)."""

    summary: Any = None
    customTitle: Any = None  # noqa: N815
    aiTitle: Any = None  # noqa: N815
    title: Any = None


#: Record types skipped with their type as the reason and nothing else read.
PLAIN_SKIPS = (
    "progress", "file-history-snapshot", "queue-operation", "last-prompt", "agent-name", "permission-mode", "pr-link",
    "worktree-state", "agent-setting", "bridge-session", "mode", "file-history-delta",
)


class Skip(Entry):
    """A record skipped with its type as the reason (:data:`PLAIN_SKIPS`)."""


_SKIPS = tuple(
    msgspec.defstruct(f"Skip_{kind}", [], bases=(Skip,), tag=kind, namespace={"kind": kind}) for kind in PLAIN_SKIPS
)
_TITLES = tuple(
    msgspec.defstruct(f"Title_{kind}", [], bases=(Title,), tag=kind, namespace={"kind": kind})
    for kind in ("summary", "custom-title", "ai-title")
)

#: Lines as typed entries (``decode`` one, ``decode_lines`` a run; each raises one of
#: :data:`REFUSED` for a line the structs do not fit).
DECODER = msgspec.json.Decoder(Union[(User, Assistant, Attachment, System, *_SKIPS, *_TITLES)])  # type: ignore[misc]
decode = DECODER.decode

__all__ = ["DECODER", "PLAIN_SKIPS", "REFUSED", "Assistant", "Attachment", "CacheCreation", "Count", "Entry", "RedactedThinking", "Said", "Skip", "Stamped", "System",
           "Text", "Thinking", "Title", "ToolResult", "ToolUse", "Usage", "UseResult", "User", "decode", "use_result"]
