"""Assembles the ItemRecord from the evaluation and the raw votes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from autorubric_cli.core.evaluate import Evaluation
from autorubric_cli.core.item_rubric import with_definitions
from autorubric_cli.core.items import Item
from autorubric_cli.core.records import ItemRecord, Vote, add_counts
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.core.words import plural

MAX_SUMMARY = 200


class Billed(Protocol):
    """A vote as a bill: a criterion's or a pairwise question's (core/pair_records.py)."""

    @property
    def usage(self) -> dict[str, int]: ...

    @property
    def cost(self) -> float | None: ...


def summed_usage(votes: Sequence[Billed]) -> dict[str, int]:
    total: dict[str, int] = {"prompt_tokens": 0, "completion_tokens": 0}
    for vote in votes:
        add_counts(total, vote.usage)
    return total


def summed_cost(votes: Sequence[Billed]) -> float | None:
    """The sum of the known costs; None only when no vote has a cost."""
    costs = [v.cost for v in votes if v.cost is not None]
    return sum(costs) if costs else None


def bill(votes: Sequence[Billed]) -> tuple[dict[str, int], float | None]:
    """Usage and cost of these votes; cost 0.0 when there are none (nothing to pay)."""
    return summed_usage(votes), summed_cost(votes) if votes else 0.0


def error_summary(
    criteria: Sequence[Criterion], votes_by_criterion: Sequence[Sequence[Vote]]
) -> str | None:
    """`2 of 6 votes failed; first: energy_density/gpt#0 timeout: ...`, or None."""
    failed = [
        (criterion.name, vote)
        for criterion, votes in zip(criteria, votes_by_criterion, strict=True)
        for vote in votes
        if vote.error is not None
    ]
    if not failed:
        return None
    total = sum(len(votes) for votes in votes_by_criterion)
    name, first = failed[0]
    text = f"{len(failed)} of {plural(total, 'vote')} failed; "
    text += f"first: {name}/{first.judge}#{first.sample} "
    text += first.error or ""
    return text if len(text) <= MAX_SUMMARY else text[: MAX_SUMMARY - 1] + "…"


def item_record(
    item: Item,
    criteria: Sequence[Criterion],
    votes_by_criterion: Sequence[Sequence[Vote]],
    evaluation: Evaluation,
    *,
    duration_s: float,
    simulated: bool,
) -> ItemRecord:
    votes = [vote for group in votes_by_criterion for vote in group]
    usage, cost = bill([v for v in votes if not v.cached])
    usage_saved, cost_saved = bill([v for v in votes if v.cached])
    error = error_summary(criteria, votes_by_criterion)
    return ItemRecord(
        id=item.id,
        index=item.index,
        status="error" if error is not None else "ok",
        score=evaluation.score.score,
        raw_score=evaluation.score.raw_score,
        length_penalty=evaluation.score.length_penalty,
        criteria=with_definitions(evaluation.criteria, item.rubric),
        judge_scores=evaluation.judge_scores,
        usage=usage,
        cost=cost,
        usage_saved=usage_saved,
        cost_saved=cost_saved,
        duration_s=duration_s,
        error=error,
        simulated=simulated,
    )
