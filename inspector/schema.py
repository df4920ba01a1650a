"""The pydantic model of one line of the inspector's JSONL format, and its JSON Schema.

This is the documented contract (``context-inspector schema`` prints :func:`jsonl_schema`). The
reader in :mod:`inspector.formats.jsonl` walks plain dicts for speed and accepts the same lines;
tests check that the fixtures and everything the writer emits validate against this model.
Unknown fields are allowed everywhere: a reader keeps them, never fails on them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class ToolSpec(_Open):
    """A tool the agent offers the model."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=dict, description="JSON Schema of the arguments")


class SessionHeader(_Open):
    """Optional first line: what the session offers and who wrote it."""

    type: Literal["session"]
    version: Literal[1] = 1
    tools: list[ToolSpec] = Field(default_factory=list)
    meta: dict[str, Any] = Field(default_factory=dict, description="free-form: agent, model, started_at...")


class TextPart(_Open):
    type: Literal["text"]
    text: str


class ImagePart(_Open):
    """An image: ``url`` (http(s) or data: URL) or ``data`` (base64); size in pixels if known."""

    type: Literal["image"]
    media_type: str | None = None
    url: str | None = None
    data: str | None = None
    width: int | None = None
    height: int | None = None


class ThinkingPart(_Open):
    type: Literal["thinking"]
    thinking: str
    signature: str | None = None
    redacted: bool = False


class ToolCallPart(_Open):
    type: Literal["tool_call"]
    id: str
    name: str
    arguments: str = Field("{}", description="the arguments as JSON text, as the model produced them")


KNOWN_BLOCKS = ("text", "image", "thinking", "tool_call", "tool_result")


def _not_known(kind: str) -> str:
    if kind in KNOWN_BLOCKS:
        raise ValueError(f"a {kind!r} block must have the fields of its type")
    return kind


class OtherBlock(_Open):
    """Any other block (a provider's ``document``, ``server_tool_use``...): kept verbatim."""

    type: Annotated[str, AfterValidator(_not_known), Field(json_schema_extra={"not": {"enum": list(KNOWN_BLOCKS)}})]


ResultPart = Union[Annotated[Union[TextPart, ImagePart], Field(discriminator="type")], OtherBlock]


class ToolResultPart(_Open):
    type: Literal["tool_result"]
    tool_call_id: str
    content: str | list[ResultPart] | None = ""
    is_error: bool = False


ContentBlock = Union[
    Annotated[Union[TextPart, ImagePart, ThinkingPart, ToolCallPart, ToolResultPart], Field(discriminator="type")],
    OtherBlock,
]


class ToolCall(_Open):
    id: str
    name: str
    arguments: str = Field("{}", description="the arguments as JSON text")


class LineUsage(_Open):
    """Token usage the provider reported for the call that produced this message."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None


class MessageLine(_Open):
    """One message. A ``tool`` message answers one call (``tool_call_id``)."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str | list[ContentBlock] | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    is_error: bool | None = None
    name: str | None = None
    summary: bool | None = Field(None, description="true: a compaction summary; later calls see only it onwards")
    usage: LineUsage | None = None
    ts: str | None = Field(None, description="ISO 8601 time the message was written")


JsonlLine = Union[SessionHeader, MessageLine]
JSONL_LINE = TypeAdapter(JsonlLine)


def jsonl_schema() -> dict:
    """JSON Schema of one line of the inspector's JSONL format."""
    schema = JSONL_LINE.json_schema()
    schema["title"] = "context-inspector JSONL line"
    schema["description"] = (
        "One JSON object per line: an optional session header first, then one message per line. "
        "Unknown fields are kept by the reader."
    )
    return schema
