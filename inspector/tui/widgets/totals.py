"""Totals: tokens before and after, the saving, the budget gauge filled by unit kind, and whether
the pruned history is valid for OpenAI and Anthropic.

The numbers add up on screen: the gauge's categories (system, prompts, answers, tool exchanges,
summaries, not in file, tool definitions + framing) sum to the "after" total, and "before" is
shown as messages + not in file (+ re-sent reasoning) + tool definitions/framing. "Not in file" is what the agent sent
that the file does not show (inferred from recorded usage: inspector.analysis.predict); the
window line shows the model's window, used, free and what the agent reserves (inspector.analysis.window);
once the replay has priced every call, the last line is what the session costs with no strategy
and with the pipeline, through the prompt-cache model, what the file's usage cost, and the price
data's date (inspector.analysis.money). Estimates are labelled: an approximate counter marks every
total with ``≈``, and where the file recorded the call's real input it is shown beside ours.
"""

from __future__ import annotations

import re

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from ...analysis.money import Money
from ...analysis.window import Window, budget_unused_note, session_window
from ...providers.exportable import pending_tool_call, run_end
from ..engine import CATEGORIES, PlanResult
from ...numbers import usd

GAUGE_GLYPHS = ("█", "▓", "▒", "▚", "▞", "▫", "▪")
FREE_GLYPH = "░"
COMPACT_BELOW = 140  # content width under which the labels are shortened
#: The gauge's "not in file" category where the call also re-sends earlier reasoning (counted 0
#: in the rows): the two together, as the "before" line shows them apart.
RESENT_NAME = "not in file+reasoning"
COMPACT_NAMES = {RESENT_NAME: "not in file+rsn", "tool exchanges": "tools", "summaries": "summ", "tool defs + framing": "defs+framing"}
CATEGORY_CLASSES = (
    "totals--system",
    "totals--user",
    "totals--assistant",
    "totals--tool-exchange",
    "totals--summary",
    "totals--not-in-file",
    "totals--overhead",
)


def short(n: int) -> str:
    """12345 -> '12.3k', 1234567 -> '1.23M', 304816043616 -> '304.82B'."""
    a = abs(n)
    if a < 1000:
        return f"{n}"
    if a < 100_000:
        return f"{n / 1000:.1f}k"
    if a < 1_000_000:
        return f"{n / 1000:.0f}k"
    if a < 999_995_000:  # (not '1000.00M')
        return f"{n / 1_000_000:.2f}M"
    return f"{n / 1_000_000_000:.2f}B"


def split_widths(values: list[int], scale: int, width: int) -> list[int]:
    """Cells per value on a bar of ``width`` cells for ``scale`` tokens, rounding so the cells of
    the running total are exact (no drift) and a non-zero value gets at least one cell when it can."""
    if scale <= 0 or width <= 0:
        return [0] * len(values)
    out = []
    running = 0
    placed = 0
    for v in values:
        running += v
        end = min(width, round(running * width / scale))
        cells = max(0, end - placed)
        if v > 0 and cells == 0 and placed < width:
            cells = 1
        out.append(cells)
        placed += cells
    return out


class TotalsBar(Widget):
    COMPONENT_CLASSES = {
        "totals--label",
        "totals--number",
        "totals--saving",
        "totals--estimate",
        "totals--recorded",
        "totals--free",
        "totals--over",
        "totals--valid",
        "totals--invalid",
        "totals--muted",
        *CATEGORY_CLASSES,
    }
    DEFAULT_CSS = """
    TotalsBar { height: auto; background: $panel; color: $foreground; padding: 0 1; text-wrap: nowrap; text-overflow: clip; }
    TotalsBar > .totals--label { color: $text-muted; }
    TotalsBar > .totals--number { color: $foreground; text-style: bold; }
    TotalsBar > .totals--saving { color: $success; text-style: bold; }
    TotalsBar > .totals--estimate { color: $warning; }
    TotalsBar > .totals--recorded { color: $secondary; }
    TotalsBar > .totals--free { color: $gauge-free; }
    TotalsBar > .totals--over { color: $error; text-style: bold; }
    TotalsBar > .totals--valid { color: $success; text-style: bold; }
    TotalsBar > .totals--invalid { color: $status-violation; text-style: bold; }
    TotalsBar > .totals--muted { color: $text-muted; }
    TotalsBar > .totals--system { color: $unit-system; }
    TotalsBar > .totals--user { color: $unit-user; }
    TotalsBar > .totals--assistant { color: $unit-assistant; }
    TotalsBar > .totals--tool-exchange { color: $unit-tool-exchange; }
    TotalsBar > .totals--summary { color: $unit-summary; }
    TotalsBar > .totals--overhead { color: $gauge-overhead; }
    TotalsBar > .totals--not-in-file { color: $gauge-overhead; text-style: italic; }
    """

    def __init__(self, *, id: str | None = None, model: str | None = None) -> None:
        super().__init__(id=id)
        self.model = model  # the viewer's --model: its window, not the file's model's
        self.result: PlanResult | None = None
        self.recorded: int | None = None
        self.counting: str = ""
        self.window: Window | None = None
        self._window_of: tuple[int, int] | None = None  # (session id, messages) the window was read for
        self.money: Money | None = None  # the whole session priced (None: not yet, or stale)
        self._built: tuple[tuple, Text] | None = None  # the last build, by what it was built from
        #: A short screen (under 28 lines): the lines the window screen (``w``) also shows are left
        #: out (the counter's name, what "before" is made of, the window line), so the list keeps rows.
        self.brief = False

    def set_brief(self, brief: bool) -> None:
        if brief != self.brief:
            self.brief = brief
            self._changed()

    def _changed(self) -> None:
        """Repaint; lay the screen out again only when the bar's height changes (a layout of
        the whole screen costs more than the key's plan at 50,000 messages)."""
        width = self.size.width
        if not width:
            self.refresh(layout=True)
            return
        lines = self._text(width).plain.count("\n") + 1
        self.refresh(layout=lines != self.size.height)

    def show(self, result: PlanResult, recorded: int | None, counting: str = "") -> None:
        session = result.snapshot.view.session
        key = (id(session), len(session.messages))  # a followed session grows: its model may change
        if key != self._window_of:
            self.window, self._window_of = session_window(session, self.model), key
        self.result = result
        self.recorded = recorded
        self.counting = counting
        self._changed()

    def show_money(self, money: Money | None) -> None:
        if money is not self.money:
            self.money = money
            self._changed()

    def s(self, name: str) -> Style:
        return self.get_component_rich_style(name)

    def render(self) -> Text:
        return self._text(self.size.width)

    def get_content_height(self, container, viewport, width: int) -> int:
        return self._text(width).plain.count("\n") + 1

    def _text(self, width: int) -> Text:
        """:meth:`build`, once per width, theme and shown values (show, render and the layout
        all ask for it)."""
        key = (width, self.app.theme, self.recorded, self.counting, self.brief, self.result, self.money)
        built = self._built
        # the result and the prices by identity: comparing a result's fields walks its rows
        if built is None or built[0][:5] != key[:5] or any(a is not b for a, b in zip(built[0][5:], key[5:])):
            built = self._built = (key, self.build(width))
        return built[1]

    def build(self, width: int) -> Text:
        """Four logical lines; under ``COMPACT_BELOW`` cells the labels are shortened, and a line
        that still does not fit wraps between its segments (never cuts a figure off)."""
        r = self.result
        if r is None:
            return Text("counting tokens…", style=self.s("totals--label"))
        width = max(20, width)
        compact = width < COMPACT_BELOW
        exact = r.snapshot.table.exact
        approx = "" if exact else "≈"
        num = self.s("totals--number")
        label = self.s("totals--label")
        lines: list[list[Segment]] = []
        # line 1: before -> after, saving, where we are, estimate labels
        view = r.snapshot.view
        at = r.snapshot.at_call
        if at is None:
            where = "next call" if compact else f"next call (after all {len(view):,} messages)"
        else:
            call = view.calls[at - 1]
            where = (f"call {at}/{len(view.calls)}" if compact else
                     f"call {at}/{len(view.calls)} (turn {call.turn}, reply = #{call.message_index})")
        line: list[Segment] = [[(f"{where}  ", label)]]
        line.append([("before ", label), (f"{approx}{r.tokens_before:,}", num),
                     (" → after ", label), (f"{approx}{r.tokens_after:,}", num)])
        saving = r.tokens_before - r.tokens_after
        pct = 100.0 * saving / r.tokens_before if r.tokens_before else 0.0
        line.append([("  saving ", label), (f"{saving:,} ({pct:.1f}%)", self.s("totals--saving"))])
        table = r.snapshot.table
        counter = f"{table.encoding}/{table.profile}"
        if not exact:  # the tokenizer's own label says which estimate (claude, chars/4, another model's encoding)
            line.append([(f"  {table.label} · {table.profile}", self.s("totals--estimate"))])
        elif table.profile == "anthropic":
            line.append([(f"  {counter} (Anthropic estimate)", self.s("totals--estimate"))])
        elif not self.brief:
            line.append([(f"  counted: {counter}", label)])
        if self.recorded is not None:
            seg: Segment = [("  recorded by the file: ", label), (f"{self.recorded:,}", self.s("totals--recorded"))]
            if r.tokens_before:
                seg.append((f" (ratio {self.recorded / r.tokens_before:.2f})", label))
            line.append(seg)
        if self.counting:
            line.append([(f"  {self.counting}", self.s("totals--estimate"))])
        lines.append(line)
        # line 2: the gauge
        budget = r.snapshot.state.settings.budget
        after = r.by_category
        total_after = sum(after)
        scale = max(budget or 0, total_after, 1) if budget else max(r.tokens_before, 1)
        head = f"budget {short(budget)} " if budget else "no budget  "
        gauge: Segment = [(head.ljust(13), label)]
        bar_width = max(10, width - 13 - 24)
        cells = split_widths(after, scale, bar_width)
        budget_cell = round(budget * bar_width / scale) if budget else None
        drawn = 0
        for k, n in enumerate(cells):
            glyph = GAUGE_GLYPHS[k]
            style = self.s(CATEGORY_CLASSES[k])
            for _ in range(n):
                if budget_cell is not None and drawn >= budget_cell:
                    style = self.s("totals--over")
                gauge.append((glyph, style))
                drawn += 1
        free_cells = bar_width - drawn
        if free_cells > 0:
            gauge.append((FREE_GLYPH * free_cells, self.s("totals--free")))
        used_pct = 100.0 * total_after / budget if budget else 100.0 * total_after / max(r.tokens_before, 1)
        unused = ""
        if budget and total_after > budget:
            gauge.append((f" {used_pct:.0f}% over by {total_after - budget:,}", self.s("totals--over")))
            state = r.snapshot.state
            unused = budget_unused_note(state.settings, state.pipeline, r.tokens_before,
                                        f"the preset {state.preset}" if state.preset else None,
                                        r.plan.stages if r.plan is not None else ())
        elif budget:
            gauge.append((f" {used_pct:.0f}% of budget", label))
        else:
            gauge.append((f" {used_pct:.0f}% of before", label))
        credit = r.total.note if r.total is not None else ""
        notes = "; ".join(n for n in (unused, credit) if n)
        # the notes word by word, so a narrow screen wraps them instead of cutting their end off
        words = f"({notes})".split() if notes else []
        lines.append([gauge, *([(" " * (k == 0) + word, label), (" ", None)] for k, word in enumerate(words))])
        # line 3: legend that sums to "after"
        line = []
        for k, (key, name) in enumerate(CATEGORIES):
            if key == "not_in_file" and r.resent:
                name = RESENT_NAME
            line.append([(GAUGE_GLYPHS[k] + " ", self.s(CATEGORY_CLASSES[k])),
                         (f"{COMPACT_NAMES.get(name, name) if compact else name} ", label),
                         (f"{approx}{after[k]:,}", num), ("  ", None)])
        if budget:
            free = budget - total_after
            line.append([(FREE_GLYPH + " ", self.s("totals--free")), ("free ", label), (f"{max(free, 0):,}", num)])
        lines.append(line)
        # line 4: validity, and what "before" is made of
        line = []
        for provider, name in (("openai", "OpenAI"), ("anthropic", "Anthropic")):
            if provider not in r.violations:
                verdict = ("? not checked  ", self.s("totals--muted"))
            elif r.violations[provider] and r.plan is not None and (pending := pending_tool_call(r.plan, provider)) is not None:
                # a live session while the agent runs a tool: the next request waits for its result
                text = "… awaiting a tool result  " if compact else "… awaiting the last tool call's result  "
                if run_end(r.plan, pending[0]):  # or the run ended on that call: there is no next request
                    text = "■ run ended on a tool call  " if compact else "■ the run ended on its last tool call  "
                verdict = (text, self.s("totals--muted"))
            elif r.violations[provider]:
                n = len(r.violations[provider])
                verdict = (f"✗ INVALID: {n} rule break{'s' if n != 1 else ''} (v)  ", self.s("totals--invalid"))
            else:
                verdict = ("✓ valid  ", self.s("totals--valid"))
            line.append([(f"{name} ", label), verdict])
        if not self.brief:
            line.append([[(" before = msgs " if compact else " before = messages ", label),  # a group: see wrap_segments
                          (f"{approx}{r.sent_messages_before:,}", num)],
                         [(" + not in file ", label), (f"{r.plan.not_in_file - r.resent if r.plan else 0:,}", num)],
                         *([[(" + re-sent reasoning ", label), (f"{r.resent:,}", num)]] if r.resent else []),
                         [(" + defs+framing " if compact else " + tool defs & framing ", label),
                          (f"{table.overhead:,}", num)]])
        if r.error:
            line.append([(f"  {r.error}", self.s("totals--invalid"))])
        lines.append(line)
        if not self.brief:
            lines.append(self._window_line(r, label, num, compact))
        # always a line (the bar keeps its height when the prices arrive: rows below do not move)
        lines.append(self._money_line(self.money, label, num, compact) if self.money is not None else
                     [[("session cost " if not compact else "cost ", label),
                       ("priced once every call is replayed (not for a sampled replay)", self.s("totals--muted"))]])
        t = Text(no_wrap=True, overflow="crop")
        for k, line in enumerate(lines):
            if k:
                t.append("\n")
            wrap_segments(t, line, width)
        return t


    def _window_line(self, r: PlanResult, label: Style, num: Style, compact: bool) -> list[Segment]:
        """Line 5: the model's window, what this call uses of it, what is free, and how much of
        that the agent keeps in reserve before it compacts (the budget's "free" is what is left
        below the agent's compaction point)."""
        window = self.window or session_window(r.snapshot.view.session, self.model)
        used = r.tokens_after
        line: list[Segment] = [[("window ", label), (f"{window.tokens:,}", num),
                                (f" ({window.model + ', ' if window.model else ''}{window.source}):", label)],
                               [(" used ", label), (f"{used:,}", num), (",", label)],
                               [(" free ", label), (f"{max(window.free(used), 0):,}", num), ("," if window.reserved else "", label)]]
        if window.reserved:
            line.append([(" of which the agent reserves ", label), (f"{window.reserved:,}", num)])
            if not compact:
                line.append([(f" ({window.reserved_note})", label)])
        return line


    def _money_line(self, money: Money, label: Style, num: Style, compact: bool) -> list[Segment]:
        """The session's cost with no strategy and with the pipeline (sub-agents included), what
        the recorded usage cost, and the price data's date."""
        base, cost, recorded = money.total("baseline_cost"), money.total("cost"), money.total("recorded_cost")
        if base is None or cost is None:
            why = f"the price data does not know {', '.join(money.unknown_models)}" if money.unknown_models else "the file names no model"
            return [[("cost ", label), (f"not priced: {why}", self.s("totals--muted"))]]
        pct = 100.0 * float(base - cost) / float(base) if base else 0.0
        line: list[Segment] = [[("session cost " if not compact else "cost ", label), (usd(float(base)), num),
                                (" → with pipeline " if not compact else " → ", label), (usd(float(cost)), num)],
                               [(f" ({pct:.1f}% saved)" if pct >= 0 else f" ({-pct:.1f}% more)",
                                 self.s("totals--saving") if pct >= 0 else self.s("totals--over"))]]
        if recorded is not None:
            line.append([("  recorded usage " if not compact else "  recorded ", label), (usd(float(recorded)), self.s("totals--recorded"))])
        if not compact:
            line.append([("  cache-aware", label)])
        line.append([(f"  prices {money.prices_as_of.split(' ')[0]}", label)])
        return line


Segment = list[tuple[str, "Style | None"]]  # pieces of one unbreakable run of text
Group = list[Segment]  # runs that stay on one line if they fit there, else start a line and wrap between them


def wrap_segments(t: Text, segments: list[Segment | Group], width: int) -> None:
    """Append segments to ``t`` on lines of ``width`` cells, breaking only between segments; a
    segment that starts a new line loses its leading spaces, trailing spaces never force a break.
    A group goes whole where it fits, else on a line of its own, wrapping between its segments;
    a segment wider than ``width`` wraps between its words."""
    used, broke = 0, False
    for k, item in enumerate(segments):
        group = bool(item) and isinstance(item[0], list)
        parts: list[Segment] = item if group else [item]  # type: ignore[assignment]
        whole = cell_len("".join(text for seg in parts for text, _ in seg).rstrip())
        if group and k and used + whole > width:
            t.append("\n")
            used, broke = 0, True
        for n, seg in enumerate(_words_if_wider(parts, width)):
            size = cell_len("".join(text for text, _ in seg).rstrip())
            if (k or n) and used and used + size > width:
                t.append("\n")
                used, broke = 0, True
            if broke:
                first, style = seg[0]
                seg = [(first.lstrip(), style), *seg[1:]]
                broke = False
            for text, style in seg:
                t.append(text, style)
                used += cell_len(text)


def _words_if_wider(segments: list[Segment], width: int) -> list[Segment]:
    """``segments`` with each one wider than ``width`` cut into its words (each keeps the spaces
    before it), so that a long run (a window's source) wraps between words instead of being cut."""
    out: list[Segment] = []
    for seg in segments:
        if cell_len("".join(text for text, _ in seg).rstrip()) <= width:
            out.append(seg)
            continue
        for text, style in seg:
            out.extend([[(word, style)] for word in re.findall(r"\s*\S+|\s+$", text)])
    return out
