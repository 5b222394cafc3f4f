"""The `--dry-run` bill of a cascade (docs/guides/cascades.md).

The bill of every judge on every criterion is built as for any run; a cascade then pays the
`first` stage in full and the `then` stage on the escalated share of criteria only. With
`--escalation-rate R` (the rate of the last calibration) the totals are the first stage plus R
times the `then` stage; without it, the totals are the upper bound (everything escalated) and
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
    to_send = [s["calls"] - s["cached"] for s in (first, then)]
    calls = round(first["calls"] + rate * then["calls"])
    cached = round(first["cached"] + rate * then["cached"])
    out["calls"] = {
        "total": calls,
        "cached": cached,
        "to_send": round(to_send[0] + rate * to_send[1]),
    }
    for key in ("prompt_tokens", "completion_tokens_estimate"):
        out[key] = round(first[key] + rate * then[key])
    out["cost_estimate"] = block["cost_estimate"]
    return out
