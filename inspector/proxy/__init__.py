"""A local recording proxy for provider APIs: agents pointed at it (``ANTHROPIC_BASE_URL``,
``OPENAI_BASE_URL``) have every request body and the usage it was billed recorded in a capture
file the inspector reads (:mod:`inspector.formats.capture`).

``serve(config)`` runs it until cancelled; :class:`BackgroundProxy` runs it on a thread of its
own (``context-inspector --proxy``, the benchmark). No Rich or Textual here.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path

from .capture_writer import CaptureWriter
from .server import ANTHROPIC_API, DEFAULT_PORT, OPENAI_API, Proxy, ProxyConfig, ProxyError, is_loopback, public_url

__all__ = [
    "ANTHROPIC_API", "DEFAULT_PORT", "OPENAI_API", "BackgroundProxy", "Proxy", "close_proxy", "ProxyConfig", "ProxyError",
    "default_capture_dir", "is_loopback", "open_proxy", "public_url",
]


def default_capture_dir() -> Path:
    from ..paths import data_dir

    return data_dir() / "captures"


async def open_proxy(config: ProxyConfig, log: Callable[[str], None] | None = None) -> Proxy:
    """A started proxy with its capture writer (``proxy.writer``); ``close_proxy`` ends both."""
    writer = CaptureWriter(config.directory or default_capture_dir(), {k: public_url(v) for k, v in config.upstreams.items()})
    proxy = Proxy(config, writer, log)
    try:
        await proxy.start()
    except BaseException:
        writer.close()
        writer.path.unlink(missing_ok=True)  # nothing was captured: leave no empty file behind
        raise
    return proxy


async def close_proxy(proxy: Proxy) -> None:
    await proxy.stop()
    if proxy.writer is not None:
        proxy.writer.close()


class BackgroundProxy:
    """The proxy on a daemon thread with its own event loop. ``start()`` returns once it listens
    (or raises ProxyError); ``stop()`` closes it and flushes the capture."""

    def __init__(self, config: ProxyConfig, log: Callable[[str], None] | None = None) -> None:
        self.config = config
        self._log = log
        self.proxy: Proxy | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="context-inspector-proxy", daemon=True)

    def start(self) -> Proxy:
        self._thread.start()
        try:
            self.proxy = asyncio.run_coroutine_threadsafe(open_proxy(self.config, self._log), self._loop).result(timeout=60)
        except BaseException:
            self._halt()
            raise
        return self.proxy

    def stop(self) -> None:
        if self.proxy is not None:
            asyncio.run_coroutine_threadsafe(close_proxy(self.proxy), self._loop).result(timeout=60)
            self.proxy = None
        self._halt()

    def _halt(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        if not self._loop.is_running():
            self._loop.close()
