"""Judge cascades (docs/guides/cascades.md): the escalation rule, and which votes decide.

`escalates` is the one rule: the live cascade (grading/cascade.py, through `escalation`) and the
offline calibration (grading/calibrate.py, which computes each `first_stage` once and asks the
rule at every threshold) both call it, so a replay at a threshold gives exactly the live run's
outcomes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from autorubric_cli.core.evaluate import (
    Evaluation,
    ScoringRules,
    aggregate_criterion,
    evaluate_votes,
    is_abstention,
)
from autorubric_cli.core.numeric import close
from autorubric_cli.core.records import CriterionRecord, Vote
from autorubric_cli.core.rubric import Criterion


@dataclass(frozen=True)
class FirstStage:
    """The first stage's result for one criterion of one item: its `outcome`, its `agreement`
    (the share of all first-stage samples that chose the outcome; None with no samples), and
    whether any sample errored or abstained."""

    outcome: CriterionRecord
    agreement: float | None
    abstained: bool


@dataclass(frozen=True)
class Escalation:
    escalate: bool
    agreement: float | None
    outcome: CriterionRecord


def chose(vote: Vote, outcome: CriterionRecord) -> bool:
    """Whether a (non-abstaining) vote chose the aggregated outcome."""
    if outcome.option is not None:
        return vote.option_index == outcome.option.index
    return vote.verdict == outcome.verdict


def first_stage(criterion: Criterion, votes: Sequence[Vote], rules: ScoringRules) -> FirstStage:
    """The outcome under the rubric's own aggregation, and how many samples chose it."""
    outcome = aggregate_criterion(criterion, votes, rules)
    abstained = any(is_abstention(v, criterion) for v in votes)
    agreeing = sum(not is_abstention(v, criterion) and chose(v, outcome) for v in votes)
    return FirstStage(outcome, agreeing / len(votes) if votes else None, abstained)


def escalates(stage: FirstStage, threshold: float) -> bool:
    """THE rule: escalate when the agreement is below `threshold` (values within 1e-9 are
    equal), or any first-stage sample errored or abstained (CANNOT_ASSESS, an NA option)."""
    agreement = stage.agreement
    below = agreement is None or (agreement < threshold and not close(agreement, threshold))
    return stage.abstained or below


def escalation(
    criterion: Criterion, first_votes: Sequence[Vote], rules: ScoringRules, threshold: float
) -> Escalation:
    """The first stage of one criterion of one item at `threshold`."""
    stage = first_stage(criterion, first_votes, rules)
    return Escalation(escalates(stage, threshold), stage.agreement, stage.outcome)


def deciding_votes(votes: Sequence[Vote], escalated: bool | None) -> list[Vote]:
    """The votes an outcome is aggregated from: the `then` stage's for an escalated criterion,
    the first stage's for the others, all of them outside a cascade (`escalated` None)."""
    if escalated is None:
        return list(votes)
    stage = "then" if escalated else "first"
    return [v for v in votes if v.stage == stage]


def evaluate_cascade(
    votes_by_criterion: Sequence[Sequence[Vote]],
    escalated: Sequence[bool],
    rules: ScoringRules,
    word_count: int,
) -> Evaluation:
    """The item's evaluation from its deciding votes; records keep every vote and `escalated`.
    Each judge's own score (`judge_scores`) is over all the criteria it voted on."""
    deciding = [
        deciding_votes(votes, flag)
        for votes, flag in zip(votes_by_criterion, escalated, strict=True)
    ]
    decided = evaluate_votes(deciding, rules, word_count)
    records = [
        record.model_copy(update={"votes": list(votes), "escalated": flag})
        for record, votes, flag in zip(decided.criteria, votes_by_criterion, escalated, strict=True)
    ]
    judges = evaluate_votes(votes_by_criterion, rules, word_count).judge_scores
    return Evaluation(records, decided.score, judges)
