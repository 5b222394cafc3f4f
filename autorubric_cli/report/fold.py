"""One pass over the newest item records, accumulating everything the report shows."""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass, field

import numpy as np

from autorubric_cli.core.cascade import deciding_votes
from autorubric_cli.core.evaluate import (
    ScoringRules,
    evaluate_votes,
    is_abstention,
    keep_one,
    non_na_values,
    outcome_value,
    votes_by_judge,
)
from autorubric_cli.core.item_rubric import defined_criterion, defined_weight, record_rubric
from autorubric_cli.core.records import (
    CriterionRecord,
    CriterionVerdict,
    ItemRecord,
    Vote,
    add_counts,
    retried_calls,
)
from autorubric_cli.core.rubric import Criterion, Rubric
from autorubric_cli.core.scoring import score_item
from autorubric_cli.core.what_if import WhatIfFlags
from autorubric_cli.labels.overlay import LabelOverlay
from autorubric_cli.metrics.codes import MISSING
from autorubric_cli.report.fold_codes import (
    CriterionTally,
    int64,
    judge_code,
    label_code,
    label_value,
    merge_criterion_tallies,
    record_code,
)
from autorubric_cli.report.fold_extras import FoldExtras
from autorubric_cli.report.fold_items import Definition, ItemCriteriaFold, record_tag_scores
from autorubric_cli.report.metrics_section import CriterionLabels
from autorubric_cli.report.outcome import outcome_label

MET, UNMET = CriterionVerdict.MET, CriterionVerdict.UNMET  # enum member lookups cost per vote
DECIDED = (MET, UNMET)
BINARY = Criterion(name="binary", requirement="a binary item criterion's kind and options")
"""What the codes of a binary item criterion need of it (no options): one for all of them."""


def entry_definition(entry: CriterionRecord) -> Definition:
    """An item criterion's (weight, tags, non-NA option values) from its record entry; a
    multi-choice one's criterion is built for its options."""
    if entry.options is None:
        return defined_weight(entry), entry.tags or (), ()
    criterion = defined_criterion(entry)
    return criterion.weight, criterion.tags, non_na_values(criterion)


def exact_sum(values: array) -> float | None:
    """Correctly rounded sum (independent of order and chunking); None when empty."""
    return math.fsum(values) if len(values) else None


def exact_mean(values: array) -> float | None:
    """Mean of the defined (non-NaN) values, correctly rounded sum; None when there are none."""
    defined = [v for v in values if v == v]
    return math.fsum(defined) / len(defined) if defined else None


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
    what_if: WhatIfFlags | None = None
    # human labels (docs/guides/labels.md): fill ground truth where absent
    overlay: LabelOverlay | None = None
    cluster: tuple[str, ...] | None = None  # the cluster key's path into metadata
    shuffled: bool = True  # options were shown in seeded random orders (position bias)
    per_item: bool = False  # llm_calls: per_item (a judge's retries are counted per call)
    recorded: int = 0
    errored: int = 0
    simulated: bool = False
    few_shot_withheld: int = 0  # items whose own few-shot example was withheld (leave-one-out)
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
    # the run's rubric: item criteria are read from records with it (`core.item_rubric`)
    rubric: Rubric | None = None
    items: ItemCriteriaFold = field(init=False)  # item criteria and tags
    _tagged: bool = field(init=False, repr=False)  # some shared criterion carries a tag
    _definitions: list[Definition] = field(init=False, repr=False)  # the shared criteria's
    _what_if_rules: ScoringRules | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.rubric is None:
            self.rubric = Rubric(criteria=list(self.rules.criteria))
        self.criteria = [CriterionTally.new(c, self.judge_ids) for c in self.rules.criteria]
        self.judges = {j: JudgeTally() for j in self.judge_ids}
        self._tallies = list(self.judges.values())
        self.extras = FoldExtras(self.rules.criteria, self.judge_ids, self.cluster, self.shuffled)
        self.judge_scores = {j: array("d") for j in self.judge_ids}
        self.items = ItemCriteriaFold(self.judge_ids)
        self._tagged = any(c.tags for c in self.rules.criteria)
        self._definitions = [(c.weight, c.tags, non_na_values(c)) for c in self.rules.criteria]
        self._what_if_rules = None if self.what_if is None else self.what_if.apply(self.rules)

    def add(self, record: ItemRecord) -> None:
        labelled: dict[str, str] | None = None
        if self.overlay is not None:
            labelled = self.overlay.truth(record.id)
            record = self.overlay.apply(record)
        self.recorded += 1
        self.simulated = self.simulated or record.simulated
        self.few_shot_withheld += bool(record.few_shot_withheld)
        self.indices.append(int64(record.index))
        if record.status == "error":
            self.errored += 1
            self.errored_items.append((record.id, record.error or "error"))
            self.errored_indices.append(int64(record.index))
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
        for judge, retried in retried_calls(record, self.per_item).items():
            if judge in self.judges:
                self.judges[judge].retries += retried
        truth = record.ground_truth
        for tally, shared in zip(self.criteria, record.criteria, strict=False):  # their prefix
            self._count_outcome(tally, shared)
            self._append_codes(tally, shared, truth, labelled, tally.criterion)
        entries = record.criteria[len(self.criteria) :]  # the item's own, with definitions
        if entries:
            self._add_item_criteria(entries, truth, labelled)
        if entries or self._tagged or record.tags:
            self._add_tags(record, entries)
        self.truth_scores.append(self._truth_score(record, entries))
        if self.what_if is not None:
            self._add_what_if(record, entries)
        self.extras.add(record)

    def _count_outcome(self, tally: CriterionTally, record: CriterionRecord) -> None:
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

    def _add_item_criteria(
        self,
        entries: list[CriterionRecord],
        truth: dict[str, str],
        labelled: dict[str, str] | None,
    ) -> None:
        """Count an item's own criteria: a binary one's codes go to the pooled tally (its tags
        note its position there), a multi-choice one's votes to the judges only. A binary
        entry's definition is its weight and tags: no criterion is built for it (a report reads
        millions of them)."""
        items = self.items
        items.items += 1
        items.pairs += len(entries)
        pooled = items.pooled
        for entry in entries:
            if entry.options is not None:
                items.multi_abstained += outcome_value(entry) is None
                self._judge_codes(entry.votes, defined_criterion(entry))
                continue
            if entry.verdict in DECIDED:
                pooled.values.append(1.0 if entry.verdict == MET else 0.0)
                pooled.met += entry.verdict == MET
            else:
                pooled.abstained += 1
            if entry.tags:
                items.tag_pairs_at(entry.tags, len(pooled.ensemble))
            self._append_codes(pooled, entry, truth, labelled, BINARY)

    def _add_tags(self, record: ItemRecord, entries: list[CriterionRecord]) -> None:
        definitions = [*self._definitions, *(entry_definition(e) for e in entries)]
        scores, tagged = record_tag_scores(self.rules, definitions, record.criteria)
        self.items.add_tags(int64(record.index), scores, tagged, record.score, record.tags)

    def _append_codes(
        self,
        tally: CriterionTally,
        record: CriterionRecord,
        truth: dict[str, str],
        labelled: dict[str, str] | None,
        criterion: Criterion,
    ) -> None:
        """One criterion's label codes (truth, ensemble, each judge, human labels) in the
        tally; its votes are counted in the judges' tallies. Labels are found by the record's
        name (`criterion` gives the kind and options)."""
        name = record.name
        tally.truth.append(label_code(criterion, truth.get(name)) if truth else MISSING)
        tally.ensemble.append(record_code(record))
        codes = self._judge_codes(record.votes, criterion)
        for column, code in zip(tally.judges.values(), codes, strict=True):
            column.append(code)
        if labelled is not None:
            tally.label_truth.append(label_code(criterion, labelled.get(name)))

    def _judge_codes(self, votes: list[Vote], criterion: Criterion) -> list[int]:
        """Each judge's sample-reduced code for one criterion, judges in order; the votes are
        counted in the judges' tallies."""
        if [v.judge for v in votes] == self.judge_ids:  # one sample per judge, in order
            codes = []
            for vote, judge in zip(votes, self._tallies, strict=True):
                kept = None if is_abstention(vote, criterion) else vote  # keep_one of one
                codes.append(judge_code(criterion, (vote,), kept))
                judge.add_vote(vote)
            return codes
        groups = votes_by_judge(votes)
        method = self.rules.sample_aggregation
        codes = []
        for judge_id in self.judge_ids:
            own = groups.get(judge_id, [])
            codes.append(judge_code(criterion, own, keep_one(own, criterion, method)))
            for vote in own:
                self.judges[judge_id].add_vote(vote)
        return codes

    def _own(self, record: ItemRecord) -> list[Criterion]:
        """The item's own criteria, built from its record (`core.item_rubric`)."""
        assert self.rubric is not None
        return record_rubric(self.rubric, record).criteria[len(self.criteria) :]

    def _truth_score(self, record: ItemRecord, entries: list[CriterionRecord]) -> float:
        """The item's score computed from its ground-truth labels (every criterion's, the
        item's own included), with the same rules."""
        truth = record.ground_truth
        if len(truth) < len(self.criteria) + len(entries):
            return np.nan
        own = self._own(record) if entries else []
        criteria = [*self.rules.criteria, *own]
        if any(c.name not in truth for c in criteria):
            return np.nan
        rules = self.rules
        weighted = [(c.weight, label_value(c, truth[c.name])) for c in criteria]
        values = [non_na_values(c) for c in criteria]
        penalty = rules.penalty(rules.words(record.word_counts))
        result = score_item(
            weighted, rules.cannot_assess, rules.normalize, penalty, values, clip=rules.clip
        )
        return np.nan if result.score is None else result.score

    def _add_what_if(self, record: ItemRecord, entries: list[CriterionRecord]) -> None:
        assert self.what_if is not None and self._what_if_rules is not None
        rules = self._what_if_rules
        if entries:  # the item's own rules (its criteria's methods), the flags applied to them
            assert self.rubric is not None
            item_rubric = self.rubric.for_item(self._own(record))
            rules = self.what_if.apply(ScoringRules.from_rubric(item_rubric))
        words = rules.words(record.word_counts)
        deciding = [deciding_votes(c.votes, c.escalated) for c in record.criteria]
        evaluation = evaluate_votes(deciding, rules, words)
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
            series += tally.code_series()
        for values in (*series, self.indices):
            permuted = np.frombuffer(values, dtype=values.typecode)[order]
            values[:] = array(values.typecode, permuted.tobytes())
        errored = np.argsort(np.frombuffer(self.errored_indices, dtype=np.int64), kind="stable")
        self.errored_items = [self.errored_items[i] for i in errored]

    def labels(self, *, human_only: bool = False) -> list[CriterionLabels]:
        """Per shared criterion, truth and predictions; `human_only`: the truth from the human
        labels alone (docs/guides/labels.md), whatever the dataset holds."""
        return [tally.labels(human_only) for tally in self.criteria]


def merge_folds(first: ReportFold, later: ReportFold) -> None:
    """Add `later` (records that come after `first`'s in the file) into `first`."""
    first.recorded += later.recorded
    first.errored += later.errored
    first.simulated = first.simulated or later.simulated
    first.few_shot_withheld += later.few_shot_withheld
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
    first.items.merge(later.items)
    for judge, tally in later.judges.items():
        merge_judge_tallies(first.judges[judge], tally)
    first.extras.merge(later.extras)


def merge_judge_tallies(first: JudgeTally, later: JudgeTally) -> None:
    for name in ("votes", "errors", "retries", "cached", "ignored_fields"):
        setattr(first, name, getattr(first, name) + getattr(later, name))
    add_counts(first.usage, later.usage)
    add_counts(first.usage_saved, later.usage_saved)
    first.costs.extend(later.costs)
    first.costs_saved.extend(later.costs_saved)
    first.prompt_cache_saved.extend(later.prompt_cache_saved)
