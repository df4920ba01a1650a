"""``sliding_window``: keep only the most recent part of the history.

``window_mode="turns"`` (default): keep the last ``window_turns`` turns whole (the current turn
counts as one of them and is always kept), plus system messages and the preamble before the
first user message.

``window_mode="messages"``: keep the last ``window_messages`` non-system messages, with the cut
moved *forward* to the first plain user message (one a person wrote, not tool results), as
Strands Agents' ``SlidingWindowConversationManager`` does (``window_size=40``). Moving forward
means at least the overflow goes, and the kept history starts with a user message. The cut
never enters the current turn: when the window is shorter than the current turn, the whole
current turn is kept instead.

Neither mode splits a tool exchange: a cut at a turn start can only split an exchange whose
result arrived after the user spoke again, and such an exchange is kept whole.
"""

from __future__ import annotations

from .base import Reason, Status, Working
from .common import keep_units_whole, view_cache
from .pipeline import register

NAME = "sliding_window"
_TURNS = "dropped by sliding_window: turn {} is outside the last {} turns"
_MESSAGES = "dropped by sliding_window: outside the last {} messages (cut moved forward to message {}, a plain user message)"
_MESSAGES_TURN = "dropped by sliding_window: outside the last {} messages (cut moved to message {}, where the current turn starts)"


@register(
    NAME,
    ("window_mode", "window_turns", "window_messages"),
    "Keeps only the last N turns (or the last N messages, cut at a user message) plus the "
    "system prompt. Bounded and simple, but it ignores token sizes, so one huge turn still "
    "overflows while older small turns are lost.",
)
def sliding_window(w: Working) -> None:
    if w.settings.window_mode == "turns":
        _window_turns(w, w.settings.window_turns)
    else:
        _window_messages(w, w.settings.window_messages)


def _window_turns(w: Working, window: int) -> None:
    roles, turn_of = w.view.roles, w.view.turn_of
    live = w.live
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
    drop = {
        i for i in w.order if type(i) is int and 0 < turn_of[i] < oldest_kept and roles[i] != "system" and live[i]
    }
    if not drop:
        return
    keep_units_whole(w, drop)
    reasons: dict[int, Reason] = {}
    for i in drop:
        t = turn_of[i]
        reason = reasons.get(t)
        if reason is None:
            reason = reasons[t] = Reason(_TURNS, (t, window))
        w.mark(i, Status.DROPPED, NAME, reason)
    w.compact()


def _window_messages(w: Working, window: int) -> None:
    roles, turn_of = w.view.roles, w.view.turn_of
    plain_user = view_cache(w.view).plain_user
    history = [i for i in w.order if type(i) is int and roles[i] != "system"]
    if len(history) <= window:
        return
    p = len(history) - window
    current_start = next((k for k, i in enumerate(history) if turn_of[i] == w.current_turn), len(history))
    if p >= current_start:  # the window is shorter than the current turn: keep the turn whole
        p = current_start
        reason = Reason(_MESSAGES_TURN, (window, history[p] if p < len(history) else w.stop))
    else:
        while p < current_start and not plain_user[history[p]]:
            p += 1
        reason = Reason(_MESSAGES, (window, history[p] if p < len(history) else w.stop))
    drop = set(history[:p])
    if not drop:
        return
    keep_units_whole(w, drop)
    for i in drop:
        w.mark(i, Status.DROPPED, NAME, reason)
    w.compact()
