"""``context-inspector proxy`` and ``context-inspector --proxy``: the recording proxy from the
command line.

    context-inspector proxy [--port 8484] [--host HOST] [--anthropic-upstream URL]
                            [--openai-upstream URL] [--dir DIR] [--quiet]
    context-inspector --proxy [same options] [--theme NAME] [--encoding NAME] [--profile NAME]

``proxy`` runs in the foreground until Ctrl+C: a line per request on stderr, the capture file's
path on stdout. ``--proxy`` runs it on a background thread and opens the viewer following the
capture; quitting the viewer stops the proxy. Listening beyond loopback needs ``--host`` and
prints a warning.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from ..textsafe import visible_line
from ..tokens import ENCODINGS
from .options import EXIT_USAGE, PROFILES


class ProxyUsageError(Exception):
    """A bad option value for ``--proxy`` (one paragraph)."""


def _parser(tui: bool) -> argparse.ArgumentParser:
    from .options import Parser
    from ..proxy import ANTHROPIC_API, DEFAULT_PORT, OPENAI_API

    prog = "context-inspector --proxy" if tui else "context-inspector proxy"
    p = Parser(
        prog=prog,
        description=(
            "A local proxy for the Anthropic and OpenAI APIs that records every request body, and the usage "
            "each call was billed, in a capture file the inspector reads"
            + (", and the viewer following that capture." if tui else ".")
            + f" Run an agent through it: ANTHROPIC_BASE_URL=http://127.0.0.1:{DEFAULT_PORT} claude"
        ),
    )
    if tui:
        p.add_argument("--proxy", action="store_true", required=True, help=argparse.SUPPRESS)
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"port to listen on (default: {DEFAULT_PORT}; 0: any free port)")
    p.add_argument("--host", help="address to listen on (default: 127.0.0.1); anything beyond loopback exposes the proxy to the network")
    p.add_argument("--anthropic-upstream", default=ANTHROPIC_API, metavar="URL", help=f"where Anthropic requests go (default: {ANTHROPIC_API})")
    p.add_argument("--openai-upstream", default=OPENAI_API, metavar="URL", help=f"where OpenAI requests go (default: {OPENAI_API})")
    p.add_argument("--dir", type=Path, metavar="DIR", help="directory for capture files (default: 'captures' in the user data directory)")
    if tui:
        p.add_argument("--theme", metavar="NAME", help="colour theme")
        p.add_argument("--encoding", choices=ENCODINGS, help="token counter (default: the tokenizer of the captured model)")
        p.add_argument("--profile", choices=PROFILES, help="message framing to count with (default: the captured requests' provider)")
    else:
        p.add_argument("--quiet", action="store_true", help="no line per request on stderr")
    return p


def _config(args: argparse.Namespace, log: bool):
    from ..proxy import ProxyConfig, default_capture_dir, is_loopback, public_url

    for name in ("anthropic_upstream", "openai_upstream"):
        url = getattr(args, name)
        option = f"--{name.replace('_', '-')}"
        try:
            shown = public_url(url)
        except ValueError:  # not even a URL: say so without echoing it (it may hold a key)
            raise ProxyUsageError(f"{option}: not a valid URL (expected http://HOST[:PORT][/PATH]).") from None
        if not url.startswith(("http://", "https://")):
            raise ProxyUsageError(f"{option} {shown!r}: expected an http:// or https:// URL.")
    host = args.host or "127.0.0.1"
    if not is_loopback(host):
        sys.stderr.write(
            f"warning: listening on {host}, beyond this machine's loopback: anyone who can reach it can send "
            "requests through this proxy (and have them recorded here), and API keys travel to it unencrypted.\n"
        )
    return ProxyConfig(
        host=host,
        port=args.port,
        upstreams={"anthropic": args.anthropic_upstream, "openai": args.openai_upstream},
        directory=args.dir or default_capture_dir(),
        allow_remote=args.host is not None,
        log=log,
    )


def _listen_url(host: str, port: int) -> str:
    """The URL a client on this machine uses: the host the proxy listens on (a wildcard address:
    loopback), IPv6 in brackets."""
    if host in ("", "0.0.0.0", "::", "0"):
        host = "127.0.0.1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _how_to(host: str, port: int, path: Path) -> str:
    base = _listen_url(host, port)
    return (
        f"context-inspector proxy: listening on {base}\n"
        f"  capture:     {path}\n"
        f"  Claude Code: ANTHROPIC_BASE_URL={base} claude\n"
        f"  Codex:       OPENAI_BASE_URL={base}/v1 codex\n"
    )


async def _serve(config) -> int:
    from ..proxy import close_proxy, open_proxy

    proxy = await open_proxy(config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    sys.stdout.write(f"{proxy.writer.path}\n")
    sys.stdout.flush()
    sys.stderr.write(_how_to(config.host, proxy.port, proxy.writer.path) + "  Ctrl+C to stop.\n")
    sys.stderr.flush()
    try:
        await stop.wait()
    finally:
        await close_proxy(proxy)
    sys.stderr.write(_stopped(proxy))
    return 0


def _stopped(proxy) -> str:
    return f"context-inspector proxy: stopped; {proxy.writer.count} requests recorded in {proxy.writer.path}\n"


def cmd_proxy(args: argparse.Namespace) -> int:
    return asyncio.run(_serve(_config(args, log=not args.quiet)))


def cmd_proxy_tui(args: argparse.Namespace) -> int:
    from ..proxy import BackgroundProxy
    from ..tui.themes import ThemeError, resolve

    try:
        resolve(args.theme)  # a bad theme name stops here, before the proxy starts (the viewer resolves it again)
    except ThemeError as exc:
        raise ProxyUsageError(str(exc)) from None
    background = BackgroundProxy(_config(args, log=False))
    proxy = background.start()
    path = proxy.writer.path
    try:
        code = _viewer(path, args)
    finally:
        background.stop()
    sys.stderr.write(_stopped(proxy))
    return code


def _viewer(path: Path, args: argparse.Namespace) -> int:
    """The viewer following ``path``, counting with ``args.profile`` (a capture may hold either provider).
    A bad theme name ends the viewer with exit code 2 and its one-paragraph error."""
    from ..tui.app import run

    return run(str(path), theme=args.theme, follow=True, format="capture", encoding=args.encoding,
               profile=args.profile)


def main(argv: Sequence[str]) -> int:
    """``argv`` starts with ``proxy``, or holds ``--proxy``."""
    from ..proxy import ProxyError

    tui = argv[0] != "proxy"
    parser = _parser(tui)
    args = parser.parse_args(list(argv) if tui else list(argv[1:]))
    try:
        return cmd_proxy_tui(args) if tui else cmd_proxy(args)
    except (ProxyError, ProxyUsageError) as exc:
        sys.stderr.write(f"{parser.prog}: error: {visible_line(str(exc))}\n")
        return EXIT_USAGE
    except OSError as exc:  # the capture directory cannot be created or written
        where = f" {exc.filename}:" if getattr(exc, "filename", None) else ""
        sys.stderr.write(visible_line(f"{parser.prog}: error:{where} {exc.strerror or exc}.") + "\n")
        return EXIT_USAGE
