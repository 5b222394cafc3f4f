"""Live judge cascades (docs/guides/cascades.md): the `first` judges grade every criterion of
an item; the criteria `core.cascade.escalation` escalates are asked of the `then` judges.

Both stages ask through the grader's `votes_by_criterion`, so per-criterion and per-item calls,
prompt caching, the call cache, batches and the spend cap work as in any run. In per-item mode
the `then` call lists only the escalated criteria.

Resuming (`resume --retry-errors`): every first-stage vote of the earlier record is kept, its
errors included (they escalated, and keeping them keeps the escalation set), and the `then`
votes without an error are kept; so only the escalation calls that failed are made again.
The item's status is `error` only when a vote that decides an outcome errored: a first-stage
error is escalated, and the `then` judges decide.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Literal, Protocol

from autorubric_cli.core.cascade import deciding_votes, escalation, evaluate_cascade
from autorubric_cli.core.config import CascadeConfig
from autorubric_cli.core.evaluate import ScoringRules
from autorubric_cli.core.items import Item
from autorubric_cli.core.records import ItemRecord, Vote
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.grading.record import error_summary, item_record
from autorubric_cli.grading.reuse import VoteKey, reusable_votes
from autorubric_cli.judges.judge import Judge
from autorubric_cli.judges.tracing import cascade_stage


class CascadeGrader(Protocol):
    """What a cascade asks of the grader (`grading.grader.CriterionGrader`, which calls
    `grade_cascade` and so cannot be imported here)."""

    rubric: Rubric
    judges: list[Judge]
    simulated: bool

    def word_count(self, item: Item) -> int: ...

    async def votes_by_criterion(
        self,
        item: Item,
        criteria: Sequence[Criterion],
        judges: Sequence[Judge],
        reuse: dict[VoteKey, Vote],
    ) -> list[list[Vote]]: ...


NOT_ASKED = Vote(judge="", error="not escalated")  # fills the slots the `then` stage skips


def cascade_reuse(prior: ItemRecord | None, first: set[str]) -> dict[VoteKey, Vote]:
    """The earlier record's votes that need no new call: all of the first stage's, and the
    `then` stage's without an error."""
    return reusable_votes(prior, lambda vote: vote.judge in first or vote.error is None)


def staged(votes: Sequence[Vote], stage: Literal["first", "then"]) -> list[Vote]:
    return [v if v.stage == stage else v.model_copy(update={"stage": stage}) for v in votes]


def skipped(
    criteria: Sequence[Criterion], escalated: Sequence[bool], judges: Sequence[Judge]
) -> dict[VoteKey, Vote]:
    """Placeholders for the (criterion, `then` judge, sample) slots of criteria not escalated,
    so that the `then` stage asks for the escalated criteria only."""
    return {
        (criterion.name, judge.id, sample): NOT_ASKED
        for criterion, flag in zip(criteria, escalated, strict=True)
        if not flag
        for judge in judges
        for sample in range(judge.spec.samples)
    }


def stages(grader: CascadeGrader, cascade: CascadeConfig) -> tuple[list[Judge], list[Judge]]:
    by_id = {judge.id: judge for judge in grader.judges}
    return [by_id[i] for i in cascade.first], [by_id[i] for i in cascade.then]


async def cascade_votes(
    grader: CascadeGrader,
    item: Item,
    prior: ItemRecord | None,
    criteria: Sequence[Criterion],
    rules: ScoringRules,
) -> tuple[list[list[Vote]], list[bool]]:
    """Per criterion of the item's: the first stage's votes then the `then` stage's; and
    which escalated."""
    cascade = grader.rubric.grader.cascade
    assert cascade is not None
    first, then = stages(grader, cascade)
    reuse = cascade_reuse(prior, set(cascade.first))
    with cascade_stage("first"):
        asked = await grader.votes_by_criterion(item, criteria, first, reuse)
    first_votes = [staged(votes, "first") for votes in asked]
    escalated = [
        escalation(criterion, votes, rules, cascade.threshold(criterion.name)).escalate
        for criterion, votes in zip(criteria, first_votes, strict=True)
    ]
    if not any(escalated):
        return first_votes, escalated
    skip = skipped(criteria, escalated, then)
    with cascade_stage("then"):
        asked = await grader.votes_by_criterion(item, criteria, then, {**reuse, **skip})
    return [
        votes + (staged(more, "then") if flag else [])
        for votes, more, flag in zip(first_votes, asked, escalated, strict=True)
    ], escalated


async def grade_cascade(
    grader: CascadeGrader,
    item: Item,
    prior: ItemRecord | None,
    criteria: Sequence[Criterion],
    rules: ScoringRules,
) -> ItemRecord:
    """The item's record under `grader.cascade`; `criteria` and `rules` are the item's."""
    started = time.perf_counter()
    votes, escalated = await cascade_votes(grader, item, prior, criteria, rules)
    evaluation = evaluate_cascade(votes, escalated, rules, grader.word_count(item))
    record = item_record(
        item,
        criteria,
        votes,
        evaluation,
        duration_s=time.perf_counter() - started,
        simulated=grader.simulated,
    )
    deciding = [deciding_votes(v, flag) for v, flag in zip(votes, escalated, strict=True)]
    error = error_summary(criteria, deciding)
    return record.model_copy(update={"status": "error" if error else "ok", "error": error})
