"""Command-line options, with the strategy options generated from the strategies' params.

Every declared :class:`~inspector.strategies.Param` has one option (params may share one, as
``--window`` sets ``window_turns`` or ``window_messages`` by ``--window-mode``); only the
options a user gave are passed on, so the defaults live in one place (the declarations).
"""

from __future__ import annotations

import argparse
import os
from typing import Any, NoReturn

from ..textsafe import visible_line
from ..tokens import ENCODINGS, PROFILES

ENCODING_HELP = (
    "token counter (default: the tokenizer of the model the file records or --model names; "
    "claude for Anthropic files, else cl100k_base, when no model is known; approx = ceil(chars / 4))"
)
MODEL_HELP = "the model the session was sent to (sets the tokenizer; default: the model the file records)"


EXIT_USAGE = 2


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one paragraph (no usage dump) and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {visible_line(message)}. See '{self.prog} --help'.\n")


class UsageError(Exception):
    """A bad option value the parser could not catch; printed as one paragraph, exit code 2."""


SIDECHAIN_HELP = (
    "open side conversation ID of the session instead of its main one (a Claude Code sub-agent, "
    "another instance of an OpenHands evaluation file...; 'info' lists the ids)"
)


def add_session_options(parser: argparse.ArgumentParser, *, profile: bool = True) -> None:
    parser.add_argument("session", metavar="SESSION", help="session file (JSON or JSONL)")
    parser.add_argument("--format", metavar="NAME", help="force a format instead of detecting it")
    add_sidechain_option(parser)
    parser.add_argument("--encoding", choices=ENCODINGS, help=ENCODING_HELP)
    parser.add_argument("--model", metavar="NAME", help=MODEL_HELP)
    add_no_cache_option(parser)
    if profile:
        parser.add_argument(
            "--profile",
            choices=tuple(PROFILES),
            help="message framing to count (default: anthropic for Anthropic and Claude Code files, else openai)",
        )


def add_sidechain_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--sidechain", metavar="ID", help=SIDECHAIN_HELP)


def chosen_sidechain(session, key: str | None):
    """``session``, or its sidechain ``key`` (``--sidechain``) as a session of its own; an id the
    session does not have is a usage error naming the ids it has."""
    if key is None:
        return session
    from ..formats.sidechain import UnknownSidechain, open_sidechain

    try:
        return open_sidechain(session, key)
    except UnknownSidechain as exc:
        raise UsageError(f"--sidechain: {exc}") from None

class _NoCache(argparse.Action):
    """``--no-cache``: count without the token-count cache, in this process and the workers it starts."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        from ..tokens import cache

        cache.set_enabled(False)
        os.environ[cache.NO_CACHE_ENV] = "1"
        setattr(namespace, self.dest, True)


def add_no_cache_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-cache", action=_NoCache, nargs=0, default=False,
        help="count every token again: neither read nor write the token-count cache (in the user cache directory)",
    )


def add_calibrate_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="kept as an alias: every report now carries predicted_tokens, the whole input of each call fitted "
        "on the usage recorded for earlier calls (see README, 'What the model really received')",
    )


def _declared() -> list:
    from ..strategies import params

    return list(params.PARAMS.values())


#: Defaults every command takes from the session (:func:`inspector.analysis.window.with_session_window`),
#: not from the parameter's declaration.
SESSION_DEFAULTS = {
    "budget": "the session's: its model's window less what the agent keeps free",
    "context_window": "the session model's window, else 200,000",
}


def default_text(p) -> str:
    if p.name in SESSION_DEFAULTS:
        return SESSION_DEFAULTS[p.name]
    if p.kind == "bool":
        return "on" if p.default else "off"
    if p.kind == "names":
        return ",".join(p.default) or "none"
    if p.default is None:
        return "none"
    return f"{p.default:,}" if p.kind == "int" else str(p.default)


def option_help(flag: str) -> str:
    """The ``--help`` text of a strategy option: who reads it, what it does, its default."""
    from ..strategies import owners

    sharing = [p for p in _declared() if p.flag == flag]
    readers = ", ".join(dict.fromkeys(o for p in sharing for o in owners(p.name))) or "no strategy"
    if len(sharing) == 1:
        p = sharing[0]
        if p.kind == "bool":
            return f"{readers}: {p.help} (default {default_text(p)}; this flag turns it {'off' if p.default else 'on'})"
        return f"{readers}: {p.help} (default {default_text(p)})"
    return f"{readers}: " + "; ".join(
        f"{p.help} (default {default_text(p)}, {p.option_when[0]} {p.option_when[1]})" for p in sharing
    )


def _dest(flag: str) -> str:
    return "opt_" + flag.lstrip("-").replace("-", "_")


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
    g.add_argument(
        "--preset",
        metavar="NAME",
        help="what an agent or framework does (see 'presets'): its pipeline and settings; not with --strategy",
    )
    g.add_argument(
        "--set",
        dest="set_params",
        action="append",
        default=[],
        metavar="PARAM=VALUE",
        help="override one parameter of --preset (or of the defaults), e.g. --set context_window=1000000",
    )
    added: set[str] = set()
    for p in _declared():
        if p.flag in added:
            continue
        added.add(p.flag)
        kw: dict[str, Any] = {"dest": _dest(p.flag), "help": option_help(p.flag)}
        if p.kind == "bool":
            kw["action"] = "store_true"
        elif p.kind == "choice":
            kw["choices"] = p.choices
        else:
            kw["metavar"] = p.metavar
            kw["type"] = {"int": int, "optional_int": int, "float": float}.get(p.kind, str)
        g.add_argument(p.flag, **kw)


def settings_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """The Settings fields the user set on the command line."""
    declared = _declared()
    out: dict[str, Any] = {}
    shared: list = []
    for p in declared:
        value = getattr(args, _dest(p.flag), None)
        if p.option_when is not None:
            shared.append(p)
        elif p.kind == "bool":
            if value:
                out[p.name] = not p.default
        elif p.kind == "names":
            if value:
                out[p.name] = tuple(t.strip() for t in value.split(",") if t.strip())
        elif value is not None:
            out[p.name] = value
    by_name = {p.name: p for p in declared}
    for p in shared:  # e.g. --window: the param whose condition holds takes the value
        value = getattr(args, _dest(p.flag), None)
        field, wanted = p.option_when
        if value is not None and out.get(field, by_name[field].default) == wanted:
            out[p.name] = value
    return out


def option_of(field: str) -> str:
    """The option that sets Settings ``field`` (for error messages)."""
    for p in _declared():
        if p.name == field:
            return p.flag
    return field


def explicit_params(args: argparse.Namespace) -> set[str]:
    """The parameters the user set on the command line (options and ``--set``)."""
    from ..presets import PresetError, parse_sets

    try:
        sets = parse_sets(getattr(args, "set_params", None) or ())
    except PresetError:
        sets = {}
    return set(settings_kwargs(args)) | set(sets)


def pipeline_and_settings(args: argparse.Namespace):
    """The pipeline and Settings a command runs: ``--strategy`` and the strategy options, or
    ``--preset`` (its settings, then any strategy option given, then ``--set``)."""
    from ..presets import PresetError, get_preset, parse_sets
    from ..strategies import parse_pipeline

    try:
        sets = parse_sets(getattr(args, "set_params", None) or ())
        name = getattr(args, "preset", None)
        if name is None:
            return parse_pipeline(args.strategy or ""), make_settings({**settings_kwargs(args), **sets})
        if args.strategy:
            raise UsageError("--preset and --strategy cannot be used together: a preset names its own pipeline.")
        preset = get_preset(name)
    except PresetError as exc:
        raise UsageError(str(exc)) from None
    return preset.pipeline, make_settings({**preset.params, **settings_kwargs(args), **sets})


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
            option = option_of(field)
            problems.append(f"{option} {kwargs.get(field)!r}: {err['msg'].rstrip('.')}")
        raise UsageError("invalid option value: " + "; ".join(problems) + ".") from None
