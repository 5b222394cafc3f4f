"""One pass over the newest item records, accumulating everything the report shows."""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from autorubric_cli.core.cascade import deciding_votes
from autorubric_cli.core.evaluate import (
    ScoringRules,
    evaluate_votes,
    is_abstention,
    keep_one,
    outcome_value,
    votes_by_judge,
)
from autorubric_cli.core.records import (
    CriterionRecord,
    CriterionVerdict,
    ItemRecord,
    Vote,
    add_counts,
)
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.core.scoring import score_item
from autorubric_cli.labels.overlay import LabelOverlay
from autorubric_cli.metrics.codes import ABSTAIN, MISSING
from autorubric_cli.report.fold_extras import FoldExtras
from autorubric_cli.report.metrics_section import CriterionLabels
from autorubric_cli.report.outcome import outcome_label

MET, UNMET = CriterionVerdict.MET, CriterionVerdict.UNMET  # enum member lookups cost per vote


def exact_sum(values: array) -> float | None:
    """Correctly rounded sum (independent of order and chunking); None when empty."""
    return math.fsum(values) if len(values) else None


def exact_mean(values: array) -> float | None:
    """Mean of the defined (non-NaN) values, correctly rounded sum; None when there are none."""
    defined = [v for v in values if v == v]
    return math.fsum(defined) / len(defined) if defined else None


@dataclass
class CriterionTally:
    criterion: Criterion
    distribution: dict[str, int] = field(default_factory=dict)
    values: array = field(default_factory=lambda: array("d"))  # outcome values, abstentions out
    met: int = 0
    abstained: int = 0
    agreements: array = field(default_factory=lambda: array("d"))
    truth: array = field(default_factory=lambda: array("b"))
    # human labels only (docs/guides/labels.md)
    label_truth: array = field(default_factory=lambda: array("b"))
    ensemble: array = field(default_factory=lambda: array("b"))
    judges: dict[str, array] = field(default_factory=dict)


@dataclass
class JudgeTally:
    votes: int = 0
    errors: int = 0
    retries: int = 0
    ignored_fields: int = 0  # unasked reply fields filled anyway (ignored), over all votes
    usage: dict[str, int] = field(default_factory=dict)
    costs: array = field(default_factory=lambda: array("d"))  # priced paid votes only
    cached: int = 0  # votes served by the call cache: their usage and cost go to *_saved
    usage_saved: dict[str, int] = field(default_factory=dict)
    costs_saved: array = field(default_factory=lambda: array("d"))
    prompt_cache_saved: array = field(default_factory=lambda: array("d"))  # paid votes only

    def add_vote(self, vote: Vote) -> None:
        self.votes += 1
        if vote.error is not None:
            self.errors += 1
        if vote.attempts != 1:
            self.retries += vote.attempts - 1
        if vote.ignored_fields:
            self.ignored_fields += len(vote.ignored_fields)
        if vote.cached:
            self.cached += 1
            usage, costs = self.usage_saved, self.costs_saved
        else:
            usage, costs = self.usage, self.costs
            if vote.prompt_cache_saved is not None:
                self.prompt_cache_saved.append(vote.prompt_cache_saved)
        for key, count in vote.usage.items():  # add_counts, inlined: once per vote
            usage[key] = usage.get(key, 0) + count
        if vote.cost is not None:
            costs.append(vote.cost)


@dataclass
class ReportFold:
    rules: ScoringRules
    judge_ids: list[str]
    what_if: ScoringRules | None = None
    # human labels (docs/guides/labels.md): fill ground truth where absent
    overlay: LabelOverlay | None = None
    cluster: tuple[str, ...] | None = None  # the cluster key's path into metadata
    shuffled: bool = True  # options were shown in seeded random orders (position bias)
    recorded: int = 0
    errored: int = 0
    simulated: bool = False
    item_scores: array = field(default_factory=lambda: array("d"))  # aligned, NaN = undefined
    what_if_scores: array = field(default_factory=lambda: array("d"))
    truth_scores: array = field(default_factory=lambda: array("d"))
    judge_scores: dict[str, array] = field(default_factory=dict)
    usage: dict[str, int] = field(default_factory=dict)
    costs: array = field(default_factory=lambda: array("d"))  # priced items only
    usage_saved: dict[str, int] = field(default_factory=dict)
    costs_saved: array = field(default_factory=lambda: array("d"))
    errored_items: list[tuple[str, str]] = field(default_factory=list)
    indices: array = field(default_factory=lambda: array("q"))  # dataset index, aligned
    errored_indices: array = field(default_factory=lambda: array("q"))
    criteria: list[CriterionTally] = field(init=False)
    judges: dict[str, JudgeTally] = field(init=False)
    _tallies: list[JudgeTally] = field(init=False, repr=False)  # judges' tallies, in order
    extras: FoldExtras = field(init=False)  # standard errors and judge bias

    def __post_init__(self) -> None:
        self.criteria = [CriterionTally(c) for c in self.rules.criteria]
        self.judges = {j: JudgeTally() for j in self.judge_ids}
        self._tallies = list(self.judges.values())
        self.extras = FoldExtras(self.rules.criteria, self.judge_ids, self.cluster, self.shuffled)
        self.judge_scores = {j: array("d") for j in self.judge_ids}
        for tally in self.criteria:
            tally.judges = {j: array("b") for j in self.judge_ids}

    def add(self, record: ItemRecord) -> None:
        labelled: dict[str, str] | None = None
        if self.overlay is not None:
            labelled = self.overlay.truth(record.id)
            record = self.overlay.apply(record)
        self.recorded += 1
        self.simulated = self.simulated or record.simulated
        self.indices.append(_int64(record.index))
        if record.status == "error":
            self.errored += 1
            self.errored_items.append((record.id, record.error or "error"))
            self.errored_indices.append(_int64(record.index))
        self.item_scores.append(np.nan if record.score is None else record.score)
        add_counts(self.usage, record.usage)
        if record.cost is not None:
            self.costs.append(record.cost)
        add_counts(self.usage_saved, record.usage_saved)
        if record.cost_saved is not None:
            self.costs_saved.append(record.cost_saved)
        for judge, scores in self.judge_scores.items():
            score = record.judge_scores.get(judge)
            scores.append(np.nan if score is None else score)
        for tally, criterion_record in zip(self.criteria, record.criteria, strict=True):
            self._add_criterion(tally, criterion_record, record.ground_truth)
            if labelled is not None:
                tally.label_truth.append(
                    label_code(tally.criterion, labelled.get(tally.criterion.name))
                )
        self.truth_scores.append(self._truth_score(record))
        if self.what_if is not None:
            self._add_what_if(record)
        self.extras.add(record)

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
            tally.values.append(value)
            tally.met += record.verdict == MET
        if record.agreement is not None:
            tally.agreements.append(record.agreement)
        tally.truth.append(label_code(criterion, truth.get(criterion.name)) if truth else MISSING)
        tally.ensemble.append(record_code(record))
        votes = record.votes
        if [v.judge for v in votes] == self.judge_ids:  # one sample per judge, in order
            for vote, codes, judge in zip(votes, tally.judges.values(), self._tallies, strict=True):
                kept = None if is_abstention(vote, criterion) else vote  # keep_one of one
                codes.append(judge_code(criterion, (vote,), kept))
                judge.add_vote(vote)
            return
        groups = votes_by_judge(votes)
        method = self.rules.sample_aggregation
        for judge_id, codes in tally.judges.items():
            own = groups.get(judge_id, [])
            codes.append(judge_code(criterion, own, keep_one(own, criterion, method)))
            for vote in own:
                self.judges[judge_id].add_vote(vote)

    def _truth_score(self, record: ItemRecord) -> float:
        """The item's score computed from its ground-truth labels, with the same rules."""
        truth = record.ground_truth
        if len(truth) < len(self.criteria) or any(c.name not in truth for c in self.rules.criteria):
            return np.nan
        weighted = [(c.weight, label_value(c, truth[c.name])) for c in self.rules.criteria]
        penalty = self.rules.penalty(self.rules.words(record.word_counts))
        result = score_item(weighted, self.rules.cannot_assess, self.rules.normalize, penalty)
        return np.nan if result.score is None else result.score

    def _add_what_if(self, record: ItemRecord) -> None:
        assert self.what_if is not None
        words = self.what_if.words(record.word_counts)
        deciding = [deciding_votes(c.votes, c.escalated) for c in record.criteria]
        evaluation = evaluate_votes(deciding, self.what_if, words)
        score = evaluation.score.score
        self.what_if_scores.append(np.nan if score is None else score)

    def put_in_dataset_order(self) -> None:
        """Reorder every per-item series by dataset index (docs/guides/batches.md): items.jsonl
        follows completion order, and the bootstrap resamples positions, so without this two runs of
        the same records (resumed, merged, re-ordered) would report different intervals."""
        order = np.argsort(np.frombuffer(self.indices, dtype=np.int64), kind="stable")
        if np.all(order[:-1] < order[1:]):
            return
        self.extras.reorder(order)
        series = [self.item_scores, self.truth_scores, *self.judge_scores.values()]
        if len(self.what_if_scores):
            series.append(self.what_if_scores)
        for tally in self.criteria:
            series += [tally.truth, tally.ensemble, *tally.judges.values()]
            if len(tally.label_truth):
                series.append(tally.label_truth)
        for values in (*series, self.indices):
            permuted = np.frombuffer(values, dtype=values.typecode)[order]
            values[:] = array(values.typecode, permuted.tobytes())
        errored = np.argsort(np.frombuffer(self.errored_indices, dtype=np.int64), kind="stable")
        self.errored_items = [self.errored_items[i] for i in errored]

    def labels(self, *, human_only: bool = False) -> list[CriterionLabels]:
        """Per criterion, truth and predictions; `human_only`: the truth from the human labels
        alone (docs/guides/labels.md), whatever the dataset holds."""
        out = []
        for tally in self.criteria:
            criterion = tally.criterion
            truth = tally.label_truth if human_only else tally.truth
            out.append(
                CriterionLabels(
                    name=criterion.name,
                    kind=criterion.kind,
                    option_labels=option_labels(criterion),
                    option_values=option_values(criterion),
                    truth=code_view(truth),
                    predictions={
                        "ensemble": code_view(tally.ensemble),
                        **{j: code_view(a) for j, a in tally.judges.items()},
                    },
                    judge_votes=np.column_stack([code_view(a) for a in tally.judges.values()])
                    if tally.judges
                    else np.empty((len(tally.truth), 0), dtype=np.int8),
                    judge_ids=list(tally.judges),
                )
            )
        return out


def code_view(values: array) -> np.ndarray:
    """Label codes as a read-only int8 view (the metrics widen them to int64 where they
    compute: `metrics.codes.to_classes`), not a copy eight times their size."""
    return np.frombuffer(values, dtype=np.int8)


def _int64(value: int) -> int:
    """A hand-edited record's index clamped to int64 (it only orders the items)."""
    return min(max(value, -(2**63)), 2**63 - 1)


def option_labels(criterion: Criterion) -> list[str]:
    if criterion.options is None:
        return ["UNMET", "MET"]
    return [o.label for o in criterion.options]


def option_values(criterion: Criterion) -> list[float | None]:
    if criterion.options is None:
        return [0.0, 1.0]
    return [None if o.na else o.value for o in criterion.options]


def record_code(record: CriterionRecord) -> int:
    if record.option is not None:
        return ABSTAIN if record.option.na else record.option.index
    if record.verdict == MET:
        return 1
    if record.verdict == UNMET:
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


def judge_code(criterion: Criterion, own: Sequence[Vote], kept: Vote | None) -> int:
    """One judge's sample-reduced vote → code; MISSING when every sample errored or none exist."""
    if kept is not None:
        if criterion.options is None:
            return 1 if kept.verdict == MET else 0
        assert kept.option_index is not None  # a kept multi-choice vote names its option
        return kept.option_index
    if not own or all(v.error is not None for v in own):
        return MISSING
    return ABSTAIN


def merge_folds(first: ReportFold, later: ReportFold) -> None:
    """Add `later` (records that come after `first`'s in the file) into `first`."""
    first.recorded += later.recorded
    first.errored += later.errored
    first.simulated = first.simulated or later.simulated
    for name in ("item_scores", "what_if_scores", "truth_scores", "costs", "costs_saved"):
        getattr(first, name).extend(getattr(later, name))
    for judge, scores in later.judge_scores.items():
        first.judge_scores[judge].extend(scores)
    add_counts(first.usage, later.usage)
    add_counts(first.usage_saved, later.usage_saved)
    first.errored_items.extend(later.errored_items)
    first.indices.extend(later.indices)
    first.errored_indices.extend(later.errored_indices)
    for mine, theirs in zip(first.criteria, later.criteria, strict=True):
        merge_criterion_tallies(mine, theirs)
    for judge, tally in later.judges.items():
        merge_judge_tallies(first.judges[judge], tally)
    first.extras.merge(later.extras)


def merge_criterion_tallies(first: CriterionTally, later: CriterionTally) -> None:
    add_counts(first.distribution, later.distribution)
    first.met += later.met
    first.abstained += later.abstained
    for name in ("values", "agreements", "truth", "label_truth", "ensemble"):
        getattr(first, name).extend(getattr(later, name))
    for judge, codes in later.judges.items():
        first.judges[judge].extend(codes)


def merge_judge_tallies(first: JudgeTally, later: JudgeTally) -> None:
    for name in ("votes", "errors", "retries", "cached", "ignored_fields"):
        setattr(first, name, getattr(first, name) + getattr(later, name))
    add_counts(first.usage, later.usage)
    add_counts(first.usage_saved, later.usage_saved)
    first.costs.extend(later.costs)
    first.costs_saved.extend(later.costs_saved)
    first.prompt_cache_saved.extend(later.prompt_cache_saved)
