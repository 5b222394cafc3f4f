"""The report (docs/reference/report-json.md), built from items.jsonl alone with no judge calls."""

from __future__ import annotations

from array import array
from typing import Any

import numpy as np

from autorubric_cli.core.clusters import cluster_path
from autorubric_cli.core.config import Clip, GateCheck
from autorubric_cli.core.gate import evaluate_gate
from autorubric_cli.core.json_model import to_json_dict
from autorubric_cli.core.records import CriterionVerdict
from autorubric_cli.core.rubric import Criterion
from autorubric_cli.core.what_if import WhatIfFlags
from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.experiment.opened import OpenedExperiment
from autorubric_cli.experiment.store import ReadIssues
from autorubric_cli.labels.overlay import MAJORITY, LabelOverlay, experiment_overlay
from autorubric_cli.report.agreement_section import agreement_section
from autorubric_cli.report.bias_section import judge_bias_section
from autorubric_cli.report.cascade_section import experiment_cascade
from autorubric_cli.report.fold import (
    CriterionTally,
    JudgeTally,
    ReportFold,
    exact_mean,
    exact_sum,
)
from autorubric_cli.report.labels_section import human_labels_section
from autorubric_cli.report.metrics_section import CriterionLabels, ground_truth_section
from autorubric_cli.report.models import (
    AgreementSection,
    CriterionSummary,
    ErroredItem,
    FewShotSummary,
    GateResult,
    GroundTruthSection,
    HumanLabelsSection,
    ItemCounts,
    JudgeSummary,
    Report,
    ScoreSummary,
    WhatIf,
)
from autorubric_cli.report.models_stats import ClusteredInterval
from autorubric_cli.report.parallel import ExtrasSettings, fold_experiment
from autorubric_cli.report.stats_section import (
    cluster_key,
    cluster_warnings,
    clustered_interval,
    criteria_clustered,
)
from autorubric_cli.report.summary import score_summary
from autorubric_cli.report.tags_section import (
    item_criteria_summary,
    pooled_agreement,
    pooled_ground_truth,
    tags_section,
)


def build_report(
    experiment: OpenedExperiment,
    *,
    extra_checks: list[GateCheck] | None = None,
    what_if: WhatIfFlags | None = None,
    ca_mode: str = "exclude",
    ground_truth: str = MAJORITY,
    cluster: str | None = None,
) -> dict[str, Any]:
    """The report's JSON form (docs/reference/report-json.md), as `report --format json` prints
    it."""
    report, _ = build_report_and_fold(
        experiment,
        extra_checks=extra_checks,
        what_if=what_if,
        ca_mode=ca_mode,
        ground_truth=ground_truth,
        cluster=cluster,
    )
    return to_json_dict(report)


def build_report_and_fold(
    experiment: OpenedExperiment,
    *,
    extra_checks: list[GateCheck] | None = None,
    what_if: WhatIfFlags | None = None,
    ca_mode: str = "exclude",
    ground_truth: str = MAJORITY,
    cluster: str | None = None,
) -> tuple[Report, ReportFold]:
    """The typed report and the fold it came from (the HTML report plots its arrays);
    `cluster` (`metadata.KEY`) overrides the rubric's `report.cluster`."""
    key = cluster_key(cluster, experiment.rubric.report.cluster)
    issues = ReadIssues()
    overlay = experiment_overlay(experiment.directory, ground_truth)
    fold = read_fold(experiment, key, what_if, issues, overlay)
    seed = experiment.manifest.seed
    clip = experiment.rules.clip
    labels = fold.labels()
    score = score_of(fold, seed, key)
    judges = [
        judge_summary(j.judge_id, fold.judges[j.judge_id], fold, experiment)
        for j in experiment.rubric.grader.judges
    ]
    report = Report(
        experiment=experiment.manifest.name,
        status=experiment.manifest.status,
        error=experiment.manifest.error,  # why a `failed` run stopped
        shard=None if experiment.manifest.shard is None else experiment.manifest.shard.label,
        simulated=fold.simulated,
        items=item_counts(experiment.manifest.items_total, fold),
        score=score,
        criteria=criteria_of(fold, key),
        item_criteria=item_criteria_summary(fold.items),
        tags=tags_section(fold.items, seed, clip),
        judges=judges,
        agreement=agreement_of(fold, labels),
        ground_truth=ground_truth_of(fold, labels, ca_mode, seed),
        human_labels=human_labels_of(experiment, fold, overlay, ca_mode),
        usage=fold.usage,
        cost=amount(exact_sum(fold.costs), [j.cost for j in judges]),
        usage_saved=fold.usage_saved,
        cost_saved=amount(exact_sum(fold.costs_saved), [j.cost_saved for j in judges]),
        retries=sum(j.retries for j in fold.judges.values()),
        error_votes=sum(j.errors for j in fold.judges.values()),
        errored_items=[ErroredItem(id=i, error=e) for i, e in fold.errored_items],
        warnings=[
            *issues.warnings(experiment.directory / ITEMS),
            *cluster_warnings(key, fold.extras, score.clustered),
        ],
        what_if=None
        if what_if is None
        else WhatIf(
            score=score_summary(defined(np.frombuffer(fold.what_if_scores)), seed, clip=clip)
        ),
        judge_bias=judge_bias_section(fold, list(experiment.rubric.grader.judges), seed),
        cascade=experiment_cascade(experiment),
        few_shot=few_shot_of(experiment, fold),
    )
    return gated(report, [*experiment.rubric.gate, *(extra_checks or [])]), fold


def criteria_of(fold: ReportFold, key: str | None) -> list[CriterionSummary]:
    """The shared criteria's summaries, each clustered when there is a key."""
    return [
        criterion_summary(t, fold.recorded, clustered)
        for t, clustered in zip(fold.criteria, criteria_clustered(fold.extras, key), strict=True)
    ]


def agreement_of(fold: ReportFold, labels: list[CriterionLabels]) -> AgreementSection:
    """Per shared criterion, and pooled over the item criteria's pairs."""
    return agreement_section(labels).model_copy(update={"pooled": pooled_agreement(fold.items)})


def ground_truth_of(
    fold: ReportFold, labels: list[CriterionLabels], ca_mode: str, seed: int
) -> GroundTruthSection | None:
    """Against the dataset's ground truth: per shared criterion, the score, and pooled over the
    item criteria's pairs."""
    return ground_truth_section(
        labels,
        np.frombuffer(fold.truth_scores),
        score_arrays(fold),
        ca_mode=ca_mode,
        seed=seed,
        pooled=pooled_ground_truth(fold.items, ca_mode),
    )


def few_shot_of(experiment: OpenedExperiment, fold: ReportFold) -> FewShotSummary | None:
    config = experiment.rubric.grader.few_shot
    if config is None:
        return None
    return FewShotSummary(examples=config.examples, withheld=fold.few_shot_withheld)


def gated(report: Report, checks: list[GateCheck]) -> Report:
    """The report with its gate: the checks evaluated against its JSON form."""
    gate = evaluate_gate(to_json_dict(report), checks)
    return report.model_copy(update={"gate": None if gate is None else GateResult(**gate)})


def read_fold(
    experiment: OpenedExperiment,
    key: str | None,
    what_if: WhatIfFlags | None,
    issues: ReadIssues,
    overlay: LabelOverlay | None,
) -> ReportFold:
    """One pass over items.jsonl, its per-item series put in dataset order."""
    grader = experiment.rubric.grader
    settings = ExtrasSettings(
        cluster=None if key is None else cluster_path(key),
        shuffled=grader.shuffle_options,
        rubric=experiment.rubric,
        per_item=grader.llm_calls == "per_item",
    )
    judge_ids = [j.judge_id for j in experiment.rubric.grader.judges]
    path = experiment.directory / ITEMS
    fold = fold_experiment(path, experiment.rules, judge_ids, what_if, issues, overlay, settings)
    fold.put_in_dataset_order()
    return fold


def amount(total: float | None, by_judge: list[float | None]) -> float | None:
    """A run's cost (or saving): `n/a` when no judge's is defined (its calls had no price, as
    for a model litellm cannot price), else the priced calls' sum, $0 when there were none.
    The progress line follows the same rule (judges/stats.py)."""
    if by_judge and all(cost is None for cost in by_judge):
        return None
    return 0.0 if total is None else total


def item_counts(total: int, fold: ReportFold) -> ItemCounts:
    return ItemCounts(
        total=total,
        completed=fold.recorded,
        errored=fold.errored,
        pending=max(total - fold.recorded, 0),
    )


def score_of(fold: ReportFold, seed: int, key: str | None) -> ScoreSummary:
    scores = np.frombuffer(fold.item_scores)
    clustered = None if key is None else clustered_interval(scores, fold.extras.clusters, key)
    return score_summary(defined(scores), seed, clustered, fold.rules.clip)


def human_labels_of(
    experiment: OpenedExperiment, fold: ReportFold, overlay: LabelOverlay | None, ca_mode: str
) -> HumanLabelsSection | None:
    if overlay is None:
        return None
    return human_labels_section(
        overlay,
        list(experiment.rules.criteria),
        fold.labels(human_only=True),
        ca_mode=ca_mode,
        seed=experiment.manifest.seed,
        pooled=pooled_ground_truth(fold.items, ca_mode, human_only=True),
    )


def defined(values: np.ndarray) -> np.ndarray:
    return values[~np.isnan(values)]


def score_arrays(fold: ReportFold) -> dict[str, np.ndarray]:
    """Item scores by scorer: the ensemble's, then each judge's alone."""
    judges = {j: np.frombuffer(a) for j, a in fold.judge_scores.items()}
    return {"ensemble": np.frombuffer(fold.item_scores), **judges}


def criterion_summary(
    tally: CriterionTally, recorded: int, clustered: ClusteredInterval | None = None
) -> CriterionSummary:
    criterion = tally.criterion
    valued = len(tally.values)
    met_rate = tally.met / valued if valued and criterion.options is None else None
    return CriterionSummary(
        name=criterion.name,
        kind=criterion.kind,
        weight=criterion.weight,
        met_rate=met_rate,
        mean_value=exact_mean(tally.values),
        cannot_assess_rate=tally.abstained / recorded if recorded else None,
        distribution=in_option_order(tally.distribution, criterion),
        agreement=exact_mean(tally.agreements),
        clustered=clustered,
    )


def in_option_order(counts: dict[str, int], criterion: Criterion) -> dict[str, int]:
    """Counts in the rubric's option order (binary: MET, UNMET, CANNOT_ASSESS), then the rest."""
    if criterion.options is None:
        order = [v.value for v in CriterionVerdict]
    else:
        order = [o.label for o in criterion.options]
    ranked = {label: counts[label] for label in order if label in counts}
    return ranked | {label: n for label, n in counts.items() if label not in ranked}


def judge_mean(scores: array, clip: Clip) -> float | None:
    """A judge's mean item score; clamped under `clip: mean`, as `score.mean` is."""
    mean = exact_mean(scores)
    return mean if mean is None or clip == "item" else min(max(mean, 0.0), 1.0)


def judge_summary(
    judge_id: str, tally: JudgeTally, fold: ReportFold, experiment: OpenedExperiment
) -> JudgeSummary:
    spec = next(j for j in experiment.rubric.grader.judges if j.judge_id == judge_id)
    return JudgeSummary(
        id=judge_id,
        model=spec.model,
        weight=spec.weight,
        simulated=spec.model.startswith("simulated/"),
        mean_score=judge_mean(fold.judge_scores[judge_id], fold.rules.clip),
        votes=tally.votes,
        errors=tally.errors,
        retries=tally.retries,
        ignored_fields=tally.ignored_fields,
        usage=tally.usage,
        cost=exact_sum(tally.costs) if tally.votes > tally.cached else 0.0,
        cached=tally.cached,
        usage_saved=tally.usage_saved,
        cost_saved=exact_sum(tally.costs_saved) if tally.cached else 0.0,
        prompt_cache_saved=exact_sum(tally.prompt_cache_saved),
    )
