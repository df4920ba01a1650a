"""Strategy parameters: each strategy declares its own, and ``Settings`` is built from them.

A :class:`Param` says everything the views need to show and edit one parameter (type, default,
bounds, unit, label, help, step); a strategy passes its params to
:func:`~inspector.strategies.pipeline.register`, next to its code. ``Settings`` is the flat,
frozen pydantic model of every declared parameter, rebuilt (lazily, with
``pydantic.create_model``) when a strategy declares a new one. Read it as ``params.Settings`` (or
``from inspector.strategies import Settings`` after the strategies you need have registered):
a class taken before a later registration does not know that strategy's parameters. The CLI
options, the TUI panel, ``plan --json`` and the README's parameter table are generated from
these declarations.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, create_model


@dataclass(frozen=True)
class Param:
    """One strategy parameter. ``type`` is ``int``, ``float``, ``bool``, a ``Literal`` of
    strings (a choice), ``int | None`` (optional) or ``tuple[str, ...]`` (a list of names)."""

    name: str
    type: Any
    default: Any
    #: One line, without the strategy's name (the views add it).
    help: str
    #: Short label for the TUI panel; defaults to the name with spaces.
    label: str = ""
    #: What a number counts ("tokens", "turns", "messages"...): the README and the CLI metavar.
    unit: str = ""
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    #: What one arrow key press adds or removes in the TUI.
    step: float = 1
    #: The big step keys move by 10% of the value instead of ``step``.
    percent_step: bool = False
    #: The command-line flag; defaults to ``--name-with-dashes`` (``--no-...`` for a bool that is on).
    option: str = ""
    #: For params sharing one flag: the ``(param, value)`` under which the flag sets this one.
    option_when: tuple[str, Any] | None = None
    #: Applies to the whole pipeline (the budget): the TUI shows it once, above the strategies.
    pipeline_wide: bool = False

    def __post_init__(self) -> None:
        self.kind  # noqa: B018  (rejects an unsupported type at declaration)

    @property
    def kind(self) -> str:
        """``int``, ``optional_int``, ``float``, ``bool``, ``choice`` or ``names``."""
        t = self.type
        if t in (int, float, bool):
            return t.__name__
        origin, args = get_origin(t), get_args(t)
        if origin is Literal and all(isinstance(a, str) for a in args):
            return "choice"
        if origin in (Union, types.UnionType) and set(args) == {int, type(None)}:
            return "optional_int"
        if origin is tuple and args == (str, Ellipsis):
            return "names"
        raise TypeError(f"parameter {self.name!r}: unsupported type {t!r}")

    @property
    def choices(self) -> tuple[str, ...]:
        return get_args(self.type) if self.kind == "choice" else ()

    @property
    def title(self) -> str:
        return self.label or self.name.replace("_", " ")

    @property
    def flag(self) -> str:
        if self.option:
            return self.option
        dashed = self.name.replace("_", "-")
        return f"--no-{dashed}" if self.kind == "bool" and self.default else f"--{dashed}"

    @property
    def metavar(self) -> str | None:
        if self.kind in ("bool", "choice"):
            return None
        if self.kind == "names":
            return "A,B"
        if self.unit == "tokens":
            return "TOKENS"
        return "R" if self.kind == "float" else "N"

    def field(self) -> tuple[Any, Any]:
        """``(annotation, FieldInfo)`` for ``create_model``."""
        return self.type, Field(self.default, ge=self.ge, gt=self.gt, le=self.le, description=self.help)


class SettingsBase(BaseModel):
    """What every built ``Settings`` model shares: frozen, unknown names rejected."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @property
    def window(self) -> int:
        """sliding_window's size in its current mode."""
        return self.window_turns if self.window_mode == "turns" else self.window_messages  # type: ignore[attr-defined]


BUDGET = Param(
    "budget", int | None, None, "token budget the request must fit", unit="tokens", ge=0, step=1000,
    percent_step=True, pipeline_wide=True,
)

#: Every declared parameter by name, in declaration order (the order of ``Settings``' fields).
PARAMS: dict[str, Param] = {BUDGET.name: BUDGET}
_model: type[SettingsBase] | None = None


class ParamConflict(ValueError):
    """A parameter declared twice with different definitions."""


def declare(owner: str, params: tuple[Param, ...]) -> None:
    """Add ``params`` (declared by strategy ``owner``) to ``Settings``. Declaring the same
    parameter again is fine only with the same definition (two strategies sharing one)."""
    for p in params:
        known = PARAMS.get(p.name)
        if known is not None and known != p:
            raise ParamConflict(f"strategy {owner!r} declares parameter {p.name!r} differently from an earlier strategy")
    new = {p.name: p for p in params if p.name not in PARAMS}
    if new:
        PARAMS.update(new)
        rebuild()


def rebuild() -> None:
    """Forget the built model: the next ``Settings`` lookup builds it from ``PARAMS``."""
    global _model
    _model = None


def settings_model() -> type[SettingsBase]:
    """The ``Settings`` model of every parameter declared so far."""
    global _model
    if _model is None:
        fields = {name: p.field() for name, p in PARAMS.items()}
        model = create_model("Settings", __base__=SettingsBase, **fields)
        model.__doc__ = "Every strategy parameter, flat, with its default (built from the declared params)."
        model.__module__ = __name__
        _model = model
    return _model


def __getattr__(name: str) -> Any:
    if name == "Settings":
        return settings_model()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
