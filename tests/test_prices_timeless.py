"""A call the file gives no time is priced at today's noon UTC, not at the clock: prices that
depend on the hour (DeepSeek's off-peak rate, 16:30-00:30 UTC) must not change a report run twice."""

from datetime import date, datetime, timezone
from decimal import Decimal

from inspector.analysis import prices
from inspector.analysis.prices import TokenSplit, plain_rates, price, timeless_instant

MILLION_IN = TokenSplit(uncached=1_000_000)


def test_timeless_instant_is_noon_utc_today(monkeypatch):
    class Day(date):
        @classmethod
        def today(cls):
            return cls(2026, 1, 2)

    monkeypatch.setattr(prices, "date", Day)
    assert timeless_instant() == datetime(2026, 1, 2, 12, 0, tzinfo=timezone.utc)


def test_deepseek_without_a_time_pays_the_standard_rate_whatever_the_hour():
    # deepseek-chat: 0.27 $/Mtok input from 00:30 to 16:30 UTC, 0.135 off-peak
    assert price(MILLION_IN, "deepseek-chat").total == Decimal("0.27")
    evening = datetime.combine(date.today(), datetime.min.time().replace(hour=20), tzinfo=timezone.utc)
    assert price(MILLION_IN, "deepseek-chat", when=evening).total == Decimal("0.135")
    assert plain_rates("deepseek-chat", None).flat[0] == Decimal("0.27")
