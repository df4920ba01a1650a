"""``plan --json``'s reasons (cli.reason_text) are exactly ``Plan.reason``'s text, however a
reason is made."""

from __future__ import annotations

from inspector.strategies.base import PerIndex, Reason, reason
from inspector.cli.reason_text import ReasonText

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


def test_every_reason_renders_as_str_does():
    texts = ReasonText(REASONS)
    for i, why in enumerate(REASONS):
        if isinstance(why, PerIndex):
            expected = str(why.at(i))
        else:
            expected = "kept" if why is None else str(why)
        assert texts(i) == expected, why
        assert texts(i) == expected  # the cached template renders the same the second time
    assert texts(2) == "dropped by fifo: oldest removable unit while 1,234,567 > budget 8,000"
    assert texts(12) == "per message 12,000 of 10,000"
