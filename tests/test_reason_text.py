"""A reason's text (``str(Reason)``, which ``Plan.reason`` and ``plan --json`` use) renders ints
with thousands separators through a cached ``{:,}`` form of its template: exactly the text of
the general rendering, however a reason is made."""

from __future__ import annotations

from inspector.strategies.base import PerIndex, Reason, reason


def general(why: Reason) -> str:
    """The rendering before the cached template: each non-bool int written ``{:,}``, then format."""
    return why.template.format(*(f"{a:,}" if isinstance(a, int) and not isinstance(a, bool) else a for a in why.args))


REASONS = [
    None,
    "dropped: a plain string",
    reason("dropped by fifo: oldest removable unit while {} > budget {}", (1234567, 8000)),
    reason("negative {} and zero {}", (-12345, 0)),
    reason("a flag {} and a count {}", (True, 5000)),  # bool is not a number to separate
    reason("share {} of {}", (0.5, 12000)),
    reason("no field at all", ()),
    reason("{{literal braces}} and {}", (99999,)),
    reason("{0} positional {1}", (1000, 2000)),
    reason("spec {:>8}", (12345,)),
    reason("tool {} removed ({} tokens)", ("bash", 4321)),
    Reason("keyword-built {}", (7777,)),
    PerIndex("per message {} of {}", lambda i: (i * 1000, 10_000)),
]


def test_every_reason_renders_as_the_general_rendering_does():
    for i, why in enumerate(REASONS):
        if why is None or isinstance(why, str):
            continue
        made = why.at(i) if isinstance(why, PerIndex) else why
        assert str(made) == general(made), why
        assert str(made) == general(made)  # the cached template renders the same the second time
    assert str(REASONS[2]) == "dropped by fifo: oldest removable unit while 1,234,567 > budget 8,000"
    assert str(REASONS[12].at(12)) == "per message 12,000 of 10,000"
    assert str(REASONS[7]) == "{literal braces} and 99,999"
