"""The HTML page: one file with inline CSS and SVG, no scripts, no fonts, no links out.

Every figure cell carries ``data-fig`` (its place in the reports, e.g. ``replay.calls.3.tokens``)
and ``data-value`` (the raw number), so a test can check the page against the CLI's JSON. Every
string from a session is shown through :func:`inspector.textsafe.visible` (control characters
made visible) and :func:`html.escape`.
"""

from __future__ import annotations

from html import escape
from typing import Any

from ..textsafe import visible
from .breakdown import Window, window_breakdown
from .chart import replay_svg
from ..numbers import usd

STATUS_WORDS = ("kept", "dropped", "truncated", "summarized", "cleared", "inserted")


def text(value: Any) -> str:
    """A session string as safe HTML text."""
    return escape(visible(str(value)))


def fig(path: str, value: Any, shown: str | None = None) -> str:
    """A figure cell's content: the number as shown, its path and raw value as attributes."""
    if value is None:
        return f'<span data-fig="{path}" data-value="">–</span>'
    if shown is None:
        shown = f"{value:,}" if isinstance(value, int) else f"{value}"
    return f'<span data-fig="{path}" data-value="{escape(str(value))}">{escape(shown)}</span>'


def pct(value: float | None) -> str | None:
    return None if value is None else f"{value}%"


def dollars(value: float | None) -> str | None:
    return None if value is None else usd(value)


def css(colours: dict[str, dict[str, str]]) -> str:
    base, unit, status = colours["base"], colours["unit"], colours["status"]
    variables = [f"--{k.replace('_', '-')}: {v};" for k, v in base.items()]
    variables += [f"--unit-{k.replace('_', '-')}: {v};" for k, v in unit.items()]
    variables += [f"--status-{k}: {v};" for k, v in status.items()]
    variables += [f"--gauge-{k}: {v};" for k, v in colours["gauge"].items()]
    variables += [f"--row-{k}: {v};" for k, v in colours["row"].items()]
    return ":root{" + "".join(variables) + "}" + """
body{background:var(--background);color:var(--foreground);font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1100px;padding:0 16px}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:28px 0 8px;color:var(--primary)}
.note,.tick{color:var(--foreground);opacity:.75;font-size:12px} .tick{fill:var(--foreground)}
table{border-collapse:collapse;width:100%;background:var(--surface)}
th,td{padding:3px 8px;text-align:left;border-bottom:1px solid var(--panel);vertical-align:top}
th{background:var(--panel);font-weight:600} td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.bar{display:flex;height:26px;border-radius:4px;overflow:hidden;background:var(--gauge-free);margin:4px 0 10px}
.bar span{display:block;height:100%} .legend span.swatch{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
tr.unit-system td:first-child{border-left:4px solid var(--unit-system)} tr.unit-user td:first-child{border-left:4px solid var(--unit-user)}
tr.unit-assistant td:first-child{border-left:4px solid var(--unit-assistant)} tr.unit-tool_exchange td:first-child{border-left:4px solid var(--unit-tool-exchange)}
tr.unit-summary td:first-child{border-left:4px solid var(--unit-summary)} tr.unit-tool_exchange{background:var(--row-band)}
""" + "".join(f".st-{s}{{color:var(--status-{s});font-weight:600}}" for s in STATUS_WORDS) + """
tr.violation td{outline:1px solid var(--status-violation)} .bad{color:var(--status-violation);font-weight:600} .ok{color:var(--success)}
td.preview{max-width:380px;overflow-wrap:anywhere;white-space:pre-wrap}
"""


#: Each window category's CSS background. "Not in file" is the overhead colour hatched (the viewer's
#: ▫ beside the overhead's ▪): the theme's secondary colour it had is the summary colour in two themes.
CATEGORY_BACKGROUNDS = {
    "system": "var(--unit-system)",
    "not_in_file": "repeating-linear-gradient(135deg,var(--gauge-overhead) 0 3px,var(--surface) 3px 5px)",
    "overhead": "var(--gauge-overhead)", "user": "var(--unit-user)", "assistant": "var(--unit-assistant)",
    "tool_exchange": "var(--unit-tool-exchange)", "summary": "var(--unit-summary)",
}


def window_section(w: Window) -> str:
    out = ['<section id="window"><h2>The window at the planned call</h2>']
    size = w.tokens or max(w.used_before, 1)
    for when, used in (("before", w.used_before), ("after", w.used_after)):
        spans = "".join(
            f'<span title="{escape(c.label)}: {getattr(c, when):,}" style="width:{100 * getattr(c, when) / size:.2f}%;'
            f'background:{CATEGORY_BACKGROUNDS[c.key]}"></span>'
            for c in w.categories if getattr(c, when) > 0
        )
        reserved = f'<span title="reserved" style="width:{100 * w.reserved / size:.2f}%;background:var(--panel);margin-left:auto"></span>' if w.tokens and w.reserved else ""
        out.append(f'<div class="note">{when} the pipeline: {fig(f"window.used_{when}", used)} tokens'
                   + (f" of a {w.tokens:,}-token window" if w.tokens else "") + "</div>"
                   f'<div class="bar" id="bar-{when}">{spans}{reserved}</div>')
    out.append('<table id="window-table"><tr><th>category</th><th class="num">before</th><th class="num">share</th>'
               '<th class="num">after</th><th class="num">share</th></tr>')

    def share(v: int | None) -> str:
        return "" if not w.tokens or v is None else f"{100 * v / w.tokens:.1f}%"

    for c in w.categories:
        out.append(f'<tr class="cat-{c.key}"><td><span class="legend"><span class="swatch" style="background:{CATEGORY_BACKGROUNDS[c.key]}"></span></span>'
                   f'{escape(c.label)}</td><td class="num">{fig(f"window.{c.key}.before", c.before)}</td><td class="num">{share(c.before)}</td>'
                   f'<td class="num">{fig(f"window.{c.key}.after", c.after)}</td><td class="num">{share(c.after)}</td></tr>')
        if c.key == "tool_exchange":
            for k, t in enumerate(w.tools):
                out.append(f'<tr class="tool"><td>&nbsp;&nbsp;&nbsp;{text(t.label)} <span class="note">(calls and results)</span></td>'
                           f'<td class="num">{fig(f"window.tools.{k}.before", t.before)}</td><td class="num">{share(t.before)}</td>'
                           f'<td class="num">{fig(f"window.tools.{k}.after", t.after)}</td><td class="num">{share(t.after)}</td></tr>')
    for label, key, before, after in (("free", "free", w.free(w.used_before), w.free(w.used_after)),
                                      ("reserved", "reserved", w.reserved if w.tokens else None, w.reserved if w.tokens else None)):
        out.append(f'<tr class="cat-{key}"><td>{label}</td><td class="num">{fig(f"window.{key}.before", before)}</td><td class="num">{share(before)}</td>'
                   f'<td class="num">{fig(f"window.{key}.after", after)}</td><td class="num">{share(after)}</td></tr>')
    out.append("</table></section>")
    return "".join(out)


def messages_section(plan: dict[str, Any], previews: dict[int, str] | None) -> str:
    broken = {v["index"] for items in plan["violations"].values() for v in items}
    out = ['<section id="messages"><h2>Messages under the pipeline</h2><table id="message-table">'
           '<tr><th class="num">#</th><th>role</th><th>unit</th><th class="num">turn</th><th class="num">tokens</th>'
           '<th class="num">after</th><th>status</th><th>reason</th><th>text</th></tr>']
    for k, row in enumerate(plan["messages"]):
        i = row["index"]
        preview = "(redacted)" if previews is None else text(previews.get(i, "")) if i is not None else "(inserted by the pipeline)"
        classes = f"msg unit-{escape(row['unit'])}" + (" violation" if i in broken else "")
        out.append(
            f'<tr class="{classes}" data-index="{"" if i is None else i}"><td class="num">{"+" if i is None else i}</td>'
            f'<td>{escape(row["role"])}</td><td>{escape(row["unit"])}</td><td class="num">{"" if row["turn"] is None else row["turn"]}</td>'
            f'<td class="num">{fig(f"plan.messages.{k}.tokens", row["tokens"])}</td>'
            f'<td class="num">{fig(f"plan.messages.{k}.tokens_after", row["tokens_after"])}</td>'
            f'<td class="st-{escape(row["status"])}">{escape(row["status"])}</td><td>{text(row["reason"])}</td>'
            f'<td class="preview">{preview}</td></tr>'
        )
    out.append("</table>")
    for provider, items in plan["violations"].items():
        verdict = '<span class="ok">valid</span>' if not items else f'<span class="bad">rejected ({len(items)})</span>'
        out.append(f'<p class="validity" data-provider="{escape(provider)}">{escape(provider)}: {verdict}'
                   + "".join(f'<br><span class="bad">message {v["index"]}: {text(v["message"])}</span>' for v in items[:5]) + "</p>")
    out.append("</section>")
    return "".join(out)


def replay_section(replay: dict[str, Any], colours: dict[str, dict[str, str]]) -> str:
    out = ['<section id="replay"><h2>Replay: input tokens of every model call</h2>',
           f'<p class="note"><span class="legend"><span class="swatch" style="background:{colours["chart"]["baseline"]}"></span></span>without a strategy '
           f'<span class="legend"><span class="swatch" style="background:{colours["chart"]["pipeline"]}"></span></span>with the pipeline '
           f'<span class="legend"><span class="swatch" style="background:{colours["base"]["accent"]}"></span></span>recorded by the provider</p>',
           replay_svg(replay, colours),
           '<p>Total input over all calls: ', fig("replay.predicted_total", replay["predicted_total"]), ' without a strategy, ',
           fig("replay.total", replay["total"]), ' with the pipeline (saving ', fig("replay.savings_pct", replay["savings_pct"], pct(replay["savings_pct"])),
           '); recorded: ', fig("replay.recorded_total", replay["recorded_total"]), '.</p>',
           '<table id="replay-table"><tr><th class="num">call</th><th class="num">turn</th><th class="num">baseline</th>'
           '<th class="num">predicted</th><th class="num">with pipeline</th><th class="num">recorded</th></tr>']
    for k, c in enumerate(replay["calls"]):
        out.append(f'<tr class="call"><td class="num">{c["call"]}</td><td class="num">{c["turn"]}</td>'
                   f'<td class="num">{fig(f"replay.calls.{k}.baseline_tokens", c["baseline_tokens"])}</td>'
                   f'<td class="num">{fig(f"replay.calls.{k}.predicted_tokens", c["predicted_tokens"])}</td>'
                   f'<td class="num">{fig(f"replay.calls.{k}.tokens", c["tokens"])}</td>'
                   f'<td class="num">{fig(f"replay.calls.{k}.recorded_tokens", c["recorded_tokens"])}</td></tr>')
    out.append("</table></section>")
    return "".join(out)


def compare_section(compare: dict[str, Any]) -> str:
    header = "preset (pipeline)" if any(row.get("preset") for row in compare["rows"]) else "pipeline"
    out = ['<section id="compare"><h2>Strategies and presets side by side</h2><table id="compare-table"><tr>', f'<th>{header}</th>'
           '<th class="num">tokens at last call</th><th class="num">replay total</th><th class="num">saving</th>'
           '<th class="num">cost</th><th class="num">dollars saved</th><th>valid</th></tr>']
    for k, row in enumerate(compare["rows"]):
        name = f'{row["preset"]} ({row["pipeline"]})' if row.get("preset") else row["pipeline"]
        valid = all(row["valid"].values()) if isinstance(row["valid"], dict) else bool(row["valid"])
        cost = row.get("cost_total")
        saved = row.get("dollars_saved")
        out.append(f'<tr class="compare-row"><td>{text(name)}</td><td class="num">{fig(f"compare.rows.{k}.tokens_last_call", row["tokens_last_call"])}</td>'
                   f'<td class="num">{fig(f"compare.rows.{k}.replay_total", row["replay_total"])}</td>'
                   f'<td class="num">{fig(f"compare.rows.{k}.saving_pct", row["saving_pct"], pct(row["saving_pct"]))}</td>'
                   f'<td class="num">{fig(f"compare.rows.{k}.cost_total", cost, dollars(cost))}</td>'
                   f'<td class="num">{fig(f"compare.rows.{k}.dollars_saved", saved, dollars(saved))}</td>'
                   f'<td class="{"ok" if valid else "bad"}">{"valid" if valid else "invalid"}</td></tr>')
    out.append("</table>")
    if compare.get("prices_as_of"):
        out.append(f'<p class="note">Prices as of {escape(str(compare["prices_as_of"]))}.</p>')
    out.append("</section>")
    return "".join(out)


def budget_sentence(plan: dict[str, Any]) -> str:
    """Which budget the pipeline planned with and why (as the CLI prints it), when one of its
    strategies takes a budget."""
    note = plan.get("budget_note")
    if not note or not any("budget" in stage["params"] for stage in plan["pipeline"]):
        return ""
    return " " + text(note[:1].upper() + note[1:] + ".")


def agent_removed_sentence(plan: dict[str, Any]) -> str:
    """Why the plan's total is not the plan's own where the agent had removed content the file
    still shows (``plan --json``'s ``agent_removed_note``); "" elsewhere."""
    note = plan.get("agent_removed_note")
    return " " + text(note[:1].upper() + note[1:] + ".") if note else ""


def render_page(data: dict[str, Any], colours: dict[str, dict[str, str]], *, redact: bool = False) -> str:
    """The whole page. ``data`` holds the ``info``, ``plan``, ``replay`` and ``compare`` reports and
    ``previews`` and ``tool_of`` (message index -> its text, the first tool it calls or answers);
    with ``redact`` no message text is written."""
    info, plan, replay, compare = data["info"], data["plan"], data["replay"], data["compare"]
    session = info["session"]
    pipeline = ", ".join(s["strategy"] for s in plan["pipeline"]) or "no strategy"
    title = f"context-inspector: {session['path'] if not redact else 'session'}"
    head = (f'<h1>{text(title)}</h1><p class="note">format {escape(str(session["format"]))}: {session["messages"]:,} messages, '
            f'{session["turns"]:,} turns, {session["model_calls"]:,} model calls. Pipeline: {text(pipeline)}; planned at '
            f'{"call " + str(plan["at_call"]) if plan["at_call"] else "the next call"}: {fig("plan.tokens_before", plan["tokens_before"])} → {fig("plan.tokens_after", plan["tokens_after"])} '
            f'tokens (saving {fig("plan.saving", plan["saving"])}). Counted with {escape(str(plan["tokenizer"]))}, '
            f'{escape(str(plan["profile"]))} framing.' + budget_sentence(plan) + agent_removed_sentence(plan) + (" Message text redacted." if redact else "") + "</p>")
    body = "".join((
        head,
        window_section(window_breakdown(info, plan, data.get("tool_of", {}))),
        replay_section(replay, colours),
        compare_section(compare),
        messages_section(plan, None if redact else data.get("previews", {})),
    ))
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'; img-src data:">'
            f'<title>{text(title)}</title><style>{css(colours)}</style></head><body>{body}</body></html>\n')
