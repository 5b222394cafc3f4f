"""One pass over the newest item records, accumulating everything the report shows."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from autorubric_cli.core.evaluate import ScoringRules, evaluate_votes, kept_votes, outcome_value
from autorubric_cli.core.records import CriterionRecord, CriterionVerdict, ItemRecord
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.core.scoring import counted_words, length_penalty_amount, score_item
from autorubric_cli.metrics import ABSTAIN, MISSING
from autorubric_cli.report.metrics_section import CriterionLabels

CA = CriterionVerdict.CANNOT_ASSESS.value


def add_usage(total: dict[str, int], usage: dict[str, int]) -> None:
    for key, value in usage.items():
        total[key] = total.get(key, 0) + value


def add_cost(total: float | None, cost: float | None) -> float | None:
    if cost is None:
        return total
    return cost if total is None else total + cost


@dataclass
class CriterionTally:
    criterion: Criterion
    distribution: dict[str, int] = field(default_factory=dict)
    values: float = 0.0
    valued: int = 0
    met: int = 0
    abstained: int = 0
    agreement: float = 0.0
    agreed: int = 0
    truth: array = field(default_factory=lambda: array("b"))
    ensemble: array = field(default_factory=lambda: array("b"))
    judges: dict[str, array] = field(default_factory=dict)


@dataclass
class JudgeTally:
    score_sum: float = 0.0
    scored: int = 0
    votes: int = 0
    errors: int = 0
    retries: int = 0
    usage: dict[str, int] = field(default_factory=dict)
    cost: float | None = None


@dataclass
class ReportFold:
    rules: ScoringRules
    judge_ids: list[str]
    what_if: ScoringRules | None = None
    recorded: int = 0
    errored: int = 0
    simulated: bool = False
    item_scores: array = field(default_factory=lambda: array("d"))  # aligned, NaN = undefined
    what_if_scores: array = field(default_factory=lambda: array("d"))
    truth_scores: array = field(default_factory=lambda: array("d"))
    judge_scores: dict[str, array] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    cost: float | None = None
    errored_items: list[tuple[str, str]] = field(default_factory=list)
    criteria: list[CriterionTally] = field(init=False)
    judges: dict[str, JudgeTally] = field(init=False)

    def __post_init__(self) -> None:
        self.criteria = [CriterionTally(c) for c in self.rules.criteria]
        self.judges = {j: JudgeTally() for j in self.judge_ids}
        self.judge_scores = {j: array("d") for j in self.judge_ids}
        for tally in self.criteria:
            tally.judges = {j: array("b") for j in self.judge_ids}

    def add(self, record: ItemRecord) -> None:
        self.recorded += 1
        self.simulated = self.simulated or record.simulated
        if record.status == "error":
            self.errored += 1
            self.errored_items.append((record.id, record.error or "error"))
        self.item_scores.append(np.nan if record.score is None else record.score)
        add_usage(self.usage, record.usage)
        self.cost = add_cost(self.cost, record.cost)
        for judge, judge_tally in self.judges.items():
            score = record.judge_scores.get(judge)
            self.judge_scores[judge].append(np.nan if score is None else score)
            if score is not None:
                judge_tally.score_sum += score
                judge_tally.scored += 1
        for tally, criterion_record in zip(self.criteria, record.criteria, strict=True):
            self._add_criterion(tally, criterion_record, record.ground_truth)
        self.truth_scores.append(self._truth_score(record))
        if self.what_if is not None:
            self._add_what_if(record)

    def _add_criterion(
        self, tally: CriterionTally, record: CriterionRecord, truth: dict[str, str]
    ) -> None:
        criterion = tally.criterion
        label = outcome_label(record)
        tally.distribution[label] = tally.distribution.get(label, 0) + 1
        value = outcome_value(record)
        if value is None:
            tally.abstained += 1
        else:
            tally.values += value
            tally.valued += 1
            tally.met += record.verdict == CriterionVerdict.MET
        if record.agreement is not None:
            tally.agreement += record.agreement
            tally.agreed += 1
        tally.truth.append(label_code(criterion, truth.get(criterion.name)))
        tally.ensemble.append(record_code(record))
        kept = {
            v.judge: v for v in kept_votes(record.votes, criterion, self.rules.sample_aggregation)
        }
        for judge, codes in tally.judges.items():
            own = [v for v in record.votes if v.judge == judge]
            codes.append(judge_code(criterion, own, kept.get(judge)))
            jt = self.judges[judge]
            jt.votes += len(own)
            jt.errors += sum(v.error is not None for v in own)
            jt.retries += sum(max(v.attempts - 1, 0) for v in own)
            for vote in own:
                add_usage(jt.usage, vote.usage)
                jt.cost = add_cost(jt.cost, vote.cost)

    def _truth_score(self, record: ItemRecord) -> float:
        """The item's score computed from its ground-truth labels, with the same rules."""
        truth = record.ground_truth
        if any(c.name not in truth for c in self.rules.criteria):
            return np.nan
        weighted = [(c.weight, label_value(c, truth[c.name])) for c in self.rules.criteria]
        penalty = self._penalty(record)
        result = score_item(weighted, self.rules.cannot_assess, self.rules.normalize, penalty)
        return np.nan if result.score is None else result.score

    def _penalty(self, record: ItemRecord) -> float:
        config = self.rules.length_penalty
        if config is None:
            return 0.0
        return length_penalty_amount(counted_words(record.word_counts, config.apply_to), config)

    def _add_what_if(self, record: ItemRecord) -> None:
        assert self.what_if is not None
        config = self.what_if.length_penalty
        words = counted_words(record.word_counts, config.apply_to) if config else 0
        evaluation = evaluate_votes([c.votes for c in record.criteria], self.what_if, words)
        score = evaluation.score.score
        self.what_if_scores.append(np.nan if score is None else score)

    def labels(self) -> list[CriterionLabels]:
        out = []
        for tally in self.criteria:
            criterion = tally.criterion
            out.append(
                CriterionLabels(
                    name=criterion.name,
                    kind=criterion.kind,
                    option_labels=option_labels(criterion),
                    option_values=option_values(criterion),
                    truth=np.frombuffer(tally.truth, dtype=np.int8).astype(int),
                    predictions={
                        "ensemble": np.frombuffer(tally.ensemble, dtype=np.int8).astype(int),
                        **{
                            j: np.frombuffer(a, dtype=np.int8).astype(int)
                            for j, a in tally.judges.items()
                        },
                    },
                    judge_votes=np.column_stack(
                        [np.frombuffer(a, dtype=np.int8).astype(int) for a in tally.judges.values()]
                    )
                    if tally.judges
                    else np.empty((len(tally.truth), 0), dtype=int),
                    judge_ids=list(tally.judges),
                )
            )
        return out


def option_labels(criterion: Criterion) -> list[str]:
    if criterion.options is None:
        return ["UNMET", "MET"]
    return [o.label for o in criterion.options]


def option_values(criterion: Criterion) -> list[float | None]:
    if criterion.options is None:
        return [0.0, 1.0]
    return [None if o.na else o.value for o in criterion.options]


def outcome_label(record: CriterionRecord) -> str:
    if record.option is not None:
        return record.option.label
    if record.verdict is not None:
        return record.verdict.value
    return CA


def record_code(record: CriterionRecord) -> int:
    if record.option is not None:
        return ABSTAIN if record.option.na else record.option.index
    if record.verdict == CriterionVerdict.MET:
        return 1
    if record.verdict == CriterionVerdict.UNMET:
        return 0
    return ABSTAIN


def label_code(criterion: Criterion, label: str | None) -> int:
    """Ground-truth label → metrics code (MISSING when the item has no label)."""
    if label is None:
        return MISSING
    if criterion.options is None:
        return {"MET": 1, "UNMET": 0}.get(label, ABSTAIN)
    index = [o.label for o in criterion.options].index(label)
    return ABSTAIN if criterion.options[index].na else index


def label_value(criterion: Criterion, label: str) -> float | None:
    if criterion.options is None:
        return {"MET": 1.0, "UNMET": 0.0}.get(label)
    option = next(o for o in criterion.options if o.label == label)
    return None if option.na else option.value


def judge_code(criterion: Criterion, own: list[Any], kept: Any) -> int:
    """One judge's sample-reduced vote → code; MISSING when every sample errored or none exist."""
    if kept is not None:
        if criterion.options is None:
            return 1 if kept.verdict == CriterionVerdict.MET else 0
        return int(kept.option_index)
    if not own or all(v.error is not None for v in own):
        return MISSING
    return ABSTAIN
