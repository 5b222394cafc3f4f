"""`autorubric pairwise --dry-run`: the bill before paying it (docs/guides/cache-and-cost.md), as
`run --dry-run` makes it: every request built as the comparison would build it, looked up in the
call cache (read-only), the others priced with litellm; a comparison's calls in one order share
their prefix, billed as one write and then reads (experiment/dry_run.py `criteria_calls`).
Lines are per judge and question (`overall` for the overall question).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from autorubric_cli.core.pair_truth import question_truths
from autorubric_cli.core.pairs import orders_asked
from autorubric_cli.experiment.bill import Bill, Line
from autorubric_cli.experiment.dry_run import (
    Estimator,
    Pricing,
    criteria_calls,
    open_readonly_cache,
)
from autorubric_cli.judges.pairs import PairRequest
from autorubric_cli.judges.policy.preflight import print_warnings
from autorubric_cli.pairwise.checks import pairwise_plan
from autorubric_cli.pairwise.plan import PairPlan, PairwiseOptions
from autorubric_cli.pairwise.requests import Questions


def pairwise_dry_run(rubric_path: Path, options: PairwiseOptions) -> dict[str, Any]:
    """The bill of `pairwise` with these options; checks like the run, creates nothing."""
    plan = pairwise_plan(rubric_path, options)  # refuses exactly what the run refuses
    print_warnings(plan.base.warnings)
    cache = open_readonly_cache(plan.rubric, options.cache_dir)
    try:
        return estimate(plan, Pricing(Estimator(), cache)).to_json()
    finally:
        if cache is not None:
            cache.close()


def estimate(plan: PairPlan, pricing: Pricing) -> Bill:
    asking = Questions.of(plan.rubric)
    names = [q.name for q in asking.questions]
    judges = [j.judge_id for j in plan.config.judges]
    bill = Bill(
        by_judge={j: Line() for j in judges},
        by_pair={(j, name): Line() for j in judges for name in names},
    )
    swap, seed = plan.setup.swap, plan.config.seed
    for unit in plan.units():
        truths = question_truths(plan.rubric.criteria, asking.overall, unit.first, unit.second)
        for spec in plan.config.judges:
            groups: dict[str, list[tuple[str, PairRequest]]] = {}
            for sample in range(spec.samples):
                for order in orders_asked(swap, seed, unit.id, spec.judge_id, sample):
                    groups.setdefault(order, []).extend(
                        (q.name, asking.request(unit, q, sample, order, truth))
                        for q, truth in zip(asking.questions, truths, strict=True)
                    )
            for asked in groups.values():
                for name, call in criteria_calls(pricing, spec, asked):
                    bill.add(spec.judge_id, name, call)
    return bill
