"""``last_n_observations``: SWE-agent's ``LastNObservations`` history processor.

The observations are the first user message (SWE-agent's instance template, never elided) and
every message carrying tool results, in order. Of ``len`` observations, those at positions
``1 : (len // polling) * polling - observations_keep`` are elided: each result's text becomes
``Old environment output: (N lines omitted)``. ``polling`` exists to keep the prompt cache
valid: the elided range grows only every ``polling`` observations, so the history a call sends
changes only every ``polling`` calls (sweagent/agent/history_processors.py; the 0.7 configs use
``n=5``). Calls and results stay paired.
"""

from __future__ import annotations

from .base import BlockEdit, Status, Working, reason
from ..units import SessionView
from .common import count_text, kept_on_view, view_cache
from .params import Param
from .pipeline import register

NAME = "last_n_observations"
_WHY = "cleared by last_n_observations: observation {} of {} elided (keeps the last {}, history moves every {} calls)"


def elided_text(text: str) -> str:
    """SWE-agent's replacement for an elided observation."""
    return elided_note(line_count(text))


#: The line boundaries ``str.splitlines`` knows in ASCII besides ``\n`` (``\r\n`` is one).
_OTHER_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e"


def line_count(text: str) -> int:
    """``len(text.splitlines())`` without building the lines (a compare elides every tool
    result of a session once: splitting them took ~15 ms of ~30 at 10,000 messages): an ASCII
    text whose only line boundary is ``\n`` has one line per ``\n``, and one more after the
    last unless the text ends there."""
    if not text:
        return 0
    if text.isascii() and not any(c in text for c in _OTHER_BREAKS):
        return text.count("\n") + (text[-1] != "\n")
    return len(text.splitlines())


def elided_note(lines: int) -> str:
    """The replacement of an observation of ``lines`` lines."""
    return f"Old environment output: ({lines} lines omitted)"


def _line_counts(view: SessionView) -> dict[tuple[int, int], int]:
    """Lines of each tool result (message, block), filled as plans read them: a view's results
    never change, and splitting 100 MB of results into lines was most of a plan at 50,000."""
    return {}


@register(
    NAME,
    (
        Param("observations_keep", int, 5, "most recent observations kept whole", label="keep observations", unit="observations", ge=0),
        Param("polling", int, 1, "change the history only every N calls (keeps the cache valid)", unit="calls", ge=1),
    ),
    "Elides all but the last N tool observations to a one-line 'N lines omitted' note, as "
    "SWE-agent does; with polling, the history changes only every N calls so the prompt cache "
    "stays valid in between. Cheap and pair-safe, but the model loses old outputs entirely.",
    panel=False,
)
def last_n_observations(w: Working) -> None:
    s = w.settings
    view = w.view
    cache = view_cache(view)
    live, stop, messages = w.live, w.stop, view.messages
    first_user = next((i for i in range(stop) if cache.plain_user[i]), None)
    observations = [i for i in range(stop) if live[i] and view.result_ids[i]]
    if first_user is not None and live[first_user]:
        observations = [first_user, *(i for i in observations if i > first_user)]
    count = len(observations)
    last_removed = max(0, (count // s.polling) * s.polling - s.observations_keep)
    encoding = w.table.encoding
    blocks = cache.result_blocks
    lines = kept_on_view(view, "_observation_lines", _line_counts)
    # (names hoisted, the edit built positionally: a compare elides every result of a session once)
    keep, polling, cleared, edit, uncleared = s.observations_keep, s.polling, Status.CLEARED, w.edit, w.uncleared_tokens
    for position, i in enumerate(observations[1:last_removed], 2):
        why = reason(_WHY, (position, count, keep, polling))
        for k in blocks[i]:
            before = uncleared(i, k)
            if before is None:
                continue
            n = lines.get((i, k))
            if n is None:
                n = lines[(i, k)] = line_count(messages[i].content[k].text)
            text = elided_note(n)
            edit(i, BlockEdit(k, "clear", text, before, count_text(encoding, text), 0, "tokens", "", NAME), cleared, why)
