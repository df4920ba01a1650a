"""OpenAI Responses API input items: a JSON array of items, or an object with ``input`` (a request
body; ``instructions`` and ``tools`` read too; a response object's ``output`` items are appended).

:class:`ItemReader` turns a sequence of Responses items into messages; the Codex rollout and
OpenAI Agents SDK SQLite readers use it too.

- ``message`` items (and the easy form ``{"role", "content"}``): ``user`` -> user, ``system`` and
  ``developer`` -> system (``extra["original_role"]`` keeps ``developer``), ``assistant`` -> part
  of an assistant message.
- Output items of one model response (``reasoning``, assistant ``message``, ``function_call``,
  ``custom_tool_call``, ``local_shell_call``, hosted ``*_call`` items) are consecutive in the
  input; they are grouped into ONE assistant message, i.e. one model call, until an input item
  (a user message or a call output) or :meth:`ItemReader.close_response` ends it.
- ``reasoning`` -> :class:`~inspector.model.ThinkingBlock` (summary text; ``encrypted_content``
  kept in ``extra``). Any ``*_call`` item with a ``call_id`` -> a tool call (``arguments`` for
  function calls; the raw ``input`` text for custom tools such as Codex ``apply_patch``, which is
  what the model wrote; the ``action`` as JSON otherwise). Hosted calls without ``call_id``
  (``web_search_call``...) -> a :class:`~inspector.model.RawBlock` in the assistant message.
- Any ``*_output`` item with a ``call_id`` -> a ``tool`` message answering that call (linked by
  ``call_id``, not ``id``). Calls recorded with an empty ``call_id`` (the Agents SDK stores ``""``
  with other providers' models, though the model was sent real ids) are paired with outputs by
  order: each gets the id ``unrecorded_<n>`` and the next output with an empty ``call_id``
  answers the oldest of them (``extra["recorded_id"]`` keeps the ``""``).
- ``compaction`` (opaque ``encrypted_content``) -> a user message holding a RawBlock with no
  countable text, ``starts_context=True``: the server drops what came before it.
- With ``hold_system`` (Codex): a developer or system message that arrives while calls of the
  latest response are still unanswered (Codex records settings updates while a tool runs) is
  placed after their outputs:
  the Responses API takes it between a call and its output, but the Chat Completions and
  Anthropic layouts the inspector validates and exports cannot, and the model reads the same
  tokens either way. It keeps its own ``source``; :meth:`ItemReader.release` places what is held.
- ``compaction_summary`` (the older name) and ``context_compaction`` (Codex 0.15x) are read as
  ``compaction``. ``tool_search_output`` answers its call with the ``tools`` it loaded (JSON);
  ``additional_tools`` (tool definitions sent inside the input) -> a system message holding them
  as JSON (``extra["item_type"]``), placed like a developer message.
- ``item_reference``, ``ghost_snapshot``, ``compaction_trigger`` and unknown item types are
  skipped (``kind="ignored"``).
"""

from __future__ import annotations

from pathlib import Path
from sys import intern
from typing import Any

from ..model import (
    Block,
    ImageBlock,
    Message,
    RawBlock,
    ResultPart,
    Session,
    Skipped,
    SourceRef,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolDefinition,
    ToolResultBlock,
    new_message,
    new_text,
    new_tool_call,
    new_tool_result,
)
from .base import Format, Probe, SessionFormatError, register
from .rawtext import fields_text
from .reading import OPENAI, content_blocks, image_block, usage_from
from .records import FIELD_ERRORS, ignored, json_text, load_json, malformed

NAME = "openai_responses"

TEXT_PARTS = frozenset({"input_text", "output_text", "text", "summary_text", "reasoning_text"})
OUTPUT_CALLS_WITHOUT_OUTPUT = frozenset(
    {"web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call", "mcp_call", "mcp_list_tools", "mcp_approval_request"}
)
#: A call output item's ``status`` values that make its result an error.
ERROR_STATUSES = ("failed", "incomplete")
SKIP_ITEMS = frozenset({"item_reference", "ghost_snapshot", "compaction_trigger"})
#: The opaque item a server compaction leaves: ``compaction`` (``compaction_summary`` is its older
#: name) and ``context_compaction`` (Codex 0.15x rollouts).
COMPACTION_ITEMS = frozenset({"compaction", "compaction_summary", "context_compaction"})
#: Item types only ever seen in Responses input (used by detection).
RESPONSES_TYPES = frozenset(
    {"function_call", "function_call_output", "reasoning", "custom_tool_call", "custom_tool_call_output", "compaction", "local_shell_call", "item_reference"}
)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _image(part: dict[str, Any]) -> ImageBlock:
    url = part.get("image_url") or part.get("file_id") or ""
    if isinstance(url, dict):
        url = url.get("url", "")
    return image_block(url, source_kind="file" if part.get("file_id") and not part.get("image_url") else "url", detail=part.get("detail"))


def _part(part: Any, k: int = 0) -> Block:
    if not isinstance(part, dict):
        return TextBlock(text=str(part))
    t = part.get("type")
    text = part.get("text")
    if t in TEXT_PARTS and type(text) is str:
        rest = {} if len(part) == 2 else {key: v for key, v in part.items() if key not in ("type", "text")}
        if t != "input_text" and t != "output_text":
            rest["part_type"] = t
        return new_text(text, rest)
    if t == "input_image":
        return _image(part)
    if t == "refusal":
        return TextBlock(text=str(part.get("refusal", "")), extra={"part_type": "refusal"})
    return RawBlock(raw=part, text=str(part.get("text") or ""))


def _result_content(output: Any) -> str | list[ResultPart]:
    if output is None:
        return ""
    if isinstance(output, str):
        return output
    if isinstance(output, list):
        parts: list[ResultPart] = []
        for part in output:
            if isinstance(part, dict) and part.get("type") == "input_image":
                parts.append(_image(part))
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(TextBlock(text=part["text"]))
            else:
                parts.append(TextBlock(text=json_text(part)))
        return parts
    if isinstance(output, dict) and isinstance(output.get("content"), (str, list)):
        return _result_content(output["content"])
    return json_text(output)


#: What of a hosted call item (``web_search_call``...) is worth counting: these strings, on the
#: item or its ``action``.
VISIBLE_KEYS = ("query", "queries", "code", "arguments", "input", "output", "result", "url")


class ItemReader:
    """Appends Responses items to ``messages``, grouping one response's output items."""

    def __init__(self, messages: list[Message], skipped: list[Skipped], prefix: str = "", hold_system: bool = False) -> None:
        self.messages = messages
        self.hold_system = hold_system
        self.skipped = skipped
        self.prefix = prefix  # for skipped reasons: "response_item/" in Codex
        self.open: int | None = None  # the assistant message collecting the current response
        self.dirty = 0
        self.unanswered: set[str] = set()  # call ids of the latest response without an output yet
        self.held: list[Message] = []  # system messages that arrived while those calls ran
        self.empty_ids: list[str] = []  # ids given to calls recorded with call_id "", unanswered, oldest first
        self.empty_count = 0

    def take(self) -> tuple[int, list[Message]]:
        first = min(self.dirty, len(self.messages))
        self.dirty = len(self.messages)
        return first, self.messages[first:]

    def close_response(self) -> int | None:
        """End the current model response; returns its assistant message index, if any."""
        index, self.open = self.open, None
        return index

    def append(self, message: Message) -> Message:
        message.index = len(self.messages)
        self.messages.append(message)
        return message

    def release(self) -> None:
        """Append the system messages held back while calls were unanswered (see :meth:`_message`)."""
        if not self.held and not self.unanswered:  # (most calls: one per item)
            return
        self.unanswered.clear()
        held, self.held = self.held, []
        for m in held:
            self.append(m)

    def _assistant(self, source: SourceRef) -> Message:
        if self.open is None:
            if self.held or self.unanswered:  # (release's own test, without its call per response)
                self.release()
            self.open = len(self.messages)
            message = new_message(self.open, "assistant", [], source, "parts", {})
            self.messages.append(message)  # (append's work, without a call per response)
            return message
        if self.open < self.dirty:
            self.dirty = self.open
        return self.messages[self.open]

    def add(self, item: Any, source: SourceRef, starts_context: bool = False) -> Message | None:
        """Add one item; returns the message it created or extended (None when skipped). An item
        whose fields have unexpected types is reported in ``skipped``, never raised."""
        try:
            return self._add(item, source, starts_context)
        except FIELD_ERRORS as exc:
            self.malformed(item, source, exc)
            return None

    def malformed(self, item: Any, source: SourceRef, exc: Exception) -> None:
        """``item`` reported in ``skipped`` as malformed (what :meth:`add` does on a field error)."""
        kind = item.get("type") if isinstance(item, dict) else None
        self.skipped.append(malformed(source, kind or "item", exc))

    def _add(self, item: Any, source: SourceRef, starts_context: bool) -> Message | None:
        if not isinstance(item, dict):
            self.skipped.append(Skipped(where=str(source), reason=f"expected an item object, got {type(item).__name__}"))
            return None
        t = item.get("type")
        # the usual items by one dict lookup, not a chain of tests (an unhashable type raises
        # TypeError here as the set test below did: the item is reported malformed)
        handler = ITEM_HANDLERS.get(t)
        if handler is not None:
            return handler(self, item, t, source, starts_context)
        if t is None and "role" in item:
            t = "message"
        if t == "message":
            return self._message(item, t, source, starts_context)
        if t in COMPACTION_ITEMS:
            self.close_response()
            raw = {k: v for k, v in item.items()}
            msg = Message(index=0, role="user", content=[RawBlock(raw=raw, text="")], source=source, content_form="parts", starts_context=True, extra={"item_type": "compaction"})
            return self.append(msg)
        if t == "additional_tools":
            return self._additional_tools(item, source)
        if isinstance(t, str) and t.endswith("_output") and "call_id" in item:
            return self._output(item, t, source)
        if isinstance(t, str) and t.endswith("_call") and "call_id" in item:
            return self._call(item, t, source)
        return self._other(item, t, source)

    def _other(self, item: dict[str, Any], t: Any, source: SourceRef) -> Message | None:
        """An item with no call id to pair: a hosted call's visible fields, or skipped."""
        if t in OUTPUT_CALLS_WITHOUT_OUTPUT:
            return self._extend(RawBlock(raw=item, text=fields_text(item, VISIBLE_KEYS, nested=("action",))), source)
        self.skipped.append(ignored(source, f"{self.prefix}{t}" if t in SKIP_ITEMS else f"{self.prefix}{t} (unknown item type)"))
        return None

    def _reasoning(self, item: dict[str, Any], t: str, source: SourceRef, starts_context: bool = False) -> Message:
        texts = [p.get("text", "") for p in _list(item.get("summary")) if isinstance(p, dict)]
        if not any(texts):
            texts = [p.get("text", "") for p in _list(item.get("content")) if isinstance(p, dict)]
        extra = {k: item[k] for k in ("id", "encrypted_content") if item.get(k)}
        block = ThinkingBlock(thinking="\n".join(t for t in texts if isinstance(t, str)), extra=extra)
        return self._extend(block, source)

    def _output(self, item: dict[str, Any], t: str, source: SourceRef, starts_context: bool = False) -> Message | None:
        """A call's output item (``*_output``): a tool message; without a ``call_id``, :meth:`_other`."""
        if "call_id" not in item:
            return self._other(item, t, source)
        self.open = None  # (close_response's work, without its call)
        recorded_id, recorded = item["call_id"], {}
        call_id = recorded_id if type(recorded_id) is str else str(recorded_id)
        if not recorded_id and self.empty_ids:  # answers the oldest unanswered call without an id
            call_id, recorded = self.empty_ids.pop(0), {"recorded_id": item["call_id"]}
        is_error = item.get("status") in ERROR_STATUSES or item.get("success") is False
        if "output" in item or "tools" not in item:
            output = item.get("output")
            if type(output) is not str:
                output = _result_content(output)
        else:  # tool_search_output: the tools it loaded
            output = json_text(item["tools"])
        block = new_tool_result(call_id, output, recorded, is_error=is_error)
        extra = {"item_type": t} if t != "function_call_output" else {}
        messages = self.messages
        msg = new_message(len(messages), "tool", [block], source, "string", extra)
        messages.append(msg)  # (append's work, without its call)
        unanswered = self.unanswered
        unanswered.discard(call_id)
        if not unanswered and self.held:
            self.release()
        return msg

    def _call(self, item: dict[str, Any], t: str, source: SourceRef, starts_context: bool = False) -> Message | None:
        """A call item (``*_call``): a tool call in the open response; without a ``call_id``, :meth:`_other`."""
        if "call_id" not in item:
            return self._other(item, t, source)
        if "arguments" in item:
            args = item["arguments"]
            if type(args) is not str:
                args = json_text(args)
        elif isinstance(item.get("input"), str):
            args = item["input"]
        else:
            args = json_text(item.get("action") or item.get("input") or {})
        name = item.get("name") or t[: -len("_call")]
        extra = {}
        if "id" in item:  # (not a comprehension: a function call of its own in Python 3.11)
            extra["id"] = item["id"]
        if "status" in item:
            extra["status"] = item["status"]
        if t != "function_call":
            extra["item_type"] = t
        recorded_id = item["call_id"]
        call_id = recorded_id if type(recorded_id) is str else str(recorded_id)
        if not recorded_id:  # not recorded (Agents SDK with other providers' models): pair by order
            self.empty_count += 1
            call_id, extra["recorded_id"] = f"unrecorded_{self.empty_count}", recorded_id
            self.empty_ids.append(call_id)
        msg = self._assistant(source)  # (_extend's work, without its call)
        msg.content.append(new_tool_call(call_id, intern(name if type(name) is str else str(name)), args, extra))  # one string per tool name
        self.unanswered.add(call_id)
        return msg

    def _additional_tools(self, item: dict[str, Any], source: SourceRef) -> Message:
        """Tool definitions sent inside the input (Codex "responses lite"): a system message
        holding them, so they count where they are sent."""
        self.close_response()
        block = RawBlock(raw=dict(item), text=json_text(item.get("tools", [])))
        msg = new_message(0, "system", [block], source, "parts", {"item_type": "additional_tools"})
        if self.unanswered and self.hold_system:
            self.held.append(msg)
            return msg
        self.release()
        return self.append(msg)

    def _extend(self, block: Block, source: SourceRef) -> Message:
        msg = self._assistant(source)
        msg.content.append(block)
        return msg

    def _message(self, item: dict[str, Any], t: str, source: SourceRef, starts_context: bool) -> Message:
        role = item.get("role")
        content = item.get("content")
        if type(content) is list:  # the usual form, without content_blocks' per-part callback
            blocks, form = [_part(content[0])] if len(content) == 1 else list(map(_part, content)), "parts"
        else:
            blocks, form = content_blocks(content, _part)
        extra = {}
        if "id" in item:  # (not a comprehension: a function call of its own in Python 3.11)
            extra["id"] = item["id"]
        if "phase" in item:
            extra["phase"] = item["phase"]
        if "status" in item:
            extra["status"] = item["status"]
        if role == "assistant":
            msg = self._assistant(source)
            msg.content.extend(blocks)
            if extra:
                msg.extra.update(extra)
            if starts_context:
                msg.starts_context = True
            return msg
        self.open = None  # (close_response's work, without its call)
        if role not in ("user", "system"):
            extra["original_role"] = role
            role = "system" if role == "developer" else "user"
        messages = self.messages
        msg = new_message(len(messages), role, blocks, source, form, extra, starts_context=starts_context)
        if role == "system" and self.unanswered and self.hold_system:
            self.held.append(msg)  # sent between a call and its output (the Responses API takes that)
            return msg
        if self.held or self.unanswered:
            self.release()
            msg.index = len(messages)
        messages.append(msg)  # (append's work, without its call)
        return msg


#: Item types :meth:`ItemReader._add` reads by one lookup (most items of a rollout); each
#: handler takes ``(reader, item, type, source, starts_context)``.
ITEM_HANDLERS = {
    "message": ItemReader._message,
    "reasoning": ItemReader._reasoning,
    "function_call": ItemReader._call,
    "function_call_output": ItemReader._output,
    "custom_tool_call": ItemReader._call,
    "custom_tool_call_output": ItemReader._output,
}


# --- the JSON file format ---------------------------------------------------------------------


def _items_of(doc: Any) -> tuple[list[Any], str, dict[str, Any]] | None:
    """``(items, json_path_prefix, request)`` of a Responses input document, or None."""
    if isinstance(doc, list):
        return doc, "$", {}
    if isinstance(doc, dict) and isinstance(doc.get("input"), (list, str)):
        items = doc["input"]
        if isinstance(items, str):
            items = [{"role": "user", "content": items}]
        return items, "$.input", doc
    return None


def _looks_responses(items: list[Any]) -> bool:
    for item in items[:200]:
        if not isinstance(item, dict):
            return False
        if item.get("type") in RESPONSES_TYPES or (item.get("type") == "message" and "role" in item):
            return True
        content = item.get("content")
        if isinstance(content, list) and any(isinstance(p, dict) and p.get("type") in ("input_text", "output_text", "input_image") for p in content):
            return True
    return False


def detect(probe: Probe) -> int:
    doc = probe.document
    found = _items_of(doc)
    if found is None:
        return 0
    items, _, request = found
    if request and ("messages" in request or "system" in request):
        return 0
    if _looks_responses(items):
        return 85
    if request and isinstance(request.get("input"), list):
        return 40  # {"input": [...]} with easy-form messages only
    return 0


def read(path: Path) -> Session:
    return session_from_document(load_json(path), path)


def session_from_document(doc: Any, path: Path) -> Session:
    """A Session from a parsed Responses document (items, or a request with ``input`` and maybe a
    response's ``output`` and ``usage``); SessionFormatError naming ``path`` if it is neither."""
    found = _items_of(doc)
    if found is None:
        raise SessionFormatError(path, "$", "this is not a list of Responses API input items.", 'a JSON array of items, or an object with "input"')
    items, prefix, request = found
    session = Session(path=str(path), format=NAME)
    reader = ItemReader(session.messages, session.skipped)
    instructions = request.get("instructions")
    if isinstance(instructions, str) and instructions:
        reader.append(Message(index=0, role="system", content=[TextBlock(text=instructions)], source=SourceRef(json_path="$.instructions"), extra={"request_field": "instructions"}))
    for k, item in enumerate(items):
        reader.add(item, SourceRef(json_path=f"{prefix}[{k}]"))
    if isinstance(request.get("output"), list):
        reader.close_response()
        for k, item in enumerate(request["output"]):
            reader.add(item, SourceRef(json_path=f"$.output[{k}]"))
        last = reader.close_response()
        if last is not None:
            session.messages[last].usage = usage_from(request.get("usage"), OPENAI, request.get("model") if isinstance(request.get("model"), str) else None)
    session.tools = tool_definitions(request.get("tools"))
    session.extra = {k: v for k, v in request.items() if k not in ("input", "instructions", "tools", "output")}
    return session


def tool_definitions(tools: Any) -> list[ToolDefinition]:
    """Responses (flat ``{type, name, description, parameters}``) or Chat (``{function: {...}}``)
    tool definitions; hosted tools without a name are left out."""
    out: list[ToolDefinition] = []
    for tool in tools if isinstance(tools, list) else []:
        if not isinstance(tool, dict):
            continue
        spec = tool.get("function") if isinstance(tool.get("function"), dict) else tool
        name = spec.get("name")
        if not isinstance(name, str):
            continue
        params = spec.get("parameters") if isinstance(spec.get("parameters"), dict) else {}
        rest = {k: v for k, v in spec.items() if k not in ("name", "description", "parameters")}
        out.append(ToolDefinition(name=name, description=str(spec.get("description") or ""), parameters=params, extra=rest))
    return out


FORMAT = register(
    Format(
        name=NAME,
        description="OpenAI Responses API input items (JSON array, or an object with 'input')",
        detect=detect,
        read=read,
    )
)
