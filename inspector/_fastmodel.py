"""A cheaper ``model_construct`` for the session model's hot path (every reader builds one
object per message and block: 164k of them for a 50k-message session).

pydantic's own ``model_construct`` walks every field's aliases and defaults in Python for each
call (~7 µs); this one copies a per-class template of the defaults (in field order) and lays the
given values over it (~1.5 µs). The result is the same object pydantic would build: same
``__dict__`` (same key order), no validation. Values it has no field for, aliases, or a missing
required field fall back to pydantic's path. ``model_fields_set`` is every field (one shared set
per class instead of one set per object: 200+ bytes each); nothing in the inspector reads it.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

_object_setattr = object.__setattr__
#: class -> (defaults template in field order, [(name, factory)], required names, all names)
_TEMPLATES: dict[type, tuple[dict[str, Any], tuple[tuple[str, Any], ...], tuple[str, ...], set[str]]] = {}
_MISSING = object()


def _template(cls: type[BaseModel]):
    static: dict[str, Any] = {}
    factories, required = [], []
    for name, field in cls.__pydantic_fields__.items():
        if field.alias not in (None, name) or field.validation_alias is not None:
            return None
        if field.default_factory is not None:
            static[name] = _MISSING
            factories.append((name, field.default_factory))
        elif field.is_required():
            static[name] = _MISSING
            required.append(name)
        else:
            static[name] = field.default
    entry = (static, tuple(factories), tuple(required), set(static))
    _TEMPLATES[cls] = entry
    return entry


class FastConstruct(BaseModel):
    """A BaseModel whose ``model_construct`` takes the fast path described above."""

    @classmethod
    def model_construct(cls, _fields_set: set[str] | None = None, **values: Any):
        entry = _TEMPLATES.get(cls) or _template(cls)
        if entry is None or _fields_set is not None or cls.__pydantic_post_init__:
            return super().model_construct(_fields_set, **values)
        static, factories, required, names = entry
        d = static.copy()
        d.update(values)
        if len(d) != len(static):
            return super().model_construct(**values)
        for name in required:
            if name not in values:
                return super().model_construct(**values)
        for name, factory in factories:
            if d[name] is _MISSING:
                d[name] = factory()
        m = cls.__new__(cls)
        _object_setattr(m, "__dict__", d)
        _object_setattr(m, "__pydantic_fields_set__", names)
        _object_setattr(m, "__pydantic_extra__", None)
        _object_setattr(m, "__pydantic_private__", None)
        return m
