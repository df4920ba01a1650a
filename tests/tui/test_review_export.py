"""The viewer's export refusal for a session still running a tool call names the viewer's keys,
not the command line's options (found reviewing main: the dialog said '(--at 93), or pass
--allow-invalid to write it anyway', neither of which the viewer has)."""

from __future__ import annotations

import pytest

from inspector.model import Session, ToolCallBlock
from inspector.tui.dialogs import Export
from test_parts import Fake, plan_of
from tui_helpers import msg


def test_export_of_a_session_awaiting_a_tool_result_says_which_call_to_move_to(tmp_path):
    session = Session(format="openai", messages=[
        msg(0, "system", "You are careful."),
        msg(1, "user", "What is in notes.txt?"),
        msg(2, "assistant", ToolCallBlock(id="c1", name="read_file", arguments='{"path": "notes.txt"}')),
    ])
    result = plan_of(session)
    export = Export(Fake().services(), session_path=str(tmp_path / "s.jsonl"), provider="anthropic",
                    result=lambda: result, at_call=lambda: None, push_screen=lambda screen, done: None)
    with pytest.raises(Exception) as exc:  # ExportError; the prompt shows it after "Not written: "
        export.write(str(tmp_path / "out.json"), "anthropic")
    assert str(exc.value) == (
        "refusing to export the session: it ends with a tool call the file has no result for yet (message #2: c1; "
        "the agent was running it when the file was written), and Anthropic rejects a request that leaves a tool "
        "call unanswered. Export the request of the last recorded call instead: [ moves the replay cursor to call 1.")
    assert not (tmp_path / "out.json").exists()
