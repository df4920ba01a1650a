"""Live follow of a growing JSONL file, session text that tries to be markup or terminal control,
and a megabyte message that must preview and open without freezing."""

from __future__ import annotations

import json
import threading
import time

from inspector import load
from inspector.model import Session, ToolCallBlock, ToolResultBlock
from inspector.tui.screens.detail import TextScreen
from inspector.tui.widgets.detail import DetailPane, TextView
from inspector.tui.widgets.status import StatusLine
from tui_helpers import make_app, msg, row_of, row_text, settle, totals_text, wait_for

SIZE = (160, 48)


def jsonl_line(record: dict) -> str:
    return json.dumps(record) + "\n"


def start_file(path, n_turns: int = 12) -> None:
    lines = [jsonl_line({"role": "system", "content": "You are a helpful agent."})]
    for t in range(n_turns):
        lines.append(jsonl_line({"role": "user", "content": f"question {t}"}))
        lines.append(jsonl_line({"role": "assistant", "content": f"answer {t}"}))
    path.write_text("".join(lines))



async def test_follow_appends_rows_and_stays_at_the_bottom(tmp_path):
    path = tmp_path / "live.jsonl"
    start_file(path, 30)
    app = make_app(load(path), path=str(path), follow=None)  # JSONL: follow is on by default
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot, app)
        assert app.follow.following
        assert "● following" in app.query_one(StatusLine).render().plain
        lst = app.list
        # a followed file opens scrolled to its newest message, with the cursor on it
        assert round(lst.scroll_y) == lst.max_scroll_y > 0
        assert lst.cursor == lst.row_count() - 1
        n = lst.row_count()
        with path.open("a") as fh:
            fh.write(jsonl_line({"role": "user", "content": "a brand new question about invoices"}))
            fh.write('{"role": "assistant", "content": "half wri')  # the agent is still writing
        app.follow.poll()
        assert await wait_for(pilot, lambda: lst.row_count() == n + 1)
        await settle(pilot, app)
        assert "a brand new question about invoices" in row_of(app, n)
        assert round(lst.scroll_y) == lst.max_scroll_y  # still anchored at the bottom
        assert lst.cursor == n  # the cursor followed the new last row
        with path.open("a") as fh:
            fh.write('tten answer"}\n')
        app.follow.poll()
        assert await wait_for(pilot, lambda: lst.row_count() == n + 2)
        await settle(pilot, app)
        assert "half written answer" in row_of(app, n + 1)
        assert f"{len(app.view):,} messages" in app.query_one(StatusLine).render().plain
        # scrolled away: new rows arrive but the view stays where the user is
        lst.action_first()
        await pilot.pause()
        with path.open("a") as fh:
            fh.write(jsonl_line({"role": "user", "content": "another one"}))
        app.follow.poll()
        assert await wait_for(pilot, lambda: lst.row_count() == n + 3)
        await settle(pilot, app)
        assert round(lst.scroll_y) == 0 and lst.cursor == 0
        # the totals follow the new messages
        assert f"after all {n + 3} messages" in totals_text(app)


async def test_follow_wakes_on_file_change_without_a_poll_call(tmp_path):
    path = tmp_path / "live.jsonl"
    start_file(path, 2)
    app = make_app(load(path), path=str(path), follow=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        n = app.list.row_count()
        with path.open("a") as fh:
            fh.write(jsonl_line({"role": "user", "content": "appended while watching"}))
        assert await wait_for(pilot, lambda: app.list.row_count() == n + 1, seconds=4)


async def test_truncated_file_shows_a_notice_and_keeps_what_was_loaded(tmp_path):
    path = tmp_path / "live.jsonl"
    start_file(path, 5)
    app = make_app(load(path), path=str(path), follow=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        n = app.list.row_count()
        path.write_text(jsonl_line({"role": "user", "content": "x"}))
        app.follow.poll()
        assert await wait_for(pilot, lambda: "truncated" in app.query_one(StatusLine).render().plain)
        assert app.list.row_count() == n
        path.unlink()
        app.follow.poll()
        await pilot.pause(0.2)
        assert app.list.row_count() == n


async def test_bad_lines_are_told_at_open_and_when_a_follow_reads_one(tmp_path):
    path = tmp_path / "live.jsonl"
    start_file(path, 2)
    with path.open("a") as fh:
        fh.write('{"role": "user", "content": [oops\n')
    app = make_app(load(path), path=str(path), follow=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        notices = [n.message for n in app._notifications]
        assert notices == [f"{path}: skipped line 6: not valid JSON (unexpected character, expected a JSON value "
                           "at column 30). 'context-inspector info' lists them all."]
        n = app.list.row_count()
        with path.open("a") as fh:
            fh.write(jsonl_line({"role": "user", "content": "fine"}))
            fh.write("not json at all\n{}{}\n")
            fh.write(jsonl_line({"role": "ignored_role_record", "skip": True}))
        app.follow.poll()
        assert await wait_for(pilot, lambda: app.list.row_count() == n + 1)
        await settle(pilot, app)
        notices = [n.message for n in app._notifications]
        # only the new bad lines (line 6 was told at open): 8 (not JSON), 9 ("{}{}"), 10 (a role the format lacks)
        assert notices[1:] == [f"{path}: skipped line 8: not valid JSON (invalid literal, expected 'null' at column 1) "
                               "(and 2 more bad records). 'context-inspector info' lists them all."]


async def test_markup_and_escape_codes_show_literally():
    nasty = "[bold red]not bold[/] [link=http://x]y[/link] \x1b[31mred\x1b[0m \x1b]0;pwned\x07 \x9b2J end"
    session = Session(format="openai", messages=[
        msg(0, "system", "sys"),
        msg(1, "user", nasty),
        msg(2, "assistant", ToolCallBlock(id="c1", name="bash", arguments='{"cmd": "[/]"}')),
        msg(3, "tool", ToolResultBlock(tool_call_id="c1", content=nasty)),
        msg(4, "assistant", "ok"),
    ])
    app = make_app(session)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        row = row_of(app, 1)
        assert "[bold red]not bold[/] [link=http://x]y[/link]" in row
        assert "[/link] \\x1b" in row  # the preview is cut there; the escape shows as text
        assert "\x1b" not in row and "\x07" not in row and "\x9b" not in row
        for strip_row in range(app.list.row_count()):
            for seg in app.list.render_row(strip_row, 160, False):
                assert not any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in seg.text)
                assert not seg.style or not seg.style.link  # no link smuggled in by markup
        app.list.move_cursor(3)
        await pilot.pause()
        pane = "\n".join(t for t, _ in app.query_one(DetailPane).lines)
        assert "[bold red]not bold[/]" in pane
        assert "\\x1b[31mred\\x1b[0m \\x1b]0;pwned\\x07 \\x9b2J end" in pane
        await pilot.press("enter")
        await pilot.pause()
        lines = [t for t, _ in app.screen.query_one(TextView).lines]
        assert any("\\x1b[31mred" in t for t in lines)
        assert not any("\x1b" in t for t in lines)


async def test_megabyte_message_previews_and_opens_at_once():
    big = ("0123456789abcdef" * 64 + "\n") * 2048  # about 2 MB, 2,048 lines
    huge_line = "x" * 3_000_000  # one 3 MB line
    session = Session(format="openai", messages=[
        msg(0, "system", "sys"),
        msg(1, "user", "read both"),
        msg(2, "assistant", ToolCallBlock(id="a", name="read_file", arguments='{"p": 1}'),
            ToolCallBlock(id="b", name="read_file", arguments='{"p": 2}')),
        msg(3, "tool", ToolResultBlock(tool_call_id="a", content=big)),
        msg(4, "tool", ToolResultBlock(tool_call_id="b", content=huge_line)),
        msg(5, "assistant", "done"),
    ])
    app = make_app(session, encoding="approx")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        assert len(row_of(app, 3)) == app.list.size.width
        for row in (3, 4):
            t0 = time.perf_counter()
            app.list.move_cursor(row)
            await pilot.pause()
            assert time.perf_counter() - t0 < 0.5
            pane = app.query_one(DetailPane).lines
            assert sum(len(t) for t, _ in pane) < 10_000  # the pane never holds the whole message
            t0 = time.perf_counter()
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, TextScreen)
            view = app.screen.query_one(TextView)
            await pilot.press("end")
            await pilot.pause()
            assert time.perf_counter() - t0 < 3.0
            assert view.virtual_size.height >= (2048 if row == 3 else 3_000_000 // 160)
            await pilot.press("escape")
            await pilot.pause()


async def test_notices_quoting_session_data_are_plain_text_not_markup():
    """A search term like ``[/zzz]`` is quoted in a notice; as markup it crashed the app."""
    app = make_app(load("sample_sessions/three_questions.json"))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot, app)
        await pilot.press("slash", *"[/zzz]", "enter")
        await pilot.pause(0.2)
        assert app.is_running
        notices = [n.message for n in app._notifications]
        assert "no message contains '[/zzz]'" in notices
        app.notify("wrote /tmp/[red]out.json")  # a path with brackets keeps them
        await pilot.pause(0.1)
        assert "wrote /tmp/[red]out.json" in [n.message for n in app._notifications]
        assert all(not n.markup for n in app._notifications)


async def test_palette_help_shows_bracketed_text_literally():
    from inspector.tui.commands import InspectorCommands
    from textual.markup import escape

    app = make_app(load("sample_sessions/three_questions.json"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        helps = [h for _, h, _ in app.palette_commands() if "[cleared]" in h]
        assert helps, "clear_tool_uses' summary names its [cleared] placeholder"
        provider = InspectorCommands(app.screen)
        hits = [hit async for hit in provider.discover()]
        assert escape(helps[0]) in [hit.help for hit in hits]


async def test_a_tool_name_with_escape_codes_shows_literally(monkeypatch):
    """The tool column printed a call's tool name raw: an ESC in it reached the terminal (the
    row's cells were then miscounted and the settings panel beside it drawn shifted)."""
    import inspector.tui.app as app_module

    session = Session(format="openai", messages=[
        msg(0, "user", "go"),
        msg(1, "assistant", ToolCallBlock(id="c1", name="to\x1b[42mol\x07", arguments="{}")),
        msg(2, "tool", ToolResultBlock(tool_call_id="c1", content="ok", name="re\x1b]0;x\x07s")),
        msg(3, "assistant", "ok"),
    ])
    release = threading.Event()
    real = app_module.build_view
    monkeypatch.setattr(app_module, "build_view", lambda s: release.wait(10) and real(s))
    for deferred in (False, True):  # the plan's rows, then a big session's draft rows
        monkeypatch.setattr(app_module, "DEFER_MESSAGES", 1 if deferred else 10**9)
        release.clear() if deferred else release.set()
        app = make_app(session, sync_count=not deferred)
        async with app.run_test(size=SIZE) as pilot:
            await (pilot.pause(0.1) if deferred else settle(pilot, app))
            assert (app.list.draft is not None) == deferred
            assert "to\\x1b[42mol\\x07" in (row_text(app, 1) if deferred else row_of(app, 1))
            for strip_row in range(app.list.row_count()):
                for seg in app.list.render_row(strip_row, 160, False):
                    assert not any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in seg.text), repr(seg.text)
            release.set()
            await settle(pilot, app)


async def test_a_live_session_running_a_tool_awaits_its_result_rather_than_being_invalid(tmp_path):
    path = tmp_path / "live.jsonl"
    start_file(path, 2)
    with path.open("a") as fh:
        fh.write(jsonl_line({"role": "user", "content": "list the files"}))
        fh.write(jsonl_line({"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]}))
    app = make_app(load(path), path=str(path), follow=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app)
        text = " ".join(totals_text(app).split())
        assert "OpenAI … awaiting the last tool call's result Anthropic … awaiting the last tool call's result" in text
        assert "INVALID" not in text
        n = app.list.row_count()
        with path.open("a") as fh:
            fh.write(jsonl_line({"role": "tool", "tool_call_id": "c1", "content": "a.py"}))
        app.follow.poll()
        assert await wait_for(pilot, lambda: app.list.row_count() == n + 1)
        await settle(pilot, app)
        assert "OpenAI ✓ valid Anthropic ✓ valid" in " ".join(totals_text(app).split())
