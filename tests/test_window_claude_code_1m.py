"""Claude Code's 1M window where the calls stay under 200,000: what the file itself says.

The calls record the bare model id (``claude-opus-4-8``); the file names the 1M variant only where
the CLI states the model it ran (stream-json ``init``: ``claude-opus-4-6[1m]``), the window of each
model (stream-json ``result``: ``modelUsage.<id>.contextWindow``), or the model it resolved for a
sub-agent that took the session's own (``toolUseResult.resolvedModel``)."""

from __future__ import annotations

from pathlib import Path

import orjson

import inspector
from inspector.analysis.window import session_window
from inspector.model import MODEL_WINDOWS, RESOLVED_MODELS


def _reply(mid: str, model: str, parent_tool: str | None = None, **where) -> dict:
    usage = {"input_tokens": 5, "cache_read_input_tokens": 40_000, "cache_creation_input_tokens": 10, "output_tokens": 4}
    message = {"role": "assistant", "id": mid, "model": model, "content": [{"type": "tool_use", "id": "toolu_1", "name": "Agent", "input": {}}],
               "usage": usage}
    return {"type": "assistant", "message": message, **where}


def _native(tmp_path: Path, resolved: str, model: str = "claude-opus-4-8") -> Path:
    base = {"sessionId": "s", "version": "2.1.177", "timestamp": "2026-06-01T00:00:00Z"}
    entries = [
        {**base, "type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "look into it"}},
        {**base, **_reply("m1", model), "uuid": "a1", "parentUuid": "u1", "requestId": "r1"},
        {**base, "type": "user", "uuid": "u2", "parentUuid": "a1",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "launched"}]},
         "toolUseResult": {"isAsync": True, "status": "async_launched", "agentId": "x1", "resolvedModel": resolved}},
    ]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(e) for e in entries) + b"\n")
    return path


def test_a_sub_agent_on_the_sessions_model_names_its_1m_variant(tmp_path):
    session = inspector.load(_native(tmp_path, "claude-opus-4-8[1m]"))
    assert session.extra[RESOLVED_MODELS] == ["claude-opus-4-8[1m]"]
    w = session_window(session)
    assert (w.tokens, w.budget) == (1_000_000, 967_000)  # was the 200K default: 167,000 budget
    assert w.source == "Claude Code's 1M window: a sub-agent on the session's model ran claude-opus-4-8[1m]"
    assert session_window(session, "claude-opus-4-8").tokens == 200_000  # --model: the file's facts are of its own model


def test_a_sub_agent_on_another_model_says_nothing_of_the_sessions_window(tmp_path):
    session = inspector.load(_native(tmp_path, "claude-opus-4-8[1m]", model="claude-fable-5"))
    assert session_window(session).tokens == 200_000
    session = inspector.load(_native(tmp_path, "claude-opus-4-8"))
    assert session_window(session).source == "Claude Code's 200K default"


def _stream_json(tmp_path: Path, init_model: str, result: dict | None) -> Path:
    entries = [
        {"type": "system", "subtype": "init", "cwd": "/w", "session_id": "s", "tools": ["Bash"], "model": init_model},
        {"type": "user", "message": {"role": "user", "content": "hi"}, "session_id": "s"},
        {**_reply("m1", "claude-opus-4-6"), "session_id": "s"},
    ]
    if result is not None:
        entries.append({"type": "result", "subtype": "success", "session_id": "s", "modelUsage": result})
    path = tmp_path / "p.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(e) for e in entries) + b"\n")
    return path


def test_stream_json_init_names_the_1m_variant(tmp_path):
    w = session_window(inspector.load(_stream_json(tmp_path, "claude-opus-4-6[1m]", None)))
    assert (w.tokens, w.source) == (1_000_000, "Claude Code's 1M window: the CLI ran claude-opus-4-6[1m] (init record)")
    assert session_window(inspector.load(_stream_json(tmp_path, "claude-opus-4-6", None))).tokens == 200_000


def test_stream_json_result_states_the_window(tmp_path):
    stated = {"claude-haiku-4-5-20251001": {"contextWindow": 200_000}, "claude-opus-4-6[1m]": {"contextWindow": 1_000_000}}
    session = inspector.load(_stream_json(tmp_path, "claude-opus-4-6", stated))
    assert session.extra[MODEL_WINDOWS] == {"claude-haiku-4-5-20251001": 200_000, "claude-opus-4-6[1m]": 1_000_000}
    w = session_window(session)
    assert (w.tokens, w.source) == (1_000_000, "recorded in the file")
