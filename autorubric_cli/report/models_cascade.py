"""The report's `cascade` section (docs/reference/report-json.md): escalations, each stage's
calls and cost, and what an all-`then` run would have cost."""

from __future__ import annotations

from autorubric_cli.core.json_model import Block


class CascadeCriterion(Block):
    name: str
    graded: int
    escalated: int
    escalation_rate: float | None


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
    escalate_below: float
    graded: int  # (item, criterion) pairs graded
    escalated: int
    escalation_rate: float | None
    criteria: list[CascadeCriterion]
    cost: float | None  # both stages, paid here
    # the `then` stage's mean cost per escalated pair (cached votes at their original cost)
    # times the graded pairs: what asking the `then` judges everything would have cost
    all_then_cost_estimate: float | None
    cost_ratio: float | None  # both stages' cost (cached at their original cost) / the above
