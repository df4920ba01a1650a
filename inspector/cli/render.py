"""Rich tables for the CLI, drawn from the report dicts of :mod:`inspector.cli.report`.

Every cell is a :class:`rich.text.Text`: session text is data and is never parsed as markup
(a message containing ``[bold]`` shows those characters). Previews arrive already stripped of
control characters.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..textsafe import visible
from .elide import Elided, Shown, hidden, plan_rows_shown, rows_shown
from .longtable import LONG, Column, print_long_table
from .safeconsole import SafeConsole
from .wholetable import print_whole
from ..numbers import usd

SHORT_ROLES = {"system": "sys", "assistant": "asst"}

STATUS_STYLES = {
    "kept": "",
    "dropped": "red",
    "truncated": "yellow",
    "summarized": "magenta",
    "cleared": "cyan",
    "inserted": "green",
}


def console() -> Console:
    """A console on stdout; 120 columns when stdout is not a terminal (pipes, files, tests)."""
    c = SafeConsole(highlight=False)
    if not c.is_terminal and not os.environ.get("COLUMNS"):
        c = SafeConsole(highlight=False, width=120)
    return c


def T(value: Any, style: str = "") -> Text:
    """A plain Text cell (never markup); None becomes an empty cell."""
    if value is None:
        return Text("")
    return Text(visible(str(value)), style=style)


def N(value: int | float | None, style: str = "") -> Text:
    """A number with thousands separators."""
    if value is None:
        return Text("")
    if isinstance(value, float):
        return Text(f"{value:,.1f}", style=style)
    return Text(f"{value:,}", style=style)


def _pct(part: int, whole: int) -> str:
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def _line(*parts: tuple[str, str] | str) -> Text:
    text = Text()
    for part in parts:
        if isinstance(part, tuple):
            text.append(part[0], style=part[1])
        else:
            text.append(part)
    return text


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _session_line(report: dict[str, Any]) -> Text:
    s = report["session"]
    return _line(
        (str(s["path"]), "bold"),
        f"  format {s['format']}" + (f", sidechain {s['sidechain']}" if "sidechain" in s else "")
        + f": {plural(s['messages'], 'message')}, {plural(s['turns'], 'turn')}, "
        f"{plural(s['model_calls'], 'model call')}",
    )


def _counting_line(report: dict[str, Any]) -> Text:
    return Text(f"Tokens counted with {report.get('tokenizer', report['encoding'])}, {report['profile']} message framing.", style="dim")


def render_info(report: dict[str, Any], out: Console) -> None:
    out.print(_session_line(report))
    out.print(_counting_line(report))
    tokens = report["tokens"]
    total = tokens["total"]

    table = Table(title=Text("Tokens by unit kind", style="bold"), box=box.SIMPLE_HEAD, title_justify="left", show_footer=True)
    table.add_column(T("kind"), footer=T("total"))
    table.add_column(T("units"), justify="right")
    table.add_column(T("tokens"), justify="right", footer=N(total))
    table.add_column(T("share"), justify="right", footer=T("100.0%"))
    for kind, value in tokens["by_unit_kind"].items():
        if kind == "not_in_file":
            table.add_row(T("not in file"), T(""), N(value), T(_pct(value, total)), style="italic")
            continue
        table.add_row(T(kind), N(tokens["units_by_kind"][kind]), N(value), T(_pct(value, total)))
    table.add_row(T("tool definitions"), T(f"{report['tool_definitions']} tools"), N(tokens["tool_definitions"]),
                  T(_pct(tokens["tool_definitions"], total)), style="dim")
    table.add_row(T("reply priming"), T(""), N(tokens["reply_priming"]), T(_pct(tokens["reply_priming"], total)), style="dim")
    out.print(table)
    note = (
        f"Every message in the file ({tokens['messages']:,}) plus what each request adds once: the part not in "
        f"the file at the next call ({tokens['not_in_file']:,}), the tool definitions "
        f"({tokens['tool_definitions']:,}) and the tokens that prime the reply ({tokens['reply_priming']:,})."
    )
    nxt = report["context_next_call"]
    if nxt["compaction_at"] is not None:
        note += (
            f" The file records a compaction at message {nxt['compaction_at']}: the next call is sent "
            f"{nxt['tokens']:,} tokens (system prompts and everything from the compaction on)."
        )
    out.print(Text(note, style="dim"))
    out.print(Text(f"not in file: {tokens['not_in_file']:,} ({tokens['not_in_file_how']})", style="dim"))
    window = report["window"]
    out.print(Text(
        f"Model {report['model'] or 'not named in the file'}; counted with {report['tokenizer']}. Window "
        f"{window['tokens']:,} ({window['source']})"
        + (f"; {window['reserved_note']}: budget {window['budget']:,}" if window["reserved"] else "")
        + f". Next call, whole context: {nxt['predicted_tokens']:,} tokens "
        f"({_pct(nxt['predicted_tokens'], window['tokens'])} of the window)"
        + _resent_note(nxt["predicted_tokens"] - nxt["tokens"] - tokens["not_in_file"], ", with ") + ".",
    ))

    if report["largest_messages"]:
        title = f"{len(report['largest_messages'])} largest messages"
        table = Table(title=Text(title, style="bold"),
                      box=box.SIMPLE_HEAD, title_justify="left")
        rows = [
            [N(row["index"]), T(row["role"]), T(row["unit"]), N(row["turn"]), N(row["tokens"]),
             T(", ".join(row["tools"])), T(row["preview"])]
            for row in report["largest_messages"]
        ]
        # The short columns keep their width; the tool list wraps (24 columns, 12 on narrow screens); the preview
        # gets what is left of the line and is cut with an ellipsis.
        columns = (("#", "right"), ("role", "left"), ("unit", "left"), ("turn", "right"), ("tokens", "right"), ("tool", "left"))
        widths = [max([len(name)] + [len(r[k]) for r in rows]) for k, (name, _) in enumerate(columns)]
        widths[-1] = min(widths[-1], 24 if out.width >= 100 else 12)
        for (name, justify), width in zip(columns, widths):
            table.add_column(T(name), justify=justify, width=width, no_wrap=name != "tool")
        table.add_column(T("preview"), no_wrap=True, overflow="ellipsis", width=max(10, out.width - sum(widths) - 3 * (len(widths) + 1) - 1))
        for cells in rows:
            table.add_row(*cells)
        out.print(table)

    if report["tools"]:
        table = Table(title=Text("Tokens per tool (content of calls and results)", style="bold"),
                      box=box.SIMPLE_HEAD, title_justify="left")
        for name in ("tool", "calls", "results", "call tokens", "result tokens", "total", "share"):
            table.add_column(T(name), justify="left" if name == "tool" else "right")
        for row in report["tools"]:
            table.add_row(T(row["tool"]), N(row["calls"]), N(row["results"]), N(row["call_tokens"]),
                          N(row["result_tokens"]), N(row["tokens"]), T(_pct(row["tokens"], total)))
        print_whole(out, table)
        out.print(Text("Per-tool figures count the call's name and arguments and the result's content; "
                       "the message framing around them is in the unit totals above.", style="dim"))

    usage = report["usage"]
    money = report.get("money")
    if usage:
        costs = None if not money else {
            r["call"]: _cost(r["recorded_cost"]) for r in money["calls"] if r["sidechain"] is None}
        render_usage(usage, out, costs=costs)
    if money and money["recorded_cost_total"] is not None:
        side = money["recorded_cost_sidechains"]
        out.print(Text(
            f"Recorded cost: {_usd_text(money['recorded_cost_total'])} over {plural(money['calls_priced'], 'call')} "
            f"({_usd_text(money['cost_per_call'])} per call)"
            + (f", sub-agents {_usd_text(side)} of it" if side is not None else "")
            + (f"; no price for {', '.join(money['unknown_models'])}" if money["unknown_models"] else "")
            + f". Prices as of {money['prices_as_of']}."
        ))

    flags = {k: v for k, v in report["flags"].items() if v and k != "final_answer"}
    if flags:
        out.print(Text("Flags: " + ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in flags.items())))
    if report["sidechains"]:
        render_sidechains(report["sidechains"], out)
    render_skipped(report["skipped"], out)


def render_sidechains(sidechains: dict[str, int], out: Console) -> None:
    table = Table(title=Text(plural(len(sidechains), "sidechain"), style="bold"), box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column(T("sidechain"))
    table.add_column(T("messages"), justify="right")
    for key, count in sidechains.items():
        table.add_row(T(key), N(count))
    out.print(table)
    out.print(Text("Side conversations (sub-agents...), kept apart from the main chain: not in the counts above. "
                   "Open one with --sidechain ID.", style="dim"))


def render_skipped(skipped: dict[str, Any], out: Console, limit: int = 50) -> None:
    """Ignored records as one row per reason; bad input one row each (the first ``limit``)."""
    ignored, errors = skipped["ignored"], skipped["errors"]
    if not ignored and not errors:
        return
    total = sum(ignored.values()) + len(errors)
    parts = ([f"{sum(ignored.values()):,} ignored"] if ignored else []) + ([plural(len(errors), "error")] if errors else [])
    table = Table(title=Text(f"Skipped {plural(total, 'record')} ({', '.join(parts)})", style="bold"),
                  box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column(T("kind"), no_wrap=True)
    table.add_column(T("reason"))
    table.add_column(T("count"), justify="right", no_wrap=True)
    table.add_column(T("first lines"))
    for reason, count in ignored.items():
        places = skipped["ignored_at"][reason]
        table.add_row(T("ignored", "dim"), T(reason), N(count), T(", ".join(places) + (", …" if count > len(places) else "")))
    for row in errors[:limit]:
        table.add_row(T("error", "red"), T(row["reason"]), N(1), T(row["where"]))
    out.print(table)
    if len(errors) > limit:
        out.print(Text(f"... and {len(errors) - limit:,} more errors (see --json).", style="dim"))


def D(value: int | None, style: str = "") -> Text:
    """A recorded figure: "—" when the file did not record it (never a made-up 0)."""
    return Text("—", style="dim") if value is None else N(value, style)


def USD(value: float | None, style: str = "") -> Text:
    """A cost in dollars; "—" where there is none (no usage, or a model the price data lacks)."""
    if value is None:
        return Text("—", style="dim")
    return Text(usd(value, 4 if abs(value) < 1 else 2), style=style)


def _usd_text(value: float | None) -> str:
    return "unknown" if value is None else USD(value).plain


def _cost(cost: dict[str, float] | None) -> float | None:
    return None if cost is None else cost["total"]


def _split(cache: dict[str, int]) -> Text:
    return Text(f"{cache['read_tokens']:,} / {cache['write_tokens'] + cache['uncached_tokens']:,}")


def render_replay_money(report: dict[str, Any], out: Console, limit: int = 60) -> None:
    """Cost per call beside the replay table: recorded, simulated with no strategy and under the
    pipeline, the simulated cache split, and where the pipeline breaks the cache."""
    if "prices_as_of" not in report:
        return
    piped = bool(report["pipeline"])
    table = Table(title=Text("Cost per model call (USD)", style="bold"), box=box.SIMPLE_HEAD, title_justify="left",
                  show_footer=True)
    table.add_column(T("call"), justify="right", footer=T("total"))
    table.add_column(T("model"), no_wrap=True)
    recorded = report["recorded_cost_total"] is not None
    if recorded:
        table.add_column(T("recorded"), justify="right", footer=USD(report["recorded_cost_total"]))
    table.add_column(T("baseline"), justify="right", footer=USD(report["baseline_cost_total"]))
    table.add_column(T("read / rest"), justify="right")
    if piped:
        table.add_column(T("pipeline"), justify="right", footer=USD(report["cost_total"]))
        table.add_column(T("read / rest"), justify="right")
        table.add_column(T("cache"), no_wrap=True)
    for c in report["calls"][:limit]:
        cells = [N(c["call"]), T(c["model"] or "—"), *([USD(_cost(c["recorded_cost"]))] if recorded else []),
                 USD(_cost(c["baseline_cost"])), _split(c["baseline_cache"])]
        if piped:
            cells += [USD(_cost(c["cost"])), _split(c["cache"]),
                      T(f"breaks {c['rewritten_tokens']:,}" if c["breaks_cache"] else "", "yellow")]
        table.add_row(*cells)
    print_whole(out, table)
    more = len(report["calls"]) - limit
    side = report.get("recorded_cost_sidechains")
    parts = [f"recorded {_usd_text(report['recorded_cost_total'])}"] if report["recorded_cost_total"] is not None else []
    parts.append(f"simulated with no strategy {_usd_text(report['baseline_cost_total'])}")
    if piped:
        parts.append(f"with the pipeline {_usd_text(report['cost_total'])}")
    line = "Cost" + (" (sub-agent calls included)" if side is not None else "") + ": " + ", ".join(parts) + "."
    if side is not None:
        line += f" Sub-agents: recorded {_usd_text(side)} over {plural(len(report['sidechain_calls']), 'call')}."
    if report.get("unknown_models"):
        line += f" No price for {', '.join(report['unknown_models'])}: those calls are not counted."
    elif report["baseline_cost_total"] is None:
        line += " Not priced: the file names no model (--model NAME prices it)."
    out.print(Text(line))
    out.print(Text(
        f"read / rest = input tokens the cache model reads from the provider's cache / writes or sends uncached "
        f"(the {report['cache_model']['prefix_tokens']:,}-token prefix the file does not show included); "
        + ("breaks N = tokens of the previous call's request the pipeline rewrote, paid again instead of read. " if piped else "")
        + f"Cache model: {report['cache_model']['policy']}. Prices as of {report['prices_as_of']}."
        + (f" {more:,} more calls in --json." if more > 0 else ""),
        style="dim",
    ))


def _row_label(row: dict[str, Any]) -> str:
    """A compare row's name: the preset with its pipeline (``codex (compact)``), else the pipeline."""
    return f"{row['preset']} ({row['pipeline']})" if row.get("preset") else row["pipeline"]


def _label_header(rows: list[dict[str, Any]]) -> str:
    return "preset (pipeline)" if any(r.get("preset") for r in rows) else "pipeline"


def render_compare_money(report: dict[str, Any], out: Console) -> None:
    """Each pipeline's saving in tokens and in dollars, side by side."""
    rows = [r for r in report["rows"] if "cost_total" in r]
    if not rows:
        return
    table = Table(title=Text("Tokens saved vs dollars saved", style="bold"), box=box.SIMPLE_HEAD, title_justify="left")
    table.add_column(T(_label_header(rows)))
    table.add_column(T("input billed"), justify="right")
    table.add_column(T("tokens saved"), justify="right")
    table.add_column(T("cost"), justify="right")
    table.add_column(T("dollars saved"), justify="right", no_wrap=True)  # "$0.0168 (37.6%)" is one figure
    table.add_column(T("cache breaks"), justify="right")
    table.add_column(T("cache writes"), justify="right")
    for r in rows + list(report.get("cache_aware", [])):
        smaller = r["dollars_saved_pct"] is not None and r["tokens_saved_pct"] is not None and r["dollars_saved_pct"] < r["tokens_saved_pct"] - 0.05
        label = _row_label(r) + (f" ({r['setting']})" if "setting" in r else "")
        table.add_row(T(label), N(r["input_tokens_billed"]), T(_share(r["tokens_saved_pct"])), USD(r["cost_total"]),
                      T(f"{_usd_text(r['dollars_saved'])} ({_share(r['dollars_saved_pct'])})" if r["dollars_saved"] is not None else "—",
                        "yellow" if smaller else ""),
                      N(r["cache_breaks"]), N(r["cache_write_tokens"]))
    print_whole(out, table)
    out.print(Text(
        "input billed = every call's input with the prefix the file does not show, the agent's own compaction and "
        "sub-agent calls included (the replay total above counts the main calls only); cost = those tokens split by the "
        "prompt-cache model and priced with the recorded output. Yellow: a smaller share of dollars than of tokens, "
        "because the strategy rewrites history the provider had cached (replay --strategy NAME shows where). "
        "cache writes = input tokens written to the cache (Anthropic bills them above the input price). A row "
        "'NAME (clear_at_least=0)' or '(polling=1)' is the pipeline with its cache-aware setting off, beside it as set. "
        f"Prices as of {report['prices_as_of']}.",
        style="dim",
    ))


def _share(pct: float | None) -> str:
    return "—" if pct is None else f"{pct:.1f}%"


def R(ratio: float | None) -> Text:
    """recorded / estimate."""
    return Text("—", style="dim") if ratio is None else Text(f"{ratio:,.2f}")


def render_usage(usage: dict[str, Any], out: Console, limit: int = 60, costs: dict[int, float | None] | None = None) -> None:
    """The recorded usage table; ``costs`` (call -> recorded USD) adds a cost column."""
    table = Table(title=Text("Recorded usage per model call, beside our estimate", style="bold"),
                  box=box.SIMPLE_HEAD, title_justify="left", show_footer=True)
    table.add_column(T("call"), justify="right", footer=T("total"))
    table.add_column(T("msg"), justify="right")
    table.add_column(T("turn"), justify="right")
    table.add_column(T("input"), justify="right")
    table.add_column(T("cache read"), justify="right")
    table.add_column(T("cache write"), justify="right")
    table.add_column(T("recorded"), justify="right", footer=N(usage["recorded_input_total"]))
    table.add_column(T("estimate"), justify="right", footer=N(usage["estimate_total"]))
    table.add_column(T("ratio"), justify="right", footer=R(usage["ratio"]))
    table.add_column(T("predicted"), justify="right")
    if costs is not None:
        known = [v for v in costs.values() if v is not None]
        table.add_column(T("cost"), justify="right", footer=USD(sum(known) if known else None))
    for row in usage["calls"][:limit]:
        cells = [N(row["call"]), N(row["message_index"]), N(row["turn"]), D(row["input_tokens"]),
                 D(row["cache_read_input_tokens"]), D(row["cache_creation_input_tokens"]), N(row["recorded"]),
                 N(row["estimate"]), R(row["ratio"]), N(row["predicted"])]
        if costs is not None:
            cells.append(USD(costs.get(row["call"])))
        table.add_row(*cells)
    print_whole(out, table)
    more = len(usage["calls"]) - limit
    tail = f" {more:,} more calls in --json." if more > 0 else ""
    out.print(Text(
        f"{plural(usage['calls_with_usage'], 'call')} recorded usage; recorded = input + cache read + cache write "
        f"(— = not in the file); ratio = recorded / estimate; predicted = the whole input the inspector expects "
        f"for the call from the usage of earlier calls only (estimate + what the file does not show)."
        + tail,
        style="dim",
    ))


# ------------------------------------------------------------------------------------------
# plan


def _pipeline_text(pipeline: list[dict[str, Any]]) -> str:
    if not pipeline:
        return "no strategy"
    parts = []
    for stage in pipeline:
        params = ", ".join(f"{k}={v}" for k, v in stage["params"].items())
        parts.append(f"{stage['strategy']}({params})")
    return " -> ".join(parts)


def render_plan(report: dict[str, Any], out: Console, every: bool = False) -> None:
    """The plan's table: every row up to LONG, else long runs cut (``every``: all rows)."""
    out.print(_session_line(report))
    out.print(_counting_line(report))
    at = report["at_call"]
    out.print(Text(
        (f"Input of model call {at}" if at else "Input of the next model call")
        + f" (current turn {report['current_turn']}); pipeline: {_pipeline_text(report['pipeline'])}",
    ))
    columns = [
        Column("#", right=True), Column("role"), Column("unit", footer=T("total")), Column("turn", right=True),
        Column("tokens", right=True, footer=N(report["tokens_before"])),
        Column("after", right=True, footer=N(report["tokens_after"])), Column("status"), Column("reason"),
    ]
    messages = report["messages"]
    key = getattr(messages, "run_key", None) or (lambda k: (messages[k]["status"], messages[k]["by"]))
    shown = list(range(len(messages))) if every else plan_rows_shown(len(messages), key)
    rows = [_plan_row(messages[k]) if isinstance(k, int) else _elided_plan_row(messages, k) for k in shown]
    if len(rows) > LONG:
        print_long_table(out, columns, rows)
    else:
        table = Table(box=box.SIMPLE_HEAD, show_footer=True)
        for col in columns[:-1]:
            table.add_column(T(col.header), footer=col.footer or "", justify="right" if col.right else "left",
                             no_wrap=True)
        table.add_column(T(columns[-1].header), overflow="fold", ratio=1)
        for cells in rows:
            table.add_row(*cells)
        out.print(table)
    _elided_note(shown, len(messages), "message", "plan", out)
    out.print(_totals_text(report))
    for stage in report["stages"]:
        idle = f" ({stage['idle_reason']})" if stage.get("idle_reason") else ""
        out.print(Text(f"  {stage['strategy']}: {stage['tokens_before']:,} -> {stage['tokens_after']:,}{idle}", style="dim"))
    render_violations(report["violations"], out)
    pending = report.get("pending_tool_call")
    if pending:
        ended = pending.get("run_ended")
        state = f"that ended the run ({ended}): no next request" if ended else "still running"
        out.print(Text(
            f"The session ends with a tool call {state} (message #{pending['message']}: {', '.join(pending['ids'])})"
            f"{'' if ended else ': the next request waits for its result'}. --at {pending['last_recorded_call']} plans the last recorded call.",
            style="yellow"))


def _plan_row(row: dict[str, Any]) -> list[Text]:
    style = STATUS_STYLES.get(row["status"], "")
    unit = row["unit"] if row["unit_id"] is None else f"{row['unit']} #{row['unit_id']}"
    return [
        T("+" if row["index"] is None else row["index"]),
        T(SHORT_ROLES.get(row["role"], row["role"])),
        T(unit),
        N(row["turn"]),
        N(row["tokens"]),
        N(row["tokens_after"]),
        T(row["status"], style),
        T(row["reason"], "dim" if row["status"] == "kept" else style),
    ]


def _plan_sums(messages: Sequence[dict[str, Any]], start: int, stop: int) -> tuple[int, int, int | None, int | None]:
    """Tokens before and after over plan rows ``start:stop``, their first and last message index."""
    if hasattr(messages, "sums"):  # the report's PlanRows: from the decisions, no row built
        return messages.sums(start, stop)
    part = messages[start:stop]
    indices = [r["index"] for r in part if r["index"] is not None]
    return (sum(r["tokens"] for r in part), sum(r["tokens_after"] for r in part),
            indices[0] if indices else None, indices[-1] if indices else None)


def _elided_plan_row(messages: Sequence[dict[str, Any]], cut: Elided) -> list[Text]:
    """One row standing for the plan rows of ``cut``: their token sums and what they share."""
    tokens, after, first, last = _plan_sums(messages, cut.start, cut.stop)
    where = f" (#{first:,} to #{last:,})" if first is not None else ""
    if cut.key is None:
        status, style, what = "", "dim", "not shown"
    else:
        status, by = cut.key
        style = STATUS_STYLES.get(status, "")
        what = status + (f" by {by}" if by else "")
    return [T("…"), T(""), T(""), T(""), N(tokens), N(after), T(status, style),
            T(f"… {plural(cut.count, 'message')} {what}{where}", style)]


def _elided_note(shown: Shown, total: int, word: str, command: str, out: Console) -> None:
    """The line under a table whose rows were cut: how many, and how to see them all."""
    cut = hidden(shown)
    if cut:
        out.print(Text(
            f"{cut:,} of {plural(total, word)} are summed up in the rows marked …; "
            f"{command} --all shows every {word}, --json writes every {word}.",
            style="dim",
        ))


def _resent_note(resent: int, lead: str = ", ") -> str:
    """What a call's whole input holds besides its rows, the part not in the file and the tool
    definitions: the reasoning of earlier calls it sends again (the rows count it 0)."""
    return f"{lead}{resent:,} of reasoning re-sent from earlier calls" if resent else ""


def _totals_text(report: dict[str, Any]) -> Text:
    budget = report["budget"]
    resent = report.get("resent_reasoning", 0)
    text = Text(f"{report['tokens_before']:,} -> {report['tokens_after']:,} tokens, "
                f"saving {report['saving']:,} ({report['saving_pct']:.1f}%); includes {report['not_in_file'] - resent:,} "
                f"not in the file{_resent_note(resent)} and {report['overhead']:,} of tool definitions and reply priming")
    if budget is not None:
        fits = report["fits"]
        text.append(f"; {report.get('budget_note') or f'budget {budget:,}'}: ")
        text.append("fits" if fits else "over budget", style="green" if fits else "red")
        if report.get("budget_unused_note"):
            text.append(f"; {report['budget_unused_note']}")
    text.append(".")
    if report.get("agent_removed_note"):
        text.append(f"\n{report['agent_removed_note'][0].upper()}{report['agent_removed_note'][1:]}.")
    return text


PROVIDER_NAMES = {"openai": "OpenAI", "anthropic": "Anthropic"}


def render_violations(violations: dict[str, list[dict[str, Any]]], out: Console, limit: int = 10) -> None:
    for provider, items in violations.items():
        name = PROVIDER_NAMES.get(provider, provider)
        if not items:
            out.print(_line(f"{name}: ", ("valid", "green")))
            continue
        out.print(_line(f"{name}: ", (f"{len(items)} violation{'s' if len(items) != 1 else ''}", "red")))
        for v in items[:limit]:
            if v["index"] is None:
                where = ""
            elif v.get("source") is None:
                where = f"inserted message (position {v['index']} in the request): "
            else:
                where = f"message {v['source']} (position {v['index']} in the request): "
            out.print(Text(f"  {where}{v['message']}"))
        if len(items) > limit:
            out.print(Text(f"  ... and {len(items) - limit} more", style="dim"))


# ------------------------------------------------------------------------------------------
# replay and compare


def render_replay(report: dict[str, Any], out: Console, every: bool = False) -> None:
    """The replay's table: every call up to LONG, else its first and last calls (``every``: all)."""
    piped = bool(report["pipeline"])  # without one, "with pipeline" and "saved" would repeat the prediction
    out.print(_session_line(report))
    out.print(_counting_line(report))
    out.print(Text(f"Pipeline: {_pipeline_text(report['pipeline'])}"))
    if report.get("budget_note") and any("budget" in stage["params"] for stage in report["pipeline"]):
        out.print(Text(report["budget_note"][:1].upper() + report["budget_note"][1:] + "."))
    columns = [Column("call", right=True, footer=T("total")), Column("msg", right=True), Column("turn", right=True),
               Column("baseline", right=True, footer=N(report["baseline_total"])),
               Column("predicted", right=True, footer=N(report["predicted_total"]))]
    if piped:
        columns += [Column("with pipeline", right=True, footer=N(report["total"])),
                    Column("saved", right=True, footer=N(report["predicted_total"] - report["total"]))]
    recorded = report.get("recorded_total") is not None
    if recorded:
        columns += [Column("recorded", right=True, footer=N(report["recorded_total"])),
                    Column("cache read", right=True), Column("cache write", right=True),
                    Column("ratio", right=True, footer=R(report["ratio"]))]
    calls = report["calls"]
    shown = list(range(len(calls))) if every else rows_shown(len(calls))
    rows = [_replay_row(calls[k], piped, recorded) if isinstance(k, int) else _elided_replay_row(calls, k, piped, recorded)
            for k in shown]
    if len(rows) > LONG:
        print_long_table(out, columns, rows)
    else:
        table = Table(box=box.SIMPLE_HEAD, show_footer=True)
        for col in columns:
            table.add_column(T(col.header), justify="right" if col.right else "left", **({"footer": col.footer} if col.footer else {}))
        for cells in rows:
            table.add_row(*cells)
        print_whole(out, table)
    _elided_note(shown, len(calls), "call", "replay", out)
    fit = report["fit"]
    out.print(Text("baseline = our count of what the file shows was sent before the call; predicted = baseline + what "
                   "the file does not show, fitted on the usage recorded for earlier calls only"
                   + ("; recorded = the usage the file logged for it (input + cache read + cache write; — = not in "
                      "the file); ratio = recorded / baseline" if recorded else "")
                   + f". Next call: not in file {fit['offset']:,} ({fit['how']}).",
                   style="dim"))
    summary = f"Input tokens over all {len(report['calls']):,} calls: {report['predicted_total']:,}"
    if piped:
        summary += f" -> {report['total']:,}, saving {report['savings_pct']:.1f}%"
    out.print(Text(summary + "."))
    render_replay_money(report, out)


def _replay_row(c: dict[str, Any], piped: bool, recorded: bool) -> list[Text]:
    if c.get("kind") == "summary":  # the summarisation call a compaction adds
        first = T(f"summary before {c['call']:,}")
    elif c.get("compacted_by"):
        first = T(f"{c['call']:,} (compacted)")
    else:
        first = N(c["call"])
    cells = [first, N(c["message_index"]), N(c["turn"]), N(c["baseline_tokens"]), N(c["predicted_tokens"])]
    if piped:
        saved = c["predicted_tokens"] - c["tokens"]
        cells += [N(c["tokens"]), N(saved, "green" if saved > 0 else "")]
    if recorded:
        cells += [D(c["recorded_tokens"]), D(c["cache_read_input_tokens"]), D(c["cache_creation_input_tokens"]),
                  R(c["ratio"])]
    return cells


_REPLAY_SUMS = ("baseline_tokens", "predicted_tokens", "tokens", "recorded_tokens", "cache_read_input_tokens",
                "cache_creation_input_tokens")


def _replay_sums(calls: Sequence[dict[str, Any]], start: int, stop: int) -> dict[str, int | None]:
    """The token figures of calls ``start:stop`` summed (recorded ones over the calls that have them)."""
    if hasattr(calls, "sums"):  # the report's ReplayRows: from the replay, no row built
        return calls.sums(start, stop)
    part = calls[start:stop]
    values = {key: [c[key] for c in part if c[key] is not None] for key in _REPLAY_SUMS}
    return {key: sum(v) if v else None for key, v in values.items()}


def _elided_replay_row(calls: Sequence[dict[str, Any]], cut: Elided, piped: bool, recorded: bool) -> list[Text]:
    """One row standing for the calls of ``cut``: their sums (recorded: of the calls that have it)."""
    total = _replay_sums(calls, cut.start, cut.stop)
    cells = [T("…"), T(""), T(""), N(total["baseline_tokens"]), N(total["predicted_tokens"])]
    if piped:
        saved = total["predicted_tokens"] - total["tokens"]
        cells += [N(total["tokens"]), N(saved, "green" if saved > 0 else "")]
    if recorded:
        cells += [D(total["recorded_tokens"]), D(total["cache_read_input_tokens"]),
                  D(total["cache_creation_input_tokens"]), T("")]
    return cells


def render_compare(report: dict[str, Any], out: Console) -> None:
    out.print(_session_line(report))
    out.print(_counting_line(report))
    at = report["at_call"]
    table = Table(box=box.SIMPLE_HEAD)
    table.add_column(T(_label_header(report["rows"])))
    table.add_column(T(f"tokens at call {at}" if at else "tokens"), justify="right")
    table.add_column(T("replay total"), justify="right")
    table.add_column(T("saving"), justify="right")
    table.add_column(T("OpenAI"))
    table.add_column(T("Anthropic"))
    for row in report["rows"]:
        cells = [T(_row_label(row)), N(row["tokens_last_call"]), N(row["replay_total"]), T(f"{row['saving_pct']:.1f}%")]
        every = row.get("validity_scope") == "every call"
        for provider in ("openai", "anthropic"):
            n = row["violations"].get(provider, 0)
            bad = len(row.get("invalid_calls", {}).get(provider, ())) if every else 0
            where = f" in {bad} call{'s' if bad != 1 else ''}" if every else ""
            ok = "valid" + (" (every call)" if every else "")
            cells.append(T(ok, "green") if n == 0 else T(f"{n} violation{'s' if n != 1 else ''}{where}", "red"))
        table.add_row(*cells)
    print_whole(out, table)
    if any(row.get("validity_scope") == "every call" for row in report["rows"]):
        out.print(Text("Validity: a compacting pipeline is checked at every call of its stateful replay; the others by their plan at the last call."))
    render_compare_money(report, out)
    s = report["settings"]
    budget = report.get("budget_note") or f"budget {'none' if s['budget'] is None else format(s['budget'], ',')}"
    out.print(Text(
        f"{budget[:1].upper() + budget[1:]}; window {s['window_turns']} turns, "
        f"results capped at {s['max_result_tokens']:,} tokens, "
        f"summary {s['summary_ratio']} of history in {s['summary_tokens']} tokens, clear_tool_uses trigger "
        f"{s['trigger']:,} keep {s['keep']}. Saving is over the replay total of every model call.",
        style="dim",
    ))
