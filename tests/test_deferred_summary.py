"""A summary's text is built only when read (:class:`inspector.strategies.deferred.DeferredInserted`):
a compacting replay counts every summary without building one text, the text read later is the
one the builder makes, and summaries with the same key compare equal (and send the same request
piece) without building theirs."""

from __future__ import annotations

import pickle
from unittest import mock

from inspector.analysis import compaction
from inspector.analysis.requests import inserted_key
from inspector.presets import resolve
from inspector.strategies import summarize
from inspector.strategies.base import Inserted
from inspector.strategies.compact import _safe_cuts
from inspector.strategies.deferred import DeferredInserted
from inspector.strategies.summarize import safe_cut_at

from strategy_builders import SessionBuilder, text_of


def _session():
    b = SessionBuilder()
    b.system("You are a coding agent.")
    for t in range(6):
        b.user(f"task {t}: " + text_of(20))
        for _ in range(3):
            b.exchange("Read", "{}", text_of(40))
        b.answer(f"answer {t}")
    return b.analyze()


def _states(a, overrides: dict):
    """Per compaction, the summaries of the state it kept (the replay sized from the state)."""
    _, names, settings = resolve("langchain-summarization", overrides)
    states: dict[int, object] = {}
    calls = compaction.replay_compacting(a.view, a.table, names, settings, [0] * len(a.view.calls),
                                         on_state=lambda n, state, w: states.__setitem__(n, state))
    return [[x for x in states[c.call].slots if type(x) is not int] for c in calls if c.kind == "summary"]


def test_a_compacting_replay_builds_no_summary_text_and_reading_one_builds_the_builders():
    a = _session()
    built = []
    text = summarize._SummaryBuilder.text
    with mock.patch.object(summarize._SummaryBuilder, "text", lambda self, cut: built.append(cut) or text(self, cut)):
        summaries = _states(a, {"compact_tokens": 300, "keep_tail_messages": 2, "summary_tokens": 500})
        assert [len(s) for s in summaries] == [1] * 9 and built == []
        last = summaries[-1][0]
        assert type(last) is DeferredInserted and len(last.replaces) == 45
        assert last.text.startswith("[Earlier conversation summary]: (simulated offline summary of 45 earlier messages, turns 1-6)\n"
                                    "Tools used: Read x17.\n- User: task 0")
        assert built == [45]
        assert last.text is last.text and built == [45]  # built once


def test_equal_keys_compare_equal_without_building_and_pickle_as_plain_inserted():
    made = []

    def make():
        made.append(1)
        return "the text"

    fields = dict(role="user", kind="summary", tokens=7, by="compact", reason="r", replaces=(1, 2))
    a, b = DeferredInserted(make, ("k", 1), **fields), DeferredInserted(make, ("k", 1), **fields)
    assert a == b and inserted_key(a) == inserted_key(b) and made == []
    assert a != DeferredInserted(make, ("k", 1), **{**fields, "tokens": 8}) and made == []
    plain = Inserted(text="the text", **fields)
    assert a == plain and plain == a and hash(a) == hash(plain) and made == [1]
    assert a.text_key == ("k", 1) and plain.text_key == "the text"
    copy = pickle.loads(pickle.dumps(b))
    assert type(copy) is Inserted and copy == plain


def test_safe_cut_at_reads_what_safe_cuts_holds():
    a = _session()
    _, _, settings = resolve("langchain-summarization", {})
    from types import SimpleNamespace

    w = SimpleNamespace(view=a.view, table=a.table, settings=settings, tokens=a.table.totals)
    seq = [i for i, r in enumerate(a.view.roles) if r != "system"]
    for part in (seq, seq[3:], seq[:-4], seq[5:17]):
        safe, at = _safe_cuts(w, part), safe_cut_at(w, part)
        assert [bool(at(p)) for p in range(len(part) + 1)] == [bool(x) for x in safe[: len(part) + 1]]
