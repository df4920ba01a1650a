"""The session model: the types every reader produces and every later stage consumes.

A :class:`Session` is an ordered list of :class:`Message` objects (system prompts included, as
``role="system"`` messages at the front), the tool definitions when the file has them, and where
it all came from. Each message keeps its content as typed blocks plus whatever the reader needs to
write it back out in the provider's own shape (``content_form`` and ``extra``), so a session can
be round-tripped without loss.

Messages, blocks, usage and source references are slotted records (:class:`Record`, compact
and cheap to build: a session can hold hundreds of thousands); the session and its tool
definitions are pydantic models.

This module has no behaviour beyond small read-only conveniences: grouping into turns and units
lives in :mod:`inspector.units`, counting in :mod:`inspector.tokens`.
"""

from __future__ import annotations

import copy
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, ClassVar, Literal, Union

from pydantic import BaseModel, ConfigDict, Field
from pydantic_core import core_schema


# -- a compact record -------------------------------------------------------------------------------
# A session of 50k messages holds about 164k messages and blocks. As pydantic models each cost an
# object plus a ``__dict__`` (a Message about 1.3 kB with its source and text block) and 2-8 us to
# build; as slotted dataclasses they cost a fifth of the bytes and a plain ``__init__``. The
# surface the rest of the inspector (and a plugin) uses is kept: keyword construction with
# defaults, ``model_construct``, ``model_copy``, ``model_dump``, ``==``, and use as a field of a
# pydantic model (``Session.messages``), validating from dicts as pydantic did. Construction does
# not validate: readers check what they read, and pydantic validation at the edges (a Session
# built from dicts) still builds the right types.


class Record:
    """Base of the slotted session records: pydantic's model API on a dataclass."""

    __slots__ = ()
    #: The block's discriminator, a class constant (``model_dump`` writes it where pydantic did).
    type: ClassVar[str | None] = None
    _field_names: ClassVar[tuple[str, ...]] = ()
    _dump_order: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any):
        """The record from field values, unchecked (pydantic's name for it)."""
        return cls(**values)

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False):
        """A copy with ``update`` laid over it; ``deep`` copies nested values too."""
        values = {name: getattr(self, name) for name in self._field_names}
        if deep:
            values = copy.deepcopy(values)
        if update:
            values.update(update)
        return type(self)(**values)

    def model_dump(self, *, mode: str = "python", exclude: set[str] | None = None, exclude_none: bool = False) -> dict[str, Any]:
        """Plain dicts and lists all the way down, keys in pydantic's order (the values are JSON's
        own types, so ``mode`` changes nothing); ``exclude`` and ``exclude_none`` at the top."""
        cls = type(self)
        out = {name: _dump(cls.type if name == "type" else getattr(self, name)) for name in cls._dump_order}
        for name in exclude or ():
            out.pop(name, None)
        if exclude_none:
            out = {k: v for k, v in out.items() if v is not None}
        return out

    @classmethod
    def model_validate(cls, value: Any):
        return _validate(cls, value)

    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, _handler: Any) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(
            lambda v: _validate(cls, v),
            serialization=core_schema.plain_serializer_function_ser_schema(lambda v: v.model_dump()),
        )


def _dump(value: Any) -> Any:
    if isinstance(value, Record):
        return value.model_dump()
    if isinstance(value, list):
        return [_dump(v) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v) for k, v in value.items()}
    return value


def _record(cls=None, *, hashable: bool = False):
    """``cls`` as a slotted keyword-only dataclass with :class:`Record`'s API."""

    def wrap(c):
        made = dataclass(slots=True, kw_only=True, eq=True, unsafe_hash=hashable)(c)
        made._field_names = tuple(f.name for f in fields(made))
        if made.type is not None:  # pydantic dumped the base's ``extra`` first, then ``type``
            made._dump_order = made._field_names[:1] + ("type",) + made._field_names[1:]
        else:
            made._dump_order = made._field_names
        return made

    return wrap if cls is None else wrap(cls)


# -- validation from plain values (pydantic at the edges) ----------------------------------------------


class _Invalid(ValueError):
    pass


def _validate(cls: type, value: Any):
    if isinstance(value, cls):
        return value
    if cls is Block or cls is ResultPart:
        return _block(value, _RESULT_PARTS if cls is ResultPart else _BLOCKS)
    if not isinstance(value, dict):
        raise _Invalid(f"expected a {cls.__name__} or an object, found {type(value).__name__}")
    if cls in _BLOCK_TYPES:
        return _block(value, {cls.type: cls})
    values = dict(value)
    unknown = set(values) - set(cls._field_names)
    if unknown:
        raise _Invalid(f"{cls.__name__} has no field {sorted(unknown)[0]!r}")
    for name, kind in _NESTED.get(cls, {}).items():
        if values.get(name) is not None:
            values[name] = _validate_nested(kind, values[name])
    try:
        return cls(**values)
    except TypeError as exc:
        raise _Invalid(str(exc)) from None


def _block(value: Any, types: dict[str, type]):
    if isinstance(value, tuple(types.values())):
        return value
    if not isinstance(value, dict) or value.get("type") not in types:
        raise _Invalid(f"expected a block with type one of {sorted(types)}")
    cls = types[value["type"]]
    values = {k: v for k, v in value.items() if k != "type"}
    if cls is ToolResultBlock and isinstance(values.get("content"), list):
        values["content"] = [_block(p, _RESULT_PARTS) for p in values["content"]]
    try:
        return cls(**values)
    except TypeError as exc:
        raise _Invalid(str(exc)) from None


def _validate_nested(kind: Any, value: Any) -> Any:
    if kind == "blocks":
        return [_block(b, _BLOCKS) for b in value]
    return _validate(kind, value)


Role = Literal["system", "user", "assistant", "tool"]


@_record
class _Block(Record):
    #: Fields of the source block the model has no slot for (``cache_control``, ``citations``...).
    extra: dict[str, Any] = field(default_factory=dict)


@_record
class TextBlock(_Block):
    type: ClassVar[str] = "text"
    text: str


@_record
class ImageBlock(_Block):
    """An image. ``data`` holds a URL or base64 payload as the file had it; it is never decoded."""

    type: ClassVar[str] = "image"
    media_type: str | None = None
    source_kind: Literal["base64", "url", "file"] = "url"
    data: str = ""
    detail: str | None = None
    width: int | None = None
    height: int | None = None


@_record
class ThinkingBlock(_Block):
    type: ClassVar[str] = "thinking"
    thinking: str = ""
    signature: str | None = None
    #: ``redacted_thinking``: ``thinking`` then holds the opaque ``data``.
    redacted: bool = False


@_record
class ToolCallBlock(_Block):
    """One tool call. ``arguments`` is the JSON text the model produced (as OpenAI sends it)."""

    type: ClassVar[str] = "tool_call"
    id: str
    name: str
    arguments: str = "{}"


ResultPart = Union[TextBlock, ImageBlock]


@_record
class ToolResultBlock(_Block):
    """A tool result. ``content`` is a string, or a list of parts when the file had a list."""

    type: ClassVar[str] = "tool_result"
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


@_record
class RawBlock(_Block):
    """A provider block the model has no type for (``document``, ``server_tool_use``...), kept
    verbatim in ``raw`` for write-back. ``text`` is what is counted and shown for it."""

    type: ClassVar[str] = "raw"
    raw: dict[str, Any] = field(default_factory=dict)
    text: str = ""


Block = Union[TextBlock, ImageBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock, RawBlock]
_BLOCK_TYPES = (TextBlock, ImageBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock, RawBlock)
_BLOCKS = {c.type: c for c in _BLOCK_TYPES}
_RESULT_PARTS = {c.type: c for c in (TextBlock, ImageBlock)}


@_record
class Usage(Record):
    """Token usage the file recorded for the model call that produced a message."""

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
    #: The speed the call ran at, where the provider records one (Anthropic's ``usage.speed``:
    #: "fast" mode is billed at its own rates); None: standard.
    speed: str | None = None

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


@_record(hashable=True)
class SourceRef(Record):
    """Where a message came from: a 1-based line (JSONL) and/or a JSON path (``$.messages[3]``)."""

    line: int | None = None
    json_path: str | None = None
    file: str | None = None

    def __str__(self) -> str:
        if self.file is None and self.json_path is None and self.line is not None:  # (most: a JSONL line)
            return f"line {self.line}"
        parts = []
        if self.file:
            parts.append(self.file)
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.json_path:
            parts.append(self.json_path)
        return ", ".join(parts) or "?"


ContentForm = Literal["string", "parts", "null", "blocks"]


@_record
class Message(Record):
    """One message as the model sees it, in provider-neutral form."""

    index: int
    role: Role
    content: list[Block] = field(default_factory=list)
    name: str | None = None
    usage: Usage | None = None
    source: SourceRef = field(default_factory=SourceRef)
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
    #: An assistant message re-sent after a compaction, as a copy of one an earlier model call
    #: wrote (Gemini CLI's compressed history, Claude Code's preserved segment, OpenHands'
    #: condensed view): the model sees it, but no model call of its own produced it here.
    resent: bool = False
    #: Top-level fields of the source record the model has no slot for, kept for write-back.
    extra: dict[str, Any] = field(default_factory=dict)

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


# -- positional constructors for the readers' hot loops ----------------------------------------------
# A keyword call of a record's ``__init__`` matches every keyword against its parameters: for a
# Message that is 2-3x the cost of the same call with positional arguments, and a 50k-message
# session builds several hundred thousand records. These makers take the fields a reader always
# has positionally and the rest as keywords with the fields' defaults, and build the same record.


def _maker(cls: type, *positional: str) -> Any:
    """A function building ``cls`` from ``positional`` fields in that order; every other field is
    a keyword with its default (a default factory is called per record, as ``__init__`` does)."""
    defaults: dict[str, Any] = {}
    keywords, body = [], []
    for f in fields(cls):
        if f.name not in positional:
            if f.default_factory is not MISSING:
                defaults[f"_factory_{f.name}"] = f.default_factory
                keywords.append(f"{f.name}=_FACTORY")
                body.append(f"    self.{f.name} = _factory_{f.name}() if {f.name} is _FACTORY else {f.name}")
                continue
            defaults[f"_default_{f.name}"] = f.default
            keywords.append(f"{f.name}=_default_{f.name}")
        body.append(f"    self.{f.name} = {f.name}")
    missing = set(positional) - {f.name for f in fields(cls)}
    if missing:
        raise TypeError(f"{cls.__name__} has no field {sorted(missing)[0]!r}")
    params = ", ".join(positional) + (", *, " + ", ".join(keywords) if keywords else "")
    source = f"def new_{cls.__name__}({params}):\n    self = _new(_cls)\n" + "\n".join(body) + "\n    return self\n"
    scope: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_FACTORY": _FACTORY, **defaults}
    exec(source, scope)  # noqa: S102 (generated from the dataclass's own field names)
    made = scope[f"new_{cls.__name__}"]
    made.__doc__ = f"A {cls.__name__} from {', '.join(positional)} (positionally); other fields as keywords."
    return made


_FACTORY = object()

#: ``Session.extra`` key: the sidechain ids that are other sessions stored in the same file (the
#: other instances of an OpenHands ``output.jsonl``, an Agents SDK database's other ``session_id``
#: values), not sub-agents or branches of this one: they are not priced as part of its cost.
SEPARATE_SESSIONS = "separate_sessions"

#: ``Session.extra`` key: ``[tokens, what]``, what the agent itself recorded that its requests send
#: and the file does not show (Copilot CLI's shutdown record: its tool definitions' tokens): the part
#: not in the file before any call records usage, in place of a typical size.
STATED_HIDDEN = "stated_hidden_tokens"

#: ``Session.extra`` key: the id of the record the file's first entry continues (its parent) where
#: that record is not in the file: the transcript starts mid-session (an excerpt, a checkpoint of a
#: longer session), so its first call was also sent a conversation the file does not hold.
UNSEEN_START = "unseen_start_parent"

#: ``Message.extra`` key: this system message is part of the history a later recorded compaction
#: replaces, not sent after it (Codex's developer messages; :func:`inspector.units.sent_across_starts`).
REPLACED_BY_COMPACTION = "replaced_by_compaction"

#: ``Session.extra`` key: ``{model id: window}``, the context window the agent itself recorded for
#: each model it ran (Claude Code's stream-json ``result`` record: ``modelUsage.<id>.contextWindow``).
MODEL_WINDOWS = "model_windows"

#: ``Session.extra`` key: the model ids the agent recorded as resolved for the sub-agents it launched
#: (Claude Code's ``toolUseResult.resolvedModel``: ``claude-opus-4-8[1m]``, the 1M variant's suffix kept).
RESOLVED_MODELS = "resolved_models"

#: The ``Session.extra`` keys every call's figures (or the window) read: a followed session whose value for one of
#: them changes (a Copilot CLI shutdown record arriving last) is re-figured from its first call.
CALL_FACTS = (STATED_HIDDEN, UNSEEN_START, MODEL_WINDOWS, RESOLVED_MODELS)

#: ``new_message(index, role, content, source, content_form, extra, *, name=None, usage=None,
#: starts_context=False, injected=None, is_summary=None, resent=False)``
new_message = _maker(Message, "index", "role", "content", "source", "content_form", "extra")
#: ``new_text(text, extra)``
new_text = _maker(TextBlock, "text", "extra")
#: ``new_tool_call(id, name, arguments, extra)``
new_tool_call = _maker(ToolCallBlock, "id", "name", "arguments", "extra")
#: ``new_tool_result(tool_call_id, content, extra, *, is_error=False, name=None)``
new_tool_result = _maker(ToolResultBlock, "tool_call_id", "content", "extra")
#: ``new_source(line, json_path, file)``
new_source = _maker(SourceRef, "line", "json_path", "file")
#: ``new_usage(input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens,
#: cache_creation_1h_input_tokens, reasoning_tokens, model)``
new_usage = _maker(
    Usage, "input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens",
    "cache_creation_1h_input_tokens", "reasoning_tokens", "model",
)


_NESTED: dict[type, dict[str, Any]] = {
    Message: {"content": "blocks", "usage": Usage, "source": SourceRef},
}


class ToolDefinition(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=dict)
    extra: dict[str, Any] = Field(default_factory=dict)


@_record(hashable=True)
class Skipped(Record):
    """Something a reader did not turn into a message, and why (a bad line, a bookkeeping record).

    A slotted record like the messages, not a pydantic model: a real Codex rollout skips about a
    third of its records on purpose (UI events, usage repeats), and a pydantic ``Skipped`` took
    about 0.7-1.8 us to build against 0.15 us for this (the same fields, ``model_dump``, ``==`` and
    hash; it is no longer frozen, and nothing assigns to one)."""

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
    #: Side conversations kept apart from the main chain (Claude Code sub-agents), by id; those
    #: ``extra[SEPARATE_SESSIONS]`` lists are other sessions the same file holds, not parts of this one.
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


#: ``new_skipped(where, reason, kind)``
new_skipped = _maker(Skipped, "where", "reason", "kind")
