"""The recording proxy: forwards provider API requests unchanged and streams the answers back
as they arrive, handing a copy of each exchange to the capture writer.

Built on aiohttp (server and client in one maintained asyncio package, streaming on both sides,
connection pooling to the upstream). What the forwarding path does per request: read the body,
send it byte for byte to the upstream with the client's headers (hop-by-hop ones and ``Host``
aside), copy status and headers back, and write each piece of the response body to the client as
soon as it arrives. The response is read raw (``auto_decompress=False``): the client gets the
upstream's bytes. The one header that may change is ``Accept-Encoding``, narrowed to what the
capture can decode (gzip, deflate, identity).

Routed and recorded: ``/v1/messages``, ``/v1/messages/count_tokens`` (Anthropic),
``/v1/chat/completions``, ``/v1/responses`` (OpenAI). Any other path is passed through to the
upstream its headers suggest and not recorded.

Secrets: request headers (``Authorization``, ``x-api-key``...) go to the upstream and nowhere
else: not to the capture, not to the log, not into an error message. Upstream URLs are shown
without user info or query.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
from aiohttp import web
from yarl import URL

from ..textsafe import visible
from .capture_writer import CaptureWriter, Exchange

ANTHROPIC_API = "https://api.anthropic.com"
OPENAI_API = "https://api.openai.com"
DEFAULT_PORT = 8484
#: Largest request body accepted (aiohttp's default is 1 MB; agent requests reach tens of MB).
MAX_BODY = 1024 * 1024 * 1024

#: Path ending -> (provider, api). Matched on the end so a base URL with a prefix still routes.
ROUTES: tuple[tuple[str, str, str], ...] = (
    ("/v1/messages/count_tokens", "anthropic", "count_tokens"),
    ("/v1/messages", "anthropic", "messages"),
    ("/v1/chat/completions", "openai", "chat"),
    ("/v1/responses", "openai", "responses"),
)

HOP_BY_HOP = frozenset(
    {
        "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "trailers",
        "transfer-encoding", "upgrade", "host", "content-length", "expect",
    }
)
READABLE_ENCODINGS = ("gzip", "deflate", "identity")


class ProxyError(Exception):
    """A proxy that cannot start as asked (one paragraph)."""


@dataclass
class ProxyConfig:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    upstreams: dict[str, str] = field(default_factory=lambda: {"anthropic": ANTHROPIC_API, "openai": OPENAI_API})
    directory: Path | None = None
    #: Listening beyond loopback was asked for explicitly (``--host``).
    allow_remote: bool = False
    #: Print one line per request to stderr.
    log: bool = True


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


_SILENT = logging.getLogger("inspector.proxy.aiohttp")
_SILENT.addHandler(logging.NullHandler())
_SILENT.propagate = False

#: Request headers whose values are credentials: forwarded, never written (and redacted from what
#: an upstream echoes back).
SECRET_HEADERS = ("authorization", "x-api-key", "api-key", "proxy-authorization", "x-goog-api-key")


def secret_values(headers: Mapping[str, str]) -> tuple[bytes, ...]:
    """The credential values a request carries, whole and without a ``Bearer``-style scheme."""
    out: list[bytes] = []
    for name, value in headers.items():
        if name.lower() in SECRET_HEADERS and value.strip():
            out.append(value.strip().encode("utf-8", "replace"))
            scheme, _, token = value.strip().partition(" ")
            if token.strip():
                out.append(token.strip().encode("utf-8", "replace"))
    return tuple(sorted(set(out), key=len, reverse=True))


def public_url(url: str) -> str:
    """``url`` without user info, query or fragment: safe to print and record."""
    u = URL(url)
    return str(u.with_user(None).with_query(None).with_fragment(None))


def route(path: str, headers: Mapping[str, str]) -> tuple[str, str, bool]:
    """``(provider, api, recorded)`` for a request path."""
    trimmed = path.rstrip("/")
    for suffix, provider, api in ROUTES:
        if trimmed.endswith(suffix):
            return provider, api, True
    h = {k.lower() for k in headers}
    return ("anthropic" if "anthropic-version" in h or "x-api-key" in h else "openai"), "other", False


def upstream_headers(headers: Mapping[str, str]) -> list[tuple[str, str]]:
    """The client's headers for the upstream: hop-by-hop ones dropped, Accept-Encoding narrowed."""
    out = []
    for k, v in headers.items():
        low = k.lower()
        if low in HOP_BY_HOP:
            continue
        if low == "accept-encoding":
            kept = [p for p in v.split(",") if p.split(";")[0].strip().lower() in READABLE_ENCODINGS]
            if not kept:
                continue
            v = ",".join(kept).strip()
        out.append((k, v))
    return out


def upstream_url(base: str, request: web.Request) -> URL:
    """``base`` joined with the request's path and query (a base with a path keeps it as prefix)."""
    b = URL(base)
    prefix = b.path.rstrip("/")
    path = request.rel_url.raw_path
    if prefix and (path == prefix or path.startswith(prefix + "/")):
        path = path[len(prefix):]  # a client given the base URL's path repeats it
    url = b.with_path(prefix + path, encoded=True)
    query = request.rel_url.raw_query_string
    return URL(f"{url}?{query}", encoded=True) if query else url


class Proxy:
    """The aiohttp application and its upstream client; ``start``/``stop`` on a running loop."""

    def __init__(self, config: ProxyConfig, writer: CaptureWriter | None, log: Callable[[str], None] | None = None) -> None:
        self.config = config
        self.writer = writer
        self._log = log if log is not None else (lambda line: sys.stderr.write(line + "\n"))
        self._client: aiohttp.ClientSession | None = None
        self._runner: web.AppRunner | None = None
        self.port: int | None = None

    async def start(self) -> None:
        host = self.config.host
        if not is_loopback(host) and not self.config.allow_remote:
            raise ProxyError(
                f"refusing to listen on {host}: the proxy forwards API keys, so it listens on loopback "
                f"(127.0.0.1) unless --host names another address explicitly."
            )
        self._client = aiohttp.ClientSession(
            auto_decompress=False,
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=30),
            connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300),
            skip_auto_headers=("User-Agent", "Accept", "Accept-Encoding", "Content-Type"),
        )
        # aiohttp logs a malformed request with its raw header line (an Authorization value
        # included): its server logger is silenced, the client still gets its 400
        app = web.Application(client_max_size=MAX_BODY, handler_args={
            "max_field_size": 65536, "auto_decompress": False, "logger": _SILENT})
        app.router.add_route("*", "/{tail:.*}", self.handle)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, self.config.port, reuse_address=True)
        try:
            await site.start()
        except OSError as exc:
            await self.stop()
            raise ProxyError(f"cannot listen on {host}:{self.config.port} ({exc.strerror or exc}).") from None
        sockets = getattr(site._server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else self.config.port

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def handle(self, request: web.Request) -> web.StreamResponse:
        provider, api, recorded = route(request.path, request.headers)
        base = self.config.upstreams[provider]
        body = await request.read()
        exchange = Exchange(provider, api, request.method, request.path, body, request.headers.get("Content-Encoding"),
                            secrets=secret_values(request.headers))
        started = time.perf_counter()
        try:
            return await self._forward(request, base, body, exchange)
        finally:
            exchange.duration_ms = round((time.perf_counter() - started) * 1000, 2)
            if recorded and self.writer is not None:
                self.writer.submit(exchange)
            if self.config.log:
                self._log(_log_line(exchange, recorded))

    async def _forward(self, request: web.Request, base: str, body: bytes, ex: Exchange) -> web.StreamResponse:
        assert self._client is not None
        try:
            upstream = await self._client.request(
                request.method,
                upstream_url(base, request),
                data=body if body else None,
                headers=upstream_headers(request.headers),
                allow_redirects=False,
                compress=None,
            )
        except (aiohttp.ClientError, OSError, asyncio.TimeoutError) as exc:
            ex.upstream_error = f"cannot reach {public_url(base)} ({type(exc).__name__})"
            return web.json_response(
                {"type": "error", "error": {"type": "proxy_error", "message": f"context-inspector proxy: {ex.upstream_error}"}},
                status=502,
            )
        try:
            ex.status = upstream.status
            ex.content_encoding = upstream.headers.get("Content-Encoding")
            ex.streamed = upstream.headers.get("Content-Type", "").startswith("text/event-stream")
            response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
            for k, v in upstream.headers.items():
                if k.lower() not in HOP_BY_HOP:
                    response.headers.add(k, v)
            if upstream.headers.get("Content-Length") is not None and not ex.streamed:
                response.content_length = int(upstream.headers["Content-Length"])
            try:
                await response.prepare(request)
                async for chunk in upstream.content.iter_any():
                    await response.write(chunk)
                    ex.chunks.append(chunk)
                await response.write_eof()
            except (ConnectionError, aiohttp.ClientConnectionResetError):
                ex.client_disconnected = True
            except aiohttp.ClientPayloadError as exc:  # the upstream broke off mid-body
                ex.upstream_error = f"the upstream's response ended early ({type(exc).__name__})"
                if request.transport is not None:  # break off the client's response too, as a direct connection would
                    request.transport.abort()
            return response
        except asyncio.CancelledError:
            ex.client_disconnected = True
            raise
        finally:
            if ex.client_disconnected or ex.upstream_error:
                upstream.close()  # do not return a half-read connection to the pool
            else:
                upstream.release()


def _log_line(ex: Exchange, recorded: bool) -> str:
    status = ex.status if ex.status is not None else "502 (upstream unreachable)"
    extra = " streamed" if ex.streamed else ""
    if ex.client_disconnected:
        extra += " (client disconnected)"
    if not recorded:
        extra += " (passed through, not recorded)"
    return f"{ex.method} {visible(ex.path)} -> {status} {ex.provider} {ex.duration_ms} ms{extra}"
