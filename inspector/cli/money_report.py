"""The money parts of the CLI's JSON reports (``replay``, ``compare``, ``info``), built from
:class:`~inspector.analysis.money.Money`; the Rich tables only display these dicts."""

from __future__ import annotations

import argparse
from decimal import Decimal
from collections.abc import Sequence
from typing import Any

from ..analysis.money import Money, MoneyOptions, MoneyTotals, money_totals
from ..analysis.usage_rows import CostRows, RecordedBill
from ..tokens import TokenTable
from ..units import SessionView


def add_money_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--prices",
        metavar="FILE",
        help="price override file (TOML or JSON, [models.\"NAME\"] input_mtok/output_mtok...) for models the "
        "bundled genai-prices data does not know; default: $CONTEXT_INSPECTOR_PRICES, else prices.toml or "
        "prices.json in the user config directory",
    )


def money_options(args: argparse.Namespace) -> MoneyOptions:
    """``--prices`` and, where the command has one, ``--model`` (it then prices every call)."""
    from ..analysis.prices import load_overrides

    return MoneyOptions(model=getattr(args, "model", None), overrides=load_overrides(getattr(args, "prices", None)))


class CallMoney:
    """Per main-session ``(call number, kind)`` its money fields, made when asked for (a replay
    table reads 201 of 300,000 calls; ``--json`` one chunk at a time): ``get(key, default)``."""

    def __init__(self, money: Money) -> None:
        self._by_kind: dict[str, dict[int, Any]] = {}
        for c in money.calls:
            if c.sidechain is None:
                self._by_kind.setdefault(c.kind, {})[c.call] = c

    def get(self, key: tuple[int, str], default: dict[str, Any]) -> dict[str, Any]:
        c = self._by_kind.get(key[1], {}).get(key[0])
        return default if c is None else c.as_json()


def replay_money(money: Money) -> tuple[CallMoney, list[dict[str, Any]], dict[str, Any]]:
    """Per main-session ``(call number, kind)`` its money fields (a summary call shares its
    number with the call it precedes); the sidechain calls as rows of their own; the totals."""
    per_call = CallMoney(money)
    sidechains = [{"sidechain": c.sidechain, "call": c.call, "message_index": c.message_index, **c.as_json()}
                  for c in money.calls if c.sidechain is not None]
    return per_call, sidechains, money.totals_json()


def _pct(saved: Decimal | int | None, base: Decimal | int | None) -> float | None:
    if saved is None or not base:
        return None
    return round(100.0 * float(saved) / float(base), 1)


def compare_money(baseline: Money | MoneyTotals, money: Money | MoneyTotals) -> dict[str, Any]:
    """One compare row's money: the pipeline's cost and what it saves, in input tokens (the fixed
    prefix included, as billed) and in USD, both as shares of the no-strategy baseline, and the
    calls where it breaks the cache."""
    baseline, money = money_totals(baseline), money_totals(money)
    base_tokens, tokens = baseline.baseline_tokens, money.tokens
    base_cost, cost = baseline.baseline_cost, money.cost
    saved = None if base_cost is None or cost is None else base_cost - cost
    breaks = money.cache_break_calls
    return {
        "input_tokens_billed": tokens,
        "tokens_saved_pct": _pct(base_tokens - tokens, base_tokens),
        "cost_total": None if cost is None else float(cost),
        "dollars_saved": None if saved is None else float(saved),
        "dollars_saved_pct": _pct(saved, base_cost),
        "cache_breaks": len(breaks),
        "cache_break_calls": list(breaks[:20]),
        "cache_read_tokens": money.read_tokens,
        "cache_write_tokens": money.write_tokens,
        "summary_calls": money.summary_calls,
        "summary_cost": None if money.summary_cost is None else float(money.summary_cost),
    }


#: Settings real agents use to keep the prompt cache valid, with the value that turns them off:
#: clear_tool_uses' ``clear_at_least`` (clear only when it frees that much) and SWE-agent's
#: ``polling`` (the history changes only every N calls).
CACHE_AWARE = (("clear_tool_uses", "clear_at_least", 0), ("last_n_observations", "polling", 1))


def cache_aware_rows(
    view: Any, table: Any, rows: Sequence[Any], row_settings: Sequence[Any], baseline: Money | MoneyTotals,
    options: MoneyOptions
) -> list[dict[str, Any]]:
    """For each compare row whose pipeline uses a cache-aware setting set away from its off
    value, the same pipeline with it off, priced the same way (:func:`compare_money`): what the
    setting is worth in tokens and in dollars."""
    from ..analysis.money_sums import session_money_totals

    out = []
    for row, settings in zip(rows, row_settings):
        for strategy, param, off in CACHE_AWARE:
            value = getattr(settings, param, off)
            if strategy not in row.pipeline or value == off:
                continue
            variant = settings.model_copy(update={param: off})
            money = session_money_totals(view, table, row.pipeline, variant, options)
            out.append({**({"preset": row.preset} if row.preset else {}), "pipeline": row.name, "setting": f"{param}={off}",
                        "instead_of": f"{param}={value}", **compare_money(baseline, money)})
    return out


def info_money(money: Money) -> dict[str, Any]:
    """What the file's recorded usage cost: per call (sidechains marked) and in total."""
    bill = RecordedBill()
    for c in money.calls:
        bill.add(c.call, c.sidechain, c.model, c.recorded_cost)
    return _bill_report(bill, money.prices_as_of, money.unknown_models)


def recorded_info_money(view: SessionView, table: TokenTable, options: MoneyOptions) -> dict[str, Any]:
    """:func:`info_money` of ``session_money(view, table, options=options)``, each call's recorded
    cost added as it is priced (:func:`~inspector.analysis.money.recorded_costs`): no row or cost
    per call is kept but its dollars."""
    from ..analysis.money import recorded_costs
    from ..analysis.prices import prices_as_of

    bill = RecordedBill()
    unknown = recorded_costs(view, table, options, bill.add)
    return _bill_report(bill, prices_as_of(), unknown)


def _bill_report(bill: RecordedBill, prices_as_of: str, unknown_models: list[str]) -> dict[str, Any]:
    rows, total, sidechains = bill.rows, bill.total, bill.sidechains  # rows built when read: the table shows a few of 20,000+
    return {
        "recorded_cost_total": None if total is None else float(total),
        "recorded_cost_sidechains": None if sidechains is None else float(sidechains),
        "calls_priced": rows.priced,
        "cost_per_call": None if not rows.priced or total is None else float(total) / rows.priced,
        "prices_as_of": prices_as_of,
        "unknown_models": unknown_models,
        "calls": rows,
    }


def unpriced_info_money(numbers: Sequence[int]) -> dict[str, Any]:
    """:func:`info_money` of a session none of whose calls ``numbers`` can be priced
    (:func:`~inspector.analysis.info.unpriceable_calls`): the same dict, no call priced."""
    from ..analysis.prices import prices_as_of

    return {
        "recorded_cost_total": None,
        "recorded_cost_sidechains": None,
        "calls_priced": 0,
        "cost_per_call": None,
        "prices_as_of": prices_as_of(),
        "unknown_models": [],
        "calls": CostRows.unpriced(numbers),
    }


__all__ = [
    "CACHE_AWARE", "CallMoney", "add_money_options", "cache_aware_rows", "compare_money", "info_money", "money_options",
    "recorded_info_money", "replay_money", "unpriced_info_money",
]
