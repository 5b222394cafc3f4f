"""`autorubric pairwise --dry-run`: the bill before paying it (docs/guides/cache-and-cost.md), as
`run --dry-run` makes it: every request built as the comparison would build it, looked up in the
call cache (read-only), the others priced with litellm; a comparison's calls in one order share
their prefix, billed as one write and then reads (experiment/dry_run.py `criteria_calls`), and a
group that shows the same first answer as an earlier group of the item reads that part
(`group_calls`). Comparisons are billed one after the other, as if each write were done before
the next comparison is sent.
Lines are per judge and question (`overall` for the overall question).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from autorubric_cli.core.config import JudgeSpec
from autorubric_cli.core.pair_truth import question_truths
from autorubric_cli.core.pairs import orders_asked
from autorubric_cli.experiment.bill import Bill, CallBill, Line, PrefixBill
from autorubric_cli.experiment.dry_run import (
    Estimator,
    Pricing,
    criteria_calls,
    open_readonly_cache,
)
from autorubric_cli.grading.grader import shared_prefix_requests
from autorubric_cli.judges.pairs import PairRequest
from autorubric_cli.judges.policy.preflight import print_warnings
from autorubric_cli.judges.prompt_caching import caching_kind
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
    written: set[tuple[str, str]] = set()
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
                for name, call in group_calls(pricing, spec, asked, written):
                    bill.add(spec.judge_id, name, call)
    return bill


def group_calls(
    pricing: Pricing,
    spec: JudgeSpec,
    asked: list[tuple[str, PairRequest]],
    written: set[tuple[str, str]],
) -> list[tuple[str, CallBill]]:
    """A group's calls, as `criteria_calls` bills them; except that when an earlier group of
    the item wrote the part up to the same first answer (pairwise/first_writes.py), this
    group's first call reads that part and writes only the rest."""
    calls = criteria_calls(pricing, spec, asked)
    writer = next((k for k, (_, c) in enumerate(calls) if not c.hit), None)
    request = asked[0][1]
    shared = shared_prefix_requests(spec, [r for _, r in asked])[0].prefix_chars is not None
    if writer is None or not shared or request.first_chars is None:
        return calls
    key = (spec.judge_id, request.messages[1]["content"][: request.first_chars])
    if key not in written:
        written.add(key)
        return calls
    whole = pricing.estimator.prefix_tokens(spec, asked[writer][1])
    part = pricing.estimator.prefix_tokens(spec, replace(request, prefix_chars=request.first_chars))
    explicit = caching_kind(spec) == "explicit"
    prefix = PrefixBill(read=part, written=whole - part if explicit else 0)
    calls[writer] = (calls[writer][0], pricing.call(spec, asked[writer][1], False, prefix))
    return calls
