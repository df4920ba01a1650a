"""Claude Code transcript records for tests built to the writer's shape: one line of the JSONL
(``entry``) and an API reply with its usage (``reply``)."""

from __future__ import annotations

from typing import Any


def entry(uuid: str, parent: str | None, rtype: str, message: dict | None = None, *, version: str, timestamp: str,
          **fields: Any) -> dict:
    """A transcript line of type ``rtype`` on the main chain, after ``parent``."""
    line = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": "/w", "sessionId": "s",
            "version": version, "type": rtype, "uuid": uuid, "timestamp": timestamp}
    if message is not None:
        line["message"] = message
    line.update(fields)
    return line


def reply(mid: str, content: list[dict], read: int, *, model: str, stop_reason: str) -> dict:
    """An assistant API response whose usage reads ``read`` tokens from the cache."""
    usage = {"input_tokens": 3, "cache_creation_input_tokens": 0, "cache_read_input_tokens": read, "output_tokens": 20}
    return {"id": mid, "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": stop_reason, "usage": usage}
