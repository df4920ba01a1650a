"""Following every live format in the app: the inspector's JSONL, Claude Code and Codex JSONL files,
a Strands session directory, an OpenHands V1 conversation and an Agents SDK SQLite database. Each test opens the app on a small
session copied from the fixtures, adds records, message files or rows the way the agent would
while the app follows it (woken by watchfiles, or its one-second poll), and checks what the user
sees: the new rows in the list as drawn on screen, and the message count in the header."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from inspector import load
from inspector.tui.engine import replay_points
from inspector.tui.live import merge_messages, sync_start, watch_target
from tui_helpers import make_app, msg, row_of, settle, status_text, totals_text, wait_for

FIX = Path(__file__).resolve().parents[1] / "fixtures"
CLAUDE = FIX / "real" / "claude_code" / "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13.jsonl"
CODEX = FIX / "real" / "codex" / "rollout-2026-02-11T14-05-00-0195a3c2-7b1e-7f40-9d2a-41c8e07b5a19.jsonl"
SIZE = (160, 48)


def on_screen(app) -> str:
    """The message list as drawn: its header and the rows in view, one line each."""
    lst = app.list
    return "\n".join(lst.render_line(y).text for y in range(lst.size.height))


def append(path: Path, *records: dict) -> None:
    with path.open("a") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in records))


async def open_following(path: Path, fmt: str, messages: int):
    session = load(path)
    assert (session.format, len(session.messages)) == (fmt, messages)
    return make_app(session, path=str(path), follow=None)  # following is on by default


async def grows_to(pilot, app, n: int) -> None:
    """Wait until the list shows ``n`` messages (and the plan of the last change is on screen)."""
    assert await wait_for(pilot, lambda: len(app.view) == n and app.list.row_count() == n, seconds=6), (
        f"still {len(app.view)} messages, {app.list.row_count()} rows")
    await settle(pilot, app)
    assert f"{n} messages" in status_text(app)


async def test_inspector_jsonl(tmp_path):
    path = tmp_path / "session.jsonl"
    shutil.copy(FIX / "formats" / "session.jsonl", path)
    app = await open_following(path, "jsonl", 10)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.follow.following and "● following" in status_text(app)
        append(path, {"role": "user", "content": "Also parse ordinal dates like 2026-326."},
               {"role": "assistant", "content": "Added ordinal dates; 5 tests pass.", "usage": {"input_tokens": 1100, "output_tokens": 12}})
        await grows_to(pilot, app, 12)
        screen = on_screen(app)
        assert "Also parse ordinal dates like 2026-326." in screen
        assert "Added ordinal dates; 5 tests pass." in screen
        assert "Also parse ordinal dates" in row_of(app, 10) and "Added ordinal dates" in row_of(app, 11)
        assert app.list.cursor == 11  # a followed list keeps its cursor on the newest message


async def test_claude_code_block_per_line_merges_into_its_row(tmp_path):
    path = tmp_path / CLAUDE.name
    shutil.copy(CLAUDE, path)
    app = await open_following(path, "claude_code", 15)
    base = {"isSidechain": False, "sessionId": "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13", "userType": "external"}
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.follow.following and app.state.profile == "anthropic"
        await pilot.press("5")  # tool_pruning: the replay chart has something to recompute
        await settle(pilot, app, replay=True)
        assert app.state.pipeline == ("tool_pruning",)
        calls = len(app.view.calls)
        append_exchange(path, 20, "Now run the auth tests.", "Running the auth tests now.", 7000, 9)
        await grows_to(pilot, app, 17)
        assert "Now run the auth tests." in on_screen(app)
        assert "Running the auth tests now." in row_of(app, 16)
        assert "Bash" not in row_of(app, 16)
        tokens_before = app.table.totals[16]
        # the same response's next content block arrives as its own line: it joins row 16
        append(path, {**base, "type": "assistant", "uuid": "a21", "parentUuid": "a20", "requestId": "req_20",
                      "message": {"id": "msg_20", "role": "assistant", "model": "claude-opus-4-6",
                                  "content": [{"type": "tool_use", "id": "toolu_20", "name": "Bash",
                                               "input": {"command": "pytest tests/test_auth.py -q"}}],
                                  "usage": {"input_tokens": 4, "cache_read_input_tokens": 7000, "output_tokens": 60}}})
        assert await wait_for(pilot, lambda: app.table.totals[16] > tokens_before, seconds=6)
        await settle(pilot, app)
        assert len(app.view) == 17 and app.list.row_count() == 17  # merged, not a new row
        assert "17 messages" in status_text(app)
        row = row_of(app, 16)
        assert "Bash" in row and "Running the auth tests now." in row
        assert 'Bash({"command":"pytest' in row
        assert row.rstrip().endswith("!AO")  # the call waits for its result: both providers would refuse it
        screen = on_screen(app)
        assert screen.count("Running the auth tests now.") == 1
        assert len(app.view.calls) == calls + 1  # one model call, counted once
        assert app.session.messages[16].usage.output_tokens == 60
        # the result and the final answer
        append(path,
               {**base, "type": "user", "uuid": "r20", "parentUuid": "a21",
                "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_20",
                                                         "content": "7 passed in 0.41s"}]}},
               {**base, "type": "assistant", "uuid": "a22", "parentUuid": "r20", "requestId": "req_21",
                "message": {"id": "msg_21", "role": "assistant", "content": [{"type": "text", "text": "All 7 auth tests pass."}],
                            "usage": {"input_tokens": 4, "cache_read_input_tokens": 7100, "output_tokens": 8}}})
        await grows_to(pilot, app, 19)
        screen = on_screen(app)
        assert "7 passed in 0.41s" in screen and "All 7 auth tests pass." in screen
        assert not row_of(app, 16).rstrip().endswith("!AO")  # answered now
        assert len(app.view.calls) == calls + 2
        # the chart replayed only the calls the new lines could change, and agrees with a full replay
        await settle(pilot, app, replay=True)
        full = replay_points(app.view, app.table, app.state, range(1, calls + 3))
        assert sorted(app.chart.points.values(), key=lambda p: p.call) == full
        assert full[-1].recorded == 4 + 7100


async def test_codex_rollout(tmp_path):
    path = tmp_path / CODEX.name
    shutil.copy(CODEX, path)
    app = await open_following(path, "codex", 17)

    def item(payload: dict) -> dict:
        return {"timestamp": "2026-02-11T14:09:30.000Z", "type": "response_item", "payload": payload}

    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.follow.following
        append(path,
               item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Run the whole suite."}]}),
               {"timestamp": "2026-02-11T14:09:30.100Z", "type": "event_msg",
                "payload": {"type": "user_message", "message": "Run the whole suite."}},
               item({"type": "function_call", "name": "shell", "arguments": "{\"command\": [\"pytest\", \"-q\"]}",
                     "call_id": "call_suite"}))
        await grows_to(pilot, app, 19)
        screen = on_screen(app)
        assert "Run the whole suite." in screen and screen.count("Run the whole suite.") == 1  # the UI event is not a row
        assert "shell" in row_of(app, 18) and "pytest" in row_of(app, 18)
        append(path,
               item({"type": "function_call_output", "call_id": "call_suite", "output": "42 passed in 3.10s"}),
               item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "The suite passes: 42 tests."}]}))
        await grows_to(pilot, app, 21)
        assert "42 passed in 3.10s" in row_of(app, 19)
        assert "The suite passes: 42 tests." in on_screen(app)


def message_file(agent: Path, n: int, role: str, text: str) -> None:
    body = {"message": {"role": role, "content": [{"text": text}]}, "message_id": n, "redact_message": None,
            "created_at": "2026-03-01T10:00:00Z", "updated_at": "2026-03-01T10:00:00Z"}
    tmp = agent / "messages" / f"message_{n}.json.tmp"
    tmp.write_text(json.dumps(body))
    tmp.rename(agent / "messages" / f"message_{n}.json")  # as FileSessionManager writes it


async def test_strands_directory(tmp_path):
    session_dir = tmp_path / "session_notes-7"
    shutil.copytree(FIX / "real" / "strands" / "session_notes-7", session_dir)
    agent = session_dir / "agents" / "agent_default"
    app = await open_following(session_dir, "strands", 6)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.follow.following and "● following" in status_text(app)
        message_file(agent, 6, "user", "Note: renew the passport.")
        await grows_to(pilot, app, 7)
        assert "Note: renew the passport." in on_screen(app)
        message_file(agent, 7, "assistant", "Saved: renew the passport.")
        (agent / "messages" / "message_8.json").write_text('{"message": {"role": "user", "cont')  # still being written
        await grows_to(pilot, app, 8)
        assert "Saved: renew the passport." in row_of(app, 7)
        message_file(agent, 8, "user", "Read my notes back.")
        await grows_to(pilot, app, 9)
        assert "Read my notes back." in on_screen(app)


async def test_openhands_v1_conversation(tmp_path):
    conv = tmp_path / "5f1e2d3c4b5a69788796a5b4c3d2e1f0"
    shutil.copytree(FIX / "constructed" / "openhands_v1" / conv.name, conv)
    later = {p.name: p.read_text() for p in sorted((conv / "events").iterdir()) if p.name >= "event-00011"}
    for name in later:
        (conv / "events" / name).unlink()
    app = await open_following(conv, "openhands_v1", 12)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.follow.following and "● following" in status_text(app)
        for name in sorted(later)[:2]:  # the agent's next call and its observation
            (conv / "events" / name).write_text(later[name])
        await grows_to(pilot, app, 14)
        assert "terminal" in row_of(app, 13) and "Re-running the tests." in row_of(app, 12)


def make_db(tmp_path: Path) -> Path:
    path = tmp_path / "conversations.db"
    con = sqlite3.connect(path)
    con.executescript((FIX / "real" / "agents_sqlite" / "conversations.sql").read_text())
    con.commit()
    con.close()
    return path


def insert(path: Path, *items: dict) -> None:
    con = sqlite3.connect(path)
    con.executemany("INSERT INTO agent_messages (session_id, message_data) VALUES ('support-118', ?)",
                    [(json.dumps(i),) for i in items])
    con.commit()
    con.close()


async def test_agents_sdk_sqlite(tmp_path):
    path = make_db(tmp_path)
    app = await open_following(path, "agents_sqlite", 7)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.follow.following
        insert(path, {"role": "user", "content": "And order 5523?"},
               {"type": "function_call", "call_id": "call_o3", "name": "get_order", "arguments": "{\"order_id\": \"5523\"}"})
        await grows_to(pilot, app, 9)
        assert "And order 5523?" in on_screen(app)
        assert "get_order" in row_of(app, 8) and "5523" in row_of(app, 8)
        # the database's other session stays a sidechain, and stays out of this one's cost (it was
        # dropped with the first growth: the follower read only the shown session)
        assert list(app.session.sidechains) == ["session:support-117"]
        assert app.session.extra["separate_sessions"] == ["session:support-117"]
        assert app.session.skipped[0].reason.startswith("2 sessions in this database: showing support-118")
        insert(path, {"type": "function_call_output", "call_id": "call_o3", "output": "order 5523: not found"})
        await grows_to(pilot, app, 10)
        assert "order 5523: not found" in on_screen(app)
        # pop_item twice: no new message, a notice, and the list loses the popped rows
        con = sqlite3.connect(path)
        con.execute("DELETE FROM agent_messages WHERE id IN (SELECT id FROM agent_messages "
                    "WHERE session_id = 'support-118' ORDER BY id DESC LIMIT 2)")
        con.commit()
        con.close()
        await grows_to(pilot, app, 8)
        assert f"{path}: rows of session support-118 were removed; reloaded from message 8." in status_text(app)
        assert list(app.session.sidechains) == ["session:support-117"]  # and after a reload
        assert "order 5523: not found" not in on_screen(app)
        assert app.follow.following  # it goes on following after a reload


async def test_sqlite_notice_without_new_rows_is_shown_once(tmp_path):
    path = make_db(tmp_path)
    app = await open_following(path, "agents_sqlite", 7)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        path.unlink()
        app.follow.poll()
        notice = f"{path} was deleted: keeping the 7 messages already loaded and no longer following it."
        assert await wait_for(pilot, lambda: notice in status_text(app))
        assert "follow stopped" in status_text(app)
        assert app.list.row_count() == 7 and not app.follow.following
        app.follow.poll()  # a stopped follower is not polled again
        await pilot.pause(0.2)
        assert not app.follow.busy and app.list.row_count() == 7


async def test_formats_that_cannot_grow_are_not_followed():
    from tui_helpers import SAMPLES

    path = SAMPLES / "vendor_onboarding.json"
    app = make_app(load(path), path=str(path), follow=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert not app.follow.following and not app.follow.started
        assert "following" not in status_text(app)


def test_update_replaces_rows_from_first():
    old = [msg(0, "user", "q"), msg(1, "assistant", "a")]
    merged_reply = msg(1, "assistant", "a", "and more")
    new = merge_messages(old, 1, [merged_reply, msg(2, "user", "q2")])
    assert [m.text for m in new] == ["q", "a\nand more", "q2"]
    assert new[0] is old[0] and new[1] is not merged_reply  # the app owns a copy of what changed
    merged_reply.content.append(msg(9, "user", "late").content[0])
    assert len(new[1].content) == 2  # the follower extending its message does not reach the app
    assert merge_messages(old, 2, []) is None
    assert [m.text for m in merge_messages(old, 1, [])] == ["q"]  # rows removed at the source


def test_sync_start_finds_what_changed_between_load_and_follow():
    loaded = [msg(0, "user", "q"), msg(1, "assistant", "a")]
    assert sync_start(loaded, loaded + [msg(2, "user", "q2")]) == 2
    assert sync_start(loaded, [loaded[0], msg(1, "assistant", "a", "b")]) == 1
    assert sync_start(loaded, list(loaded)) == 2


def test_watch_targets(tmp_path):
    db = tmp_path / "c.db"
    db.touch()
    root, recursive, matters = watch_target(db, "agents_sqlite")
    assert (root, recursive) == (tmp_path.resolve(), False)
    assert [matters(str(tmp_path / n)) for n in ("c.db", "c.db-wal", "c.db-journal", "c.db-shm", "d.db")] == [
        True, True, True, False, False]
    session_dir = tmp_path / "session_x"
    session_dir.mkdir()
    root, recursive, matters = watch_target(session_dir, "strands")
    assert (root, recursive) == (session_dir.resolve(), True)
    assert matters(str(session_dir / "agents" / "agent_a" / "messages" / "message_3.json"))
    assert not matters(str(session_dir / "agents" / "agent_a" / "messages" / "message_3.json.tmp"))
    log = tmp_path / "t.jsonl"
    log.touch()
    root, recursive, matters = watch_target(log, "claude_code")
    assert (root, recursive, matters(str(log)), matters(str(tmp_path / "other.jsonl"))) == (tmp_path.resolve(), False, True, False)


async def test_lines_arriving_during_the_exact_count_are_counted_again(tmp_path, monkeypatch):
    """A continuation merged into a message the background exact count already counted makes
    that count start again from the changed message, so the final counts are the session's."""
    import threading

    import inspector.tui.app as app_module
    from inspector.tokens import count_session

    release = threading.Event()
    real = app_module.count_session

    def slow_exact(messages, tools=(), **kw):
        if kw.get("encoding") != "approx":
            release.wait(10)
        return real(messages, tools, **kw)

    monkeypatch.setattr(app_module, "count_session", slow_exact)
    path = tmp_path / CLAUDE.name
    shutil.copy(CLAUDE, path)
    app = make_app(load(path), path=str(path), follow=None, sync_count=False)
    base = {"isSidechain": False, "sessionId": "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13", "type": "assistant"}
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert app.exact_pending and app.follow.following
        assert "approx (chars/4, estimate)" in totals_text(app)  # provisional figures, labelled
        # message 14 (msg_07) gets a second block while its first version is being counted
        append(path, {**base, "uuid": "a11", "parentUuid": "a10", "requestId": "req_07",
                      "message": {"id": "msg_07", "role": "assistant", "content": [
                          {"type": "text", "text": "It explains why the clock is injected. " * 30}]}})
        assert await wait_for(pilot, lambda: len(app.session.messages[14].content) == 2)
        release.set()
        assert await wait_for(pilot, lambda: not app.exact_pending)
        await settle(pilot, app)
        fresh = count_session(app.session.messages, app.session.tools, encoding=app.state.encoding, profile=app.state.profile)
        # the background count is done: the table is the state's counter (not the provisional chars/4;
        # the file records a Claude model, so that counter is the claude estimate, never "exact")
        assert app.table.encoding == app.state.encoding != "approx"
        assert app.table.totals == fresh.totals and len(app.table.totals) == 15
        # the provisional chars/4 label is gone; the claude estimate's own label is shown instead
        assert "chars/4" not in totals_text(app) and "claude≈o200k" in totals_text(app)


def append_exchange(path: Path, n: int, prompt: str, answer: str, cache_read: int, output: int) -> None:
    """A prompt after message a10 and its answer, one model call that read ``cache_read + 4`` tokens."""
    base = {"isSidechain": False, "sessionId": "3f2b9c1e-5d4a-4e8b-9c71-2a6f0d8e4b13", "userType": "external"}
    append(path,
           {**base, "type": "user", "uuid": f"u{n}", "parentUuid": "a10",
            "message": {"role": "user", "content": prompt}},
           {**base, "type": "assistant", "uuid": f"a{n}", "parentUuid": f"u{n}", "requestId": f"req_{n}",
            "message": {"id": f"msg_{n}", "role": "assistant", "model": "claude-opus-4-6",
                        "content": [{"type": "text", "text": answer}],
                        "usage": {"input_tokens": 4, "cache_read_input_tokens": cache_read, "output_tokens": output}}})


async def test_claude_code_call_over_200k_moves_the_seeded_budget_to_the_1m_window(tmp_path):
    """A followed Claude Code session whose new call reads more than 200,000 tokens runs on the
    1M variant: the budget and window the viewer seeded from 200K follow it (they stayed at
    167,000 and 200,000 while the window line said 1,000,000)."""
    path = tmp_path / CLAUDE.name
    shutil.copy(CLAUDE, path)
    app = await open_following(path, "claude_code", 15)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert (app.state.settings.budget, app.state.settings.context_window) == (167_000, 200_000)
        append_exchange(path, 30, "Read the whole monorepo.", "Read it.", 250_000, 3)  # more than 200K holds
        await grows_to(pilot, app, 17)
        assert (app.state.settings.budget, app.state.settings.context_window) == (967_000, 1_000_000)
        assert app.panel.reference_budget == 967_000
        assert "budget 967k" in totals_text(app)


async def test_claude_code_budget_the_user_set_stays_when_the_window_grows(tmp_path):
    path = tmp_path / CLAUDE.name
    shutil.copy(CLAUDE, path)
    app = await open_following(path, "claude_code", 15)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        await pilot.press("minus")
        await settle(pilot, app)
        stepped = app.state.settings.budget
        assert stepped < 167_000
        append_exchange(path, 30, "Read the whole monorepo.", "Read it.", 250_000, 3)  # more than 200K holds
        await grows_to(pilot, app, 17)
        assert (app.state.settings.budget, app.state.settings.context_window) == (stepped, 1_000_000)


async def test_copilot_cli_shutdown_record_arriving_last_refigures_every_call(tmp_path):
    """A Copilot CLI session's shutdown record states its tool definitions' tokens, the part of
    every call not in the file. It is the file's last line and adds no message: the followed
    session must still take it, and every call's figure with it (typical -> stated)."""
    lines = (FIX / "real" / "copilot_cli" / "pass_gpt-5.3-codex-spark.jsonl").read_bytes().splitlines(keepends=True)
    assert b'"session.shutdown"' in lines[-1]
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"".join(lines[:-1]))
    app = await open_following(path, "copilot_cli", len(load(path).messages))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, replay=True)
        assert app.follow.following and "stated_hidden_tokens" not in app.session.extra
        typical = app.chart.points[1].baseline
        with path.open("ab") as fh:
            fh.write(lines[-1])
        assert await wait_for(pilot, lambda: "stated_hidden_tokens" in app.session.extra, seconds=6)
        await settle(pilot, app, replay=True)
        assert app.session.extra["stated_hidden_tokens"][0] == 4426
        assert typical == 8795  # the file's own 8,795 tokens: nothing typical is known of Copilot CLI
        assert await wait_for(pilot, lambda: app.chart.points[1].baseline == 13221, seconds=6)  # + 4,426 stated
        await settle(pilot, app, replay=True)
        assert sorted(app.chart.points.values(), key=lambda p: p.call) == replay_points(
            app.view, app.table, app.state, range(1, len(app.view.calls) + 1))
