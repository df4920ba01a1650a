"""Command-line options for strategy settings, and their translation into ``Settings``.

Every :class:`~inspector.strategies.Settings` field has one option; only the options a user
gave are passed on, so the defaults live in one place (``Settings``).
"""

from __future__ import annotations

import argparse
from typing import Any

from ..tokens import ENCODINGS

PROFILES = ("openai", "anthropic")

#: Settings field -> the option that sets it (for error messages).
OPTION_OF_FIELD = {
    "budget": "--budget",
    "min_history_messages": "--min-history-messages",
    "pair_safe": "--no-pair-safe",
    "window_mode": "--window-mode",
    "window_turns": "--window",
    "window_messages": "--window",
    "max_result_tokens": "--max-result-tokens",
    "truncate_unit": "--truncate-unit",
    "summary_ratio": "--summary-ratio",
    "summary_tokens": "--summary-tokens",
    "trigger": "--trigger",
    "keep": "--keep",
    "clear_at_least": "--clear-at-least",
    "exclude_tools": "--exclude-tools",
    "clear_tool_inputs": "--clear-tool-inputs",
}


class UsageError(Exception):
    """A bad option value the parser could not catch; printed as one paragraph, exit code 2."""


def add_session_options(parser: argparse.ArgumentParser, *, profile: bool = True) -> None:
    parser.add_argument("session", metavar="SESSION", help="session file (JSON or JSONL)")
    parser.add_argument("--format", metavar="NAME", help="force a format instead of detecting it")
    parser.add_argument(
        "--encoding",
        choices=ENCODINGS,
        default="cl100k_base",
        help="token counter (default: cl100k_base; approx = ceil(chars / 4))",
    )
    if profile:
        parser.add_argument(
            "--profile",
            choices=PROFILES,
            help="message framing to count (default: anthropic for Anthropic and Claude Code files, else openai)",
        )


def add_calibrate_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="kept as an alias: every report now carries predicted_tokens, the whole input of each call fitted "
        "on the usage recorded for earlier calls (see README, 'What the model really received')",
    )


def add_strategy_options(parser: argparse.ArgumentParser, *, strategy_required: bool = False) -> None:
    g = parser.add_argument_group("strategy")
    g.add_argument(
        "--strategy",
        "--truncation-strategy",
        dest="strategy",
        metavar="NAMES",
        required=strategy_required,
        default="",
        help="strategy or comma-separated pipeline, e.g. tool_pruning,sliding_window",
    )
    g.add_argument("--budget", type=int, metavar="TOKENS", help="token budget (fifo, summarize)")
    g.add_argument("--min-history-messages", type=int, metavar="N", help="fifo: never drop below N messages (default 2)")
    g.add_argument("--no-pair-safe", action="store_true", help="fifo: the naive loop that can orphan tool results")
    g.add_argument("--window", type=int, metavar="N", help="sliding_window: turns kept (or messages with --window-mode messages)")
    g.add_argument("--window-mode", choices=("turns", "messages"), help="sliding_window: count turns (default) or messages")
    g.add_argument("--max-result-tokens", type=int, metavar="TOKENS", help="truncate_results: cap per tool result (default 2000)")
    g.add_argument(
        "--truncate-unit", choices=("tokens", "chars"), help="truncate_results: cut by tokens (default) or keep TOKENS*4 chars"
    )
    g.add_argument("--summary-ratio", type=float, metavar="R", help="summarize: share of oldest messages replaced (default 0.3)")
    g.add_argument("--summary-tokens", type=int, metavar="TOKENS", help="summarize: size of the summary (default 300)")
    g.add_argument("--trigger", type=int, metavar="TOKENS", help="clear_tool_uses: input tokens that trigger it (default 100000)")
    g.add_argument("--keep", type=int, metavar="N", help="clear_tool_uses: most recent tool uses kept (default 3)")
    g.add_argument("--clear-at-least", type=int, metavar="TOKENS", help="clear_tool_uses: apply only if it frees this much")
    g.add_argument("--exclude-tools", metavar="A,B", help="clear_tool_uses: tools whose results are never cleared")
    g.add_argument("--clear-tool-inputs", action="store_true", help="clear_tool_uses: also clear the calls' inputs")


def settings_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The Settings fields the user set on the command line."""
    out: dict[str, Any] = {}
    simple = {
        "budget": "budget",
        "min_history_messages": "min_history_messages",
        "window_mode": "window_mode",
        "max_result_tokens": "max_result_tokens",
        "truncate_unit": "truncate_unit",
        "summary_ratio": "summary_ratio",
        "summary_tokens": "summary_tokens",
        "trigger": "trigger",
        "keep": "keep",
        "clear_at_least": "clear_at_least",
    }
    for attr, field in simple.items():
        value = getattr(args, attr, None)
        if value is not None:
            out[field] = value
    if getattr(args, "window", None) is not None:
        out["window_messages" if args.window_mode == "messages" else "window_turns"] = args.window
    if getattr(args, "no_pair_safe", False):
        out["pair_safe"] = False
    if getattr(args, "clear_tool_inputs", False):
        out["clear_tool_inputs"] = True
    if getattr(args, "exclude_tools", None):
        out["exclude_tools"] = tuple(t.strip() for t in args.exclude_tools.split(",") if t.strip())
    return out


def make_settings(kwargs: dict[str, Any]):
    """``Settings(**kwargs)``, with pydantic's complaints turned into one readable paragraph."""
    from pydantic import ValidationError

    from ..strategies import Settings

    try:
        return Settings(**kwargs)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = str(err["loc"][0]) if err.get("loc") else "?"
            option = OPTION_OF_FIELD.get(field, field)
            problems.append(f"{option} {kwargs.get(field)!r}: {err['msg'].rstrip('.')}")
        raise UsageError("invalid option value: " + "; ".join(problems) + ".") from None
