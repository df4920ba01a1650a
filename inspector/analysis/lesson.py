"""The lesson (``context-inspector learn`` and the viewer's lesson screen): the seeds' story, step by
step, on the bundled samples.

Each :class:`Step` names a sample, a pipeline with its settings, the model call to plan and the
rows to look at; :func:`step_figures` plans it and returns the figures the views show (tokens
before and after, validity with the provider's own error text, the rows pointed at with their
status and reason). The last step replays tool pruning on ``measured_three_questions.json`` and
reports, per question, the first and last call's input and the prior turns' context, the
seeds' measured table. Nothing here prints; views draw these dicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: The tokenizer and framing the seeds' table was measured with.
MEASURED_ENCODING = "cl100k_base"
MEASURED_PROFILE = "openai"
MEASURED_SAMPLE = "measured_three_questions.json"


@dataclass(frozen=True)
class Step:
    """One step of the lesson: what to open, which pipeline to apply, what to look at."""

    key: str
    title: str
    sample: str
    pipeline: tuple[str, ...]
    text: str
    params: dict[str, Any] = field(default_factory=dict)
    at_call: int | None = None  # None: the next call
    point_at: tuple[int, ...] = ()  # message indices the step talks about
    encoding: str | None = None  # None: the sample's model's tokenizer
    replay: bool = False  # also replay the pipeline over every call, per question


STEPS: tuple[Step, ...] = (
    Step(
        "naive_fifo",
        "Drop the oldest messages, one at a time",
        MEASURED_SAMPLE,
        ("fifo",),
        "A naive FIFO loop drops the oldest message until the history fits 3,000 tokens. It stops "
        "between a tool call and its result: the call (row 10) is gone, its result (row 11) stays, "
        "and both providers reject the request with the error shown.",
        {"budget": 3000, "pair_safe": False},
        point_at=(10, 11),
    ),
    Step(
        "pair_safe_fifo",
        "Drop a tool call and its result together",
        MEASURED_SAMPLE,
        ("fifo",),
        "The same loop, pair-safe: a tool call and every result that answers it are one unit, dropped "
        "together. Row 11 goes with row 10, the request is valid, and it is smaller still.",
        {"budget": 3000, "pair_safe": True},
        point_at=(10, 11),
    ),
    Step(
        "truncate_results",
        "Cut large tool results to 2,000 tokens",
        "hr_leave_balance.json",
        ("truncate_results",),
        "A database query returned 8,404 tokens of rows. truncate_results keeps its first 2,000 tokens "
        "and appends a marker that tells the model how much was cut, so it can ask again.",
        {"max_result_tokens": 2000},
        point_at=(9,),
    ),
    Step(
        "sliding_window",
        "Keep only the last turns",
        "coding_agent.jsonl",
        ("sliding_window",),
        "A sliding window of 2 turns, at call 20: every message of turns 1 and 2 is dropped, whole "
        "turns at a time, so no tool exchange is split. What the user asked first is gone too.",
        {"window_turns": 2},
        at_call=20,
        point_at=(1, 2),
    ),
    Step(
        "summarize",
        "Replace the oldest messages by a summary",
        "coding_agent.jsonl",
        ("summarize",),
        "Over a 5,000-token budget, summarize replaces the oldest messages by one summary of at most "
        "300 tokens (simulated here: an extract). The inserted row is the summary; the rows it "
        "replaces say so.",
        {"budget": 5000},
        at_call=20,
        point_at=(1, 2),
    ),
    Step(
        "tool_pruning",
        "Keep each earlier turn's question and answer",
        MEASURED_SAMPLE,
        ("tool_pruning",),
        "Three questions, 11 model calls. Every call re-sends the earlier turns' tool calls and "
        "results. Tool pruning keeps only each earlier turn's question and final answer: the prior "
        "turns' 573 and 1,133 tokens become 188 and 300. Counted with cl100k_base and the openai "
        "profile, the replay reproduces the measured table.",
        at_call=5,
        point_at=(1, 2, 3, 8),
        encoding=MEASURED_ENCODING,
        replay=True,
    ),
)


def step_named(key: str) -> Step:
    for step in STEPS:
        if step.key == key:
            return step
    raise KeyError(f"no lesson step {key!r}; have: {', '.join(s.key for s in STEPS)}")


def step_analysis(step: Step, samples: Path):
    """The step's sample read and counted (with the step's tokenizer, else the model's)."""
    import inspector

    from ..formats import session_profile
    from ..tokens import resolve

    session = inspector.load(samples / step.sample)
    profile = session_profile(session)
    resolution = resolve(session.model, step.encoding, profile)
    return inspector.analyze(session, resolution.counter, profile, session.model)


def step_figures(step: Step, samples: Path, analysis=None, *, every_row: bool = False) -> dict[str, Any]:
    """What the step shows: its plan's figures, validity, the provider's error text, the rows it
    points at (``every_row``: every message's row); for a replay step, the per-question table too."""
    import inspector

    analysis = analysis or step_analysis(step, samples)
    plan = inspector.plan(analysis, step.pipeline, at_call=step.at_call, **step.params)
    decisions = {d.index: d for d in plan.decisions() if d.index is not None}
    view = analysis.view
    rows = [
        {
            "index": i,
            "role": view.roles[i],
            "unit": view.units[view.unit_of[i]].kind.value,
            "tokens": decisions[i].tokens,
            "tokens_after": decisions[i].tokens_after,
            "status": decisions[i].status.value,
            "reason": decisions[i].reason,
        }
        for i in (sorted(decisions) if every_row else step.point_at)
        if i in decisions
    ]
    out: dict[str, Any] = {
        "key": step.key,
        "title": step.title,
        "text": step.text,
        "sample": step.sample,
        "pipeline": list(step.pipeline),
        "params": dict(step.params),
        "encoding": analysis.table.encoding,
        "profile": analysis.table.profile,
        "at_call": plan.call.number if plan.call is not None else None,
        "tokens_before": plan.tokens_before,
        "tokens_after": plan.tokens_after,
        "valid": dict(plan.valid),
        "errors": {provider: [v.message for v in items] for provider, items in plan.violations.items() if items},
        "rows": rows,
        "inserted": len(plan.inserted),
    }
    if step.replay:
        out["questions"] = question_table(analysis, step.pipeline)
    return out


def question_table(analysis, pipeline: tuple[str, ...]) -> dict[str, Any]:
    """Per question (turn): the first and last call's input without and with ``pipeline``, and the
    context each earlier turn adds to the next question's first call."""
    import inspector

    base = inspector.replay(analysis, ())
    pruned = inspector.replay(analysis, pipeline)
    turns: dict[int, list[int]] = {}
    for k, call in enumerate(base.calls):
        turns.setdefault(call.turn, []).append(k)
    questions = []
    for turn, ks in sorted(turns.items()):
        first, last = ks[0], ks[-1]
        questions.append(
            {
                "turn": turn,
                "calls": len(ks),
                "first": base.calls[first].tokens,
                "last": base.calls[last].tokens,
                "first_pruned": pruned.calls[first].tokens,
                "last_pruned": pruned.calls[last].tokens,
            }
        )
    # what each earlier turn adds to the next question's first call, and what the pipeline keeps of it
    prior = []
    for turn, ks in sorted(turns.items())[1:]:
        plan = inspector.plan(analysis, pipeline, at_call=base.calls[ks[0]].call)
        earlier = [d for d in plan.decisions() if d.index is not None and analysis.view.turn_of[d.index] == turn - 1]
        prior.append({"turn": turn - 1, "tokens": sum(d.tokens for d in earlier),
                      "pruned": sum(d.tokens_after for d in earlier)})
    return {
        "questions": questions,
        "calls": len(base.calls),
        "input_total": base.total,
        "input_total_pruned": pruned.total,
        "prior_turns": prior,
    }
