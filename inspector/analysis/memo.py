"""Per-call figures computed once per (view, table) and kept on the view.

``info`` asks for the baseline of every call three times (the fit, recorded usage, money) and the
re-sent reasoning four times; a replay or the TUI asks again for every plan. On a session of
300,000 calls each pass is seconds, so every per-call list here is computed once and handed out
again while the view (its messages) and the token table are the same objects.

A view is a snapshot: what is kept is not recomputed when a message of the view is changed in
place (its usage replaced, say); build a new view (:func:`inspector.units.build_view`) for
changed messages, as a live follow does. Callers of :func:`kept_list` get a fresh list each time
(a copy is a millisecond at 300,000 calls), so they may change it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..tokens import TokenTable
from ..units import SessionView

T = TypeVar("T")

_ATTR = "_per_call_memo"


def kept(view: SessionView, table: TokenTable | None, name: str, compute: Callable[[], T]) -> T:
    """``compute()`` for ``view`` and ``table``, computed once per pair (``table`` None: a fact
    of the view alone)."""
    store = view.__dict__.setdefault(_ATTR, {})
    if store.get("length") != len(view):  # a view is not meant to grow; if it does, start again
        store.clear()
        store["length"] = len(view)
    entry = store.get(name)
    if entry is not None and entry[0] is table:
        return entry[1]
    value = compute()
    store[name] = (table, value)
    return value


def kept_list(view: SessionView, table: TokenTable | None, name: str, compute: Callable[[], list[T]]) -> list[T]:
    """:func:`kept` for a list: a copy of the kept one, so the caller may change it."""
    return list(kept(view, table, name, compute))


__all__ = ["kept", "kept_list"]
