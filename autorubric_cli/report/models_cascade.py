"""The report's `cascade` section (docs/reference/report-json.md): escalations, each stage's
calls and cost, and what an all-`then` run would have cost."""

from __future__ import annotations

from autorubric_cli.core.json_model import Block


class CascadeCriterion(Block):
    """One criterion: its threshold, its escalations, and what the cascade saved on it against
    asking the `then` judges about every one of its pairs."""

    name: str
    escalate_below: float  # this criterion's threshold (its entry in a map, else the one)
    graded: int
    escalated: int
    escalation_rate: float | None
    cost: float | None  # both stages, cached votes at their original cost; a per-item call's
    # cost spread evenly over the criteria it asked about
    # the `then` stage's mean cost per escalated pair of this criterion (of the run when none
    # escalated) times its graded pairs
    all_then_cost_estimate: float | None
    saved: float | None  # all_then_cost_estimate - cost


class CascadeStage(Block):
    """One stage's calls: `calls` counts every attempt sent (failed ones included), `cached`
    the votes the call cache served; `cost` what was paid here, `cost_saved` the cached votes'
    original cost."""

    judges: list[str]
    votes: int
    calls: int
    cached: int
    errors: int
    cost: float | None
    cost_saved: float | None


class CascadeSection(Block):
    first: CascadeStage
    then: CascadeStage
    escalate_below: float | dict[str, float]  # as the rubric gives it: one, or a map
    graded: int  # (item, criterion) pairs graded
    escalated: int
    escalation_rate: float | None
    criteria: list[CascadeCriterion]
    cost: float | None  # both stages, paid here
    # the `then` stage's mean cost per escalated pair (cached votes at their original cost)
    # times the graded pairs: what asking the `then` judges everything would have cost
    all_then_cost_estimate: float | None
    cost_ratio: float | None  # both stages' cost (cached at their original cost) / the above
