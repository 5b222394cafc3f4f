"""The `--dry-run` bill of a cascade (docs/guides/cascades.md).

The bill of every judge on every criterion is built as for any run; a cascade then pays the
`first` stage in full and the `then` stage on the escalated share of criteria only. With
`--escalation-rate R` (the rate of the last calibration) the `then` judges' lines are scaled to R
and the totals are the first stage plus R times the `then` stage, so the lines add up to the
totals; without it, every line and the totals are the upper bound (everything escalated) and
the `cascade` block gives both bounds. The `then` stage's share is scaled from the bill of
asking it everything, so with `llm_calls: per_item` (where the escalation lists only the
escalated criteria, a shorter prompt) it is an upper estimate.
"""

from __future__ import annotations

from typing import Any

from autorubric_cli.core.config import CascadeConfig
from autorubric_cli.errors import InputError

SUMMED = ("calls", "cached", "prompt_tokens", "completion_tokens_estimate", "cost_estimate")


def stage_line(bill: dict[str, Any], ids: list[str]) -> dict[str, Any]:
    """The bill of some judges: their lines summed (cost None when one is unpriced)."""
    lines = [line for line in bill["judges"] if line["id"] in ids]
    total: dict[str, Any] = {"judges": ids}
    for key in SUMMED:
        values = [line[key] for line in lines]
        total[key] = None if any(v is None for v in values) else sum(values)
    return total


def scaled(first: float | None, then: float | None, rate: float) -> float | None:
    return None if first is None or then is None else first + rate * then


def cascade_bill(
    bill: dict[str, Any], cascade: CascadeConfig | None, rate: float | None
) -> dict[str, Any]:
    """The bill with a `cascade` block; with `rate`, totals for that escalation rate."""
    if cascade is None:
        if rate is not None:
            raise InputError("the rubric has no `grader.cascade`", key="--escalation-rate")
        return bill
    first, then = stage_line(bill, cascade.first), stage_line(bill, cascade.then)
    block = {
        "escalation_rate": rate,
        "first": first,
        "then_all": then,
        "cost_estimate_min": first["cost_estimate"],
        "cost_estimate_max": scaled(first["cost_estimate"], then["cost_estimate"], 1.0),
        "cost_estimate": None
        if rate is None
        else scaled(first["cost_estimate"], then["cost_estimate"], rate),
    }
    out = {**bill, "cascade": block}
    if rate is None:
        return out
    return scaled_bill(out, set(cascade.then), rate)


LINE_KEYS = (*SUMMED, "cached_prompt_tokens", "cache_write_tokens")


def scaled_line(line: dict[str, Any], rate: float) -> dict[str, Any]:
    """A `then` judge's criterion line at escalation rate `rate` (counts rounded)."""
    out = dict(line)
    for key in LINE_KEYS:
        value = line[key]
        if value is not None:
            out[key] = rate * value if key == "cost_estimate" else round(rate * value)
    return out


def summed(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """Lines added key by key (cost None when one is unpriced)."""
    total: dict[str, Any] = {}
    for key in LINE_KEYS:
        values = [line[key] for line in lines]
        total[key] = None if any(v is None for v in values) else sum(values)
    return total


def scaled_bill(bill: dict[str, Any], then: set[str], rate: float) -> dict[str, Any]:
    """The bill at escalation rate `rate`: the `then` judges' criterion lines scaled, each
    judge's line the sum of its criterion lines, the totals the sum of the judges' lines, so
    every column adds up."""
    criteria = [scaled_line(c, rate) if c["judge"] in then else c for c in bill["criteria"]]
    judges = [
        {"id": j["id"], **summed([c for c in criteria if c["judge"] == j["id"]])}
        for j in bill["judges"]
    ]
    total = summed(judges)
    return {
        **bill,
        "calls": {
            "total": total["calls"],
            "cached": total["cached"],
            "to_send": total["calls"] - total["cached"],
        },
        "judges": judges,
        "criteria": criteria,
        "prompt_tokens": total["prompt_tokens"],
        "completion_tokens_estimate": total["completion_tokens_estimate"],
        "cost_estimate": total["cost_estimate"],
    }
