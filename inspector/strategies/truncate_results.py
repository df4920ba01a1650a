"""``truncate_results``: cut every tool result above ``max_result_tokens``.

``truncate_unit="tokens"`` (default): the result is cut to exactly ``max_result_tokens`` tokens
with the table's tokenizer and ``\\n[... truncated N tokens ...]`` is appended (N = tokens
removed). ``truncate_unit="chars"`` is the seeds' character rule: a result longer than
``max_result_tokens * 4`` characters keeps that many characters, followed by
``\\n[... truncated N chars ...]``.

Planning never cuts text: the new size is computed arithmetically (tokens mode:
``max_result_tokens`` + the marker's tokens, the marker counted once per N and cached) and the
cut text is built only when the plan is materialised (:mod:`.materialize`). Boundary
approximation: with a BPE tokenizer the cut text plus marker can re-tokenize a token or two
differently where they meet (and a cut inside a multi-byte character decodes to U+FFFD); the
``approx`` counter is exact. Chars mode estimates the kept part's tokens in proportion to the
characters kept (exact for ``approx``, an estimate for tiktoken encodings).

A result given as a list of parts (text and images, rare: screenshots) has only its text cut
(the cap applies to the text; the images stay, and their tokens, the profile's estimate, are in
the size after). For such a result the cut text is built while planning and counted exactly, so
the plan's figures and the marker's N are what the materialised message has. Results smaller
than the cap, results the marker would make no shorter (a few tokens over the cap), and all
other blocks are untouched.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Literal

from ..model import TextBlock, ToolResultBlock
from ..tokens import get_counter, get_profile
from ..units import SessionView
from .base import BlockEdit, Reason, Status, Working
from .common import count_text, kept_on_view, view_cache
from .params import Param
from .pipeline import register

NAME = "truncate_results"
_REASON = "truncated by truncate_results: tool result of {} tokens cut to {} (+{}-token marker)"
_REASON_CHARS = "truncated by truncate_results: tool result of {} characters cut to {} characters (about {} tokens)"
_REASON_PARTS = "truncated by truncate_results: tool result text of {} {} cut to {} {} (its {} image(s) kept; the result is now {} tokens)"


def marker(removed: int, unit: str = "tokens") -> str:
    """The text appended after a cut (the separating newline included)."""
    return f"\n[... truncated {removed:,} {unit} ...]"


@register(
    NAME,
    (
        Param(
            "max_result_tokens", int, 2000, "cap per tool result", unit="tokens", ge=0, step=100, percent_step=True,
        ),
        Param(
            "truncate_unit", Literal["tokens", "chars"], "tokens",
            "cut by tokens, or keep max_result_tokens*4 characters", label="cut by",
        ),
    ),
    "Cuts every tool result longer than the cap to its first max_result_tokens tokens and marks "
    "the cut. Keeps every exchange valid and in place, but the model loses whatever was past "
    "the cut, often the end of a log or file.",
)
def truncate_results(w: Working) -> None:
    cap = w.settings.max_result_tokens
    chars = w.settings.truncate_unit == "chars"
    encoding = w.table.encoding
    view = w.view
    tokens = w.tokens
    cache = view_cache(view)
    keep_chars = cap * 4
    holders = kept_on_view(view, "_result_messages", _result_messages)
    live = w.live
    holders = holders[: bisect_left(holders, w.stop)]
    if chars:
        longest, edits = cache.result_max_chars, w.edits
        todo = [i for i in holders if live[i] and (longest[i] > keep_chars or i in edits)]
    else:  # a message's tokens bound each of its blocks
        todo = [i for i in holders if tokens[i] > cap and live[i]]
    blocks, parts = cache.result_blocks, cache.result_parts
    for i in todo:
        for n, k in enumerate(blocks[i]):
            if i in parts:
                block = _current_block(w, i, k)
                if not isinstance(block.content, str):
                    planned = _truncate_parts(w, i, k, block, cap, chars)
                    if planned is not None:
                        w.edit(i, planned[0], Status.TRUNCATED, planned[1])
                    continue
            before = w.block_tokens(i, k)
            if chars:
                length = len(_current_text(w, i, k)) if i in w.edits else cache.result_chars[i][n]
                if length <= keep_chars:
                    continue
                tail = marker(length - keep_chars, "chars")
                if encoding == "approx":
                    kept = -(-keep_chars // 4)  # exact: the counter is ceil(chars / 4)
                else:
                    kept = -(-before * keep_chars // length)  # proportional estimate
                after = kept + count_text(encoding, tail)
                if after >= before:
                    continue  # the marker would make it no shorter
                edit = BlockEdit(k, "truncate", None, before, after, keep_chars, "chars", tail, NAME)
                reason = Reason(_REASON_CHARS, (length, keep_chars, after))
            else:
                if before <= cap:
                    continue
                tail = marker(before - cap)
                tail_tokens = count_text(encoding, tail)
                after = cap + tail_tokens
                if after >= before:
                    continue  # the marker would make it no shorter
                edit = BlockEdit(k, "truncate", None, before, after, cap, "tokens", tail, NAME)
                reason = Reason(_REASON, (before, cap, tail_tokens))
            w.edit(i, edit, Status.TRUNCATED, reason)


def _result_messages(view: SessionView) -> list[int]:
    """The messages holding tool results, ascending."""
    return [i for i, ids in enumerate(view.result_ids) if ids]


def _truncate_parts(w: Working, i: int, k: int, block: ToolResultBlock, cap: int, chars: bool):
    """(edit, reason) cutting the text of a result given as parts, images kept, or None."""
    encoding = w.table.encoding
    counter = get_counter(encoding)
    profile = get_profile(w.table.profile)
    images = [p for p in block.content if not isinstance(p, TextBlock)]
    image_tokens = sum(profile.image_tokens(p) for p in images)
    text = block.text
    if chars:
        keep, length = cap * 4, len(text)
        if length <= keep:
            return None
        tail = marker(length - keep, "chars")
        new_text = text[:keep] + tail
    else:
        keep, length = cap, counter.count(text)
        if length <= keep:
            return None
        tail = marker(length - keep)
        new_text = counter.head(text, keep) + tail
    before = w.block_tokens(i, k)
    after = counter.count(new_text) + image_tokens
    if after >= before:
        return None
    unit = "chars" if chars else "tokens"
    edit = BlockEdit(k, "truncate", new_text, before, after, keep, unit, tail, NAME)
    label = "characters" if chars else "tokens"
    return edit, Reason(_REASON_PARTS, (length, label, keep, label, len(images), after))


def _current_block(w: Working, i: int, k: int) -> ToolResultBlock:
    """Result block ``k`` of message ``i`` after earlier stages' edits."""
    block = w.view.messages[i].content[k]
    assert isinstance(block, ToolResultBlock)
    edits = [e for e in w.edits.get(i, ()) if e.block == k]
    if not edits:
        return block
    from .materialize import apply_block_edits

    result = apply_block_edits(block, edits, w.table.encoding)
    assert isinstance(result, ToolResultBlock)
    return result


def _current_text(w: Working, i: int, k: int) -> str:
    """The result's text after earlier stages' edits (chars mode needs its length)."""
    block = w.view.messages[i].content[k]
    assert isinstance(block, ToolResultBlock)
    edits = [e for e in w.edits.get(i, ()) if e.block == k]
    if not edits:
        return block.text
    from .materialize import apply_block_edits

    return apply_block_edits(block, edits, w.table.encoding).text
