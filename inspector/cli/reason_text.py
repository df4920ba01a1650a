"""A plan's reasons as text for report rows, the same text as ``str(reason)`` in less time.

``plan --json`` on a 600,000-message plan renders a reason per message: :meth:`Reason.__str__`
wraps every argument in a generator and an f-string (1.7 us a reason, 1 s in all). Most reasons
are a template of bare ``{}`` fields filled with ints; for those the template is rewritten once to
``{:,}`` fields and filled with one ``str.format`` call. Any other reason (a field with a name or a
format of its own, an argument that is not an int) is rendered by ``str()`` itself.
"""

from __future__ import annotations

from string import Formatter
from typing import Any

from ..strategies.base import PerIndex, Reason

_int = int


class ReasonText:
    """Renders the reasons of one plan (``reasons``: :attr:`Plan.reasons`, raw)."""

    def __init__(self, reasons: list[Any]) -> None:
        self._reasons = reasons
        self._comma: dict[str, str | None] = {}  # template -> its {:,} form (None: not all bare {})

    def __call__(self, index: int) -> str:
        """The reason of message ``index`` ("kept" when no strategy touched it), as ``Plan.reason``."""
        why = self._reasons[index]
        if why is None:
            return "kept"
        if type(why) is PerIndex:
            why = why.at(index)
        if type(why) is not Reason:
            return str(why)
        template, args = why
        for a in args:
            if type(a) is not _int:  # bool, float, str...: the general rendering
                return str(why)
        comma = self._comma.get(template, "")
        if comma == "":
            comma = self._comma[template] = _comma_template(template)
        return str(why) if comma is None else comma.format(*args)


def _comma_template(template: str) -> str | None:
    """``template`` with each bare ``{}`` field written ``{:,}``; None if any field is not bare."""
    try:
        fields = list(Formatter().parse(template))
    except ValueError:
        return None
    if any(name is not None and (name != "" or spec or conversion) for _, name, spec, conversion in fields):
        return None
    return "".join(
        literal.replace("{", "{{").replace("}", "}}") + ("" if name is None else "{:,}")
        for literal, name, _, _ in fields
    )
