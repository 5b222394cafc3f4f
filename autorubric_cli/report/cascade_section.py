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
from autorubric_cli.grading.calibrate import criterion_costs
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


def staged(vote: Vote) -> str:
    return "then" if vote.stage == "then" else "first"


def requests_sent(votes: list[Vote]) -> int:
    """The requests one criterion's votes were asked in, as billed: each vote's attempts, but
    a per-item call once (on the vote that carries it) and samples asked together once (as
    many as the attempts of the sample asked most: every request of theirs asked for it)."""
    alone = [v for v in votes if not v.cached and v.billed_with is None and not v.together]
    groups: dict[tuple[str, tuple[int, ...]], int] = {}
    for vote in votes:
        if vote.together and not vote.cached:
            key = (vote.judge, tuple(vote.together))
            groups[key] = max(groups.get(key, 0), vote.attempts)
    return sum(v.attempts for v in alone) + sum(groups.values())


def ratio(part: float | int, whole: float | int) -> float | None:
    return part / whole if whole else None


@dataclass
class CriterionTally:
    """One criterion's pairs, escalations and cost by stage (cached votes at their original
    cost; None once a vote is unpriced)."""

    graded: int = 0
    escalated: int = 0
    cost: dict[str, float | None] = field(default_factory=lambda: {"first": 0.0, "then": 0.0})

    def add(self, stage: str, cost: float | None) -> None:
        known = self.cost[stage]
        self.cost[stage] = None if known is None or cost is None else known + cost

    def row(self, name: str, threshold: float, then_per_pair: float | None) -> CascadeCriterion:
        """`then_per_pair`: the `then` stage's mean cost per escalated pair, over the run."""
        first, then = self.cost["first"], self.cost["then"]
        cost = None if first is None or then is None else first + then
        per_pair = then_per_pair if self.escalated == 0 else ratio(then or 0.0, self.escalated)
        if then is None:
            per_pair = None
        all_then = None if per_pair is None else per_pair * self.graded
        return CascadeCriterion(
            name=name,
            escalate_below=threshold,
            graded=self.graded,
            escalated=self.escalated,
            escalation_rate=ratio(self.escalated, self.graded),
            cost=cost,
            all_then_cost_estimate=all_then,
            saved=None if cost is None or all_then is None else all_then - cost,
        )


def tally(
    records: Iterable[ItemRecord], names: list[str]
) -> tuple[dict[str, StageTally], dict[str, CriterionTally]]:
    """The stages' and the criteria's tallies over the records written under a cascade."""
    stages = {"first": StageTally(), "then": StageTally()}
    criteria = {name: CriterionTally() for name in names}
    for record in records:
        costs = {stage: criterion_costs(record, stage) for stage in stages}
        for index, result in enumerate(record.criteria):
            if result.escalated is None:
                continue  # a record written without a cascade
            mine = criteria[result.name]
            mine.graded += 1
            mine.escalated += result.escalated
            for stage in stages:
                mine.add(stage, costs[stage][index])
            for stage, tallied in stages.items():
                votes = [v for v in result.votes if staged(v) == stage]
                for vote in votes:
                    tallied.add(vote)
                tallied.calls += requests_sent(votes)
    return stages, criteria


def cascade_section(
    records: Iterable[ItemRecord], criteria: list[Criterion], cascade: CascadeConfig
) -> CascadeSection:
    stages, by_name = tally(records, [c.name for c in criteria])
    pairs = sum(c.graded for c in by_name.values())
    raised = sum(c.escalated for c in by_name.values())
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
        criteria=[c.row(n, cascade.threshold(n), per_pair) for n, c in by_name.items()],
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
