"""The report's `cascade` section, folded over the newest item records (docs/guides/cascades.md).

A call is billed once: a per-item call's accounting sits on the vote that carries it
(`billed_with` empty), so only those votes count calls. `calls` counts attempts, so a call that
failed before succeeding counts as the provider saw it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from autorubric_cli.core.config import CascadeConfig
from autorubric_cli.core.records import ItemRecord, Vote
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.experiment.opened import OpenedExperiment
from autorubric_cli.experiment.store import ReadIssues, iter_latest_records
from autorubric_cli.report.models_cascade import CascadeCriterion, CascadeSection, CascadeStage


@dataclass
class StageTally:
    votes: int = 0
    calls: int = 0
    cached: int = 0
    errors: int = 0
    cost: list[float] = field(default_factory=list)
    cost_saved: list[float] = field(default_factory=list)

    def add(self, vote: Vote) -> None:
        self.votes += 1
        self.errors += vote.error is not None
        if vote.cached:
            self.cached += 1
        elif vote.billed_with is None:
            self.calls += vote.attempts
        bucket = self.cost_saved if vote.cached else self.cost
        if vote.cost is not None:
            bucket.append(vote.cost)

    def stage(self, judges: list[str]) -> CascadeStage:
        return CascadeStage(
            judges=judges,
            votes=self.votes,
            calls=self.calls,
            cached=self.cached,
            errors=self.errors,
            cost=math.fsum(self.cost),
            cost_saved=math.fsum(self.cost_saved),
        )

    @property
    def full_cost(self) -> float:
        """What the stage's calls cost, paid here or at their original price when cached."""
        return math.fsum(self.cost) + math.fsum(self.cost_saved)


def ratio(part: float | int, whole: float | int) -> float | None:
    return part / whole if whole else None


def cascade_section(
    records: Iterable[ItemRecord], criteria: list[Criterion], cascade: CascadeConfig
) -> CascadeSection:
    stages = {"first": StageTally(), "then": StageTally()}
    graded = dict.fromkeys((c.name for c in criteria), 0)
    escalated = dict.fromkeys(graded, 0)
    for record in records:
        for result in record.criteria:
            if result.escalated is None:
                continue  # a record written without a cascade
            graded[result.name] += 1
            escalated[result.name] += result.escalated
            for vote in result.votes:
                stages["then" if vote.stage == "then" else "first"].add(vote)
    pairs, raised = sum(graded.values()), sum(escalated.values())
    first, then = stages["first"], stages["then"]
    per_pair = ratio(then.full_cost, raised)
    all_then = None if per_pair is None else per_pair * pairs
    return CascadeSection(
        first=first.stage(cascade.first),
        then=then.stage(cascade.then),
        escalate_below=cascade.escalate_below,
        graded=pairs,
        escalated=raised,
        escalation_rate=ratio(raised, pairs),
        criteria=[
            CascadeCriterion(
                name=name,
                graded=graded[name],
                escalated=escalated[name],
                escalation_rate=ratio(escalated[name], graded[name]),
            )
            for name in graded
        ],
        cost=math.fsum(first.cost) + math.fsum(then.cost),
        all_then_cost_estimate=all_then,
        cost_ratio=None if all_then is None else ratio(first.full_cost + then.full_cost, all_then),
    )


def experiment_cascade(experiment: OpenedExperiment) -> CascadeSection | None:
    """The section for an experiment run with `grader.cascade`; None without one."""
    cascade = experiment.rubric.grader.cascade
    if cascade is None:
        return None
    criteria = experiment.rubric.criteria
    records = iter_latest_records(experiment.directory / ITEMS, ReadIssues(), criteria)
    return cascade_section(records, criteria, cascade)
