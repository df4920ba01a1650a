"""The session model: pydantic types every reader produces and every later stage consumes.

A :class:`Session` is an ordered list of :class:`Message` objects (system prompts included, as
``role="system"`` messages at the front), the tool definitions when the file has them, and where
it all came from. Each message keeps its content as typed blocks plus whatever the reader needs to
write it back out in the provider's own shape (``content_form`` and ``extra``), so a session can
be round-tripped without loss.

This module has no behaviour beyond small read-only conveniences: grouping into turns and units
lives in :mod:`inspector.units`, counting in :mod:`inspector.tokens`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field


# -- cheap construction ---------------------------------------------------------------------------
# Every reader builds one object per message and block (164k for a 50k-message session) with
# ``model_construct``. pydantic's own walks every field's aliases and defaults in Python per call;
# FastConstruct copies a per-class template of the defaults (in field order) and lays the given
# values over it: the same ``__dict__`` pydantic would build (same key order), no validation,
# about half the time. Unknown keys, aliases or a missing required field take pydantic's path.
# ``model_fields_set`` is every field (one shared set per class instead of a set per object: 200+
# bytes each); nothing in the inspector reads it.

_object_setattr = object.__setattr__
#: class -> (defaults template in field order, [(name, factory)], required names, all names)
_TEMPLATES: dict[type, tuple[dict[str, Any], tuple[tuple[str, Any], ...], tuple[str, ...], set[str]]] = {}
_MISSING = object()


def _template(cls: type[BaseModel]):
    static: dict[str, Any] = {}
    factories, required = [], []
    for name, field in cls.__pydantic_fields__.items():
        if field.alias not in (None, name) or field.validation_alias is not None:
            return None
        if field.default_factory is not None:
            static[name] = _MISSING
            factories.append((name, field.default_factory))
        elif field.is_required():
            static[name] = _MISSING
            required.append(name)
        else:
            static[name] = field.default
    entry = (static, tuple(factories), tuple(required), set(static))
    _TEMPLATES[cls] = entry
    return entry


class FastConstruct(BaseModel):
    """A BaseModel whose ``model_construct`` takes the fast path described above."""

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any):
        entry = _TEMPLATES.get(cls) or _template(cls)
        if entry is None or _fields_set is not None or cls.__pydantic_post_init__:
            return super().model_construct(_fields_set, **values)
        static, factories, required, names = entry
        d = static.copy()
        d.update(values)
        if len(d) != len(static):
            return super().model_construct(**values)
        for name in required:
            if name not in values:
                return super().model_construct(**values)
        for name, factory in factories:
            if d[name] is _MISSING:
                d[name] = factory()
        m = cls.__new__(cls)
        _object_setattr(m, "__dict__", d)
        _object_setattr(m, "__pydantic_fields_set__", names)
        _object_setattr(m, "__pydantic_extra__", None)
        _object_setattr(m, "__pydantic_private__", None)
        return m


Role = Literal["system", "user", "assistant", "tool"]


class _Block(FastConstruct):
    model_config = ConfigDict(extra="forbid")
    #: Fields of the source block the model has no slot for (``cache_control``, ``citations``...).
    extra: dict[str, Any] = Field(default_factory=dict)


class TextBlock(_Block):
    type: Literal["text"] = "text"
    text: str


class ImageBlock(_Block):
    """An image. ``data`` holds a URL or base64 payload as the file had it; it is never decoded."""

    type: Literal["image"] = "image"
    media_type: str | None = None
    source_kind: Literal["base64", "url", "file"] = "url"
    data: str = ""
    detail: str | None = None
    width: int | None = None
    height: int | None = None


class ThinkingBlock(_Block):
    type: Literal["thinking"] = "thinking"
    thinking: str = ""
    signature: str | None = None
    #: ``redacted_thinking``: ``thinking`` then holds the opaque ``data``.
    redacted: bool = False


class ToolCallBlock(_Block):
    """One tool call. ``arguments`` is the JSON text the model produced (as OpenAI sends it)."""

    type: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: str = "{}"


ResultPart = Annotated[Union[TextBlock, ImageBlock], Field(discriminator="type")]


class ToolResultBlock(_Block):
    """A tool result. ``content`` is a string, or a list of parts when the file had a list."""

    type: Literal["tool_result"] = "tool_result"
    tool_call_id: str
    content: str | list[ResultPart] = ""
    is_error: bool = False
    #: The tool's name when the file records it next to the result (legacy ``function`` role).
    name: str | None = None

    @property
    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "\n".join(p.text for p in self.content if isinstance(p, TextBlock))


class RawBlock(_Block):
    """A provider block the model has no type for (``document``, ``server_tool_use``...), kept
    verbatim in ``raw`` for write-back. ``text`` is what is counted and shown for it."""

    type: Literal["raw"] = "raw"
    raw: dict[str, Any] = Field(default_factory=dict)
    text: str = ""


Block = Annotated[
    Union[TextBlock, ImageBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock, RawBlock],
    Field(discriminator="type"),
]


class Usage(FastConstruct):
    """Token usage the file recorded for the model call that produced a message."""

    model_config = ConfigDict(extra="forbid")
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    #: The model that served this call, as the file recorded it (``claude-sonnet-4-5``, ``gpt-5-codex``).
    model: str | None = None
    #: Reasoning tokens this call produced that later calls re-send without the file showing their
    #: text (Codex encrypted reasoning within a turn); part of ``output_tokens`` where recorded.
    reasoning_tokens: int | None = None
    #: The part of ``cache_creation_input_tokens`` written with the one-hour lifetime (Claude Code
    #: ``cache_creation.ephemeral_1h_input_tokens``); priced at the 1h write rate.
    cache_creation_1h_input_tokens: int | None = None

    @property
    def context_tokens(self) -> int | None:
        """Everything the model read for this call: input plus cached input (Anthropic splits them)."""
        if self.input_tokens is None:
            return None
        return (
            self.input_tokens
            + (self.cache_read_input_tokens or 0)
            + (self.cache_creation_input_tokens or 0)
        )


class SourceRef(FastConstruct):
    """Where a message came from: a 1-based line (JSONL) and/or a JSON path (``$.messages[3]``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    line: int | None = None
    json_path: str | None = None
    file: str | None = None

    def __str__(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file)
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.json_path:
            parts.append(self.json_path)
        return ", ".join(parts) or "?"


ContentForm = Literal["string", "parts", "null", "blocks"]


class Message(FastConstruct):
    """One message as the model sees it, in provider-neutral form."""

    model_config = ConfigDict(extra="forbid")
    index: int
    role: Role
    content: list[Block] = Field(default_factory=list)
    name: str | None = None
    usage: Usage | None = None
    source: SourceRef = Field(default_factory=SourceRef)
    #: How the file wrote ``content``: a plain string, a list of parts, null, or provider blocks.
    content_form: ContentForm = "string"
    #: This message is a compaction summary recorded in the file: the model calls after it see
    #: only this message onwards (plus system prompts). Claude Code ``isCompactSummary`` etc.
    starts_context: bool = False
    #: A user-role message the agent's harness wrote, not a prompt a person (or the calling
    #: program) gave, set by readers that know it from the record (``observation``,
    #: ``demonstration``, ``meta``, ``compaction``...); None: the reader cannot tell. It never opens
    #: a turn (:mod:`inspector.units`, which also recognises known harness texts in any format).
    injected: str | None = None
    #: Whether this message is a summary the agent or a server wrote; None: it is when it
    #: ``starts_context``. False for the first retained message of a compaction whose new
    #: context begins with the user's own messages (Codex ``replacement_history``); True for a
    #: summary inside such a context (its ``compaction`` item), which does not start it.
    is_summary: bool | None = None
    #: Top-level fields of the source record the model has no slot for, kept for write-back.
    extra: dict[str, Any] = Field(default_factory=dict)

    @property
    def text(self) -> str:
        """The message's plain text blocks, joined with newlines (no tool calls or results)."""
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_calls(self) -> list[ToolCallBlock]:
        return [b for b in self.content if isinstance(b, ToolCallBlock)]

    @property
    def tool_results(self) -> list[ToolResultBlock]:
        return [b for b in self.content if isinstance(b, ToolResultBlock)]

    @property
    def only_tool_results(self) -> bool:
        """True for a message whose content is tool results and nothing else a person wrote."""
        has_result = False
        for b in self.content:
            if isinstance(b, ToolResultBlock):
                has_result = True
            elif isinstance(b, TextBlock) and not b.text.strip():
                continue
            else:
                return False
        return has_result


class ToolDefinition(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=dict)
    extra: dict[str, Any] = Field(default_factory=dict)


class Skipped(BaseModel):
    """Something a reader did not turn into a message, and why (a bad line, a bookkeeping record)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    where: str
    reason: str
    kind: str = "error"  # "error" for bad input, "ignored" for records skipped on purpose


class Session(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str | None = None
    format: str
    messages: list[Message] = Field(default_factory=list)
    tools: list[ToolDefinition] = Field(default_factory=list)
    #: Top-level request fields the model has no slot for (``model``, ``max_tokens``...).
    extra: dict[str, Any] = Field(default_factory=dict)
    #: Side conversations kept apart from the main chain (Claude Code sub-agents), by id.
    sidechains: dict[str, list[Message]] = Field(default_factory=dict)
    skipped: list[Skipped] = Field(default_factory=list)
    #: The agent that wrote the file and its version, where the file says (``claude_code``, ``2.0.76``).
    agent: str | None = None
    agent_version: str | None = None
    #: The model the session mostly used, where the file says (per call: ``Usage.model``).
    model: str | None = None
    #: Where the session's requests went (``openai``, ``anthropic``), for formats that can hold
    #: either (a proxy capture); None: the format's own provider.
    provider: str | None = None

    @property
    def system_messages(self) -> list[Message]:
        return [m for m in self.messages if m.role == "system"]
