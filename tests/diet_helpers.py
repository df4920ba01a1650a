"""A hand-built session for the tool-diet tests (``tools``, ``fleet``, the viewer's Tools screen):
a JSON result with an unused field, an email and an API key, then an error returned as plain text."""

from __future__ import annotations

import json
from pathlib import Path

SECRET = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4"


def diet_session(path: Path) -> Path:
    record = {"user_id": "u_48213", "email": "jane.doe@example.com", "api_key": SECRET, "internal_note": "keep"}
    lines = [
        {"role": "system", "content": "You look people up."},
        {"role": "user", "content": "Which id does Jane have?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "name": "lookup_user", "arguments": "{\"name\": \"Jane\"}"}]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(record)},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c2", "name": "run", "arguments": "{\"cmd\": \"ls /nope\"}"}]},
        {"role": "tool", "tool_call_id": "c2", "content": "Error: ls: cannot access '/nope': No such file or directory"},
        {"role": "assistant", "content": "Jane's id is u_48213."},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path
