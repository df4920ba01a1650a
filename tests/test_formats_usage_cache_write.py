"""The cache write of a Responses usage object: ``input_tokens_details.cache_write_tokens`` (Azure
OpenAI's ResponseUsageInputTokensDetails documents it beside ``cached_tokens``). Before, the shared
OpenAI keys did not read it: the write stayed in ``input_tokens`` as uncached input."""

from __future__ import annotations

from inspector.formats.reading import OPENAI, usage_from


def test_a_responses_cache_write_is_read_and_taken_out_of_the_inclusive_input():
    raw = {"input_tokens": 10_000, "input_tokens_details": {"cached_tokens": 6_000, "cache_write_tokens": 3_000},
           "output_tokens": 50, "output_tokens_details": {"reasoning_tokens": 20}}
    u = usage_from(raw, OPENAI, "gpt-5.6")
    assert (u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens, u.output_tokens, u.reasoning_tokens) == \
        (1_000, 6_000, 3_000, 50, 20)


def test_codexs_own_spelling_still_comes_first():
    raw = {"input_tokens": 22_006, "cached_input_tokens": 6_912, "cache_write_input_tokens": 0, "output_tokens": 224}
    u = usage_from(raw, OPENAI)
    assert (u.input_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens) == (15_094, 6_912, 0)
