"""truncate_results: arithmetic sizes in the plan, text cut only when materialising."""

from __future__ import annotations

import pytest

import inspector
from inspector.model import ImageBlock, TextBlock, ToolResultBlock
from inspector.strategies import Status
from inspector.tokens import count_message, get_counter, get_profile

from strategy_builders import SessionBuilder, small_session, text_of


def truncated(plan) -> list[int]:
    return [d.index for d in plan.decisions() if d.status is Status.TRUNCATED]


@pytest.fixture(scope="module")
def small():
    return small_session().analyze()


def test_cuts_every_result_above_the_cap(small):
    plan = inspector.plan(small, "truncate_results", max_result_tokens=50)
    assert truncated(plan) == [3, 7, 9]
    # Each result: 50 tokens kept + "\n[... truncated 450 tokens ...]" (31 chars = 8 tokens), + 4 framing.
    assert [plan.decision(i).tokens_after for i in (3, 7, 9)] == [62, 62, 62]
    assert plan.tokens_after == 1064 - 504 - 304 - 104 + 3 * 62 == 338
    assert plan.decision(3).reason == "truncated by truncate_results: tool result of 500 tokens cut to 50 (+8-token marker)"
    [edit] = plan.edits[3]
    assert (edit.block, edit.kind, edit.text, edit.tokens_before, edit.tokens_after) == (0, "truncate", None, 500, 58)


def test_results_at_or_below_the_cap_and_other_messages_are_untouched(small):
    plan = inspector.plan(small, "truncate_results", max_result_tokens=300)
    assert truncated(plan) == [3]
    assert plan.tokens_after == 1064 - 500 + 300 + 8
    assert inspector.plan(small, "truncate_results").tokens_after == 1064  # default 2,000


def test_materialised_text_is_the_cut_plus_marker_and_matches_the_plan(small):
    plan = inspector.plan(small, "truncate_results", max_result_tokens=50)
    message = plan.messages_after()[3]
    assert message.tool_results[0].content == text_of(50, "a") + "\n[... truncated 450 tokens ...]"
    counter, profile = get_counter("approx"), get_profile("openai")
    for i, m in zip([3, 7, 9], [plan.messages_after()[k] for k in (3, 7, 9)]):
        assert count_message(m, counter, profile).total == plan.decision(i).tokens_after
    # The session itself is not modified.
    assert small.session.messages[3].tool_results[0].content == text_of(500, "a")


CL100K_TEXTS = [
    "def handler(event):\n    return {'status': 200, 'body': json.dumps(event)}\n" * 40,
    "Résumé naïve café — 日本語のテキスト 🙂 " * 60,
    '{"id": 12345, "name": "TechCorp", "tags": ["a", "b"], "active": true}\n' * 50,
]


@pytest.mark.parametrize("text", CL100K_TEXTS)
@pytest.mark.parametrize("cap", [7, 64, 150])
def test_cl100k_cut_is_exact_and_the_figure_is_within_one_token(text, cap):
    b = SessionBuilder()
    b.user("Look at this.")
    b.exchange("read_file", '{"path": "x"}', text)
    b.user("Thanks.")
    a = b.analyze(encoding="cl100k_base")
    plan = inspector.plan(a, "truncate_results", max_result_tokens=cap)
    counter, profile = get_counter("cl100k_base"), get_profile("openai")
    before = counter.count(text)
    assert plan.edits[2][0].tokens_before == before
    marker = f"\n[... truncated {before - cap:,} tokens ...]"
    content = plan.messages_after()[2].tool_results[0].content
    assert content.endswith(marker)
    assert counter.count(content[: -len(marker)]) <= cap
    # Documented boundary approximation: where the cut text meets the marker, BPE may merge a
    # token (or a split character decodes to U+FFFD), so the real count is the figure or 1 less.
    real = count_message(plan.messages_after()[2], counter, profile).total
    assert plan.decision(2).tokens_after - 1 <= real <= plan.decision(2).tokens_after


def test_chars_mode_keeps_four_characters_per_token(small):
    plan = inspector.plan(small, "truncate_results", max_result_tokens=50, truncate_unit="chars")
    assert truncated(plan) == [3, 7, 9]
    content = plan.messages_after()[3].tool_results[0].content
    assert content == text_of(500, "a")[:200] + "\n[... truncated 1,800 chars ...]"
    # Approx: 200 chars = 50 tokens, the marker 32 chars = 8 tokens (exact for approx).
    assert plan.decision(3).tokens_after == 4 + 50 + 8
    assert plan.decision(3).reason == (
        "truncated by truncate_results: tool result of 2,000 characters cut to 200 characters (about 58 tokens)"
    )


def test_chars_mode_leaves_results_within_the_character_limit(small):
    plan = inspector.plan(small, "truncate_results", max_result_tokens=100, truncate_unit="chars")
    assert truncated(plan) == [3, 7]  # 400 characters is exactly the limit


def test_anthropic_style_message_with_two_results_cuts_each_block():
    b = SessionBuilder(id_prefix="toolu_")
    b.user(text_of(10))
    _, ids = b.assistant("Reading both.", [("read_file", '{"path": "a"}'), ("read_file", '{"path": "b"}')])
    b.results([(ids[0], text_of(100, "a")), (ids[1], text_of(20, "b"))], text="Note: more to come")
    b.answer(text_of(5))
    b.user(text_of(5))
    a = b.analyze()
    plan = inspector.plan(a, "truncate_results", max_result_tokens=30)
    assert [e.block for e in plan.edits[2]] == [0]
    assert plan.decision(2).tokens_after == a.table.totals[2] - 100 + 30 + 8
    msg = plan.messages_after()[2]
    assert isinstance(msg.content[2], TextBlock) and msg.content[2].text == "Note: more to come"
    assert msg.content[1].content == text_of(20, "b")
    assert plan.valid == {"openai": True, "anthropic": True}


def test_result_with_parts_has_its_text_cut_and_its_images_kept():
    """The cap applies to the text; the image (512 x 512, OpenAI estimate 85 + 170 = 255 tokens)
    stays, and the plan's figures are those of the materialised message."""
    b = SessionBuilder()
    b.user(text_of(10))
    _, ids = b.assistant("", [("screenshot", "{}")])
    image = ImageBlock(media_type="image/png", data="x", width=512, height=512)
    parts = [TextBlock(text=text_of(100, "t")), image]
    b._add("tool", [ToolResultBlock(tool_call_id=ids[0], content=parts)])
    b.user(text_of(5))
    a = b.analyze()
    assert a.table.totals[2] == 4 + 100 + 255
    for unit, tail, reason in (
        ("tokens", "\n[... truncated 60 tokens ...]", "tool result text of 100 tokens cut to 40 tokens"),
        ("chars", "\n[... truncated 240 chars ...]", "tool result text of 400 characters cut to 160 characters"),
    ):
        plan = inspector.plan(a, "truncate_results", max_result_tokens=40, truncate_unit=unit)
        assert plan.decision(2).tokens_after == 4 + 40 + 8 + 255 == 307
        assert plan.decision(2).reason == f"truncated by truncate_results: {reason} (its 1 image(s) kept; the result is now 303 tokens)"
        [result] = plan.messages_after()[2].tool_results
        assert result.content == [TextBlock(text=text_of(40, "t") + tail), image]
        counted = count_message(plan.messages_after()[2], get_counter("approx"), get_profile("openai"))
        assert counted.total == 307
        assert plan.tokens_after == a.table.prefix[-1] + a.table.overhead - 100 + 48


def test_truncating_twice_in_a_pipeline_is_idempotent():
    a = small_session().analyze()
    plan = inspector.plan(a, ["truncate_results", "truncate_results"], max_result_tokens=50)
    # The second pass sees 58-token results: cutting to 50 + an 8-token marker would not shrink them.
    assert plan.decision(3).tokens_after == 4 + 50 + 8
    assert len(plan.edits[3]) == 1
    assert plan.stages[1].tokens_before == plan.stages[1].tokens_after == 338


def test_a_result_just_over_the_cap_is_left_alone():
    b = SessionBuilder()
    b.user(text_of(5))
    b.exchange("bash", "{}", text_of(55))  # 55 tokens: 50 + an 8-token marker would be 58
    b.exchange("bash", "{}", text_of(59))  # 59 tokens: cut to 58
    b.user(text_of(5))
    a = b.analyze()
    plan = inspector.plan(a, "truncate_results", max_result_tokens=50)
    assert truncated(plan) == [4]
    assert plan.decision(4).tokens_after == 4 + 58
