"""``sliding_window``: keep only the most recent part of the history.

``window_mode="turns"`` (default): keep the last ``window_turns`` turns whole (the current turn
counts as one of them and is always kept whole), plus system messages and the preamble before
the first prompt. Turns are the prompts a person gave (:mod:`inspector.units`): what the harness
injected (observations, environment context, command output) stays in its turn.

``window_mode="messages"``: keep the last ``window_messages`` non-system messages, with the cut
moved *forward* to the first plain user message (one a person wrote, not tool results), as
Strands Agents' ``SlidingWindowConversationManager`` does (``window_size=40``). Moving forward
means at least the overflow goes, and the kept history starts with a user message. The cut
never enters the current turn: when the window is shorter than the current turn, the whole
current turn is kept instead.

Neither mode splits a tool exchange: a cut at a turn start can only split an exchange whose
result arrived after the user spoke again, and such an exchange is kept whole. A turn opened by
a message that also carries tool results (a person typed during a tool loop) is cut before the
call those results answer, so the kept turn starts with that call.
"""

from __future__ import annotations

from typing import Literal

from bisect import bisect_left

from .base import Reason, Working, reason
from .common import candidates, keep_units_whole, turn_cut, view_cache
from .params import Param
from .pipeline import register

NAME = "sliding_window"
_TURNS = "dropped by sliding_window: turn {} is outside the last {} turns"
_MESSAGES = "dropped by sliding_window: outside the last {} messages (cut moved forward to message {}, a plain user message)"
_MESSAGES_TURN = "dropped by sliding_window: outside the last {} messages (cut moved to message {}, where the current turn starts)"


@register(
    NAME,
    (
        Param("window_mode", Literal["turns", "messages"], "turns", "count the window in turns or in messages"),
        Param(
            "window_turns", int, 10, "last N turns kept whole", label="window (turns)", unit="turns", ge=0,
            option="--window", option_when=("window_mode", "turns"),
        ),
        Param(
            "window_messages", int, 40, "last N messages kept (cut moved to a user message)",
            label="window (messages)", unit="messages", ge=0, step=5,
            option="--window", option_when=("window_mode", "messages"),
        ),
    ),
    "Keeps only the last N turns (or the last N messages, cut at a user message) plus the "
    "system prompt; the current turn is always kept whole. Bounded and simple, but it ignores "
    "token sizes, so one huge turn still "
    "overflows while older small turns are lost.",
)
def sliding_window(w: Working) -> None:
    if w.settings.window_mode == "turns":
        _window_turns(w, w.settings.window_turns)
    else:
        _window_messages(w, w.settings.window_messages)


def _window_turns(w: Working, window: int) -> None:
    turn_of = w.view.turn_of
    # Turn numbers grow with the index, so the last `window` distinct turns are a suffix.
    seen = 0
    last_turn = None
    oldest_kept = w.current_turn
    for i in reversed(w.order):
        if type(i) is not int:
            continue
        t = turn_of[i]
        if t == 0:
            break
        if t != last_turn:
            if seen >= max(window, 1) and t < w.current_turn:
                break
            seen += 1
            last_turn = t
            oldest_kept = t
    limit = turn_cut(w, oldest_kept)
    drop = [i for i in candidates(w) if i < limit and turn_of[i] > 0]
    if not drop:
        return
    drop = keep_units_whole(w, drop)
    by_turn: dict[int, Reason] = {}
    reasons = []
    for i in drop:
        t = turn_of[i]
        r = by_turn.get(t)
        if r is None:
            r = by_turn[t] = reason(_TURNS, (t, window))
        reasons.append(r)
    w.drop_many(drop, NAME, reasons)


def _window_messages(w: Working, window: int) -> None:
    roles = w.view.roles
    plain_user = view_cache(w.view).plain_user
    history = [i for i in w.order if type(i) is int and roles[i] != "system"]
    if len(history) <= window:
        return
    p = len(history) - window
    current_start = bisect_left(history, turn_cut(w, w.current_turn))
    if p >= current_start:  # the window is shorter than the current turn: keep the turn whole
        p = current_start
        why = reason(_MESSAGES_TURN, (window, history[p] if p < len(history) else w.stop))
    else:
        while p < current_start and not plain_user[history[p]]:
            p += 1
        why = reason(_MESSAGES, (window, history[p] if p < len(history) else w.stop))
    drop = keep_units_whole(w, history[:p])
    w.drop_many(drop, NAME, why)
