"""The lesson screen (``context-inspector learn``, or ``l`` on the help screen): the steps of
:mod:`inspector.analysis.lesson` one at a time, → / n next, ← / p back, escape closes.

Each step shows its explanation, its pipeline and figures, the provider's error text when the
request would be rejected, and every message of its sample under the step's plan with the rows
it talks about marked ▶. A step on the session the viewer has open also applies its pipeline,
settings and model call to the viewer underneath, so closing the lesson leaves you on it.
"""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.color import Color
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

from ...analysis.lesson import STEPS, Step, step_analysis, step_figures



class LessonScreen(Screen[None]):
    BINDINGS = [
        Binding("right,n,space", "step(1)", "Next step", id="lesson-next"),
        Binding("left,p", "step(-1)", "Previous step", id="lesson-previous"),
        Binding("escape,q", "dismiss", "Close lesson", id="lesson-close"),
    ]
    DEFAULT_CSS = """
    LessonScreen > VerticalScroll { padding: 0 1; }
    """

    def __init__(self, samples: Path, start: int = 0) -> None:
        super().__init__()
        self.samples = samples
        self.index = start
        self._analyses: dict[tuple[str, str | None], Any] = {}
        self.figures: dict[str, Any] = {}

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("", id="lesson-text")
        yield Footer()

    def on_mount(self) -> None:
        self.show()

    @property
    def step(self) -> Step:
        return STEPS[self.index]

    def action_step(self, delta: int) -> None:
        new = max(0, min(len(STEPS) - 1, self.index + delta))
        if new != self.index:
            self.index = new
            self.show()

    def show(self) -> None:
        step = self.step
        key = (step.sample, step.encoding)
        if key not in self._analyses:
            self._analyses[key] = step_analysis(step, self.samples)
        analysis = self._analyses[key]
        self.figures = step_figures(step, self.samples, analysis, every_row=True)
        self.query_one("#lesson-text", Static).update(self.build())
        self.query_one(VerticalScroll).scroll_home(animate=False)
        self._apply_to_viewer(step)

    def _apply_to_viewer(self, step: Step) -> None:
        """Set the viewer's pipeline, settings and call to the step's, when it shows the same file."""
        app = self.app
        path = getattr(app, "session_path", None)
        if path is None or Path(path).name != step.sample or not hasattr(app, "set_state"):
            return
        state = replace(app.state, enabled=frozenset(step.pipeline), preset=None)
        for name, value in step.params.items():
            state = state.set(name, value)
        app.set_state(state)
        app.replay.go_to(step.at_call)

    def status_style(self, status: str) -> Style:
        """The theme's colour of a plan status (``$status-dropped``...), bold unless kept."""
        value = self.app.theme_variables.get(f"status-{status}")
        colour = Color.parse(value).rich_color if value else None
        return Style(color=colour, bold=status != "kept")

    def build(self) -> Group:
        f = self.figures
        n = self.index + 1
        parts: list[Any] = [
            Text(f"Lesson · step {n} of {len(STEPS)}: {f['title']}", style="bold"),
            Text(f["text"] + "\n"),
        ]
        params = ", ".join(f"{k}={v}" for k, v in f["params"].items())
        at = f"call {f['at_call']}" if f["at_call"] else "the next call"
        parts.append(Text(f"{f['sample']} · {','.join(f['pipeline'])}({params}) at {at} · {f['encoding']}, "
                          f"{f['profile']} profile · {f['tokens_before']:,} → {f['tokens_after']:,} tokens"))
        for provider, valid in f["valid"].items():
            if valid:
                parts.append(Text(f"{provider}: valid", style=self.status_style("kept")))
            else:
                parts.append(Text(f"{provider}: rejected: " + "; ".join(f["errors"].get(provider, [])),
                                  style=self.status_style("violation")))
        if "questions" in f:
            parts += [Text(), *question_parts(f["questions"])]
        parts.append(Text())
        rows = Table(box=None, padding=(0, 1), expand=True)
        for column, justify in (("", "left"), ("#", "right"), ("role", "left"), ("unit", "left"), ("tokens", "right"),
                                ("after", "right"), ("status", "left"), ("reason", "left")):
            rows.add_column(column, justify=justify, no_wrap=column != "reason", ratio=1 if column == "reason" else None)
        pointed = set(self.step.point_at)
        for r in f["rows"]:
            mark = "▶" if r["index"] in pointed else ""
            style = "bold" if mark else ""
            rows.add_row(Text(mark, style="bold yellow"), Text(str(r["index"]), style=style), Text(r["role"]),
                         Text(r["unit"]), f"{r['tokens']:,}", f"{r['tokens_after']:,}",
                         Text(r["status"], style=self.status_style(r["status"])), Text(r["reason"]))
        parts.append(rows)
        if f["inserted"]:
            parts.append(Text(f"+ {f['inserted']} message(s) inserted by the pipeline (status inserted)."))
        parts.append(Text("\n→ / n next step · ← / p previous · escape closes"
                          + (" (the viewer keeps this step's pipeline)" if self._same_file() else ""), style="dim"))
        return Group(*parts)

    def _same_file(self) -> bool:
        path = getattr(self.app, "session_path", None)
        return path is not None and Path(path).name == self.step.sample

    def plain(self, width: int = 140) -> str:
        """The step as text (for tests)."""
        console = Console(width=width, record=True, file=io.StringIO())
        console.print(self.build())
        return console.export_text()


def question_parts(q: dict[str, Any]) -> list[Any]:
    table = Table(title="per question: input tokens of the first and last call", box=None, padding=(0, 1))
    for column in ("question", "calls", "first", "last", "first, pruned", "last, pruned"):
        table.add_column(column, justify="right")
    for row in q["questions"]:
        table.add_row(str(row["turn"]), str(row["calls"]), f"{row['first']:,}", f"{row['last']:,}",
                      f"{row['first_pruned']:,}", f"{row['last_pruned']:,}")
    prior = " · ".join(f"turn {p['turn']}: {p['tokens']:,} → {p['pruned']:,}" for p in q["prior_turns"])
    return [table, Text(f"{q['calls']} calls, {q['input_total']:,} input tokens ({q['input_total_pruned']:,} with "
                        f"the pipeline). Prior-turn context at the next question: {prior} tokens.")]
