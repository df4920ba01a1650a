"""A summary's tokens counted from its parts (summarize._SummaryBuilder._fit_lines) equal fitting
the joined text (summarize.fit_counted): the line additivity :func:`_line_additive` relies on
holds for the encodings it names, whatever the lines hold; and a summary counted without its text
(_SummaryBuilder.tokens) is the count of that text."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.model import Message, TextBlock
from inspector.strategies.summarize import PREFIX, _line_additive, _SummaryBuilder, fit_counted
from inspector.tokens import get_counter, get_profile

ENCODINGS = ("cl100k_base", "o200k_base")

#: A first line as the builder keeps it: stripped, one line, any characters (digits, marks,
#: apostrophes, punctuation runs, emoji, other scripts, control characters).
first_line = st.text(min_size=1, max_size=80).map(lambda t: t.splitlines()[0].strip() if t.splitlines() else "").filter(bool)
tool = st.text(min_size=1, max_size=12).filter(lambda t: t.strip() == t and t)


@st.composite
def summary_parts(draw) -> list[str]:
    parts = [f"{PREFIX} (simulated offline summary of {draw(st.integers(1, 99999))} earlier messages, turns 1-{draw(st.integers(1, 999))})"]
    tools = draw(st.lists(tool, max_size=5))
    if tools:
        parts.append("Tools used: " + ", ".join(f"{name} x{draw(st.integers(1, 9999))}" for name in tools) + ".")
    lines = draw(st.lists(first_line, max_size=25))
    parts.extend(f"- {draw(st.sampled_from(('User', 'Assistant')))}: {line}" for line in lines)
    return parts


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(parts=summary_parts(), cap=st.sampled_from([1, 7, 40, 120, 300]))
def test_a_summary_counted_by_its_lines_is_the_summary_fitted_whole(encoding, parts, cap):
    counter = get_counter(encoding)
    assert _line_additive(counter, parts)
    builder = _SummaryBuilder(SimpleNamespace(view=None), [], counter, get_profile("openai"), cap)
    assert builder._fit_lines(parts) == fit_counted("\n".join(parts), counter, cap)


def test_only_the_named_encodings_and_line_shapes_are_counted_by_lines():
    assert not _line_additive(get_counter("approx"), ["a", "- b"])
    counter = get_counter("cl100k_base")
    assert not _line_additive(counter, ["a ", "- b"])  # a part ending in a space
    assert not _line_additive(counter, ["a", "b"])  # a part that starts neither a line nor the tally
    assert _line_additive(counter, ["a", "Tools used: x x1.", "- User: hi"])


#: Tool names as sessions hold them: any text (spaces, digits, punctuation, newlines, other scripts).
any_tool = st.text(max_size=16)


@pytest.mark.parametrize("encoding", ENCODINGS)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(
    cut=st.integers(1, 10**9),
    turns=st.tuples(st.integers(0, 99999), st.integers(0, 99999)),
    tools=st.lists(st.tuples(any_tool, st.integers(1, 10**7)), min_size=1, max_size=6),
    last=st.booleans(),
)
def test_the_title_and_tool_tally_counted_by_pieces_are_counted_whole(encoding, cut, turns, tools, last):
    from inspector.strategies.summarize import _TALLY, _TITLE

    counter = get_counter(encoding)
    builder = _SummaryBuilder(SimpleNamespace(view=None), [], counter, get_profile("openai"), 300)
    end = "" if last else "\n"
    for first, last_turn in ((turns[0], turns[0]), turns):
        span = f"turn {first}" if first == last_turn else f"turns {first}-{last_turn}"
        title = f"{_TITLE} {cut} earlier messages, {span})"
        assert builder._title_tokens(cut, first, last_turn, last) == counter.count(title + end)
    tally = _TALLY + " " + ", ".join(f"{name} x{n}" for name, n in tools) + "."
    assert builder._tally_tokens(tools, last) == counter.count(tally + end)


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("name", ["", " ", "\n", "'s", "'S", "x1", "1", "123456", ",", ", ", "\r\n", "  a  ", "Ünïcødé", "a/b", "-", "日本"])
def test_a_tally_of_odd_tool_names_is_counted_as_whole(encoding, name):
    from inspector.strategies.summarize import _TALLY

    counter = get_counter(encoding)
    builder = _SummaryBuilder(SimpleNamespace(view=None), [], counter, get_profile("openai"), 300)
    tools = [(name, 1234), ("read", 7), (name, 5)]
    for last in (True, False):
        tally = _TALLY + " " + ", ".join(f"{n} x{k}" for n, k in tools) + "." + ("" if last else "\n")
        assert builder._tally_tokens(tools, last) == counter.count(tally)
    assert builder._title_tokens(1234567, 3, 4, False) == counter.count(
        "[Earlier conversation summary]: (simulated offline summary of 1234567 earlier messages, turns 3-4)\n")


#: First lines as sessions hold them, and tool names (the tally's order and counts vary with them).
prompt = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=70)
tool_name = st.sampled_from(["bash", "read_file", "grep", "x1", "日本", "a b"])


@st.composite
def summarized_sessions(draw):
    """A session of prompts, tool exchanges and answers, and the order a replay asks its cuts in
    (forward and back, as successive calls do)."""
    from inspector.model import Session, ToolCallBlock, ToolResultBlock

    messages: list[Message] = []
    ids = iter(range(1, 10**6))

    def add(role: str, content: list) -> None:
        messages.append(Message(index=len(messages), role=role, content=content))

    for _ in range(draw(st.integers(1, 12))):
        add("user", [TextBlock(text=draw(prompt))])
        for _ in range(draw(st.integers(0, 3))):
            calls = [ToolCallBlock(id=f"c{next(ids)}", name=draw(tool_name), arguments="{}") for _ in range(draw(st.integers(1, 3)))]
            add("assistant", calls)
            for c in calls:
                add("tool", [ToolResultBlock(tool_call_id=c.id, content="out")])
        add("assistant", [TextBlock(text=draw(prompt))])
    session = Session(format="inspector", messages=messages)
    cuts = draw(st.lists(st.integers(1, len(messages)), min_size=1, max_size=30))
    return session, cuts


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("snapshot", [3, 10**6])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=summarized_sessions(), cap=st.sampled_from([1, 12, 25, 40, 80, 300]))
def test_a_summary_counted_without_its_text_is_the_text_fitted_whole(encoding, snapshot, case, cap, monkeypatch):
    """_SummaryBuilder.tokens (title, tally, line prefix sums, one bisection; no text) at each
    cut a replay asks, in its order, equals the count of the text fitted whole (fit_counted), and
    the text built after it is that text. A cut that goes back restarts the tally from the
    nearest snapshot (every 3 positions) or, when nearer, takes the tools back off it (a snapshot
    only at 0)."""
    from inspector import analyze
    from inspector.strategies import summarize

    monkeypatch.setattr(summarize, "_SNAPSHOT", snapshot)
    session, cuts = case
    view = analyze(session, encoding=encoding).view
    seq = [i for i, r in enumerate(view.roles) if r != "system"]
    counter, profile = get_counter(encoding), get_profile("openai")
    fast = _SummaryBuilder(SimpleNamespace(view=view), seq, counter, profile, cap)
    assert fast._by_lines
    for cut in cuts:
        whole = _SummaryBuilder(SimpleNamespace(view=view), seq, counter, profile, cap)
        whole._by_lines = False  # the definition: the joined text fitted by fit_counted
        assert fast.tokens(cut) == whole.tokens(cut), cut
    for cut in reversed(cuts):
        whole = _SummaryBuilder(SimpleNamespace(view=view), seq, counter, profile, cap)
        whole._by_lines = False
        assert fast.text(cut) == whole.text(cut)
        assert fast.tokens(cut) == whole.tokens(cut) == fast.framing + counter.count(whole.text(cut))
