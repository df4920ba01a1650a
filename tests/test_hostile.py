"""Hostile and broken input, one test per class of issue 11: escape sequences, wrongly typed
fields, unbounded and blocking reads, the SQLite reader's writes, exports over devices, FIFOs and
session files, invalid exports, misleading encoding errors."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector import safeio
from inspector.cli.main import main
from inspector.formats import load
from inspector.textsafe import json_escape, visible

from tests.test_fuzz import RAW

FIX = Path(__file__).parent / "fixtures"
ESC_TOOL = "\x1b[2Jwipe\x1b]8;;http://evil\x07link\x1b]8;;\x07\u202erev"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def tool_session(path: Path, name: str = ESC_TOOL) -> Path:
    return write_jsonl(path, [
        {"role": "user", "content": "go \u202eevil\u200b"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": name, "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "done \x1b[31mred"},
        {"role": "assistant", "content": "ok"},
    ])


# --- 1. terminal escape codes -----------------------------------------------------------------


def test_visible_escapes_every_terminal_control():
    assert visible("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert visible("t\x1b]0;title\x07") == "t\\x1b]0;title\\x07"
    assert visible("r\rx\x7f\x9b") == "r\\rx\\x7f\\x9b"
    assert visible("\u202eabc\u2066\u200e") == "\\u202eabc\\u2066\\u200e"
    assert visible("zero\u200bwidth\ufeff\u2060") == "zero\\u200bwidth\\ufeff\\u2060"
    assert visible("line\nand\ttab") == "line\nand\ttab"
    assert visible("\udcff") == "\\udcff"


def test_visible_splits_joined_emoji_into_pictographs_terminals_agree_on():
    # measured in tmux 3.3a (cursor column after printing): the glued forms were 1, 4 and 1 cells
    # wide where Rich counts 2, 2 and 2; split, each is as wide as Rich measures it
    assert visible("\U0001F468\u200d\U0001F469\u200d\U0001F467") == "\U0001F468\U0001F469\U0001F467"
    assert visible("\u2764\ufe0f heart") == "\u2764 heart"
    assert visible("\U0001F44D\U0001F3FD") == "\U0001F44D"
    assert visible("\U0001F3F3\ufe0f\u200d\U0001F308") == "\U0001F3F3\U0001F308"
    assert visible("a\u200db") == "a\\u200db"


def test_visible_shows_tag_characters_that_smuggle_ascii():
    assert visible("ok\U000E0041\U000E0042") == "ok\\U000e0041\\U000e0042"
    assert json.loads(json_escape(json.dumps(["\U000E0041"], ensure_ascii=False))) == ["\U000E0041"]


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.one_of(
    st.text(alphabet=st.characters(codec="utf-8")),
    st.text(alphabet=st.sampled_from(
        "\U0001F468\U0001F469\u2764\U0001F44D\U0001F3FD\U0001F1EB\U0001F1F7\u200d\ufe0f\ufe0e\u0301a\ud55c")),
))
def test_visible_text_is_as_wide_on_a_terminal_as_rich_measures_it(text):
    from rich.cells import cell_len, get_character_cell_size

    shown = visible(text)
    assert cell_len(shown) == sum(get_character_cell_size(ch) for ch in shown)


@settings(max_examples=300, derandomize=True, deadline=None)
@given(st.text())
def test_visible_leaves_no_unsafe_character_and_is_stable(text):
    shown = visible(text)
    assert not RAW.search(shown)
    assert visible(shown) == shown


@settings(max_examples=200, derandomize=True, deadline=None)
@given(st.text())
def test_json_escape_keeps_the_value(text):
    out = json_escape(json.dumps([text], ensure_ascii=False))
    assert json.loads(out) == [text]
    assert not RAW.search(out)


def test_info_shows_tool_names_and_content_inert(capsys, tmp_path):
    code, out, err = run(capsys, "info", tool_session(tmp_path / "s.jsonl"))
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "\\x1b[2Jwipe" in out


def test_json_output_escapes_bidi_and_c1_as_u_escapes(capsys, tmp_path):
    code, out, err = run(capsys, "info", tool_session(tmp_path / "s.jsonl"), "--json")
    assert code == 0, err
    assert not RAW.search(out)
    assert "\\u202e" in out and "\\u001b" in out
    json.loads(out)


def test_error_messages_show_file_names_inert(capsys, tmp_path):
    bad = tmp_path / "evil\x1b]0;pwned\x07.json"
    bad.write_text("{not json", encoding="utf-8")
    code, out, err = run(capsys, "info", bad)
    assert code == 2
    assert not RAW.search(err)
    assert "evil\\x1b]0;pwned\\x07.json" in err


def test_argparse_errors_show_values_inert(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["plan", "x.json", "--budget", "\x1b[2J"])
    assert exc.value.code == 2
    assert not RAW.search(capsys.readouterr().err)


# --- 2. wrongly typed fields ------------------------------------------------------------------


@pytest.mark.parametrize("doc", [
    [{"role": {"x": 1}, "content": "hi"}],  # openai_chat
    {"messages": [{"role": ["user"], "content": "hi"}]},
    {"input": [{"type": {"a": 1}, "role": ["user"]}]},  # openai_responses
])
def test_wrongly_typed_role_or_type_is_a_clean_error(capsys, tmp_path, doc):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    code, out, err = run(capsys, "info", path)
    assert code == 2 and err.count("\n") == 1 and str(path) in err


def test_a_list_type_beside_a_valid_role_still_reads(capsys, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps([{"type": ["message"], "role": "user", "content": "x"}]), encoding="utf-8")
    code, out, err = run(capsys, "info", path)
    assert code == 0, err


def test_codex_record_with_a_dict_type_is_a_clean_error(capsys, tmp_path):
    path = write_jsonl(tmp_path / "rollout.jsonl", [{"timestamp": "t", "type": {"a": 1}, "payload": {"type": ["x"]}}])
    code, out, err = run(capsys, "info", path)
    assert code == 2 and str(path) in err


# --- 3. unbounded and blocking reads ----------------------------------------------------------


def _in_thread(fn, timeout: float = 20.0):
    box: dict = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - reported to the test
            box["error"] = exc

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), "hung on the FIFO"
    return box


def test_a_fifo_session_is_refused_without_blocking(capsys, tmp_path):
    fifo = tmp_path / "session.jsonl"
    os.mkfifo(fifo)
    box = _in_thread(lambda: main(["info", str(fifo)]))
    assert box.get("value") == 2
    err = capsys.readouterr().err
    assert err == f"context-inspector info: error: {fifo}: it is a FIFO (named pipe), not a regular file; the inspector reads only session files (and session directories), so it does not open it.\n"


def test_a_device_behind_a_symlink_is_refused(tmp_path):
    link = tmp_path / "session.json"
    link.symlink_to("/dev/zero")
    with pytest.raises(safeio.InputError, match="it is a character device, not a regular file"):
        load(link)


def test_a_strands_message_file_linked_to_dev_zero_is_skipped_not_read(tmp_path):
    import shutil

    session = tmp_path / "session_notes-7"
    shutil.copytree(FIX / "real" / "strands" / "session_notes-7", session)
    victim = session / "agents" / "agent_default" / "messages" / "message_3.json"
    victim.unlink()
    victim.symlink_to("/dev/zero")
    result = load(session)
    assert len(result.messages) == 5
    assert any("character device" in s.reason for s in result.skipped)


def test_reads_are_capped(monkeypatch, tmp_path):
    path = write_jsonl(tmp_path / "s.jsonl", [{"role": "user", "content": "x" * 500}])
    monkeypatch.setattr(safeio, "MAX_INPUT_BYTES", 100)
    with pytest.raises(safeio.InputError, match="it is larger than 100 bytes, the most the inspector reads from one file"):
        load(path)


def test_a_symlink_loop_is_named_as_one(capsys, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.symlink_to(b)
    b.symlink_to(a)
    code, out, err = run(capsys, "info", a)
    assert code == 2
    assert "symbolic link loop" in err and str(a) in err


# --- 5. the SQLite reader writes nothing ----------------------------------------------------------


def _wal_database(path: Path) -> sqlite3.Connection:
    """A WAL database whose last rows are still only in the -wal (the writer stays open)."""
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA wal_autocheckpoint=0")
    con.executescript((FIX / "real" / "agents_sqlite" / "conversations.sql").read_text())
    con.commit()
    con.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('support-118', ?)",
                (json.dumps({"role": "user", "content": "only in the WAL"}),))
    con.commit()
    return con


def test_sqlite_reader_creates_nothing_and_keeps_wal_rows(tmp_path):
    db = tmp_path / "agents.db"
    writer = _wal_database(db)
    try:
        before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
        assert "agents.db-wal" in before
        session = load(db)
        assert session.messages[-1].content[0].text == "only in the WAL"
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    finally:
        writer.close()


def test_sqlite_follower_creates_nothing_and_sees_new_rows(tmp_path):
    from inspector.follow_dir import follower_for

    db = tmp_path / "agents.db"
    writer = _wal_database(db)
    try:
        follower = follower_for(db, "agents_sqlite")
        count = len(follower.session.messages)
        writer.execute("INSERT INTO agent_messages (session_id, message_data) VALUES ('support-118', ?)",
                       (json.dumps({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "new"}]}),))
        writer.commit()
        names = sorted(p.name for p in tmp_path.iterdir())
        update = follower.poll()
        assert len(follower.session.messages) == count + 1 and not update.stopped
        assert sorted(p.name for p in tmp_path.iterdir()) == names
    finally:
        writer.close()


def test_sqlite_reader_in_a_read_only_directory(tmp_path):
    db = tmp_path / "ro" / "agents.db"
    db.parent.mkdir()
    _wal_database(db).close()
    os.chmod(db.parent, 0o555)
    try:
        names = sorted(p.name for p in db.parent.iterdir())
        assert len(load(db).messages) > 0
        assert sorted(p.name for p in db.parent.iterdir()) == names
    finally:
        os.chmod(db.parent, 0o755)


def test_sqlite_text_that_is_not_utf8_skips_the_row(tmp_path):
    db = tmp_path / "agents.db"
    con = sqlite3.connect(db)
    con.executescript((FIX / "real" / "agents_sqlite" / "conversations.sql").read_text())
    con.execute("UPDATE agent_messages SET message_data = CAST(? AS TEXT) WHERE id = (SELECT MAX(id) FROM agent_messages)", (b'{"role":"user","content":"caf\xe9"}',))
    con.commit()
    con.close()
    session = load(db)
    assert any("not valid JSON" in s.reason for s in session.skipped)


# --- 6. exports never destroy -----------------------------------------------------------------------


def test_export_refuses_a_device(capsys, tmp_path):
    session = tool_session(tmp_path / "s.jsonl", "bash")
    code, out, err = run(capsys, "export", session, "--to", "openai", "-o", "/dev/null")
    assert code == 2
    assert "it is a character device" in err
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_export_refuses_a_fifo_without_blocking(capsys, tmp_path):
    session = tool_session(tmp_path / "s.jsonl", "bash")
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    box = _in_thread(lambda: main(["export", str(session), "--to", "openai", "-o", str(fifo)]))
    assert box.get("value") == 2
    assert "it is a FIFO (named pipe)" in capsys.readouterr().err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_export_refuses_a_strands_message_file(capsys, tmp_path):
    import shutil

    session = tmp_path / "session_notes-7"
    shutil.copytree(FIX / "real" / "strands" / "session_notes-7", session)
    target = session / "agents" / "agent_default" / "messages" / "message_0.json"
    before = target.read_bytes()
    code, out, err = run(capsys, "export", session, "--to", "anthropic", "-o", target)
    assert code == 2 and "it is a file of the session being inspected" in err
    assert target.read_bytes() == before


def test_export_refuses_a_claude_code_subagent_transcript(capsys, tmp_path):
    import shutil

    src = FIX / "real" / "claude_code"
    stem = "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13"
    shutil.copy(src / f"{stem}.jsonl", tmp_path)
    shutil.copytree(src / stem, tmp_path / stem)
    target = tmp_path / stem / "subagents" / "agent-acompact-7d1.jsonl"
    before = target.read_bytes()
    code, out, err = run(capsys, "export", tmp_path / f"{stem}.jsonl", "--to", "anthropic", "--allow-invalid", "-o", target)
    assert code == 2 and "it is a file of the session being inspected" in err
    assert target.read_bytes() == before


def test_export_refuses_sqlite_companions(tmp_path):
    assert safeio.belongs_to_session(tmp_path / "agents.db-wal", tmp_path / "agents.db")
    assert safeio.belongs_to_session(tmp_path / "agents.db-shm", tmp_path / "agents.db")
    assert not safeio.belongs_to_session(tmp_path / "agents.export.json", tmp_path / "agents.db")


def test_export_keeps_an_existing_files_mode_and_honours_the_umask(capsys, tmp_path):
    session = tool_session(tmp_path / "s.jsonl", "bash")
    kept = tmp_path / "kept.json"
    kept.write_text("old")
    os.chmod(kept, 0o600)
    assert run(capsys, "export", session, "--to", "openai", "-o", kept)[0] == 0
    assert stat.S_IMODE(os.stat(kept).st_mode) == 0o600
    old = os.umask(0o077)
    try:
        assert run(capsys, "export", session, "--to", "openai", "-o", tmp_path / "new.json")[0] == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.json").st_mode) == 0o600


# --- 7. exports the provider would reject ------------------------------------------------------------


def test_export_refuses_an_invalid_plan_unless_allowed(capsys, tmp_path):
    session = write_jsonl(tmp_path / "s.jsonl", [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "x", "content": "orphan"},
    ])
    out = tmp_path / "out.json"
    code, _, err = run(capsys, "export", session, "--to", "openai", "-o", out)
    assert code == 2 and not out.exists()
    assert err.startswith(f"context-inspector export: error: refusing to export {session}: OpenAI would reject this request body (1 rule break: message #1 (request position 1): Invalid parameter: messages with role 'tool'")
    assert "--allow-invalid" in err
    code, _, err = run(capsys, "export", session, "--to", "openai", "--allow-invalid", "-o", out)
    assert code == 0 and out.is_file()


def test_export_of_a_session_that_ends_mid_tool_call_names_the_pending_call_and_the_call_to_export(capsys, tmp_path):
    # a live session while the agent runs a tool, or a file written mid-call: no strategy mends it
    session = write_jsonl(tmp_path / "s.jsonl", [
        {"role": "user", "content": "list the files"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.py"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "cat", "arguments": "{}"}}]},
    ])
    out = tmp_path / "out.json"
    for provider, name in (("openai", "OpenAI"), ("anthropic", "Anthropic")):
        code, _, err = run(capsys, "export", session, "--to", provider, "-o", out)
        assert code == 2 and not out.exists()
        assert " ".join(err.split()) == (
            f"context-inspector export: error: refusing to export {session}: it ends with a tool call the file has no "
            f"result for yet (message #3: c2; the agent was running it when the file was written), and {name} rejects a "
            "request that leaves a tool call unanswered. Export the request of the last recorded call instead (--at 2), "
            "or pass --allow-invalid to write it anyway.")
    code, _, _ = run(capsys, "export", session, "--to", "anthropic", "--at", "2", "-o", out)
    assert code == 0 and len(json.loads(out.read_text())["messages"]) == 3
    # plan says the same, in its table and its JSON
    code, text, _ = run(capsys, "plan", session)
    assert code == 0 and ("The session ends with a tool call still running (message #3: c2): the next request waits for "
                          "its result. --at 2 plans the last recorded call.") in " ".join(text.split())
    plans = [json.loads(run(capsys, "plan", session, "--json", *at)[1]) for at in ((), ("--at", "2"))]
    assert [p["pending_tool_call"] for p in plans] == [{"message": 3, "ids": ["c2"], "last_recorded_call": 2, "run_ended": None}, None]
    # a fault elsewhere as well: the plain list of rule breaks
    broken = write_jsonl(tmp_path / "b.jsonl", [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "x", "content": "orphan"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "cat", "arguments": "{}"}}]},
    ])
    code, _, err = run(capsys, "export", broken, "--to", "openai", "-o", out)
    assert code == 2 and "OpenAI would reject this request body (2 rule breaks:" in " ".join(err.split())


def test_the_tui_export_refuses_an_invalid_plan(tmp_path):
    from types import SimpleNamespace

    from inspector import analyze, load as load_session
    from inspector.providers.export import ExportError
    from inspector.strategies import plan
    from inspector.tui.dialogs import Export

    session = write_jsonl(tmp_path / "s.jsonl", [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "x", "content": "orphan"},
    ])
    a = analyze(load_session(session))
    result = SimpleNamespace(plan=plan(a.view, a.table))
    export = Export(None, session_path=str(session), provider="openai", result=lambda: result, at_call=lambda: None, push_screen=None)
    with pytest.raises(ExportError, match="refusing to export .*OpenAI would reject this request body") as refused:
        export.write(str(tmp_path / "out.json"), "openai")
    assert not (tmp_path / "out.json").exists()
    # the viewer has no --allow-invalid: it names the command that has one
    assert str(refused.value).endswith(
        "Choose a strategy or settings whose plan is valid for OpenAI, or run 'context-inspector export --allow-invalid' "
        "to write it anyway.")


# --- 8. encodings named or read -----------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-16-le", "utf-32", "utf-32-be"])
def test_bom_and_utf16_32_files_read_like_utf8(tmp_path, encoding):
    text = (FIX / "formats" / "openai_request.json").read_text(encoding="utf-8")
    path = tmp_path / "s.json"
    path.write_bytes(text.encode(encoding))
    expected = load(FIX / "formats" / "openai_request.json")
    assert [m.text for m in load(path).messages] == [m.text for m in expected.messages]


def test_cr_only_line_ends_read_like_lf(tmp_path):
    data = (FIX / "formats" / "session.jsonl").read_bytes()
    path = tmp_path / "s.jsonl"
    path.write_bytes(data.replace(b"\r\n", b"\n").replace(b"\n", b"\r"))
    assert len(load(path).messages) == len(load(FIX / "formats" / "session.jsonl").messages)


def test_latin1_is_named_with_line_and_byte_offset(capsys, tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"role": "user", "content": "hi"}\n{"role": "user", "content": "caf\xe9"}\n')
    code, out, err = run(capsys, "info", path)
    assert code == 2
    assert f"{path}: line 2, byte offset 66: byte 0xe9 is not valid UTF-8 (it looks like Latin-1 or Windows-1252 text: 0xe9 would be 'é')" in err


def test_an_error_naming_a_file_with_a_line_break_stays_one_line(capsys, tmp_path):
    from cli_helpers import run

    path = tmp_path / "new\nline.jsonl"
    path.write_text("not json\n")
    code, out, err = run(capsys, "info", path)
    assert code == 2
    assert err.count("\n") == 1 and "new\\nline.jsonl" in err


@pytest.mark.parametrize("usage", [
    {"input_tokens": 10, "output_tokens": -5, "cache_creation_input_tokens": 902,
     "cache_creation": {"ephemeral_1h_input_tokens": 2**63}},
    {"input_tokens": 10**30, "output_tokens": 2**63, "cache_read_input_tokens": -1},
])
def test_usage_that_is_not_a_count_is_not_recorded_and_prices_nothing(capsys, tmp_path, usage):
    """Found by bench/hostile_corpus.py: a negative or absurd recorded count reached the price
    library, which raised (a traceback from info, replay and compare)."""
    import json

    from cli_helpers import run

    base = {"sessionId": "s1", "cwd": "/w", "version": "2.0.76", "timestamp": "2026-01-01T00:00:00Z"}
    lines = [
        {**base, "type": "user", "uuid": "u1", "parentUuid": None, "message": {"role": "user", "content": "hi"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "message": {
            "id": "m1", "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "hello"}],
            "usage": usage}},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    for command in ("info", "replay", "compare"):
        code, out, err = run(capsys, command, path, "--json")
        assert code == 0, err
    replay = json.loads(run(capsys, "replay", path, "--json")[1])
    assert replay["calls"][0]["recorded_cost"] is None or replay["calls"][0]["recorded_cost"]["total"] >= 0
