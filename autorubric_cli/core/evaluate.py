"""From raw votes to criterion results and the item score.

Grading, `report` re-aggregation and per-judge scores all go through `evaluate_votes`, so every
rule of docs/guides/rubrics.md is applied by exactly one code path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from autorubric_cli.core.aggregation import (
    aggregate_binary,
    aggregate_nominal,
    aggregate_ordinal,
    reduce_samples,
)
from autorubric_cli.core.config import CannotAssessConfig, Clip, LengthPenalty
from autorubric_cli.core.records import CriterionRecord, CriterionVerdict, OptionRecord, Vote
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.core.scoring import (
    ItemScore,
    counted_words,
    length_penalty_amount,
    score_item,
)

MET, UNMET = CriterionVerdict.MET, CriterionVerdict.UNMET  # looked up once: enum lookups cost
DECIDED = (MET, UNMET)


@dataclass(frozen=True)
class ScoringRules:
    """Everything needed to turn stored votes into scores, with no judge calls."""

    criteria: tuple[Criterion, ...]
    aggregation: dict[str, str]
    sample_aggregation: str
    cannot_assess: CannotAssessConfig
    normalize: bool
    length_penalty: LengthPenalty | None
    judge_weights: dict[str, float]
    clip: Clip = "item"

    @classmethod
    def from_rubric(cls, rubric: Rubric) -> ScoringRules:
        grader = rubric.grader
        return cls(
            criteria=tuple(rubric.criteria),
            aggregation={c.name: rubric.aggregation_for(c) for c in rubric.criteria},
            sample_aggregation=grader.sample_aggregation,
            cannot_assess=grader.cannot_assess,
            normalize=grader.normalize,
            length_penalty=grader.length_penalty,
            judge_weights=grader.judge_weights(),
            clip=grader.clip,
        )

    def words(self, counts: dict[str, int]) -> int:
        """The words the length penalty sees (`apply_to`); 0 when no penalty is configured."""
        config = self.length_penalty
        return counted_words(counts, config.apply_to) if config else 0

    def penalty(self, words: int) -> float:
        """The length penalty for that many words; 0 when no penalty is configured."""
        config = self.length_penalty
        return length_penalty_amount(words, config) if config else 0.0

    def with_overrides(self, **changes: object) -> ScoringRules:
        return replace(self, **changes)  # type: ignore[arg-type]


def is_abstention(vote: Vote, criterion: Criterion) -> bool:
    """Errors, CANNOT_ASSESS and NA options are set aside before aggregation."""
    if vote.error is not None:
        return True
    if criterion.options is None:
        return vote.verdict not in DECIDED
    return vote.option_index is None or criterion.options[vote.option_index].na


def vote_value(vote: Vote, criterion: Criterion) -> float:
    """MET=1 / UNMET=0 for binary, the option's value for multi-choice (non-abstaining votes)."""
    if criterion.options is None:
        return 1.0 if vote.verdict == MET else 0.0
    assert vote.option_index is not None
    value = criterion.options[vote.option_index].value
    assert value is not None
    return value


def votes_by_judge(votes: Sequence[Vote]) -> dict[str, list[Vote]]:
    """Votes grouped by judge, judges in first-seen order."""
    groups: dict[str, list[Vote]] = {}
    for vote in votes:
        groups.setdefault(vote.judge, []).append(vote)
    return groups


def keep_one(samples: Sequence[Vote], criterion: Criterion, sample_method: str) -> Vote | None:
    """The sample kept from one judge's votes (docs/guides/rubrics.md); None when every sample
    abstained."""
    if len(samples) == 1:
        return None if is_abstention(samples[0], criterion) else samples[0]
    valid = [v for v in samples if not is_abstention(v, criterion)]
    if len(valid) <= 1:
        return valid[0] if valid else None
    values = [vote_value(v, criterion) for v in valid]
    return valid[reduce_samples(values, sample_method)]


def kept_votes(votes: Sequence[Vote], criterion: Criterion, sample_method: str) -> list[Vote]:
    """One real, non-abstaining sample per judge (judges in first-seen order)."""
    kept = (keep_one(s, criterion, sample_method) for s in votes_by_judge(votes).values())
    return [v for v in kept if v is not None]


def _option_record(criterion: Criterion, index: int | None) -> OptionRecord | None:
    if index is None:
        return None
    option = criterion.option_list()[index]
    return OptionRecord(index=index, label=option.label, value=option.value, na=option.na)


def aggregate_criterion(
    criterion: Criterion, votes: Sequence[Vote], rules: ScoringRules
) -> CriterionRecord:
    kept = kept_votes(votes, criterion, rules.sample_aggregation)
    method = rules.aggregation[criterion.name]
    weights = rules.judge_weights
    verdict: CriterionVerdict | None = None
    index: int | None = None
    aggregated: float | None = None
    if criterion.options is None:
        binary = [(v.verdict, weights.get(v.judge, 1.0)) for v in kept if v.verdict is not None]
        verdict = aggregate_binary(binary, method, criterion.weight)
        if verdict != CriterionVerdict.CANNOT_ASSESS:
            aggregated = 1.0 if verdict == CriterionVerdict.MET else 0.0
        agreeing = [v for v in kept if v.verdict == verdict]
    else:
        ballots = [(v.option_index, weights.get(v.judge, 1.0)) for v in kept]
        valid = [(i, w) for i, w in ballots if i is not None]
        if criterion.kind == "ordinal":
            index, aggregated = aggregate_ordinal(
                valid, criterion.options, method, criterion.weight
            )
        else:
            index = aggregate_nominal(valid, criterion.options, method, criterion.weight)
            aggregated = None if index is None else criterion.options[index].value
        if index is None:
            index = criterion.na_option_index()
            verdict = CriterionVerdict.CANNOT_ASSESS if index is None else None
        agreeing = [v for v in kept if v.option_index == index]
    return CriterionRecord(
        name=criterion.name,
        verdict=verdict,
        option=_option_record(criterion, index),
        aggregated_value=aggregated,
        reason=agreeing[0].reason if agreeing else None,
        agreement=len(agreeing) / len(kept) if kept else None,
        votes=list(votes),
    )


def outcome_value(record: CriterionRecord) -> float | None:
    """v_i of an aggregated criterion; None for CANNOT_ASSESS or an NA option."""
    if record.option is not None:
        return None if record.option.na else record.option.value
    if record.verdict == MET:
        return 1.0
    if record.verdict == UNMET:
        return 0.0
    return None


def score_records(
    records: Sequence[CriterionRecord], rules: ScoringRules, word_count: int
) -> ItemScore:
    penalty = rules.penalty(word_count)
    weighted = [
        (criterion.weight, outcome_value(record))
        for criterion, record in zip(rules.criteria, records, strict=True)
    ]
    values = [non_na_values(criterion) for criterion in rules.criteria]
    return score_item(
        weighted, rules.cannot_assess, rules.normalize, penalty, values, clip=rules.clip
    )


def non_na_values(criterion: Criterion) -> list[float]:
    """The values of a multi-choice criterion's non-NA options; empty for a binary one."""
    return [o.value for o in criterion.options or [] if not o.na and o.value is not None]


@dataclass(frozen=True)
class Evaluation:
    criteria: list[CriterionRecord]
    score: ItemScore
    judge_scores: dict[str, float | None]


def evaluate_votes(
    votes_by_criterion: Sequence[Sequence[Vote]], rules: ScoringRules, word_count: int
) -> Evaluation:
    """Aggregate every criterion, score the item, and score it once per judge alone."""
    records = [
        aggregate_criterion(c, votes, rules)
        for c, votes in zip(rules.criteria, votes_by_criterion, strict=True)
    ]
    judges = list(dict.fromkeys(v.judge for votes in votes_by_criterion for v in votes))
    judge_scores = {}
    for judge in judges:
        alone = [
            aggregate_criterion(c, [v for v in votes if v.judge == judge], rules)
            for c, votes in zip(rules.criteria, votes_by_criterion, strict=True)
        ]
        judge_scores[judge] = score_records(alone, rules, word_count).score
    return Evaluation(records, score_records(records, rules, word_count), judge_scores)
