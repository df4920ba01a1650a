"""LazyMessage: blocks built on the first read of ``content``, then a plain Message that nothing
tells apart from one built eagerly (equality both ways, copies, pickles, dumps)."""

from __future__ import annotations

import copy
import pickle

from inspector.model import (
    LazyMessage,
    Message,
    PendingContent,
    TextBlock,
    add_pending,
    held_content,
    new_message,
    new_source,
)


def _texts(parts: list[str]) -> list[TextBlock]:
    return [TextBlock(text=p) for p in parts]


class _Texts(PendingContent):
    __slots__ = ()
    build = staticmethod(_texts)


def _lazy(parts: list[str] | None = None) -> Message:
    m = new_message(3, "user", _Texts(parts or ["a", "b"]), new_source(7, None, None), "blocks", {"uuid": "u"})
    m.__class__ = LazyMessage
    return m


def _eager() -> Message:
    return new_message(3, "user", _texts(["a", "b"]), new_source(7, None, None), "blocks", {"uuid": "u"})


def test_first_read_builds_the_blocks_and_makes_a_plain_message():
    m = _lazy()
    assert type(m) is LazyMessage
    assert type(held_content(m)) is _Texts  # held, not built
    assert [b.text for b in m.content] == ["a", "b"]
    assert type(m) is Message
    assert held_content(m) is m.content  # built once: later reads are the slot's


def test_equal_to_the_eager_message_from_either_side():
    assert _lazy() == _eager()
    assert _eager() == _lazy()
    assert _lazy() == _lazy()
    assert _lazy(["a", "c"]) != _eager()


def test_parts_added_before_the_first_read_are_built_with_the_rest():
    m = _lazy(["a"])
    held_content(m).append("b")
    assert m == _eager()


def test_copies_pickles_dumps_and_assignment_are_of_the_plain_message():
    for made in (copy.copy(_lazy()), copy.deepcopy(_lazy()), pickle.loads(pickle.dumps(_lazy())), _lazy().model_copy()):
        assert type(made) is Message
        assert made == _eager()
    assert _lazy().model_dump() == _eager().model_dump()
    assert repr(_lazy()) == repr(_eager())
    m = _lazy()
    m.content = _texts(["z"])
    assert m.text == "z"
    assert type(m) is Message


def test_parts_are_added_only_while_the_blocks_are_not_built():
    m = _lazy(["a"])
    assert add_pending(m, ["b"])
    assert [b.text for b in m.content] == ["a", "b"]
    assert not add_pending(m, ["c"])  # built: the caller adds blocks to the content instead
    assert m.text == "a\nb"
