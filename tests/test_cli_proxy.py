"""``context-inspector proxy`` as a process: what it prints, what it writes, and that no API key
or authorization value reaches stdout, stderr or any file under the capture directory."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import stat
import sys

import aiohttp

from cli_helpers import run
from fake_upstream import FakeUpstream
from test_proxy import ANTHROPIC_BODY, ANTHROPIC_HEADERS, BEARER, KEY, OPENAI_HEADERS

SECRETS = (KEY, BEARER.split()[1], "SECRET")


async def _start(*args: str) -> tuple[asyncio.subprocess.Process, int]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "inspector", "proxy", "--port", "0", *args,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    line = await asyncio.wait_for(proc.stderr.readline(), 30)
    match = re.match(rb"context-inspector proxy: listening on http://127\.0\.0\.1:(\d+)\n", line)
    assert match, line
    return proc, int(match.group(1))


async def test_proxy_process_never_writes_a_key_anywhere(tmp_path):
    upstream = await FakeUpstream().start()
    captures = tmp_path / "captures"
    proc = None
    try:
        proc, port = await _start("--dir", str(captures), "--anthropic-upstream", upstream.url, "--openai-upstream", upstream.url)
        base = f"http://127.0.0.1:{port}"
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as client:
            for body in (ANTHROPIC_BODY % b"", ANTHROPIC_BODY % b',"stream":true', b'{"fake":"error"}', b"{not json"):
                async with client.post(base + "/v1/messages", data=body, headers=ANTHROPIC_HEADERS) as r:
                    await r.read()
            async with client.post(base + "/v1/chat/completions", data=b'{"messages":[],"stream":true}', headers=OPENAI_HEADERS) as r:
                await r.read()
            async with client.get(base + "/v1/models", headers=OPENAI_HEADERS) as r:
                await r.read()
        proc.send_signal(signal.SIGINT)
        out, err = await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode == 0, err
    finally:
        if proc is not None and proc.returncode is None:
            proc.kill()
            await proc.wait()
        await upstream.stop()
    assert len(upstream.received) == 6
    assert upstream.received[0].headers["x-api-key"] == KEY  # forwarded ...
    files = [p for p in captures.rglob("*") if p.is_file()]
    assert len(files) == 1 and out.decode().strip() == str(files[0])
    assert stat.S_IMODE(os.stat(files[0]).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(captures).st_mode) == 0o700
    text = err.decode()
    assert "POST /v1/messages -> 429 anthropic" in text
    assert f"stopped; 5 requests recorded in {files[0]}" in text
    for secret in SECRETS:  # ... and written nowhere
        assert secret.encode() not in out and secret.encode() not in err
        for path in files:
            assert secret.encode() not in path.read_bytes()


def test_host_beyond_loopback_warns(tmp_path, capsys):
    # 192.0.2.1 (TEST-NET-1) is on no interface here: the warning, then a clean refusal to bind.
    code, out, err = run(capsys, "proxy", "--host", "192.0.2.1", "--port", "0", "--dir", tmp_path / "c")
    assert code == 2
    assert err.startswith("warning: listening on 192.0.2.1, beyond this machine's loopback: anyone who can reach it")
    assert "context-inspector proxy: error: cannot listen on 192.0.2.1:0 (" in err
    assert list((tmp_path / "c").iterdir()) == []


def test_bad_upstream_url(tmp_path, capsys):
    code, out, err = run(capsys, "proxy", "--anthropic-upstream", "ftp://user:pw@example.com/x", "--dir", tmp_path / "c")
    assert (code, out) == (2, "")
    assert err == "context-inspector proxy: error: --anthropic-upstream 'ftp://example.com/x': expected an http:// or https:// URL.\n"


def test_dash_dash_proxy_runs_the_proxy_while_the_viewer_is_open(tmp_path, capsys, monkeypatch):
    from inspector.cli import proxy as proxy_cli

    seen = {}

    def viewer(path, args):  # stands in for the Textual app (tests/tui/test_follow_capture.py runs it)
        seen.update(path=path, profile=args.profile, lines=path.read_text().splitlines())
        return 0

    monkeypatch.setattr(proxy_cli, "_viewer", viewer)
    code, out, err = run(capsys, "--proxy", "--port", "0", "--dir", tmp_path / "c", "--profile", "openai")
    assert code == 0
    assert seen["path"].parent == tmp_path / "c" and seen["profile"] == "openai"
    assert len(seen["lines"]) == 1 and '"type":"capture_start"' in seen["lines"][0]
    assert err == f"context-inspector proxy: stopped; 0 requests recorded in {seen['path']}\n"


def test_dash_dash_proxy_bad_theme_starts_nothing(tmp_path, capsys):
    code, out, err = run(capsys, "--proxy", "--port", "0", "--dir", tmp_path / "c", "--theme", "no-such-theme")
    assert code == 2
    assert err.startswith("context-inspector --proxy: error: ")
    assert not (tmp_path / "c").exists()


def test_dash_dash_proxy_hands_the_viewer_the_theme_name_and_lets_the_session_choose_the_counting(tmp_path, capsys, monkeypatch):
    # the viewer resolves the theme itself: a resolved Theme passed on crashed it (unhashable)
    import inspector.tui.app as tui_app

    seen = {}

    def run_viewer(path, **kw):
        seen.update(kw, path=path)
        return 0

    monkeypatch.setattr(tui_app, "run", run_viewer)
    code, out, err = run(capsys, "--proxy", "--port", "0", "--dir", tmp_path / "c", "--theme", "dark")
    assert code == 0
    assert (seen["theme"], seen["encoding"], seen["profile"], seen["format"], seen["follow"]) == ("dark", None, None, "capture", True)


def test_an_upstream_url_that_does_not_parse_is_a_usage_error_that_does_not_echo_it(tmp_path, capsys):
    code, out, err = run(capsys, "proxy", "--anthropic-upstream", "http://user:sk-SECRETVALUE@127.0.0.1:notaport", "--dir", tmp_path / "c")
    assert (code, out) == (2, "")
    assert err == ("context-inspector proxy: error: --anthropic-upstream: not a valid URL "
                   "(expected http://HOST[:PORT][/PATH]).\n")
    assert not (tmp_path / "c").exists()
