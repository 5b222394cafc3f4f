"""What the labelling page needs: the criteria to label, the items in the order to label
them (with why), and the key the browser saves the work under (docs/guides/labels.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.human_labels import raters_per_item, read_labels
from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.experiment.opened import OpenedExperiment
from autorubric_cli.experiment.store import ReadIssues, iter_latest_records
from autorubric_cli.labels.order import ORDERS, Order, Ranked, default_order, rank_items

CANNOT_ASSESS = "CANNOT_ASSESS"


@dataclass
class LabelPlan:
    experiment: OpenedExperiment
    criteria: list[Criterion]
    order: Order
    ranked: list[Ranked]
    per_item_raters: int | None
    raters: list[str]

    @property
    def storage_key(self) -> str:
        """Experiment name and creation time: two experiments of one name never share work."""
        manifest = self.experiment.manifest
        return f"autorubric-label:{manifest.name}:{manifest.created}"


def chosen_criteria(rubric: Rubric, names: Sequence[str]) -> list[Criterion]:
    known = [c.name for c in rubric.criteria]
    for name in names:
        if name not in known:
            raise InputError(
                f"unknown criterion {name!r} (one of: {', '.join(known)})", key="--criteria"
            )
    return [c for c in rubric.criteria if not names or c.name in names]


def criterion_meta(criterion: Criterion) -> dict[str, Any]:
    """Choices in the order the number keys reach them; the abstention apart ("0").

    Binary: 1 MET, 2 UNMET, cannot assess = CANNOT_ASSESS (always allowed, as in ground
    truth). Multi-choice: the non-NA options in rubric order; cannot assess = the criterion's
    NA option, offered only when the rubric has one.
    """
    abstain: str | None = CANNOT_ASSESS
    if criterion.options is None:
        choices = ["MET", "UNMET"]
    else:
        choices = [o.label for o in criterion.options if not o.na]
        abstain = next((o.label for o in criterion.options if o.na), None)
    return {
        "name": criterion.name,
        "requirement": criterion.requirement,
        "weight": criterion.weight,
        "tags": criterion.tags,
        "kind": criterion.kind,
        "choices": choices,
        "abstain": abstain,
        "sets": criterion.elicitation != "forced_choice",
        "scope": criterion.scope,
    }


def plan_labels(
    experiment: OpenedExperiment,
    *,
    criteria: Sequence[str] = (),
    order: str | None = None,
    per_item_raters: int | None = None,
) -> LabelPlan:
    chosen = chosen_criteria(experiment.rubric, criteria)
    grader = experiment.rubric.grader
    picked: Order = default_order(len(grader.judges), max(j.samples for j in grader.judges))
    if order is not None:
        if order not in ORDERS:
            raise InputError(f"must be one of: {', '.join(ORDERS)}", key="--order")
        picked = cast(Order, order)
    if per_item_raters is not None and per_item_raters < 1:
        raise InputError("must be at least 1", key="--per-item-raters")
    table = read_labels(experiment.directory)
    counts = {i: len(r) for i, r in raters_per_item(table).items()}
    issues = ReadIssues()
    # no rubric-fit check (half the reading time at 10,000 items): the order reads only the
    # votes of the criteria it is given, and any recorded id is an item a person can label
    records = iter_latest_records(experiment.directory / ITEMS, issues)
    ranked = rank_items(
        records,
        [c.name for c in chosen],
        picked,
        raters=counts,
        per_item_raters=per_item_raters,
        seed=experiment.manifest.seed,
    )
    if not ranked:
        raise InputError("no graded item to label yet", path=str(experiment.directory / ITEMS))
    raters = sorted({rater for rater, _ in table})
    return LabelPlan(experiment, chosen, picked, ranked, per_item_raters, raters)


def plan_meta(plan: LabelPlan) -> dict[str, Any]:
    manifest = plan.experiment.manifest
    return {
        "experiment": manifest.name,
        "key": plan.storage_key,
        "order": plan.order,
        "per_item_raters": plan.per_item_raters,
        "raters": plan.raters,
        "criteria": [criterion_meta(c) for c in plan.criteria],
        "simulated": manifest.simulated,
    }
