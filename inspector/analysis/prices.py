"""Prices: what a model call's tokens cost in USD, from the bundled ``genai-prices`` data.

No price is written here. :func:`price` hands the token split to ``genai_prices.calc_price`` (or,
for a model named in the user's override file, to ``genai_prices``' own ``ModelPrice.calc_price``
with the user's per-million prices) and splits the library's input price into its uncached, cache
read and cache write parts using the same library's unit prices. ``total`` is always the
library's own total. An unknown model gives ``None``: no guess.

The override file (JSON or TOML) names private or self-hosted models::

    [models."my-llama"]
    input_mtok = 0.2
    output_mtok = 0.6
    cache_read_mtok = 0.02      # optional
    cache_write_mtok = 0.25     # optional (1h writes: cache_write_1h_mtok)

It is read from ``$CONTEXT_INSPECTOR_PRICES``, else ``prices.toml`` / ``prices.json`` in the
user config dir (``inspector.paths.config_dir()``), or an explicit path.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from dataclasses import dataclass, fields
from datetime import date, datetime, time
from decimal import Context, Decimal, Inexact
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ..paths import config_dir
from ..safeio import read_settings_text

ENV_OVERRIDE = "CONTEXT_INSPECTOR_PRICES"


@dataclass(frozen=True, slots=True)
class TokenSplit:
    """One call's tokens as a bill splits them. ``uncached`` is input read at the full price;
    ``cache_write_1h`` is the part of ``cache_write`` written with the one-hour lifetime."""

    uncached: int = 0
    cache_read: int = 0
    cache_write: int = 0
    output: int = 0
    cache_write_1h: int = 0
    #: The call's recorded speed (Anthropic's ``usage.speed``: "fast" is priced by the data's
    #: fast-mode variant; None or "standard": the standard price).
    speed: str | None = None

    @property
    def price_context(self) -> dict[str, str] | None:
        return _price_context(self.speed)

    @property
    def input_total(self) -> int:
        return self.uncached + self.cache_read + self.cache_write


@dataclass(frozen=True, slots=True)
class Cost:
    """USD by part; ``total`` is the price library's own total (the parts add up to it)."""

    input: Decimal
    cache_read: Decimal
    cache_write: Decimal
    output: Decimal
    total: Decimal
    model: str  # the model the price data matched
    provider: str
    source: str  # "genai-prices" or the override file's path

    def as_json(self) -> dict[str, float]:
        return {"input": float(self.input), "cache_read": float(self.cache_read), "cache_write": float(self.cache_write),
                "output": float(self.output), "total": float(self.total)}


def _cost_maker() -> Any:
    """``make(input, cache_read, cache_write, output, total, model, provider, source)``: the
    :class:`Cost` ``Cost(...)`` makes, its slots set directly. Cost is frozen, so its generated
    ``__init__`` sets each field through ``object.__setattr__``: about twice the time, and money
    makes two or three a call (13,000 for ``replay`` at 10k messages)."""
    a, b, c, d, e, f, g, h = (getattr(Cost, field.name).__set__ for field in fields(Cost))
    new = object.__new__

    def make(input: Decimal, cache_read: Decimal, cache_write: Decimal, output: Decimal, total: Decimal, model: str,
             provider: str, source: str) -> Cost:
        cost = new(Cost)
        a(cost, input), b(cost, cache_read), c(cost, cache_write), d(cost, output), e(cost, total)
        f(cost, model), g(cost, provider), h(cost, source)
        return cost

    return make


_make_cost = _cost_maker()


class PriceError(ValueError):
    """The override file cannot be used (the message names the file and what is wrong)."""


class _ModelPrices(BaseModel):
    model_config = ConfigDict(extra="forbid")
    input_mtok: Decimal
    output_mtok: Decimal
    cache_read_mtok: Decimal | None = None
    cache_write_mtok: Decimal | None = None
    cache_write_1h_mtok: Decimal | None = None
    provider: str = "override"


class _OverrideFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    models: dict[str, _ModelPrices]


@dataclass(frozen=True)
class Overrides:
    path: str | None
    models: dict[str, _ModelPrices]

    def get(self, model: str) -> _ModelPrices | None:
        return self.models.get(model)


NO_OVERRIDES = Overrides(None, {})


def override_path() -> Path | None:
    """Where the user's override file is: ``$CONTEXT_INSPECTOR_PRICES``, else ``prices.toml`` or
    ``prices.json`` in the user config directory."""
    env = os.environ.get(ENV_OVERRIDE)
    if env:
        return Path(env)
    for name in ("prices.toml", "prices.json"):
        candidate = Path(config_dir()) / name
        if candidate.is_file():
            return candidate
    return None


def load_overrides(path: str | Path | None = None) -> Overrides:
    """The override file at ``path`` (default :func:`override_path`); none when there is none.
    A file that is named but missing or malformed is a :class:`PriceError`."""
    path = Path(path) if path is not None else override_path()
    if path is None:
        return NO_OVERRIDES
    try:
        text = read_settings_text(path)
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise PriceError(f"{path}: cannot read the price override file ({reason}).") from e
    try:
        data: Any = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise PriceError(f"{path}: not valid {'TOML' if path.suffix.lower() == '.toml' else 'JSON'} ({e}).") from e
    try:
        parsed = _OverrideFile.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise PriceError(f"{path}: {where}: {first['msg']} (expected [models.\"NAME\"] with input_mtok and output_mtok in USD per million tokens).") from e
    return Overrides(str(path), parsed.models)


def timeless_instant() -> datetime:
    """When a call the file gives no time is priced: today at 12:00 UTC, today's prices. A fixed
    hour, not the clock, because some prices depend on the hour (DeepSeek's off-peak rate from
    16:30 to 00:30 UTC): the same session priced twice in a day gets the same dollars."""
    from genai_prices.types import UTC

    return datetime.combine(date.today(), time(12, 0), tzinfo=UTC)


def price(
    tokens: TokenSplit,
    model: str | None,
    provider: str | None = None,
    when: datetime | None = None,
    overrides: Overrides = NO_OVERRIDES,
) -> Cost | None:
    """USD for ``tokens`` on ``model`` (at request time ``when``: the data keeps price history;
    None: :func:`timeless_instant`). None when there is no model or the price data does not know it."""
    if not model:
        return None
    when = when or timeless_instant()
    own = overrides.get(model)
    if own is None:  # the bundled data: the same usage at the same time has the same price
        return _library_price(tokens, *library_name(model, provider), when)
    return _price(tokens, model, provider, when, own, overrides)


def _price_context(speed: str | None) -> dict[str, str] | None:
    """The library's ``price_context`` of a call made at ``speed`` (None: the standard price)."""
    return {"speed": speed} if speed and speed != "standard" else None


def _model_price(model_obj: Any, when: datetime, speed: str | None) -> Any:
    """The data's price of ``model_obj`` at ``when`` for a call at ``speed``: the standard one,
    or it with the variants that speed selects (fast mode), one object per standard price and
    set of variants in force (the plain-price memos key on its identity)."""
    standard = model_obj.get_prices(when)
    context = _price_context(speed)
    if context is None or not model_obj.price_variants:
        return standard
    active = tuple(id(v) for v in model_obj.price_variants
                   if (v.constraint is None or v.constraint.active(when)) and all(context.get(k) == x for k, x in v.when.items()))
    if not active:
        return standard
    key = (id(standard), active)
    kept = _variant_prices.get(key)
    if kept is None or kept[0] is not standard:
        kept = _variant_prices[key] = (standard, model_obj.get_prices(when, context))
    return kept[1]


#: Per standard price object and variants in force, the resolved price (the library copies it per call).
_variant_prices: dict[tuple[int, tuple[int, ...]], tuple[object, object]] = {}


@lru_cache(maxsize=1 << 16)
def _library_price(tokens: TokenSplit, model: str, provider: str | None, when: datetime) -> Cost | None:
    """:func:`price` from the bundled data, memoised: ``compare`` prices the recorded and the
    no-strategy usage of every call once per pipeline. A plain usage on a model priced by the
    four plain units takes :func:`_plain_price` (the library's own lookup, price history and
    unit arithmetic, without its per-call unit decomposition: ~20 us a price, not ~100); the rest takes
    the library's whole ``calc_price``."""
    found = _provider_model(model, provider)
    if found is not None and not tokens.cache_write_1h and min(tokens.uncached, tokens.cache_read, tokens.cache_write, tokens.output) >= 0:
        provider_obj, model_obj = found
        model_price = _model_price(model_obj, when, tokens.speed)
        plain = _plain_units(model_price)
        if plain is not None and (plain.cache_read is not None or not tokens.cache_read) \
                and (plain.cache_write is not None or not tokens.cache_write):
            return _plain_price(tokens, plain, model_obj.id, provider_obj.id)
    return _price(tokens, model, provider, when, None, NO_OVERRIDES)


@dataclass(frozen=True, slots=True)
class _PlainUnits:
    """A model price that prices only uncached input, cache reads and writes and output (each a
    number or the library's tiers by input size)."""

    input: Any
    cache_read: Any
    cache_write: Any
    output: Any


#: The price keys :func:`_plain_price` computes, and those it may leave out because a usage of
#: the four plain units has none of theirs (one-hour cache writes: the caller routes usages
#: with some to the library; searches); a price with any other key set (per-request fees,
#: audio, images, reasoning priced apart...) takes the library's whole calculation.
_PLAIN_KEYS = frozenset({"input_mtok", "cache_read_mtok", "cache_write_mtok", "output_mtok"})
_UNUSED_KEYS = frozenset({"cache_write_1h_mtok", "web_searches_kcount", "storage_searches_kcount"})
_plain_by_price: dict[int, tuple[object, _PlainUnits | None]] = {}


def _plain_units(model_price: Any) -> _PlainUnits | None:
    """The plain units of a bundled model price, or None when it sets any other price (read once
    per price object: the bundled data keeps them)."""
    kept = _plain_by_price.get(id(model_price))
    if kept is None or kept[0] is not model_price:
        keys = {k for k, v in vars(model_price).items() if v is not None}
        plain = None
        if keys <= _PLAIN_KEYS | _UNUSED_KEYS and {"input_mtok", "output_mtok"} <= keys:
            get = vars(model_price).get
            plain = _PlainUnits(get("input_mtok"), get("cache_read_mtok"), get("cache_write_mtok"), get("output_mtok"))
        kept = _plain_by_price[id(model_price)] = (model_price, plain)
    return kept[1]


@lru_cache(maxsize=1024)
def library_name(model: str, provider: str | None = None) -> tuple[str, str | None]:
    """``(model, provider)`` as the bundled price data knows them: as named where it does; else a
    routed name ("vendor/model", as LiteLLM and OpenRouter write them) as the vendor's model
    ("openai/gpt-4o": gpt-4o at openai), else as OpenRouter's model of that id
    ("meta-llama/llama-4-maverick"), else its last part ("litellm_proxy/claude-sonnet-4-5");
    unchanged where none is known."""
    if provider is not None or "/" not in model or _provider_model(model, None) is not None:
        return model, provider
    vendor, _, rest = model.partition("/")
    if _provider_model(rest, vendor) is not None:
        return rest, vendor
    if _provider_model(model, "openrouter") is not None:
        return model, "openrouter"
    last = model.rsplit("/", 1)[-1]
    if _provider_model(last, None) is not None:
        return last, None
    return model, provider


@lru_cache(maxsize=1024)
def _provider_model(model: str, provider: str | None) -> tuple[Any, Any] | None:
    """The bundled data's ``(provider, model)`` for a model name, as ``genai_prices.calc_price``
    finds it; None when it knows none."""
    from genai_prices import data_snapshot

    try:
        return data_snapshot.get_snapshot().find_provider_model(model, None, provider, None)
    except LookupError:
        return None


def _plain_price(tokens: TokenSplit, plain: _PlainUnits, model_id: str, provider_id: str) -> Cost:
    """The library's price of a plain usage: each unit's count times its price for the tier the
    whole input falls in (``calc_unit_price``), as its ``ModelPrice.calc_price`` sums them; the
    tests check every bundled model against the library."""
    from genai_prices.types import calc_unit_price

    whole = tokens.input_total
    uncached = calc_unit_price(plain.input, tokens.uncached, whole, 1_000_000)
    read = calc_unit_price(plain.cache_read, tokens.cache_read, whole, 1_000_000) if tokens.cache_read else Decimal(0)
    write = calc_unit_price(plain.cache_write, tokens.cache_write, whole, 1_000_000) if tokens.cache_write else Decimal(0)
    output = calc_unit_price(plain.output, tokens.output, whole, 1_000_000)
    return Cost(uncached, read, write, output, uncached + read + write + output, model_id, provider_id, "genai-prices")


@dataclass(frozen=True, slots=True)
class PlainRates:
    """What a plain usage (:func:`plain_rates`) of one model at one time pays: the four unit
    prices (each a number or tiers by the whole input) and the ids a :class:`Cost` names."""

    units: _PlainUnits
    model: str
    provider: str
    #: The four unit prices where none has tiers (None: some has; or no cache price, as 0).
    flat: tuple[Decimal, Decimal, Decimal, Decimal] | None = None

    def rates(self, uncached: int, cache_read: int, cache_write: int, output: int) -> tuple[Decimal, Decimal, Decimal, Decimal] | None:
        """USD per million tokens of each unit for a usage of these counts, the tier picked by
        the whole input as ``calc_unit_price`` picks it: ``price(usage)`` is the sum of each
        count times its rate over a million (0 for a read or write count of 0). None where
        :func:`price` would not take the plain path for it (a count below 0, a cache unit the
        model does not price)."""
        u = self.units
        if min(uncached, cache_read, cache_write, output) < 0 or (cache_read and u.cache_read is None) \
                or (cache_write and u.cache_write is None):
            return None
        zero = _ZERO
        flat = self.flat
        if flat is not None:
            return flat[0], flat[1] if cache_read else zero, flat[2] if cache_write else zero, flat[3]
        whole = uncached + cache_read + cache_write
        return (_rate(u.input, whole), _rate(u.cache_read, whole) if cache_read else zero,
                _rate(u.cache_write, whole) if cache_write else zero, _rate(u.output, whole))

    def cost(self, uncached: int, cache_read: int, cache_write: int, output: int) -> Cost | None:
        """:func:`price` of a plain usage of these counts (no one-hour write) at the rates' time,
        without its per-call lookups: :func:`_plain_price`'s own operations on the same rates, in
        a context that raises where one would round, so a Cost made here is exact and the same
        Decimal the library's arithmetic gives. None where :meth:`rates` is None or a figure
        would round: price that usage with :func:`price`."""
        rates = self.rates(uncached, cache_read, cache_write, output)
        if rates is None:
            return None
        mul, div = _EXACT.multiply, _EXACT.divide
        try:
            paid = div(mul(rates[0], uncached), 1_000_000)
            read = div(mul(rates[1], cache_read), 1_000_000) if cache_read else _ZERO
            write = div(mul(rates[2], cache_write), 1_000_000) if cache_write else _ZERO
            out = div(mul(rates[3], output), 1_000_000)
            total = _EXACT.add(_EXACT.add(_EXACT.add(paid, read), write), out)
        except Inexact:
            return None
        return _make_cost(paid, read, write, out, total, self.model, self.provider, "genai-prices")


_ZERO = Decimal(0)
#: The default context (its precision, rounding and exponent limits) with rounding trapped: an
#: operation that returns in it gave the exact result, the one the default context gives too.
_EXACT = Context(traps=[Inexact])


def _rate(value: Any, whole: int) -> Decimal:
    """The unit price ``calc_unit_price`` applies to a usage of ``whole`` input tokens."""
    if not isinstance(value, Decimal):  # the library's TieredPrices
        for tier in reversed(value.tiers):
            if whole > tier.start:
                return tier.price
        return value.base
    return value


def plain_rates(model: str | None, when: datetime | None, overrides: Overrides = NO_OVERRIDES,
                speed: str | None = None) -> PlainRates | None:
    """The :class:`PlainRates` :func:`price` uses for a usage of the four plain units (no
    one-hour cache write) on ``model`` at ``when``, where it takes the plain path
    (:func:`_library_price`); None where it does not (no model, an override, a model the data
    does not know or whose price sets another unit): price those usages with :func:`price`."""
    if not model or overrides.get(model) is not None:
        return None
    found = _provider_model(*library_name(model))
    if found is None:
        return None
    provider_obj, model_obj = found
    model_price = _model_price(model_obj, when or timeless_instant(), speed)
    kept = _rates_by_price.get((id(model_price), model_obj.id, provider_obj.id))
    if kept is not None and kept[0] is model_price:
        return kept[1]
    plain = _plain_units(model_price)
    rates = None
    if plain is not None:
        units = (plain.input, plain.cache_read or _ZERO, plain.cache_write or _ZERO, plain.output)
        flat = units if all(isinstance(u, Decimal) for u in units) else None
        rates = PlainRates(plain, model_obj.id, provider_obj.id, flat)
    _rates_by_price[(id(model_price), model_obj.id, provider_obj.id)] = (model_price, rates)
    return rates


#: Per price period (the data's price object) and ids, its :class:`PlainRates` (or None): calls
#: of one model at many times share a few periods.
_rates_by_price: dict[tuple[int, str, str], tuple[object, PlainRates | None]] = {}


def _price(tokens: TokenSplit, model: str, provider: str | None, when: datetime | None, own: _ModelPrices | None,
           overrides: Overrides) -> Cost | None:
    import genai_prices
    from genai_prices.types import ModelPrice

    if min(tokens.input_total, tokens.cache_read, tokens.cache_write, tokens.output, tokens.cache_write_1h) < 0:
        return None  # not a usage (a reader let a broken count through): not priced
    usage = genai_prices.Usage(
        input_tokens=tokens.input_total,
        cache_read_tokens=tokens.cache_read,
        cache_write_tokens=tokens.cache_write,
        output_tokens=tokens.output,
        **({"cache_write_1h_tokens": tokens.cache_write_1h} if tokens.cache_write_1h else {}),
    )
    if own is not None:
        model_price = ModelPrice(**own.model_dump(exclude={"provider"}, exclude_none=True))
        calc = model_price.calc_price(usage)
        input_price, output_price, total = calc["input_price"], calc["output_price"], calc["total_price"]
        matched, provider_id, source = model, own.provider, overrides.path or "override"
    else:
        try:
            result = genai_prices.calc_price(usage, model, provider_id=provider, genai_request_timestamp=when,
                                             price_context=tokens.price_context)
        except LookupError:
            return None
        except ValueError:  # the library refuses the usage (e.g. a 1h cache write above all writes)
            return None
        model_price = result.model_price
        input_price, output_price, total = result.input_price, result.output_price, result.total_price
        matched, provider_id, source = result.model.id, result.provider.id, "genai-prices"
    read = _unit_price(model_price, "cache_read_mtok", tokens.cache_read, tokens.input_total)
    write = _unit_price(model_price, "cache_write_mtok", tokens.cache_write - tokens.cache_write_1h, tokens.input_total)
    write += _unit_price(model_price, "cache_write_1h_mtok", tokens.cache_write_1h, tokens.input_total)
    return Cost(input_price - read - write, read, write, output_price, total, matched, provider_id, source)


def _unit_price(model_price: Any, key: str, count: int, input_total: int) -> Decimal:
    """The library's price for ``count`` tokens of one unit (tier chosen by the whole input)."""
    from genai_prices.types import calc_unit_price

    value = getattr(model_price, key, None)
    if value is None and key == "cache_write_1h_mtok":
        value = getattr(model_price, "cache_write_mtok", None)
    if value is None or not count:
        return Decimal(0)
    return calc_unit_price(value, count, input_total, 1_000_000)


@lru_cache(maxsize=1)
def prices_as_of() -> str:
    """The price data's date: the newest dated note in the bundled ``genai-prices`` data that is
    not in the future (the data also carries scheduled price changes), and the package version."""
    import genai_prices
    from genai_prices import data

    today = date.today().isoformat()
    found = [
        d
        for p in data.providers
        for text in [p.price_comments or "", *((m.price_comments or "") for m in p.models)]
        for d in re.findall(r"\b20\d\d-[01]\d-[0-3]\d\b", text)
        if d <= today
    ]
    newest = max(found) if found else "unknown"
    return f"{newest} (genai-prices {genai_prices.__version__})"


__all__ = [
    "Cost", "ENV_OVERRIDE", "NO_OVERRIDES", "Overrides", "PlainRates", "PriceError", "TokenSplit",
    "load_overrides", "override_path", "plain_rates", "price", "prices_as_of",
]
