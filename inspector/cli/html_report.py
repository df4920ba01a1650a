"""``context-inspector report SESSION --html FILE``: the shareable page of :mod:`inspector.report`.

The session is counted once; the page draws the very dicts ``info``, ``plan``, ``replay`` and
``compare`` print with ``--json`` (the compare table with the command's settings and, with
``--presets``, every preset). The file is written atomically and never over or beside a file of
the session (:func:`inspector.safeio.write_atomic`).
"""

from __future__ import annotations

import argparse
import copy
import sys
from collections.abc import Callable
from typing import Any

from ..textsafe import visible
from .money_report import add_money_options
from .options import add_session_options, add_strategy_options

SUMMARY = "one self-contained HTML page to share: the window, the messages, the replay chart, the compare table"
DESCRIPTION = (
    "Write one self-contained HTML page (inline CSS and SVG, nothing fetched to view it) with the window by "
    "category, every message with its status and reason under the pipeline, the replay chart with the recorded "
    "usage beside it, and every strategy (or preset) compared, in a theme's colours."
)


def configure(p: argparse.ArgumentParser) -> None:
    add_session_options(p)
    add_strategy_options(p)
    p.add_argument("--at", type=int, metavar="CALL", help="plan the input of model call CALL; default: the next call")
    p.add_argument("--html", required=True, metavar="FILE", help="the page to write")
    p.add_argument("--redact", action="store_true", help="leave out every message's text (sizes and structure stay)")
    p.add_argument("--presets", action="store_true", help="compare every preset instead of every strategy")
    p.add_argument("--theme", metavar="NAME", help="colours: dark (default), light, colorblind, or a theme file")
    add_money_options(p)


def page_data(args: argparse.Namespace, plan_step: Callable, replay_data: Callable, compare_data: Callable) -> tuple[Any, dict[str, Any]]:
    """The counted session, and the four reports with the message previews (counted once)."""
    from ..analysis.window import budget_note
    from .report import info_report, message_preview, plan_report

    analysis, _pipeline, plan = plan_step(args)
    plan_data = plan_report(analysis, plan)
    plan_data["budget_note"] = budget_note(analysis.session, plan.settings.budget, args.model)
    compare_args = copy.copy(args)  # with --preset: no strategy against that preset; else every strategy
    compare_args.strategy = ""
    messages = analysis.session.messages
    return analysis, {
        "info": info_report(analysis),
        "plan": plan_data,
        "replay": replay_data(args, analysis),
        "compare": compare_data(compare_args, analysis),
        "previews": {i: message_preview(m, 120) for i, m in enumerate(messages)},
        "tool_of": {i: names[0] for i, names in enumerate(analysis.view.tool_names) if names},
    }


def cmd_report(args: argparse.Namespace, plan_step: Callable, replay_data: Callable, compare_data: Callable) -> int:
    from ..providers.exportable import session_files
    from ..report import render_page
    from ..report.theme import ThemeFileError, theme_colours
    from ..safeio import write_atomic
    from .options import UsageError

    try:
        colours = theme_colours(args.theme)
    except ThemeFileError as exc:
        raise UsageError(str(exc)) from None
    analysis, data = page_data(args, plan_step, replay_data, compare_data)
    page = render_page(data, colours, redact=args.redact).encode("utf-8")
    written = write_atomic(args.html, page, session_path=args.session,
                           session_files=session_files(analysis.view.session))
    sys.stderr.write(f"wrote {visible(str(written))}: HTML report ({len(page):,} bytes"
                     + (", message text redacted" if args.redact else "") + ").\n")
    return 0

