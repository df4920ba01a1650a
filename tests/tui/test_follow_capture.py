"""``context-inspector --proxy`` end to end: the proxy on its background thread, the viewer
following its capture from the empty start, requests from a client through the proxy to a fake
upstream (tests/fake_upstream.py) showing up as messages with their recorded usage."""

from __future__ import annotations

import sys
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the fake upstream and proxy test data
from fake_upstream import FakeUpstream  # noqa: E402
from inspector import load  # noqa: E402
from inspector.proxy import BackgroundProxy, ProxyConfig  # noqa: E402
from test_proxy import ANTHROPIC_HEADERS  # noqa: E402
from tui_helpers import make_app, settle, status_text, wait_for  # noqa: E402

FIRST = b'{"model":"claude-test","max_tokens":100,"system":"Be terse.","messages":[{"role":"user","content":"hi"}]}'
#: Seconds a wait may take before the test fails (each returns as soon as its condition holds).
WAIT = 120

SECOND = (b'{"model":"claude-test","max_tokens":100,"system":"Be terse.","stream":true,"messages":[{"role":"user","content":"hi"},'
          b'{"role":"assistant","content":[{"type":"text","text":"Hello there."}]},{"role":"user","content":"read a.py"}]}')


async def test_viewer_follows_the_proxy_capture(tmp_path):
    upstream = await FakeUpstream().start()
    background = BackgroundProxy(ProxyConfig(port=0, upstreams={"anthropic": upstream.url, "openai": upstream.url}, directory=tmp_path / "c", log=False))
    try:
        proxy = background.start()
        path = proxy.writer.path
        session = load(path, "capture")
        assert session.messages == []
        app = make_app(session, path=str(path), follow=True, format="capture", profile="anthropic")
        base = f"http://127.0.0.1:{proxy.port}/v1/messages"
        async with app.run_test(size=(160, 48)) as pilot, aiohttp.ClientSession() as client:
            await settle(pilot, app)
            assert app.follow.following
            # every wait below is on its condition: under load a poll can come late (the watcher
            # and the fallback poll are spaced by their cost), so the limit is only against a hang
            # read each response whole: leaving early disconnects mid-stream, and the capture then
            # (rightly) lacks the usage the stream's last events carry
            async with client.post(base, data=FIRST, headers=ANTHROPIC_HEADERS) as r:
                assert r.status == 200
                await r.read()
            assert await wait_for(pilot, lambda: len(app.view) == 3, seconds=WAIT), len(app.view)
            async with client.post(base, data=SECOND, headers=ANTHROPIC_HEADERS) as r:
                assert r.status == 200
                await r.read()
            assert await wait_for(pilot, lambda: len(app.view) == 5, seconds=WAIT), len(app.view)
            assert await wait_for(pilot, lambda: "5 messages" in status_text(app), seconds=WAIT), status_text(app)
            messages = app.session.messages
            assert [m.role for m in messages] == ["system", "user", "assistant", "user", "assistant"]
            assert [(m.usage.input_tokens, m.usage.cache_read_input_tokens) for m in messages if m.usage] == [(120, 1000), (300, 2000)]
            assert messages[4].tool_calls[0].name == "Read"
    finally:
        background.stop()
        await upstream.stop()
