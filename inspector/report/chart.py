"""The replay chart as inline SVG: input tokens per model call without and with the pipeline,
the usage the file recorded beside them, y-axis ticks, compaction points marked."""

from __future__ import annotations

from html import escape
from typing import Any

WIDTH, HEIGHT = 920, 260
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 34


def nice_ticks(top: int, count: int = 5) -> list[int]:
    """Round tick values from 0 to at least ``top`` (steps of 1, 2 or 5 times a power of ten)."""
    if top <= 0:
        return [0]
    raw = top / count
    power = 10 ** (len(str(int(raw))) - 1)
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    return list(range(0, top + step, step))


def replay_svg(replay: dict[str, Any], colours: dict[str, dict[str, str]]) -> str:
    calls = replay["calls"]
    if not calls:
        return '<p class="note">No model calls to chart.</p>'
    values = [c["predicted_tokens"] for c in calls] + [c["tokens"] for c in calls]
    values += [c["recorded_tokens"] for c in calls if c["recorded_tokens"] is not None]
    ticks = nice_ticks(max(values))
    top = ticks[-1] or 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    n = len(calls)

    def x(k: int) -> float:
        return LEFT + (plot_w * (k + 0.5) / n)

    def y(v: int) -> float:
        return TOP + plot_h * (1 - v / top)

    chart, base = colours["chart"], colours["base"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" id="replay-chart" viewBox="0 0 {WIDTH} {HEIGHT}" '
             f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-label="input tokens per model call">']
    for t in ticks:
        parts.append(f'<line x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(t):.1f}" y2="{y(t):.1f}" stroke="{base["panel"]}"/>'
                     f'<text class="tick" x="{LEFT - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{t:,}</text>')
    bar = max(plot_w / n * 0.36, 1.0)
    for k, c in enumerate(calls):
        if c["compacted_by"] or c["kind"] != "call":
            parts.append(f'<line class="compaction" x1="{x(k):.1f}" x2="{x(k):.1f}" y1="{TOP}" y2="{TOP + plot_h}" '
                         f'stroke="{chart["cursor"]}" stroke-dasharray="4 3"><title>call {c["call"]}: '
                         f'{escape(str(c["compacted_by"] or c["kind"]))}</title></line>')
        parts.append(f'<rect class="bar-baseline" x="{x(k) - bar:.1f}" y="{y(c["predicted_tokens"]):.1f}" width="{bar:.1f}" '
                     f'height="{plot_h * c["predicted_tokens"] / top:.1f}" fill="{chart["baseline"]}">'
                     f'<title>call {c["call"]}: {c["predicted_tokens"]:,} without a strategy</title></rect>')
        parts.append(f'<rect class="bar-pipeline" x="{x(k):.1f}" y="{y(c["tokens"]):.1f}" width="{bar:.1f}" '
                     f'height="{plot_h * c["tokens"] / top:.1f}" fill="{chart["pipeline"]}">'
                     f'<title>call {c["call"]}: {c["tokens"]:,} with the pipeline</title></rect>')
        if c["recorded_tokens"] is not None:
            parts.append(f'<circle class="recorded" cx="{x(k) - bar / 2:.1f}" cy="{y(c["recorded_tokens"]):.1f}" r="3.5" '
                         f'fill="{base["accent"]}"><title>call {c["call"]}: {c["recorded_tokens"]:,} recorded</title></circle>')
    step = max(1, n // 20)
    for k in range(0, n, step):
        parts.append(f'<text class="tick" x="{x(k):.1f}" y="{HEIGHT - BOTTOM + 16}" text-anchor="middle">{calls[k]["call"]}</text>')
    parts.append(f'<text class="tick" x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 4}" text-anchor="middle">model call</text>')
    parts.append("</svg>")
    return "".join(parts)
