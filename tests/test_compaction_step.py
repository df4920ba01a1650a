"""``compact`` compacting from its state without building the history
(:mod:`inspector.analysis.compaction_step`), and the layouts of states that hold several
summaries (:func:`inspector.analysis.compaction_requests.state_layout`). The hypothesis tests
that compare every call with the step-by-step simulation are in tests/test_incremental_replay.py
(``AT_MOST_CALLS``); here, the presets that compact at most calls on a generated session."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from unittest import mock

import pytest

from inspector import analyze
from inspector.analysis import compaction
from inspector.analysis.compaction import _State
from inspector.analysis.compaction_requests import _ALL, _POINTS, state_layout
from inspector.analysis.predict import hidden_per_call
from inspector.analysis.replay import replay
from inspector.analysis.requests import inserted_key
from inspector.strategies import Settings
from inspector.strategies.base import Inserted


def _summary(text: str, replaces: tuple[int, ...]) -> Inserted:
    return Inserted(role="user", kind="summary", text=text, tokens=7, by="compact", reason="r", replaces=replaces)


def _point(s: Inserted):
    return ("point", inserted_key(s), s.tokens)


def test_each_summary_takes_the_place_of_the_first_folded_message_after_the_slot_before_it(generated):
    a, b, c = _summary("a", (1, 2)), _summary("b", (3,)), _summary("c", (6, 7))
    view, totals = generated.view, generated.table.totals  # message 0 the system prompt, 1 a plain user message
    layout = lambda state: state_layout(state, view, totals)  # noqa: E731
    # the summary LangChain's compaction adds stands after the one before (the request of that call)
    state = _State((0, a, b, 5, c, 9), 12, 4, 3, ((1, 5), (6, 9), (10, 12)))
    assert layout(state) == ((1, 2, _point(a)), (2, 3, _point(b)), (3, 5, _ALL), (6, 7, _point(c)), (7, 9, _ALL), (10, 12, _ALL))
    # one summary in the first folded message's place, as before
    assert layout(_State((0, a, 3, 4), 6, 2, 1, ((1, 3), (5, 6)))) == ((1, 2, _point(a)), (2, 3, _ALL), (5, 6, _ALL))
    # a summary with no folded message between the slots around it (after a message that is not
    # a plain user message), or source messages out of order: none
    assert layout(_State((0, a, 1, 4), 5, 2, 1, ((2, 4),))) is None
    assert layout(_State((0, 2, 1, a), 4, 2, 1, ((3, 4),))) is None
    # after a plain user message, that message and the summary are one point (the Codex layout)
    assert layout(_State((0, 1, a, 2), 5, 2, 1, ((3, 5),))) == ((1, 2, ("point", (1, "then", inserted_key(a)), totals[1] + 7)),
                                                               (3, 5, _ALL))
    # more summaries than a layout keeps: the requests are built
    many = tuple(_summary(str(k), (k + 1,)) for k in range(_POINTS + 1))
    assert layout(_State((0, *many), 20, 2, 1, ((1, 20),))) is None
    assert layout(_State((0, *many[:_POINTS]), 20, 2, 1, ((1, 20),))) is not None


def _generated(n: int):
    spec = importlib.util.spec_from_file_location("gen_session", Path(__file__).parent.parent / "bench" / "gen_session.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.generate(n)


@pytest.fixture(scope="module")
def generated():
    return analyze(_generated(400), encoding="approx")


# (settings, compactions, the most summaries a state holds)
AT_MOST_CALLS = [
    ({"compact_tokens": 4000, "keep_tail_messages": 20, "summary_tokens": 500}, 146, 1),  # langchain-summarization
    # openhands: each summary folds the one before it, after the kept head (108 compactions and
    # 108 summaries piled up there when compact replaced source messages only)
    ({"compact_messages": 30, "keep_head_messages": 4, "keep_tail_messages": 10, "summary_tokens": 1000}, 23, 1),
    ({"compact_tokens": 2000, "keep_tail_tokens": 1000, "tail_at_user": True, "summary_tokens": 300}, 71, 1),  # aider
]


@pytest.mark.parametrize("params, compactions, piled", AT_MOST_CALLS)
def test_compacting_at_most_calls_from_the_state_equals_its_step_by_step_simulation(generated, params, compactions, piled):
    """Every call (tokens, summary calls, violations, shared prefixes) as when each history is
    built and compacted; no history is built where every state's requests have a layout."""
    view, table = generated.view, generated.table
    s = Settings(**params)
    hidden = hidden_per_call(view, table)
    built = []
    real = compaction.build_history
    record = lambda *args: built.append(args[4]) or real(*args)  # noqa: E731
    with mock.patch.object(compaction, "build_history", record):  # (replay builds through compaction.request_history)
        fast = [compaction.replay_compacting(view, table, ("compact",), s, hidden, validate) for validate in (False, True)]
        shared = replay(view, table, ("compact",), s, shared=True)
    states = []
    with mock.patch.object(compaction, "_sizes", lambda *args: None):
        slow = [compaction.replay_compacting(view, table, ("compact",), s, hidden, validate, on_state=lambda n, state, w:
                                             states.append(state)) for validate in (False, True)]
    assert fast == slow
    with mock.patch("inspector.analysis.replay.sizes_from_state", return_value=False):
        assert shared.calls == replay(view, table, ("compact",), s, shared=True).calls
    assert sum(1 for c in fast[0] if c.kind == "summary") == compactions
    assert max(sum(1 for x in state.slots if type(x) is not int) for state in states if state is not None) == piled
    assert not built if piled <= _POINTS else built


@pytest.mark.parametrize("params, compactions, piled", AT_MOST_CALLS)
def test_the_state_a_compaction_leaves_is_the_one_its_slots_describe(generated, params, compactions, piled):
    """:func:`~inspector.analysis.compaction.state_after` (the state from the one before and what
    the compaction took out) equals :func:`~inspector.analysis.compaction._state` (the slots
    walked); where it knows the state's one summary and that its messages stand in order
    (``lone``), the state's layout is the one found by walking the slots."""
    view, table = generated.view, generated.table
    made: list[tuple[_State, _State]] = []
    real = compaction.state_after

    def check(view_, table_, state, done, stop, call, after):
        found = real(view_, table_, state, done, stop, call, after)
        made.append((found, compaction._state(view_, table_, done.order, stop, call, after)))
        return found

    with mock.patch.object(compaction, "state_after", check), mock.patch.object(compaction, "folds", return_value=False):
        # (the fold lane answers LangChain's compactions without state_after: tests/test_compaction_fold.py)
        compaction.replay_compacting(view, table, ("compact",), Settings(**params), hidden_per_call(view, table))
    assert len(made) == compactions
    for found, walked in made:
        assert found._replace(lone=-1) == walked
        if found.lone >= 0:
            assert [k for k, s in enumerate(found.slots) if type(s) is not int] == [found.lone]
            assert state_layout(found, view, table.totals) == state_layout(walked, view, table.totals)
    assert sum(1 for found, _ in made if found.lone >= 0) == compactions  # one summary each, as piled says


@pytest.mark.parametrize("params, compactions, piled", AT_MOST_CALLS)
def test_shared_prefixes_fed_in_batches_equal_feeding_each_call(generated, params, compactions, piled):
    """:meth:`~inspector.analysis.compaction_requests.CompactShares.put` feeds the calls in
    batches after the replay made them (at once where a call's history was built): every call
    as when each is fed as it is made, whatever the batch."""
    from inspector.analysis import compaction_requests

    view, table = generated.view, generated.table
    s = Settings(**params)
    flushes = []
    real = compaction_requests.CompactShares._flush
    count = lambda shares: flushes.append(len(shares._put)) or real(shares)  # noqa: E731
    found = {}
    for batch in (1, 7, compaction_requests._BATCH):
        flushes.clear()
        with mock.patch.object(compaction_requests, "_BATCH", batch), \
                mock.patch.object(compaction_requests.CompactShares, "_flush", count):
            found[batch] = replay(view, table, ("compact",), s, shared=True).calls
        assert sum(flushes) == len(view.calls) and max(flushes) <= batch
    assert found[1] == found[7] == found[compaction_requests._BATCH]
