"""The window by category is summed in one place (analysis.breakdown.window_categories): the
viewer's gauge and the HTML report's window section give the same figures for the same plan."""

from __future__ import annotations

from pathlib import Path

import inspector
from inspector.analysis.breakdown import window_categories
from inspector.analysis.session import of as analysis_of
from inspector.cli.report import info_report, plan_report
from inspector.report.breakdown import window_breakdown
from inspector.tokens import count_session
from inspector.tui.engine import CATEGORIES, Snapshot, ViewInfo, compute_plan
from inspector.tui.state import PipelineState
from inspector.units import build_view
from tui_helpers import sample

COMPACTED = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "money" / "agentcmd_full-session-four.jsonl"


def test_window_categories_sums_members_drops_unsent_and_adds_inserted() -> None:
    tokens = [10, 20, 30, 40, 50]
    after = [10, 0, 30, 5, 0]
    members = [[0], [1], [2], [3, 4], []]
    before, after_sums = window_categories(members, tokens.__getitem__, after.__getitem__,
                                           [("summary", 7), ("placeholder", 3)], not_sent=[(4, 3)])
    assert before == [10, 20, 30, 40, 0]
    assert after_sums == [10, 0, 30, 8, 7]


def test_the_gauge_and_the_report_agree() -> None:
    for session in (sample("coding_agent.jsonl"), inspector.load(COMPACTED)):
        view = build_view(session)
        table = count_session(session.messages, session.tools, encoding="cl100k_base", profile="openai")
        analysis, info = analysis_of(view, table), ViewInfo(view)
        tool_of = {i: names[0] for i, names in enumerate(view.tool_names) if names}
        for pipeline in ((), ("summarize",), ("tool_pruning", "fifo")):
            state = PipelineState.initial(encoding="cl100k_base", enabled=pipeline).set("budget", 2500)
            for at_call in (None, 2):
                result = compute_plan(Snapshot(1, view, table, state, at_call), info)
                window = window_breakdown(info_report(analysis), plan_report(analysis, result.plan), tool_of)
                report = {c.key: (c.before, c.after) for c in window.categories}
                gauge = {key: (b, a) for (key, _), b, a in zip(CATEGORIES, result.before_by_category, result.by_category)}
                assert report == gauge, (session.path, pipeline, at_call)
