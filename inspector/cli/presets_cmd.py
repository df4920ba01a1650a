"""``context-inspector presets``: list the presets, or show one (``--as-config``: as the agent's
own configuration).

    context-inspector presets [--json]      (--json: a JSON list, one object per preset)
    context-inspector presets show NAME [--set PARAM=VALUE ...] [--as-config] [--json]
"""

from __future__ import annotations

import argparse
import sys

from .jsonout import print_json, print_report
from .options import UsageError

SUMMARY = "the presets: what Claude Code, Codex, Gemini CLI, LangChain... do to their context"
DESCRIPTION = (
    "List the presets (an agent's or framework's context management as a pipeline of strategies, "
    "with its source and how sure it is), or show one; '--as-config' prints it as the agent's own "
    "configuration. Use a preset with '--preset NAME' on plan, replay, compare and export. "
    "Your own presets: TOML files in the config directory's presets/ folder."
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", nargs="?", choices=("list", "show"), default="list", help="list (default) or show NAME")
    parser.add_argument("name", nargs="?", metavar="NAME", help="the preset to show")
    parser.add_argument("--set", dest="set_params", action="append", default=[], metavar="PARAM=VALUE",
                        help="override one parameter (show)")
    parser.add_argument("--as-config", action="store_true", help="print the preset as the agent's own configuration (show)")
    parser.add_argument("--json", action="store_true", help="print JSON")


def run(args: argparse.Namespace) -> int:
    from ..presets import PresetError, load_presets, parse_sets, settings_for

    try:
        presets = load_presets()
        if args.action == "list":
            if args.name:
                raise UsageError(f"presets list takes no NAME (did you mean 'presets show {args.name}'?).")
            if args.json:  # a bare list (issue 15's contract), like `schema`: no schema_version
                print_json([p.report() for p in presets.values()])
            else:
                _render_list(presets.values())
            return 0
        if not args.name:
            raise UsageError(f"presets show needs a NAME; choose from: {', '.join(presets)}.")
        if args.name not in presets:
            raise UsageError(f"unknown preset {args.name!r}; choose from: {', '.join(presets)}.")
        preset = presets[args.name]
        settings = settings_for(preset, parse_sets(args.set_params))
    except PresetError as exc:
        raise UsageError(str(exc)) from None
    if args.as_config:
        from ..presets.config import as_config

        text = as_config(preset, settings)
        if text is None:
            raise UsageError(f"preset {preset.name!r} ({preset.agent}) has no configuration of its own to print.")
        if args.json:
            print_report({"preset": preset.name, "config": text})
        else:
            sys.stdout.write(text + "\n")
        return 0
    report = preset.report()
    report["settings"] = {k: getattr(settings, k) for k in _read_params(preset.pipeline)}
    if args.json:
        print_report({"preset": report})
    else:
        _render_one(report)
    return 0


def _read_params(pipeline) -> list[str]:
    from ..strategies import STRATEGIES

    return list(dict.fromkeys(p for name in pipeline for p in STRATEGIES[name].params))


def _render_list(presets) -> None:
    from rich.table import Table
    from rich.text import Text

    from .render import console
    from .wholetable import print_whole

    table = Table(title="Presets (use with --preset NAME)", show_lines=False)
    table.add_column("preset", no_wrap=True)
    for col in ("agent / framework", "version", "pipeline", "sure"):
        table.add_column(col)
    for p in presets:
        table.add_row(Text(p.name), Text(p.agent), Text(p.version), Text(",".join(p.pipeline) or "none"), Text(p.sure))
    print_whole(console(), table)


def _render_one(report: dict) -> None:
    from rich.text import Text

    from .render import console

    out = console()
    out.print(Text(f"{report['name']}: {report['agent']} {report['version']}", style="bold"))
    out.print(Text(report["does"]))
    out.print(Text(f"source ({report['source']['sure']}): {report['source']['where']}"))
    out.print(Text(f"pipeline: {','.join(report['pipeline']) or 'none'}"))
    for k, v in report["settings"].items():
        out.print(Text(f"  {k} = {v}"))
