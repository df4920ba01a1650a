"""``compact`` with ``keep_user_tokens`` (the codex preset) rebuilds the history as Codex's
compaction does (openai/codex ``codex-rs/core/src/compact.rs`` at e06dd0e,
``collect_user_messages`` and ``build_compacted_history``): the newest user messages a person
wrote within the budget, then one summary; earlier summaries, sub-agent messages and Codex's
own warnings are replaced, harness context is kept. Exact kept indices on hand-made sessions
(approx tokens), and the user messages the public rollouts' ``replacement_history`` keeps."""

from __future__ import annotations

from pathlib import Path

import pytest

import inspector
from inspector.analysis import compaction
from inspector.analysis.predict import hidden_per_call
from inspector.analysis.window import with_session_window
from inspector.presets import resolve
from inspector.strategies import Settings, plan
from inspector.strategies.base import Reason
from inspector.strategies.compact import codex_user_kinds, compact_now
from inspector.strategies.pipeline import start
from inspector.units import is_summary_text

from strategy_builders import SessionBuilder, text_of

REAL = Path(__file__).parent / "fixtures" / "real"


def _kinds_session() -> SessionBuilder:
    b = SessionBuilder()
    b.system("sys")  # 0
    b.user("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>")  # 1: harness context
    b.user("first question")  # 2
    b.exchange("bash", "{}", text_of(100))  # 3, 4
    b.answer("done")  # 5
    # 6: a summary an earlier compaction left (Codex's SUMMARY_PREFIX)
    b.user("Another language model started to solve this problem and produced a summary of its thinking process. Summary: old")
    b.user("Warning: apply_patch was requested via exec_command. Use the apply_patch tool instead of exec_command.")  # 7
    b.user("second question")  # 8
    b.answer("ok")  # 9
    b.user("third question")  # 10
    return b


def _sent(p) -> list:
    return [slot if type(slot) is int else slot.kind for slot in p.sequence]


def test_codex_keeps_only_user_messages_a_person_wrote_and_the_harness_context():
    a = _kinds_session().analyze()
    assert list(codex_user_kinds(a.view)) == [0, 2, 1, 0, 0, 0, 0, 0, 1, 0, 1]
    totals = a.table.totals
    # the two newest fit exactly: the summary and the warning are replaced, not kept, and the
    # context is kept outside the budget
    s = Settings(compact_tokens=0, keep_user_tokens=totals[8] + totals[10], summary_tokens=20)
    p = plan(a.view, a.table, ("compact",), s)
    assert _sent(p) == [0, 1, 8, 10, "summary"]
    assert p.inserted[0].replaces == (2, 3, 4, 5, 6, 7, 9)
    # one token short of the three: the newest two (Codex would cut the first question to what is left)
    s = s.model_copy(update={"keep_user_tokens": totals[2] + totals[8] + totals[10] - 1})
    assert _sent(plan(a.view, a.table, ("compact",), s)) == [0, 1, 8, 10, "summary"]
    s = s.model_copy(update={"keep_user_tokens": 10_000})
    assert _sent(plan(a.view, a.table, ("compact",), s)) == [0, 1, 2, 8, 10, "summary"]


def test_a_second_compaction_replaces_the_first_summary():
    b = SessionBuilder()
    b.system("sys")
    for t in range(4):  # users at 1, 5, 9, 13
        b.user(f"question {t}")
        b.exchange("bash", "{}", text_of(300))
        b.answer(f"answer {t}")
    a = b.analyze()
    view, table = a.view, a.table
    s = Settings(compact_tokens=400, keep_user_tokens=1_000, summary_tokens=20)
    states, requests = {}, {}
    calls = compaction.replay_compacting(view, table, ("compact",), s, hidden_per_call(view, table),
                                         on_state=lambda n, state, w: (states.__setitem__(n, state), requests.__setitem__(n, w)))
    assert [c.call for c in calls if c.compacted_by] == [4, 8]
    assert [x if type(x) is int else x.kind for x in states[7].slots] == [0, 1, 5, "summary"]
    # Codex: the user messages, then the one new summary, in the compaction's own request too
    # (the first summary went with what it replaced; it stood before 9 and was sent again)
    assert [x if type(x) is int else x.kind for x in requests[8].order] == [0, 1, 5, 9, 13, "summary"]
    assert [x if type(x) is int else x.kind for x in states[8].slots] == [0, 1, 5, 9, 13, "summary"]
    summary = states[8].slots[-1]
    assert calls[-1].tokens == table.overhead + sum(table.totals[i] for i in (0, 1, 5, 9, 13)) + summary.tokens


@pytest.mark.parametrize(
    ("name", "compactions"),
    [
        ("compactions/entiregraph_codex0.136.0_auto-compact.jsonl", 1),
        ("compactions/entiregraph_codex0.145.0-alpha.18_two-compactions.jsonl", 2),
        ("codex/rollout-2026-02-11T14-05-00-0195a3c2-7b1e-7f40-9d2a-41c8e07b5a19.jsonl", 1),
    ],
)
def test_compacting_before_a_recorded_compaction_keeps_the_user_messages_codex_kept(name, compactions):
    """At every compaction the file records, compacting the history of the call before it keeps
    the user messages its ``replacement_history`` holds, in order (the trimmed copies cut long
    texts, so their starts are compared); the second 0.145 compaction keeps the first
    one's user messages and not its summary."""
    session = inspector.load(str(REAL / name))
    view, table = (a := inspector.analyze(session)).view, a.table
    _, _, settings = resolve("codex")
    settings = with_session_window(settings, session, set())
    kinds = codex_user_kinds(view)
    calls = view.calls
    checked = 0
    for c in calls[1:]:
        previous = calls[c.number - 2]
        if c.context_start == previous.context_start:
            continue
        w = start(view, table, settings, previous.number)
        compact_now(w, Reason("recorded compaction before call {}", (c.number,)))
        ours = [view.messages[i].text[:40] for i in w.order if type(i) is int and kinds[i] == 1]
        recorded = []
        for i in range(c.context_start, c.message_index):
            m = view.messages[i]
            if m.is_summary or is_summary_text(m.text):
                break
            if kinds[i] == 1:
                recorded.append(m.text[:40])
        assert ours == recorded and ours
        checked += 1
    assert checked == compactions
