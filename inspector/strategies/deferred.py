"""An inserted message whose text is built only when someone reads it.

A compacting replay makes a summary at every compaction (LangChain's summarization: 3,783 at
10k messages) and needs only its tokens, counted without its text
(:meth:`.summarize._SummaryBuilder.tokens`); the text is read by a view, an export or a plan's
JSON, for the few summaries shown. :class:`DeferredInserted` holds how to build it and a key
naming what determines it, so two requests that send the same summary are known to, and two
summaries compared, without building either text.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from .base import Inserted

_TEXT = Inserted.__dict__["text"]  # the text's slot, under the property below


class DeferredInserted(Inserted):
    """An :class:`~.base.Inserted` whose :attr:`text` is ``make()``, built when first read.
    ``key`` (:attr:`text_key`): what determines the text; equal keys mean equal texts. It
    pickles as the plain :class:`~.base.Inserted` of its text."""

    __slots__ = ("_make", "_key")

    def __init__(self, make: Callable[[], str], key: Hashable, *, role: Any, kind: Any, tokens: int, by: str, reason: str,
                 simulated: bool = True, replaces: Sequence[int] = ()) -> None:
        # (frozen: each slot set through its descriptor; ``object.__setattr__`` by name costs twice as much,
        # and a compacting replay makes one at each of its thousands of compactions)
        _ROLE(self, role)
        _KIND(self, kind)
        _TOKENS(self, tokens)
        _BY(self, by)
        _REASON(self, reason)
        _SIMULATED(self, simulated)
        _REPLACES(self, replaces)
        _MAKE(self, make)
        _KEY(self, key)

    @property  # type: ignore[override]
    def text(self) -> str:
        try:
            return _TEXT.__get__(self, Inserted)
        except AttributeError:
            text = self._make()
            _TEXT.__set__(self, text)
            _MAKE(self, None)  # what it read may go
            return text

    @property
    def text_key(self) -> Hashable:
        return self._key

    def __eq__(self, other: object) -> bool:
        if type(other) is DeferredInserted and self._key == other._key:  # the same text
            return _others(self) == _others(other)
        if isinstance(other, Inserted):
            return _fields(self) == _fields(other)
        return NotImplemented

    __hash__ = Inserted.__hash__

    def __reduce__(self):
        return Inserted, _fields(self)


_ROLE, _KIND, _TOKENS, _BY, _REASON, _SIMULATED, _REPLACES = (
    Inserted.__dict__[name].__set__ for name in ("role", "kind", "tokens", "by", "reason", "simulated", "replaces"))
_MAKE, _KEY = DeferredInserted.__dict__["_make"].__set__, DeferredInserted.__dict__["_key"].__set__


def _others(s: Inserted) -> tuple:
    """Every field but the text."""
    return (s.role, s.kind, s.tokens, s.by, s.reason, s.simulated, s.replaces)


def _fields(s: Inserted) -> tuple:
    """Every field, in order."""
    return (s.role, s.kind, s.text, s.tokens, s.by, s.reason, s.simulated, s.replaces)
