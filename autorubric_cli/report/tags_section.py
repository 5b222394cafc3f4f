"""The report's item-criteria and tags sections (docs/reference/report-json.md, "Tags and item
criteria"), from what the fold kept (`fold_items`).

- `item_criteria`: the (item, criterion) pairs of the items' own criteria.
- `tags`: each criterion tag's and item tag's score (the mean over the items where it is
  defined), its bootstrap interval (the one `score` uses, over those items in dataset order) and
  counts; under `grader.clip: mean`, the mean and interval clamped as `score`'s are.
- pooled agreement: the judges' agreement and the figures against the ground truth over the
  pairs of binary item criteria, and again per criterion tag, computed by the functions a
  shared binary criterion's figures come from. Pooled figures have no intervals: pairs of one
  item are not independent, so a bootstrap over pairs would be too narrow.
"""

from __future__ import annotations

import numpy as np

from autorubric_cli.core.config import Clip
from autorubric_cli.metrics.codes import MISSING
from autorubric_cli.report.agreement_section import criterion_agreement
from autorubric_cli.report.fold_codes import CriterionTally
from autorubric_cli.report.fold_items import ItemCriteriaFold, TagSeries
from autorubric_cli.report.metrics_section import ENSEMBLE, criterion_truth
from autorubric_cli.report.models import (
    BinaryMetrics,
    PooledAgreement,
    PooledGroundTruth,
    PooledTruth,
)
from autorubric_cli.report.models_tags import ItemCriteriaSummary, TagEntry, TagsSection
from autorubric_cli.report.summary import score_ci95, score_mean


def item_criteria_summary(items: ItemCriteriaFold) -> ItemCriteriaSummary | None:
    """None when no item has criteria of its own."""
    if not items.pairs:
        return None
    pooled = items.pooled
    assessed = len(pooled.values)
    return ItemCriteriaSummary(
        count=items.pairs,
        items=items.items,
        met_rate=pooled.met / assessed if assessed else None,
        cannot_assess_rate=(pooled.abstained + items.multi_abstained) / items.pairs,
    )


def tag_entry(series: TagSeries | None, seed: int, clip: Clip, pairs: int | None) -> TagEntry:
    values = np.empty(0) if series is None else series.in_dataset_order()
    return TagEntry(
        score=score_mean(values, clip),
        ci95=score_ci95(values, seed, clip),
        n_items=len(values),
        n_criteria=pairs,
    )


def tags_section(items: ItemCriteriaFold, seed: int, clip: Clip) -> TagsSection | None:
    """None when no criterion and no item carries a tag. A criterion tag no item has a score
    for (no positive-weight criterion carries it) is listed with a null score."""
    if not items.tag_pairs and not items.item_tags:
        return None
    return TagsSection(
        criteria={
            tag: tag_entry(items.criteria_tags.get(tag), seed, clip, pairs)
            for tag, pairs in sorted(items.tag_pairs.items())
        },
        items={
            tag: tag_entry(series, seed, clip, None)
            for tag, series in sorted(items.item_tags.items())
        },
    )


def pooled_agreement(items: ItemCriteriaFold) -> PooledAgreement | None:
    """None without pairs of binary item criteria."""
    if not len(items.pooled.ensemble):
        return None
    overall = criterion_agreement(items.pooled.labels())
    tags = {tag: criterion_agreement(t.labels()) for tag, t in items.tag_tallies().items()}
    return PooledAgreement(**dict(overall), tags=tags)


def pooled_truth_of(tally: CriterionTally, ca_mode: str, human_only: bool) -> PooledTruth:
    labels = tally.labels(human_only)
    metrics = {p: criterion_truth(labels, p, ca_mode) for p in (ENSEMBLE, *labels.judge_ids)}
    ensemble = metrics.pop(ENSEMBLE)
    assert isinstance(ensemble, BinaryMetrics)
    judges = {k: v for k, v in metrics.items() if isinstance(v, BinaryMetrics)}
    return PooledTruth(ensemble=ensemble, judges=judges)


def pooled_ground_truth(
    items: ItemCriteriaFold, ca_mode: str, human_only: bool = False
) -> PooledGroundTruth | None:
    """The pooled pairs against the dataset's ground truth (or, `human_only`, the human
    labels alone); None when no pair has a truth label."""
    pooled = items.pooled
    truth = pooled.label_truth if human_only else pooled.truth
    if not np.any(np.frombuffer(truth, dtype=np.int8) != MISSING):
        return None
    overall = pooled_truth_of(pooled, ca_mode, human_only)
    tags = {
        tag: pooled_truth_of(tally, ca_mode, human_only)
        for tag, tally in items.tag_tallies().items()
    }
    return PooledGroundTruth(ensemble=overall.ensemble, judges=overall.judges, tags=tags)
