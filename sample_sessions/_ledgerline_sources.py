"""Source files of the fictional ``ledgerline`` repository that the coding-agent sample reads.

Used only by make_samples.py: the agent's read_file results are these texts with line numbers.
"""

from __future__ import annotations


def numbered(text: str) -> str:
    """``cat -n`` style: right-aligned line numbers, a tab, the line."""
    return "\n".join(f"{n:6d}\t{line}" for n, line in enumerate(text.splitlines(), 1)) + "\n"


def line_of(path: str, snippet: str) -> int:
    """1-based line where ``snippet`` (its first line) starts in ``SOURCES[path]``."""
    first = snippet.splitlines()[0]
    for n, line in enumerate(SOURCES[path].splitlines(), 1):
        if first in line:
            return n
    raise ValueError(f"{snippet!r} not in {path}")


MONEY = '''\
"""Money: an amount of one currency, as a Decimal, with the currency's own exponent.

Every amount in ledgerline is a Money. Arithmetic between different currencies raises
CurrencyMismatch; conversion goes through convert() with an explicit rate.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from functools import lru_cache

from .currency import MINOR_UNITS, UnknownCurrency


class CurrencyMismatch(ValueError):
    """Two amounts of different currencies were combined."""

    def __init__(self, left: str, right: str) -> None:
        super().__init__(f"cannot combine {left} and {right} amounts; convert one of them first")
        self.left = left
        self.right = right


@lru_cache(maxsize=None)
def _exponent(currency: str) -> Decimal:
    """Decimal("0.01") for EUR, Decimal("1") for JPY, Decimal("0.001") for KWD."""
    try:
        places = MINOR_UNITS[currency]
    except KeyError:
        raise UnknownCurrency(currency) from None
    return Decimal(1).scaleb(-places)


@dataclass(frozen=True, slots=True)
class Money:
    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        if not isinstance(self.amount, Decimal):
            raise TypeError(f"Money.amount must be a Decimal, got {type(self.amount).__name__}")
        if len(self.currency) != 3 or not self.currency.isupper():
            raise UnknownCurrency(self.currency)

    def rounded(self) -> Money:
        """This amount rounded to the currency's minor unit."""
        return Money(self.amount.quantize(_exponent(self.currency), rounding=ROUND_HALF_EVEN), self.currency)

    def converted(self, rate: Decimal, target: str | None = None) -> Money:
        return convert(self, rate, target or self.currency)

    @classmethod
    def zero(cls, currency: str) -> Money:
        return cls(Decimal(0), currency)

    def _check(self, other: Money) -> None:
        if other.currency != self.currency:
            raise CurrencyMismatch(self.currency, other.currency)

    def __add__(self, other: Money) -> Money:
        self._check(other)
        return Money(self.amount + other.amount, self.currency)

    def __radd__(self, other: int | Money) -> Money:
        if other == 0:  # sum() starts from 0
            return self
        return self.__add__(other)  # type: ignore[arg-type]

    def __sub__(self, other: Money) -> Money:
        self._check(other)
        return Money(self.amount - other.amount, self.currency)

    def __mul__(self, factor: Decimal | int) -> Money:
        return Money(self.amount * Decimal(factor), self.currency)

    def __neg__(self) -> Money:
        return Money(-self.amount, self.currency)

    def __bool__(self) -> bool:
        return bool(self.amount)


def convert(money: Money, rate: Decimal, target: str) -> Money:
    """Convert at ``rate`` (units of ``target`` per unit of ``money.currency``), rounded."""
    return Money((money.amount * rate).quantize(_exponent(target), rounding=ROUND_HALF_EVEN), target)


def allocate(money: Money, weights: list[int]) -> list[Money]:
    """Split ``money`` by integer weights without losing a minor unit (largest remainder first)."""
    if not weights or sum(weights) <= 0:
        raise ValueError("weights must be positive")
    unit = _exponent(money.currency)
    total_units = int((money.amount / unit).to_integral_value())
    shares = [total_units * w // sum(weights) for w in weights]
    remainders = sorted(range(len(weights)), key=lambda i: (total_units * weights[i]) % sum(weights), reverse=True)
    for i in remainders[: total_units - sum(shares)]:
        shares[i] += 1
    return [Money(unit * share, money.currency) for share in shares]


def format_amount(money: Money) -> str:
    """The amount with exactly the currency's number of decimals, no grouping: "15200", "1234.56"."""
    places = MINOR_UNITS[money.currency]
    return f"{money.rounded().amount:.{places}f}"


def parse_amount(text: str, currency: str) -> Money:
    """Parse "1,234.56" or "1234.56" into Money; rejects more decimals than the currency has."""
    cleaned = text.replace(",", "").strip()
    amount = Decimal(cleaned)
    if -amount.as_tuple().exponent > MINOR_UNITS[currency]:
        raise ValueError(f"{text!r} has more decimals than {currency} allows")
    return Money(amount, currency)
'''

INVOICE = '''\
"""Invoices: lines in the contract currency, totals in the invoice currency.

A customer's contract may be priced in USD while the invoice is issued in EUR; every line
carries its own net amount and the invoice converts with one rate fixed at issue time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from enum import Enum

from .money import Money, allocate
from .tax import TaxCode, tax_for


class InvoiceStatus(str, Enum):
    DRAFT = "draft"
    ISSUED = "issued"
    PAID = "paid"
    VOID = "void"


class InvoiceError(Exception):
    pass


@dataclass
class LineItem:
    description: str
    quantity: Decimal
    unit_price: Money
    tax_code: TaxCode = TaxCode.STANDARD
    discount_pct: Decimal = Decimal(0)

    def __post_init__(self) -> None:
        if self.quantity <= 0:
            raise InvoiceError(f"line {self.description!r}: quantity must be positive")
        if not Decimal(0) <= self.discount_pct < Decimal(100):
            raise InvoiceError(f"line {self.description!r}: discount must be in [0, 100)")

    @property
    def currency(self) -> str:
        return self.unit_price.currency

    @property
    def gross(self) -> Money:
        return self.unit_price * self.quantity

    @property
    def net(self) -> Money:
        return self.gross * (1 - self.discount_pct / 100)

    def converted(self, rate: Decimal, target: str | None = None) -> Money:
        """This line's net in the invoice currency, rounded as it is printed."""
        return self.net.converted(rate, target).rounded()


@dataclass
class Invoice:
    number: str
    customer_id: int
    issued_on: date
    currency: str  # contract currency of the lines
    invoice_currency: str
    rate: Decimal = Decimal(1)
    lines: list[LineItem] = field(default_factory=list)
    status: InvoiceStatus = InvoiceStatus.DRAFT
    country: str = "DE"
    reverse_charge: bool = False

    def add_line(self, line: LineItem) -> None:
        if self.status is not InvoiceStatus.DRAFT:
            raise InvoiceError(f"{self.number}: cannot add lines to a {self.status.value} invoice")
        if line.currency != self.currency:
            raise InvoiceError(f"{self.number}: line in {line.currency}, invoice lines are in {self.currency}")
        self.lines.append(line)

    def issue(self, rate: Decimal) -> None:
        if not self.lines:
            raise InvoiceError(f"{self.number}: an invoice needs at least one line")
        self.rate = rate
        self.status = InvoiceStatus.ISSUED

    @property
    def subtotal(self) -> Money:
        return sum((line.net for line in self.lines), Money.zero(self.currency))

    @property
    def total(self) -> Money:
        """Net total in the invoice currency."""
        return sum((line.net for line in self.lines), Money.zero(self.currency)).converted(self.rate).rounded()

    @property
    def tax(self) -> Money:
        if self.reverse_charge:
            return Money.zero(self.invoice_currency)
        return sum(
            (tax_for(line.tax_code, self.country, line.converted(self.rate, self.invoice_currency)) for line in self.lines),
            Money.zero(self.invoice_currency),
        )

    @property
    def amount_due(self) -> Money:
        return self.total + self.tax

    def installments(self, count: int) -> list[Money]:
        """Split the amount due into ``count`` payments that add up exactly."""
        return allocate(self.amount_due, [1] * count)

    def void(self, reason: str) -> None:
        if self.status is InvoiceStatus.PAID:
            raise InvoiceError(f"{self.number}: a paid invoice cannot be voided; issue a credit note")
        self.status = InvoiceStatus.VOID
        self.void_reason = reason


def from_record(record: dict) -> Invoice:
    """Build an Invoice from a fixture / database record."""
    invoice = Invoice(
        number=record["invoice_number"],
        customer_id=record["customer_id"],
        issued_on=date.fromisoformat(record["issued_on"]),
        currency=record["currency"],
        invoice_currency=record["invoice_currency"],
        country=record.get("country", "DE"),
        reverse_charge=record.get("reverse_charge", False),
    )
    for raw in record["lines"]:
        invoice.add_line(
            LineItem(
                description=raw["description"],
                quantity=Decimal(str(raw["quantity"])),
                unit_price=Money(Decimal(str(raw["unit_price"])), record["currency"]),
                tax_code=TaxCode(raw.get("tax_code", "standard")),
                discount_pct=Decimal(str(raw.get("discount_pct", 0))),
            )
        )
    if record.get("rate"):
        invoice.issue(Decimal(str(record["rate"])))
    return invoice
'''

TAX = '''\
"""VAT: rates by country and tax code, and the split of a gross amount into net and VAT."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from enum import Enum

from .money import Money


class TaxCode(str, Enum):
    STANDARD = "standard"
    REDUCED = "reduced"
    ZERO = "zero"
    EXEMPT = "exempt"


# Rates in percent, effective 2026-01-01.
RATES: dict[str, dict[TaxCode, Decimal]] = {
    "DE": {TaxCode.STANDARD: Decimal("19"), TaxCode.REDUCED: Decimal("7")},
    "FR": {TaxCode.STANDARD: Decimal("20"), TaxCode.REDUCED: Decimal("5.5")},
    "NL": {TaxCode.STANDARD: Decimal("21"), TaxCode.REDUCED: Decimal("9")},
    "IE": {TaxCode.STANDARD: Decimal("23"), TaxCode.REDUCED: Decimal("13.5")},
    "ES": {TaxCode.STANDARD: Decimal("21"), TaxCode.REDUCED: Decimal("10")},
    "IT": {TaxCode.STANDARD: Decimal("22"), TaxCode.REDUCED: Decimal("10")},
    "PL": {TaxCode.STANDARD: Decimal("23"), TaxCode.REDUCED: Decimal("8")},
    "SE": {TaxCode.STANDARD: Decimal("25"), TaxCode.REDUCED: Decimal("12")},
}


class UnknownTaxCountry(KeyError):
    pass


@dataclass(frozen=True)
class VatSplit:
    net: Money
    vat: Money

    @property
    def gross(self) -> Money:
        return self.net + self.vat


def rate_for(code: TaxCode, country: str) -> Decimal:
    if code in (TaxCode.ZERO, TaxCode.EXEMPT):
        return Decimal(0)
    try:
        return RATES[country][code]
    except KeyError:
        raise UnknownTaxCountry(f"no {code.value} VAT rate for {country!r}") from None


def _round(amount: Decimal, currency: str) -> Money:
    return Money(amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN), currency)


def tax_for(code: TaxCode, country: str, net: Money) -> Money:
    """VAT due on ``net`` (already in the invoice currency)."""
    return _round(net.amount * rate_for(code, country) / 100, net.currency)


def split_gross(gross: Money, code: TaxCode, country: str) -> VatSplit:
    """Split a VAT-inclusive amount: net is derived so that net + vat == gross exactly."""
    rate = rate_for(code, country)
    vat = _round(gross.amount * rate / (100 + rate), gross.currency)
    return VatSplit(net=gross - vat, vat=vat)


def reverse_charge_note(country: str, customer_vat_id: str) -> str:
    """The legend printed on B2B invoices where the customer accounts for VAT."""
    if not customer_vat_id or not customer_vat_id[:2].isalpha():
        raise ValueError("reverse charge needs the customer's VAT ID with its country prefix")
    return (
        f"Reverse charge: VAT to be accounted for by the recipient ({customer_vat_id}) "
        f"under Article 196 of Council Directive 2006/112/EC. Supplier country: {country}."
    )
'''

EXPORT = '''\
"""CSV and JSON exports of issued invoices for the accounting system (DATEV / NetSuite)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable
from datetime import date

from .invoice import Invoice, InvoiceStatus
from .money import Money

CSV_COLUMNS = ["invoice_number", "customer_id", "issued_on", "line", "description", "quantity", "amount", "currency"]


class ExportError(Exception):
    pass


def _issued(invoices: Iterable[Invoice]) -> list[Invoice]:
    out = [inv for inv in invoices if inv.status in (InvoiceStatus.ISSUED, InvoiceStatus.PAID)]
    if not out:
        raise ExportError("nothing to export: no issued or paid invoices in the selection")
    return out


def csv_rows(invoice: Invoice) -> list[dict[str, str]]:
    rows = []
    for n, line in enumerate(invoice.lines, 1):
        line_amount = line.converted(invoice.rate, invoice.invoice_currency)
        rows.append(_row(invoice, n, line, line_amount))
    return rows


def _row(invoice: Invoice, n: int, line, converted: Money) -> dict[str, str]:
    line = _Line(line.description, line.quantity, converted)
    return {
        "invoice_number": invoice.number,
        "customer_id": str(invoice.customer_id),
        "issued_on": invoice.issued_on.isoformat(),
        "line": str(n),
        "description": line.description,
        "quantity": f"{line.quantity.normalize():f}",
        "amount": f"{line.amount.amount:.2f}",
        "currency": line.amount.currency,
    }


class _Line:
    __slots__ = ("description", "quantity", "amount")

    def __init__(self, description: str, quantity, amount: Money) -> None:
        self.description = description
        self.quantity = quantity
        self.amount = amount


def export_csv(invoices: Iterable[Invoice]) -> str:
    """All lines of all issued invoices, one CSV row per line, UTF-8, comma separated."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=CSV_COLUMNS, lineterminator="\\n")
    writer.writeheader()
    for invoice in _issued(invoices):
        writer.writerows(csv_rows(invoice))
    return buffer.getvalue()


def export_json(invoices: Iterable[Invoice], since: date | None = None) -> str:
    """One JSON object per invoice with its totals, for the NetSuite importer."""
    items = []
    for invoice in _issued(invoices):
        if since and invoice.issued_on < since:
            continue
        items.append(
            {
                "number": invoice.number,
                "customer": invoice.customer_id,
                "issued_on": invoice.issued_on.isoformat(),
                "currency": invoice.invoice_currency,
                "total": str(invoice.total.amount),
                "tax": str(invoice.tax.amount),
                "status": invoice.status.value,
            }
        )
    return json.dumps({"invoices": items, "count": len(items)}, indent=2)
'''

REPORTS = '''\
"""Plain-text reports for the finance team: aged receivables and customer statements."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import date

from .invoice import Invoice, InvoiceStatus
from .money import Money

BUCKETS = ((0, 30, "current"), (31, 60, "31-60"), (61, 90, "61-90"), (91, 10_000, "90+"))


@dataclass
class AgedRow:
    customer_id: int
    bucket: str
    count: int
    total: Money


def _bucket(days: int) -> str:
    for low, high, name in BUCKETS:
        if low <= days <= high:
            return name
    raise ValueError(f"negative age: {days}")


def aged_receivables(invoices: list[Invoice], as_of: date) -> list[AgedRow]:
    """Open (issued, unpaid) invoices grouped by customer and age bucket, per invoice currency."""
    groups: dict[tuple[int, str, str], list[Invoice]] = defaultdict(list)
    for invoice in invoices:
        if invoice.status is not InvoiceStatus.ISSUED:
            continue
        age = (as_of - invoice.issued_on).days
        groups[(invoice.customer_id, _bucket(age), invoice.invoice_currency)].append(invoice)
    rows = []
    for (customer, bucket, currency), group in sorted(groups.items()):
        total = sum((inv.amount_due for inv in group), Money.zero(currency))
        rows.append(AgedRow(customer, bucket, len(group), total))
    return rows


def render_aged_receivables(rows: list[AgedRow], as_of: date) -> str:
    header = f"Aged receivables as of {as_of.isoformat()}"
    lines = [header, "=" * len(header), ""]
    lines.append(f"{'customer':>10}  {'bucket':<8}  {'invoices':>8}  {'amount':>14}  cur")
    for row in rows:
        lines.append(
            "  ".join(
                [
                    f"{row.customer_id:>10}",
                    f"{row.bucket:<8}",
                    f"{row.count:>8}",
                    f"{row.total.amount:.2f}",
                    row.total.currency,
                ]
            )
        )
    return "\\n".join(lines) + "\\n"


def customer_statement(customer_id: int, invoices: list[Invoice], as_of: date) -> str:
    """A statement listing every open invoice of one customer and the total outstanding."""
    open_invoices = [
        inv for inv in invoices if inv.customer_id == customer_id and inv.status is InvoiceStatus.ISSUED
    ]
    if not open_invoices:
        return f"Customer {customer_id}: nothing outstanding as of {as_of.isoformat()}.\\n"
    currency = open_invoices[0].invoice_currency
    lines = [f"Statement for customer {customer_id} as of {as_of.isoformat()}", ""]
    for inv in sorted(open_invoices, key=lambda i: i.issued_on):
        age = (as_of - inv.issued_on).days
        lines.append(f"{inv.number}  issued {inv.issued_on.isoformat()}  {age:>3} days  {inv.amount_due.amount} {currency}")
    grand_total = sum((inv.amount_due for inv in open_invoices), Money.zero(currency))
    lines.append("")
    lines.append(f"Total outstanding: {grand_total.amount:.2f} {grand_total.currency}")
    return "\\n".join(lines) + "\\n"
'''

CONFTEST = '''\
"""Shared fixtures: sample invoices built from tests/fixtures/*.json."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from ledgerline.invoice import Invoice, LineItem, from_record
from ledgerline.money import Money

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def usd_invoice() -> Invoice:
    """Fourteen USD lines with half-cent remainders after conversion (the 4471 shape)."""
    invoice = Invoice("INV-TEST-0001", 9001, date(2026, 3, 2), "USD", "EUR")
    prices = ["88.15", "88.15", "104.05", "72.35", "72.35", "91.25", "119.45",
              "64.55", "97.05", "97.05", "110.15", "83.35", "99.75", "58.95"]
    for n, price in enumerate(prices, 1):
        invoice.add_line(LineItem(f"Seat licence, tier {n}", Decimal(1), Money(Decimal(price), "USD")))
    invoice.issue(Decimal("0.91735"))
    return invoice


@pytest.fixture(scope="session")
def march_invoices() -> dict[str, Invoice]:
    records = json.loads((FIXTURES / "invoices_2026_03.json").read_text())
    return {record["invoice_number"]: from_record(record) for record in records}


@pytest.fixture
def eur_line() -> LineItem:
    return LineItem("Support retainer", Decimal(1), Money(Decimal("100.00"), "EUR"))
'''

TEST_INVOICE = '''\
from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from ledgerline.invoice import Invoice, InvoiceError, InvoiceStatus, LineItem
from ledgerline.money import Money


def test_line_net_applies_discount():
    line = LineItem("Onboarding", Decimal(2), Money(Decimal("250.00"), "EUR"), discount_pct=Decimal(10))
    assert line.net == Money(Decimal("450.000"), "EUR")


def test_line_rejects_zero_quantity():
    with pytest.raises(InvoiceError, match="quantity must be positive"):
        LineItem("Nothing", Decimal(0), Money(Decimal("1.00"), "EUR"))


def test_line_rejects_full_discount():
    with pytest.raises(InvoiceError, match="discount must be in"):
        LineItem("Free", Decimal(1), Money(Decimal("1.00"), "EUR"), discount_pct=Decimal(100))


def test_cannot_add_line_in_other_currency():
    invoice = Invoice("INV-1", 1, date(2026, 3, 1), "EUR", "EUR")
    with pytest.raises(InvoiceError, match="lines are in EUR"):
        invoice.add_line(LineItem("Hosting", Decimal(1), Money(Decimal("10.00"), "USD")))


def test_cannot_add_line_to_issued_invoice(eur_line):
    invoice = Invoice("INV-2", 1, date(2026, 3, 1), "EUR", "EUR")
    invoice.add_line(eur_line)
    invoice.issue(Decimal(1))
    with pytest.raises(InvoiceError, match="issued invoice"):
        invoice.add_line(eur_line)


def test_issue_needs_lines():
    invoice = Invoice("INV-3", 1, date(2026, 3, 1), "EUR", "EUR")
    with pytest.raises(InvoiceError, match="at least one line"):
        invoice.issue(Decimal(1))


def test_single_currency_total(eur_line):
    invoice = Invoice("INV-4", 1, date(2026, 3, 1), "EUR", "EUR")
    invoice.add_line(eur_line)
    invoice.add_line(LineItem("Extra hours", Decimal("2.5"), Money(Decimal("80.00"), "EUR")))
    invoice.issue(Decimal(1))
    assert invoice.total == Money(Decimal("300.00"), "EUR")
    assert invoice.status is InvoiceStatus.ISSUED


def test_installments_add_up(eur_line):
    invoice = Invoice("INV-5", 1, date(2026, 3, 1), "EUR", "EUR", reverse_charge=True)
    invoice.add_line(eur_line)
    invoice.issue(Decimal(1))
    parts = invoice.installments(3)
    assert [p.amount for p in parts] == [Decimal("33.34"), Decimal("33.33"), Decimal("33.33")]
    assert sum(parts, Money.zero("EUR")) == invoice.amount_due


def test_void_paid_invoice_is_refused(eur_line):
    invoice = Invoice("INV-6", 1, date(2026, 3, 1), "EUR", "EUR")
    invoice.add_line(eur_line)
    invoice.issue(Decimal(1))
    invoice.status = InvoiceStatus.PAID
    with pytest.raises(InvoiceError, match="credit note"):
        invoice.void("duplicate")


# --- multi-currency ---


def test_total_matches_legacy_rounding(usd_invoice):
    usd_invoice.rate = Decimal("0.91735")
    usd_invoice.invoice_currency = "EUR"
    assert usd_invoice.total == Money(Decimal("1234.57"), "EUR")


def test_converted_line_is_rounded(usd_invoice):
    line = usd_invoice.lines[0]
    assert line.converted(usd_invoice.rate, "EUR") == Money(Decimal("80.87"), "EUR")


# --- regressions ---
'''

TEST_TAX = '''\
from __future__ import annotations

from decimal import Decimal

import pytest

from ledgerline.money import Money
from ledgerline.tax import TaxCode, UnknownTaxCountry, rate_for, reverse_charge_note, split_gross, tax_for


@pytest.mark.parametrize(
    ("country", "code", "rate"),
    [
        ("DE", TaxCode.STANDARD, Decimal("19")),
        ("DE", TaxCode.REDUCED, Decimal("7")),
        ("FR", TaxCode.REDUCED, Decimal("5.5")),
        ("IE", TaxCode.REDUCED, Decimal("13.5")),
        ("SE", TaxCode.STANDARD, Decimal("25")),
        ("DE", TaxCode.ZERO, Decimal("0")),
        ("FR", TaxCode.EXEMPT, Decimal("0")),
    ],
)
def test_rates(country, code, rate):
    assert rate_for(code, country) == rate


def test_unknown_country():
    with pytest.raises(UnknownTaxCountry, match="'US'"):
        rate_for(TaxCode.STANDARD, "US")


def test_tax_on_net():
    assert tax_for(TaxCode.STANDARD, "DE", Money(Decimal("100.00"), "EUR")) == Money(Decimal("19.00"), "EUR")


def test_split_adds_up():
    split = split_gross(Money(Decimal("119.00"), "EUR"), TaxCode.STANDARD, "DE")
    assert split.net == Money(Decimal("100.00"), "EUR")
    assert split.gross == Money(Decimal("119.00"), "EUR")


def test_vat_split_rounds_half_up():
    # 32.50 gross at 7 %: VAT 2.1261... -> 2.13 only if .5 rounds up at the third decimal step
    split = split_gross(Money(Decimal("32.54"), "EUR"), TaxCode.REDUCED, "DE")
    assert split.vat == Money(Decimal("2.13"), "EUR")
    assert split.net + split.vat == Money(Decimal("32.54"), "EUR")


def test_reverse_charge_note():
    note = reverse_charge_note("DE", "FR40303265045")
    assert "FR40303265045" in note
    assert "Article 196" in note


def test_reverse_charge_note_needs_prefix():
    with pytest.raises(ValueError, match="country prefix"):
        reverse_charge_note("DE", "40303265045")


def test_reverse_charge_line_total():
    net = Money(Decimal("84.245"), "EUR")
    total = net.rounded() + tax_for(TaxCode.STANDARD, "DE", Money(Decimal("0.00"), "EUR")) + Money(Decimal("16.00"), "EUR")
    assert total == Money(Decimal("100.25"), "EUR")
'''

SOURCES: dict[str, str] = {
    "ledgerline/money.py": MONEY,
    "ledgerline/invoice.py": INVOICE,
    "ledgerline/tax.py": TAX,
    "ledgerline/export.py": EXPORT,
    "ledgerline/reports.py": REPORTS,
    "tests/conftest.py": CONFTEST,
    "tests/test_invoice.py": TEST_INVOICE,
    "tests/test_tax.py": TEST_TAX,
}
