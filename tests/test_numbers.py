"""Money text: the sign before the dollar sign, digits by size."""

from inspector.numbers import usd, usd_short


def test_usd_puts_the_sign_first_and_groups_thousands():
    assert usd(-0.19, 2) == "-$0.19"
    assert usd(1234.5, 2) == "$1,234.50"
    assert usd(0.0123) == "$0.0123"
    assert usd(-0.00001) == "$0.0000"  # rounds to zero: no sign


def test_usd_short_picks_its_digits_by_size():
    assert [usd_short(v) for v in (12.3, 0.5, 0.0005, -0.5, 0)] == ["$12.30", "$0.500", "$0.0005", "-$0.500", "$0"]
