"""The strategies agent presets are built from: exact kept/cleared messages on small sessions
(approx tokens, OpenAI profile; see tests/strategy_builders.py for how sizes add up)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from inspector.model import TextBlock, ThinkingBlock
from inspector.strategies.last_n_observations import elided_text, line_count
from inspector.strategies import Settings, Status, plan

from strategy_builders import SessionBuilder, text_of


def tool_loop(results: list[int], turns: int = 1) -> SessionBuilder:
    """``turns`` turns; the first runs one read_file exchange per entry of ``results`` (tokens of
    each result); later turns are one question and answer."""
    b = SessionBuilder()
    b.system("sys")
    b.user("first question")
    for n, size in enumerate(results):
        b.exchange("read_file" if n % 2 == 0 else "bash", "{}", text_of(size))
    b.answer("done")
    for t in range(turns - 1):
        b.user(f"question {t}")
        b.answer(f"answer {t}")
    return b


def test_masking_protects_the_newest_tokens_and_needs_a_minimum():
    a = tool_loop([100, 100, 100, 100], turns=3).analyze()
    s = Settings(mask_protect_tokens=150, mask_min_tokens=0)
    p = plan(a.view, a.table, ("mask_tool_outputs",), s)
    # results at 3, 5, 7, 9 (newest last): 9 is protected (100 <= 150), 7 crosses the line and goes.
    assert [i for i in (3, 5, 7, 9) if p.status[i] is Status.CLEARED] == [3, 5, 7]
    assert p.messages_after()[3].content[0].content == "[Old tool result content cleared]"
    assert "older than the newest 150 tokens" in p.reason(3)
    freed = sum(a.table.counts[i].blocks[0] for i in (3, 5, 7)) - 3 * 9  # placeholder: ceil(33 / 4) = 9 approx tokens
    assert p.saving == freed
    # The minimum: nothing is masked when fewer tokens than that can go.
    p = plan(a.view, a.table, ("mask_tool_outputs",), s.model_copy(update={"mask_min_tokens": freed + 1}))
    assert p.saving == 0
    # The last two turns are protected by default: the tool loop is in the third-last turn.
    p = plan(a.view, a.table, ("mask_tool_outputs",), s.model_copy(update={"mask_protect_turns": 3}))
    assert p.saving == 0


def test_masking_keeps_a_count_of_results_and_only_listed_tools():
    a = tool_loop([100, 100, 100, 100], turns=2).analyze()
    s = Settings(mask_protect_tokens=0, mask_min_tokens=0, mask_keep_results=1, mask_tools=("read_file",), mask_protect_turns=0)
    p = plan(a.view, a.table, ("mask_tool_outputs",), s)
    # newest result (9, bash) kept by count; read_file answered 3 and 7, bash 5 and 9.
    assert [i for i in (3, 5, 7, 9) if p.status[i] is Status.CLEARED] == [3, 7]


def test_last_n_observations_elides_the_middle_and_moves_only_every_polling_calls():
    b = tool_loop([40, 40, 40, 40, 40])
    a = b.analyze()
    s = Settings(observations_keep=2, polling=1)
    p = plan(a.view, a.table, ("last_n_observations",), s)
    # observations: first user (1), results 3 5 7 9 11 -> 6; elided positions 1..3 -> 3, 5, 7
    assert [i for i in (3, 5, 7, 9, 11) if p.status[i] is Status.CLEARED] == [3, 5, 7]
    assert p.messages_after()[3].content[0].content == "Old environment output: (1 lines omitted)"
    p = plan(a.view, a.table, ("last_n_observations",), s.model_copy(update={"polling": 4}))
    # (6 // 4) * 4 - 2 = 2: only position 1 (message 3) is elided
    assert [i for i in (3, 5, 7, 9, 11) if p.status[i] is Status.CLEARED] == [3]
    # with polling 4: call 3 sees 3 observations (nothing elided), calls 4 and 5 see 4 and 5 and
    # send the same elision (message 3): the history changed once in those three calls
    plans = [plan(a.view, a.table, ("last_n_observations",), s.model_copy(update={"polling": 4}), n) for n in (3, 4, 5)]
    assert [sorted(q.edits) for q in plans] == [[], [3], [3]]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "line", " ", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85",
                                 "\u2028", "\u2029", "é"]), max_size=12).map("".join))
def test_an_observations_line_count_is_splitlines_one(text):
    """The elided note's line count is ``len(text.splitlines())`` for every line boundary Python knows."""
    assert line_count(text) == len(text.splitlines())
    assert elided_text(text) == f"Old environment output: ({len(text.splitlines())} lines omitted)"


def test_thinking_prune_removes_old_thinking_only():
    b = SessionBuilder()
    b.user("q1")
    b._add("assistant", [ThinkingBlock(thinking=text_of(50)), TextBlock(text="a1")])
    b.user("q2")
    b._add("assistant", [ThinkingBlock(thinking=text_of(50)), TextBlock(text="a2")])
    b.user("q3")
    a = b.analyze(profile="anthropic")
    p = plan(a.view, a.table, ("thinking_prune",), Settings(thinking_keep_turns=2))
    assert [p.status[i] for i in (1, 3)] == [Status.TRUNCATED, Status.KEPT]
    assert [type(c).__name__ for c in p.messages_after()[1].content] == ["TextBlock"]
    assert p.saving == a.table.counts[1].blocks[0]


def test_compact_keeps_recent_user_messages_like_codex():
    b = tool_loop([100, 100], turns=3)
    a = b.analyze()
    # users at 1, 7, 9; the two newest fit exactly; then the summary; the system prompt stays
    s = Settings(compact_tokens=0, keep_user_tokens=a.table.totals[7] + a.table.totals[9], summary_tokens=20)
    p = plan(a.view, a.table, ("compact",), s)
    sent = [slot if type(slot) is int else slot.kind for slot in p.sequence]
    assert sent == [0, 7, 9, "summary"]
    assert "fired because input" in p.reason(2)


def test_compact_trigger_margin_and_tail_tokens():
    a = tool_loop([100, 100, 100], turns=2).analyze()
    total = a.table.overhead + a.table.prefix[-1]
    s = Settings(context_window=total + 20_000 + 13_000, reserved_output=20_000, compact_margin=13_000, keep_tail_tokens=60, summary_tokens=20)
    p = plan(a.view, a.table, ("compact",), s)
    sent = [slot if type(slot) is int else slot.kind for slot in p.sequence]
    assert sent == [0, "summary", 8, 9, 10]  # fires at exactly usable - margin; the last 3 messages fit 60 tokens
    p = plan(a.view, a.table, ("compact",), s.model_copy(update={"context_window": total + 33_001}))
    assert p.saving == 0
