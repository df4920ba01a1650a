#!/usr/bin/env python3
"""Latency the recording proxy adds, beside a direct connection measured in the same run.

A fake upstream (tests/fake_upstream.py) and the proxy (``python -m inspector proxy --port 0
--quiet``, capturing into a temp dir) each run as a process of their own on 127.0.0.1, as a remote
API and the proxy do beside a real agent; this process is the client. Direct and proxied
requests alternate, so drift and machine load hit both alike.

- **per request**: wall time of a non-streamed ``/v1/messages`` request (small body and a
  ~500 kB body, the size of a long agent session's request), direct vs through the proxy;
  added = median(proxy) - median(direct).
- **per streamed chunk**: the upstream stamps each SSE event with ``time.perf_counter()`` when it
  sends it; the client notes when it arrives. Added = median delay through the proxy - median
  delay direct (events 2 ms apart, so each one is its own chunk on the wire).

Usage: ``python bench/bench_proxy.py [--requests 300] [--chunks 1000]``. Targets (issue 18):
median <= 2 ms per request, <= 1 ms per chunk.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

FAKE_UPSTREAM = Path(__file__).resolve().parents[1] / "tests" / "fake_upstream.py"

HEADERS = {"x-api-key": "sk-bench", "anthropic-version": "2023-06-01", "content-type": "application/json"}


def body(size: int) -> bytes:
    text = "x" * size
    return json.dumps({"model": "claude-test", "max_tokens": 100, "messages": [{"role": "user", "content": text}]}).encode()


async def one_request(client: aiohttp.ClientSession, url: str, data: bytes) -> float:
    start = time.perf_counter()
    async with client.post(url, data=data, headers=HEADERS) as r:
        await r.read()
        assert r.status == 200, r.status
    return time.perf_counter() - start


async def chunk_delays(client: aiohttp.ClientSession, url: str, n: int, gap: float) -> list[float]:
    data = json.dumps({"fake": "chunks", "n": n, "gap": gap, "stream": True}).encode()
    delays = []
    async with client.post(url, data=data, headers=HEADERS) as r:
        async for line in r.content:
            if line.startswith(b"data: "):
                now = time.perf_counter()
                delays.append(now - json.loads(line[6:])["t"])
    assert len(delays) == n, len(delays)
    return delays


async def start_proxy(upstream: str, directory: str) -> tuple[asyncio.subprocess.Process, int]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "inspector", "proxy", "--port", "0", "--quiet", "--dir", directory,
        "--anthropic-upstream", upstream, "--openai-upstream", upstream,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )
    line = await asyncio.wait_for(proc.stderr.readline(), 60)
    match = re.search(rb"listening on http://127\.0\.0\.1:(\d+)", line)
    if not match:
        proc.kill()
        raise SystemExit(f"the proxy did not start: {line!r}")
    return proc, int(match.group(1))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.3f}"


async def start_upstream() -> tuple[asyncio.subprocess.Process, str]:
    proc = await asyncio.create_subprocess_exec(sys.executable, str(FAKE_UPSTREAM), stdout=asyncio.subprocess.PIPE)
    line = await asyncio.wait_for(proc.stdout.readline(), 60)
    match = re.search(rb"on (http://127\.0\.0\.1:\d+)", line)
    if not match:
        proc.kill()
        raise SystemExit(f"the fake upstream did not start: {line!r}")
    return proc, match.group(1).decode()


async def main(requests: int, chunks: int) -> None:
    upstream_proc, upstream = await start_upstream()
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = await start_proxy(upstream, tmp)
        try:
            direct = f"{upstream}/v1/messages"
            proxied = f"http://127.0.0.1:{port}/v1/messages"
            async with aiohttp.ClientSession() as client:
                for url in (direct, proxied):  # warm both connection pools
                    for _ in range(20):
                        await one_request(client, url, body(100))
                print(f"{'case':<34}{'direct ms':>10}{'proxy ms':>10}{'added ms':>10}   (medians)")
                for label, size in (("request, 1 kB body", 1000), ("request, 500 kB body", 500_000)):
                    data = body(size)
                    d, p = [], []
                    for _ in range(requests):
                        d.append(await one_request(client, direct, data))
                        p.append(await one_request(client, proxied, data))
                    md, mp = statistics.median(d), statistics.median(p)
                    print(f"{label:<34}{ms(md):>10}{ms(mp):>10}{ms(mp - md):>10}")
                d = await chunk_delays(client, direct, chunks, 0.002)
                p = await chunk_delays(client, proxied, chunks, 0.002)
                md, mp = statistics.median(d), statistics.median(p)
                print(f"{f'streamed chunk ({chunks} events)':<34}{ms(md):>10}{ms(mp):>10}{ms(mp - md):>10}")
                p90 = sorted(p)[int(len(p) * 0.9)] - sorted(d)[int(len(d) * 0.9)]
                print(f"{'streamed chunk, p90 added':<34}{'':>10}{'':>10}{ms(p90):>10}")
        finally:
            for p in (proc, upstream_proc):
                p.terminate()
                await asyncio.wait_for(p.wait(), 30)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--chunks", type=int, default=1000)
    args = parser.parse_args()
    asyncio.run(main(args.requests, args.chunks))
