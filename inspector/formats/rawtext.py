"""The text to count and show for a provider block the model has no type for (a RawBlock).

``document``, ``server_tool_use``, ``web_search_tool_result``, ``input_audio``... are kept verbatim
for write-back; what the model reads of them is approximated by their text fields, or their
compact JSON with base64 payloads left out (an image or PDF payload is not read as text).
"""

from __future__ import annotations

from typing import Any

import orjson

_SKIP_KEYS = frozenset({"type", "id", "cache_control", "signature"})
_PAYLOAD_KEYS = frozenset({"data", "file_data", "encrypted_content"})


def raw_text(block: dict[str, Any]) -> str:
    text = block.get("text")
    if isinstance(text, str):
        return text
    content = block.get("content")
    if isinstance(content, str):
        return content
    if "input" in block and isinstance(block.get("name"), str):  # server_tool_use, mcp_tool_use
        return block["name"] + " " + _compact(block["input"])
    source = block.get("source")
    if isinstance(source, dict) and source.get("type") == "text" and isinstance(source.get("data"), str):
        return source["data"]
    if isinstance(content, list):
        parts = [raw_text(p) if isinstance(p, dict) else _compact(p) for p in content]
        return "\n".join(p for p in parts if p)
    return _compact(_without_payload(block))


def fields_text(item: dict[str, Any], keys: tuple[str, ...], nested: tuple[str, ...] = ()) -> str:
    """Every string (and list of strings) under ``keys`` in ``item`` and in its ``nested`` objects,
    one per line: what a hosted tool call item says (its query, code, arguments, output)."""
    texts: list[str] = []
    sources = [item] + [item[n] for n in nested if isinstance(item.get(n), dict)]
    for source in sources:
        for key in keys:
            value = source.get(key)
            if isinstance(value, str):
                texts.append(value)
            elif isinstance(value, list):
                texts.extend(v for v in value if isinstance(v, str))
    return "\n".join(texts)


def _without_payload(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _without_payload(v)
            for k, v in value.items()
            if k not in _SKIP_KEYS and not (k in _PAYLOAD_KEYS and isinstance(v, str))
        }
    if isinstance(value, list):
        return [_without_payload(v) for v in value]
    return value


def _compact(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return str(value)
