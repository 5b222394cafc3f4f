"""Offline cascade calibration (docs/guides/cascades.md): replay a cascade from a run of the
`first` judges and a run of the `then` judges over the same items, with no judge call.

Every replayed decision goes through `core.cascade.escalates`, the rule the live cascade uses
(each pair's `first_stage` is computed once), so the replay at a threshold gives the live run's
escalations and outcomes (the `then` stage's outcome is the `then` run's, aggregated with the
same rules).

Costs: a pair's cost in a stage is what its votes cost (a cached vote at its original price).
A per-item call's cost sits on one criterion's vote (`billed_with`), so for those records the
item's cost is spread evenly over its criteria.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from autorubric_cli.core.cascade import FirstStage, escalates, first_stage
from autorubric_cli.core.evaluate import ScoringRules
from autorubric_cli.core.json_model import Block
from autorubric_cli.core.outcome import outcome_label
from autorubric_cli.core.records import ItemRecord
from autorubric_cli.core.thresholds import criterion_threshold

GRID = tuple(round(i * 0.05, 2) for i in range(21))


@dataclass(frozen=True)
class Pair:
    """One (item, criterion) of the two runs; `first` is the first stage's result."""

    item: str
    criterion: int
    first: FirstStage
    then_outcome: str
    truth: str | None
    first_cost: float | None
    then_cost: float | None


class CriterionCalibration(Block):
    name: str
    escalation_rate: float | None
    agreement_with_then: float | None


class ThresholdEntry(Block):
    threshold: float | None  # null for a set of per-criterion thresholds
    escalation_rate: float | None
    agreement_with_then: float | None
    criteria: list[CriterionCalibration]
    agreement_with_labels: float | None  # null when no pair has a label
    cost: float | None  # USD; null when a judge is unpriced
    cost_ratio: float | None  # cost / the all-`then` cost
    per_criterion: dict[str, float] | None = None  # the thresholds by criterion name, if a set


Thresholds = float | dict[str, float]
"""One threshold for every criterion, or one per criterion name (`escalate_below`'s forms)."""


def criterion_costs(record: ItemRecord, stage: str | None = None) -> list[float | None]:
    """Each criterion's cost in this record (of the votes of `stage` only, when given); an
    unpriced vote makes it None. A per-item call's cost sits on one vote (`billed_with`): then
    the record's cost is spread evenly over the criteria that have votes."""
    per = [[v for v in c.votes if stage is None or v.stage == stage] for c in record.criteria]
    if any(v.cost is None for votes in per for v in votes):
        return [None] * len(per)
    sums = [math.fsum(v.cost or 0.0 for v in votes) for votes in per]
    if not any(v.billed_with is not None for votes in per for v in votes):
        return list(sums)
    voted = sum(bool(votes) for votes in per)
    return [math.fsum(sums) / voted if votes else 0.0 for votes in per]


def record_pairs(first: ItemRecord, then: ItemRecord, rules: ScoringRules) -> list[Pair]:
    first_costs, then_costs = criterion_costs(first), criterion_costs(then)
    return [
        Pair(
            item=first.id,
            criterion=index,
            first=first_stage(rules.criteria[index], result.votes, rules),
            then_outcome=outcome_label(then.criteria[index]),
            truth=first.ground_truth.get(result.name),
            first_cost=first_costs[index],
            then_cost=then_costs[index],
        )
        for index, result in enumerate(first.criteria)
    ]


def replayed_outcome(pair: Pair, threshold: float) -> tuple[bool, str]:
    """(escalated, the cascade's outcome label) of one pair at `threshold`."""
    up = escalates(pair.first, threshold)
    return up, pair.then_outcome if up else outcome_label(pair.first.outcome)


def thresholds(pairs: Iterable[Pair]) -> list[float]:
    """The grid 0, 0.05, ..., 1 and every distinct first-stage agreement."""
    found = set(GRID)
    found.update(p.first.agreement for p in pairs if p.first.agreement is not None)
    return sorted(found)


def share(hits: int, total: int) -> float | None:
    return hits / total if total else None


def total_cost(costs: Iterable[float | None]) -> float | None:
    values = list(costs)
    return None if any(c is None for c in values) else math.fsum(values)  # type: ignore[arg-type]


def threshold_entry(
    pairs: Sequence[Pair], rules: ScoringRules, threshold: Thresholds
) -> ThresholdEntry:
    """The replay at `threshold`, one number or a map (`criterion_threshold` reads it as the
    live run does)."""
    names = [c.name for c in rules.criteria]
    limits = [criterion_threshold(threshold, name) for name in names]
    replayed = [replayed_outcome(pair, limits[pair.criterion]) for pair in pairs]
    rows = []
    for index, name in enumerate(names):
        mine = [(p, r) for p, r in zip(pairs, replayed, strict=True) if p.criterion == index]
        rows.append(
            CriterionCalibration(
                name=name,
                escalation_rate=share(sum(r[0] for _, r in mine), len(mine)),
                agreement_with_then=share(sum(r[1] == p.then_outcome for p, r in mine), len(mine)),
            )
        )
    labelled = [(p, r) for p, r in zip(pairs, replayed, strict=True) if p.truth is not None]
    cost = total_cost(
        c for p, (up, _) in zip(pairs, replayed, strict=True) for c in cost_parts(p, up)
    )
    all_then = total_cost(p.then_cost for p in pairs)
    return ThresholdEntry(
        threshold=None if isinstance(threshold, dict) else threshold,
        escalation_rate=share(sum(r[0] for r in replayed), len(pairs)),
        agreement_with_then=share(
            sum(r[1] == p.then_outcome for p, r in zip(pairs, replayed, strict=True)), len(pairs)
        ),
        criteria=rows,
        agreement_with_labels=share(sum(r[1] == p.truth for p, r in labelled), len(labelled)),
        cost=cost,
        cost_ratio=None if cost is None or not all_then else cost / all_then,
        per_criterion=threshold if isinstance(threshold, dict) else None,
    )


def cost_parts(pair: Pair, escalated: bool) -> list[float | None]:
    return [pair.first_cost, pair.then_cost] if escalated else [pair.first_cost]


def reached(entry: ThresholdEntry, against: str) -> float | None:
    """The entry's agreement with the calibration's goal: the `then` outcomes or the labels."""
    return entry.agreement_with_labels if against == "labels" else entry.agreement_with_then


def recommend(
    entries: Sequence[ThresholdEntry], target: float, against: str = "then"
) -> ThresholdEntry | None:
    """The cheapest entry whose agreement with the goal reaches `target` (ties: fewer
    escalations, then the lower threshold); None when none does."""
    good = [
        e for e in entries if (value := reached(e, against)) is not None and value >= target - 1e-9
    ]
    if not good:
        return None
    return min(good, key=lambda e: (e.cost or 0.0, e.escalation_rate or 0.0, e.threshold or 0.0))
