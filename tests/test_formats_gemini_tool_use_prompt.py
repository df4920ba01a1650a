"""Gemini CLI records ``tokens.tool`` = the response's ``usageMetadata.toolUsePromptTokenCount``
(google-gemini/gemini-cli 5411f113 ``chatRecordingService.recordMessageTokens``). The Gemini API
counts it apart from ``promptTokenCount`` ("number of tokens present in tool-use prompt(s)":
what a built-in tool such as Google Search put before the model within the call, server side):
the model read it, but the client did not send it and the next call does not re-send it. So it
stays out of the call's recorded context and is kept on the message, not lost."""

from __future__ import annotations

import json
from pathlib import Path

from inspector.formats import load

CHAT = Path(__file__).parent / "fixtures" / "real" / "public" / "agentcmd_session-2025-10-27T19-55-981c87cb.json"


def test_tool_use_prompt_tokens_are_kept_apart_from_the_input_sent(tmp_path):
    doc = json.loads(CHAT.read_text())
    first = next(m for m in doc["messages"] if m.get("type") == "gemini")
    first["tokens"] = {"input": 5377, "output": 21, "cached": 0, "thoughts": 36, "tool": 310, "total": 5744}
    path = tmp_path / "session-x.json"
    path.write_text(json.dumps(doc))
    calls = [m for m in load(path).messages if m.role == "assistant"]
    assert (calls[0].usage.context_tokens, calls[0].usage.output_tokens) == (5377, 57)
    assert calls[0].extra["tool_use_prompt_tokens"] == 310
    assert "tool_use_prompt_tokens" not in calls[1].extra  # this file records no "tool"; 0 is not kept either
