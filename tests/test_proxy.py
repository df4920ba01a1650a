"""The recording proxy against a fake upstream on 127.0.0.1 (tests/fake_upstream.py): bodies and
responses byte for byte, errors, concurrency, a client leaving mid-stream, a 20 MB body, bad
JSON, what the capture file holds and what it must never hold."""

from __future__ import annotations

import asyncio
import json
import os
import stat

import aiohttp
import pytest

from fake_upstream import (
    ANTHROPIC_EVENTS,
    ANTHROPIC_MESSAGE,
    CHAT_CHUNKS,
    CHAT_COMPLETION,
    RESPONSE,
    RESPONSE_EVENTS,
    FakeUpstream,
    expected_stream,
)
from inspector.proxy import ProxyConfig, ProxyError, close_proxy, open_proxy

KEY = "sk-ant-SECRET-test-key-0123456789"
BEARER = "Bearer sk-proj-SECRET-openai-key-9876543210"
TIMEOUT = aiohttp.ClientTimeout(total=30)


@pytest.fixture
async def upstream():
    fake = await FakeUpstream().start()
    yield fake
    await fake.stop()


@pytest.fixture
async def proxy(upstream, tmp_path):
    log: list[str] = []
    config = ProxyConfig(port=0, upstreams={"anthropic": upstream.url, "openai": upstream.url + "/"}, directory=tmp_path / "captures")
    p = await open_proxy(config, log.append)
    p.log_lines = log
    yield p
    await close_proxy(p)


@pytest.fixture
async def client():
    async with aiohttp.ClientSession(timeout=TIMEOUT, auto_decompress=False) as session:
        yield session


def url(proxy, path: str) -> str:
    return f"http://127.0.0.1:{proxy.port}{path}"


def capture_lines(proxy) -> list[dict]:
    proxy.writer.close()  # flushes the queue; the fixture's close is then a no-op join
    return [json.loads(line) for line in proxy.writer.path.read_bytes().splitlines()]


ANTHROPIC_HEADERS = {"x-api-key": KEY, "anthropic-version": "2023-06-01", "content-type": "application/json"}
OPENAI_HEADERS = {"Authorization": BEARER, "content-type": "application/json"}

# Odd spacing and key order on purpose: the upstream must see these exact bytes.
ANTHROPIC_BODY = (
    b'{"model":"claude-test",  "max_tokens":1024,"system":[{"type":"text","text":"You are terse.",'
    b'"cache_control":{"type":"ephemeral"}}],"tools":[{"name":"Read","description":"Read a file",'
    b'"input_schema":{"type":"object","properties":{"path":{"type":"string"}}}}],'
    b'"messages":[{"role":"user","content":"hi \\u00e9"}]%s}'
)


async def post(client, proxy, path, body, headers):
    async with client.post(url(proxy, path), data=body, headers=headers) as r:
        return r.status, r.headers.copy(), await r.read()


async def test_anthropic_plain_and_streamed_are_byte_identical(proxy, upstream, client):
    plain = ANTHROPIC_BODY % b""
    status, headers, body = await post(client, proxy, "/v1/messages", plain, ANTHROPIC_HEADERS)
    assert status == 200
    assert body == json.dumps(ANTHROPIC_MESSAGE).encode()
    streamed = ANTHROPIC_BODY % b',"stream":true'
    status, headers, body = await post(client, proxy, "/v1/messages", streamed, ANTHROPIC_HEADERS)
    assert (status, headers["Content-Type"]) == (200, "text/event-stream")
    assert body == expected_stream(ANTHROPIC_EVENTS)
    assert [r.body for r in upstream.received] == [plain, streamed]
    assert upstream.received[0].headers["x-api-key"] == KEY
    assert upstream.received[0].headers["anthropic-version"] == "2023-06-01"

    first, plain_line, stream_line = capture_lines(proxy)
    assert first["type"] == "capture_start"
    assert plain_line["request"] == json.loads(plain)
    assert plain_line["response"] == {
        "id": "msg_01", "model": "claude-test", "usage": ANTHROPIC_MESSAGE["usage"],
        "content": [{"type": "text", "text": "Hello there."}], "stop_reason": "end_turn",
    }
    assert (stream_line["provider"], stream_line["api"], stream_line["path"], stream_line["streamed"]) == ("anthropic", "messages", "/v1/messages", True)
    assert stream_line["response"]["content"] == [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"path": "a.py"}},
    ]
    assert stream_line["response"]["stop_reason"] == "tool_use"
    assert stream_line["response"]["usage"] == {"input_tokens": 300, "output_tokens": 25, "cache_read_input_tokens": 2000, "cache_creation_input_tokens": 0}


async def test_request_body_is_embedded_verbatim_in_the_capture(proxy, client):
    body = ANTHROPIC_BODY % b""
    await post(client, proxy, "/v1/messages", body, ANTHROPIC_HEADERS)
    raw = proxy.writer.path
    capture_lines(proxy)
    assert b'"request":' + body + b"," in raw.read_bytes()


async def test_openai_chat_and_responses_plain_and_streamed(proxy, upstream, client):
    bodies = [
        ("/v1/chat/completions", b'{"model":"gpt-test","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"Capital of France?"}]}'),
        ("/v1/chat/completions", b'{"model":"gpt-test","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"x"}]}'),
        ("/v1/responses", b'{"model":"gpt-test","instructions":"Be brief.","input":[{"role":"user","content":"go"}]}'),
        ("/v1/responses", b'{"model":"gpt-test","stream":true,"input":"go","previous_response_id":"resp_0"}'),
    ]
    answers = [await post(client, proxy, path, body, OPENAI_HEADERS) for path, body in bodies]
    assert [a[2] for a in answers] == [
        json.dumps(CHAT_COMPLETION).encode(),
        expected_stream([(None, c) for c in CHAT_CHUNKS] + [(None, "[DONE]")]),
        json.dumps(RESPONSE).encode(),
        expected_stream(RESPONSE_EVENTS),
    ]
    assert [r.body for r in upstream.received] == [b for _, b in bodies]
    assert [r.path for r in upstream.received] == [p for p, _ in bodies]
    assert all(r.headers["Authorization"] == BEARER for r in upstream.received)
    lines = capture_lines(proxy)[1:]
    assert [line["api"] for line in lines] == ["chat", "chat", "responses", "responses"]
    assert lines[1]["response"]["content"] == {
        "role": "assistant", "content": "Par",
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_capital", "arguments": '{"country":"France"}'}}],
    }
    assert lines[1]["response"]["stop_reason"] == "tool_calls"
    assert lines[1]["response"]["usage"]["prompt_tokens"] == 40
    assert lines[3]["response"]["content"] == RESPONSE["output"]
    assert lines[3]["response"]["usage"] == RESPONSE["usage"]


async def test_count_tokens_and_other_paths(proxy, upstream, client):
    status, _, body = await post(client, proxy, "/v1/messages/count_tokens", b'{"model":"m","messages":[]}', ANTHROPIC_HEADERS)
    assert (status, body) == (200, b'{"input_tokens": 42}')
    async with client.get(url(proxy, "/v1/models?limit=5"), headers=OPENAI_HEADERS) as r:
        assert r.status == 200 and r.headers["x-fake-path"] == "/v1/models"
    assert upstream.received[-1].path == "/v1/models?limit=5"
    lines = capture_lines(proxy)[1:]
    assert len(lines) == 1  # the passed-through path is not recorded
    assert (lines[0]["api"], lines[0]["response"]["usage"]) == ("count_tokens", {"input_tokens": 42})
    assert proxy.log_lines[-1].endswith("(passed through, not recorded)")


async def test_upstream_error_passes_through_unchanged(proxy, client):
    status, headers, body = await post(client, proxy, "/v1/messages", b'{"fake":"error","messages":[]}', ANTHROPIC_HEADERS)
    assert status == 429
    assert headers["retry-after"] == "7"
    assert body == b'{"type": "error", "error": {"type": "rate_limit_error", "message": "Slow down."}}'
    line = capture_lines(proxy)[1]
    assert line["status"] == 429
    assert line["response_error"]["error"]["type"] == "rate_limit_error"


async def test_an_error_quoting_the_key_is_passed_back_and_recorded_redacted(proxy, client):
    status, _, body = await post(client, proxy, "/v1/chat/completions", b'{"fake":"bad_key"}', OPENAI_HEADERS)
    assert (status, json.loads(body)["error"]["message"]) == (401, "Incorrect API key provided: sk-proj-********3210.")
    line = capture_lines(proxy)[1]
    assert line["response_error"]["error"]["message"] == "Incorrect API key provided: (redacted)"


async def test_unreachable_upstream_is_a_502_naming_no_secret(tmp_path, client):
    config = ProxyConfig(port=0, upstreams={"anthropic": "http://user:pw@127.0.0.1:9/base?key=abc", "openai": "http://127.0.0.1:9"}, directory=tmp_path / "c")
    proxy = await open_proxy(config, lambda line: None)
    try:
        status, _, body = await post(client, proxy, "/v1/messages", b"{}", ANTHROPIC_HEADERS)
    finally:
        await close_proxy(proxy)
    assert status == 502
    message = json.loads(body)["error"]["message"]
    assert message == "context-inspector proxy: cannot reach http://127.0.0.1:9/base (ClientConnectorError)"
    text = proxy.writer.path.read_text()
    assert "pw" not in text and "key=abc" not in text and KEY not in text


async def test_malformed_json_is_forwarded_untouched_and_noted(proxy, upstream, client):
    bad = b'{"model": "claude-test", "messages": [ {"role": "user", '
    status, _, body = await post(client, proxy, "/v1/messages", bad, ANTHROPIC_HEADERS)
    assert status == 400 and json.loads(body)["error"]["type"] == "invalid_request_error"
    assert upstream.received[0].body == bad
    line = capture_lines(proxy)[1]
    assert line["request"] is None
    assert line["request_note"].startswith("the request body is not JSON (")
    assert line["request_note"].endswith(f"its {len(bad)} bytes were forwarded untouched")


async def test_huge_request_body(proxy, upstream, client):
    filler = "x" * (20 * 1024 * 1024)
    body = json.dumps({"model": "claude-test", "max_tokens": 10, "messages": [{"role": "user", "content": filler}]}).encode()
    status, _, answer = await post(client, proxy, "/v1/messages", body, ANTHROPIC_HEADERS)
    assert status == 200 and answer == json.dumps(ANTHROPIC_MESSAGE).encode()
    assert upstream.received[0].body == body
    line = capture_lines(proxy)[1]
    assert line["request"]["messages"][0]["content"] == filler


async def test_concurrent_requests(proxy, upstream, client):
    async def one(i: int):
        body = b'{"model":"claude-test","stream":true,"messages":[{"role":"user","content":"%d"}]}' % i
        return body, await post(client, proxy, "/v1/messages", body, ANTHROPIC_HEADERS)

    results = await asyncio.gather(*(one(i) for i in range(20)))
    assert all(r[1][2] == expected_stream(ANTHROPIC_EVENTS) for r in results)
    assert sorted(r.body for r in upstream.received) == sorted(r[0] for r in results)
    lines = capture_lines(proxy)[1:]
    assert sorted(line["request"]["messages"][0]["content"] for line in lines) == sorted(str(i) for i in range(20))
    assert [line["n"] for line in lines] == list(range(1, 21))


async def test_client_disconnecting_mid_stream(proxy, upstream, client):
    async with client.post(url(proxy, "/v1/messages"), data=b'{"fake":"slow","stream":true}', headers=ANTHROPIC_HEADERS) as r:
        first = await r.content.readany()
        assert first.startswith(b'data: {"type": "ping"}')
        r.close()  # the client goes away after the first event
    await asyncio.wait_for(upstream.cut_off.wait(), 10)  # the proxy hung up on the upstream too
    # ... and keeps serving.
    status, _, body = await post(client, proxy, "/v1/messages", ANTHROPIC_BODY % b"", ANTHROPIC_HEADERS)
    assert status == 200
    slow, _ = capture_lines(proxy)[1:]
    assert slow["client_disconnected"] is True
    assert slow["status"] == 200


async def test_capture_file_and_directory_are_owner_only(proxy, client):
    await post(client, proxy, "/v1/messages", ANTHROPIC_BODY % b"", ANTHROPIC_HEADERS)
    capture_lines(proxy)
    assert stat.S_IMODE(os.stat(proxy.writer.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(proxy.writer.path.parent).st_mode) == 0o700


async def test_refuses_non_loopback_without_allow_remote(tmp_path):
    with pytest.raises(ProxyError, match=r"^refusing to listen on 0\.0\.0\.0: the proxy forwards API keys"):
        await open_proxy(ProxyConfig(host="0.0.0.0", port=0, directory=tmp_path / "c"))
    assert list((tmp_path / "c").iterdir()) == []  # no empty capture left behind


def test_upstream_url_keeps_a_base_path_once():
    from aiohttp.test_utils import make_mocked_request

    from inspector.proxy.server import upstream_headers, upstream_url

    req = make_mocked_request("POST", "/v1/responses?api-version=2")
    assert str(upstream_url("https://api.openai.com", req)) == "https://api.openai.com/v1/responses?api-version=2"
    assert str(upstream_url("https://gw.example/v1", req)) == "https://gw.example/v1/responses?api-version=2"
    assert str(upstream_url("https://gw.example/openai/", req)) == "https://gw.example/openai/v1/responses?api-version=2"
    assert upstream_headers({"Host": "127.0.0.1:8484", "Connection": "keep-alive", "Accept-Encoding": "gzip, br, zstd",
                             "x-api-key": KEY, "Content-Length": "12"}) == [("Accept-Encoding", "gzip"), ("x-api-key", KEY)]


def test_an_existing_capture_directory_keeps_its_mode_and_a_new_one_is_owner_only(tmp_path):
    from inspector.proxy.capture_writer import prepare_dir

    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o755)
    prepare_dir(shared)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755  # never loosened nor tightened (think /tmp)
    fresh = prepare_dir(tmp_path / "a" / "new")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o700


def test_credentials_an_upstream_echoes_are_redacted_and_paths_logged_inert():
    from inspector.proxy.capture_writer import Exchange, record
    from inspector.proxy.server import _log_line, secret_values

    secrets = secret_values({"Authorization": "Bearer zzTOKENzz987654321opaque", "x-api-key": "plainkey-1234"})
    error = b'{"error": {"message": "invalid token zzTOKENzz987654321opaque and plainkey-1234"}}'
    ex = Exchange("openai", "chat", "POST", "/v1/x\x1b]0;PWNED\x07/v1/chat/completions", b"{}", status=401,
                  chunks=[error], secrets=secrets)
    line = record(ex, 1)
    assert line["response_error"] == {"error": {"message": "invalid token (redacted) and (redacted)"}}
    assert "\x1b" not in _log_line(ex, True) and "\\x1b" in _log_line(ex, True)
