"""The readers' shared helpers: content to blocks, sized images, usage spellings, model tally."""

from __future__ import annotations

import base64
import struct
import zlib

import pytest

from inspector.formats.reading import ANTHROPIC, BEDROCK, LANGCHAIN, OPENAI, ModelTally, UsageKeys, content_blocks, image_block, usage_from
from inspector.model import Session, TextBlock


def _png(w: int, h: int) -> str:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + chunk).decode()


def test_image_block_sizes_data_urls_and_bare_base64():
    b64 = _png(640, 480)
    a = image_block(f"data:image/png;base64,{b64}")
    assert (a.source_kind, a.media_type, a.width, a.height) == ("base64", "image/png", 640, 480)
    b = image_block(b64, media_type="image/png", source_kind="base64")
    assert (b.source_kind, b.width, b.height, b.data) == ("base64", 640, 480, b64)
    c = image_block("https://x/y.png", detail="low")
    assert (c.source_kind, c.width, c.detail) == ("url", None, "low")
    assert image_block("file-123", source_kind="file").source_kind == "file"


def test_content_blocks_forms():
    conv = lambda p, k: TextBlock(text=f"{k}:{p}") if p != "skip" else None  # noqa: E731
    assert content_blocks(None, conv) == ([], "null")
    assert content_blocks("", conv) == ([], "string")
    assert [b.text for b in content_blocks("", conv, keep_empty=True)[0]] == [""]
    blocks, form = content_blocks(["a", "skip", "b"], conv, "blocks")
    assert ([b.text for b in blocks], form) == (["0:a", "2:b"], "blocks")
    assert [b.text for b in content_blocks(7, conv)[0]] == ["0:7"]
    with pytest.raises(ValueError, match="no"):
        content_blocks(7, conv, other=lambda c: (_ for _ in ()).throw(ValueError("no")))


@pytest.mark.parametrize(
    "raw, keys, expected",
    [
        ({"input_tokens": 10, "output_tokens": 2, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 5}, ANTHROPIC, (10, 2, 100, 5, None)),
        ({"input_tokens": 3587, "cached_input_tokens": 2560, "output_tokens": 229, "reasoning_output_tokens": 128}, OPENAI, (1027, 229, 2560, None, 128)),
        ({"prompt_tokens": 1689, "completion_tokens": 76, "prompt_tokens_details": {"cached_tokens": 1664}}, OPENAI, (25, 76, 1664, None, None)),
        ({"prompt_tokens": 500, "completion_tokens": 9, "cache_read_input_tokens": 300, "cache_creation_input_tokens": 100}, OPENAI, (100, 9, 300, 100, None)),
        ({"input_tokens": 50, "output_tokens": 4, "input_token_details": {"cache_read": 20, "cache_creation": 10}}, LANGCHAIN, (20, 4, 20, 10, None)),
        ({"inputTokens": 7, "outputTokens": 3, "cacheReadInputTokens": 40}, BEDROCK, (7, 3, 40, None, None)),
    ],
)
def test_usage_spellings(raw, keys, expected):
    u = usage_from(raw, keys, "m")
    assert (u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.cache_creation_input_tokens, u.reasoning_tokens, u.model) == (*expected, "m")


def test_usage_from_non_object_and_bad_counts():
    assert usage_from(None, OPENAI) is None
    u = usage_from({"input_tokens": "12", "output_tokens": True}, ANTHROPIC)
    assert (u.input_tokens, u.output_tokens) == (None, None)


def test_usage_counts_take_the_first_spelling_that_holds_a_count():
    # an invalid count (a bool, a string, out of range, a nested path through a non-object) is
    # passed over for the next spelling, as if it were absent
    raw = {"input_tokens": True, "prompt_tokens": 900, "output_tokens": -1, "completion_tokens": 7,
           "cached_input_tokens": "5", "input_tokens_details": [1], "prompt_tokens_details": {"cached_tokens": 10**11},
           "cache_read_input_tokens": 300, "output_tokens_details": {"reasoning_tokens": 4}}
    u = usage_from(raw, OPENAI)
    assert (u.input_tokens, u.output_tokens, u.cache_read_input_tokens, u.reasoning_tokens) == (600, 7, 300, 4)
    assert usage_from({"cache_creation": "x", "cache_creation_input_tokens": 9}, ANTHROPIC).cache_creation_1h_input_tokens is None
    # keys that are not identifiers are quoted into the generated reader as they are
    odd = UsageKeys(input=("in'put\\n",), output=("a.b\"c",))
    assert (usage_from({"in'put\\n": 3, "a": {'b"c': 4}}, odd).input_tokens, usage_from({"a": {'b"c': 4}}, odd).output_tokens) == (3, 4)
    assert odd == UsageKeys(input=("in'put\\n",), output=("a.b\"c",))  # the reader takes no part in equality


def test_model_tally_most_used_first_seen_on_ties():
    s = Session(format="x")
    tally = ModelTally(s)
    tally.fallback("configured")
    assert s.model == "configured"
    seen = []
    for m in ("a", "b", None, "b", "a", "a"):
        tally.add(m)
        seen.append(s.model)
    assert seen == ["a", "a", "a", "b", "a", "a"]  # a tie keeps the first seen


def test_one_hour_cache_writes_are_kept_apart(tmp_path):
    raw = {"input_tokens": 3, "output_tokens": 9, "cache_read_input_tokens": 17055, "cache_creation_input_tokens": 690,
           "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 690}}
    u = usage_from(raw, ANTHROPIC)
    assert (u.cache_creation_input_tokens, u.cache_creation_1h_input_tokens) == (690, 690)
    assert usage_from({"input_tokens": 3}, ANTHROPIC).cache_creation_1h_input_tokens is None
    # the Claude Code reader keeps it through the merge of a message written over several lines
    import json

    from inspector.formats import load

    lines = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s", "message": {"role": "user", "content": "hi"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s", "requestId": "r1",
         "message": {"id": "m1", "role": "assistant", "model": "claude-sonnet-4-5", "content": [{"type": "text", "text": "hello"}],
                     "usage": raw}},
    ]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    session = load(path, "claude_code")
    usage = session.messages[-1].usage
    assert (session.format, usage.cache_creation_input_tokens, usage.cache_creation_1h_input_tokens) == ("claude_code", 690, 690)
