"""The report's ``ground_truth`` section (its tables: `render_metrics`; the ``agreement``
section, from the same label codes: `agreement_section`).

Builders take integer label codes (see ``autorubric_cli.metrics.codes``) and return the
typed blocks of ``report.models`` (their JSON form: ``core.json_model.to_json_dict``). A
metric with no value is None and its reason is under the block's ``"undefined"`` key
(``"ci95.<metric>"`` for an interval, ``"per_option.<label>.<metric>"``,
``"pairwise_cohen_kappa.<a|b>"``).

Ground truth: the ensemble is the top level and each judge is under ``"judges"``. A
criterion carries ``"labels"`` (class labels, in rubric option order, then the abstain
class when ``ca_mode`` makes one) and ``"confusion"`` (rows truth, columns prediction).
Intervals are 95% percentile bootstrap intervals over items, one set of seeded resamples
shared by every figure, for accuracy, the kappas, ordinal RMSE, and score Pearson / RMSE.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np

from autorubric_cli.core.words import plural
from autorubric_cli.metrics.bootstrap import (
    Statistic,
    bootstrap_replicates,
    percentile_interval,
    score_statistics,
)
from autorubric_cli.metrics.ca_mode import check_ca_mode
from autorubric_cli.metrics.codes import (
    MISSING,
    Scale,
    build_scale,
)
from autorubric_cli.metrics.comparison import (
    LabelComparison,
    compare_labels,
    label_statistics,
    summarize,
)
from autorubric_cli.metrics.correlation import score_figures
from autorubric_cli.metrics.figures import Figure, FloatArray, Undefined
from autorubric_cli.report.models import (
    BinaryMetrics,
    CriterionMetrics,
    GroundTruthSection,
    Interval,
    NominalMetrics,
    OptionFigures,
    OrdinalMetrics,
    OverallMetrics,
    PooledGroundTruth,
    PredictorMetrics,
    ScoreMetrics,
)

ENSEMBLE = "ensemble"
NEEDS_TWO_JUDGES = "needs at least two judges"
StatKey = tuple[str, int, str]
"""(predictor, criterion index or -1 for the score, metric)."""
SCORE = -1


@dataclass
class CriterionLabels:
    """One criterion's label codes: truth, each predictor's labels and each judge's vote."""

    name: str
    kind: Literal["binary", "ordinal", "nominal"]
    option_labels: list[str]
    option_values: list[float | None]
    truth: np.ndarray
    predictions: dict[str, np.ndarray]
    judge_votes: np.ndarray
    judge_ids: list[str]

    def scale(self, ca_mode: str = "exclude") -> Scale:
        return build_scale(self.kind, self.option_labels, self.option_values, ca_mode)

    def prediction(self, predictor: str) -> np.ndarray:
        """The predictor's codes; all MISSING when it has none for this criterion."""
        return self.predictions.get(predictor, np.full(self.truth.shape, MISSING))


def _ci_block(
    keys: list[str],
    values: Mapping[str, object],
    replicates: dict[StatKey, FloatArray],
    prefix: tuple[str, int],
    undefined: dict[str, str],
) -> dict[str, Interval]:
    """95% intervals of the figures in ``keys`` that have a value and were resampled."""
    ci: dict[str, Interval] = {}
    for key in keys:
        stat_key = (*prefix, key)
        if stat_key not in replicates:
            continue
        interval = percentile_interval(replicates[stat_key])
        if values.get(key) is None:
            ci[key] = None
        elif isinstance(interval, Undefined):
            ci[key] = None
            undefined[f"ci95.{key}"] = interval.reason
        else:
            ci[key] = [interval[0], interval[1]]
    return ci


def figure_values(
    figures: Mapping[str, Figure], undefined: dict[str, str]
) -> dict[str, float | None]:
    """Figures as JSON values (None where undefined); reasons are added to ``undefined``."""
    return {key: figure_value(figure, key, undefined) for key, figure in figures.items()}


def figure_value(figure: Figure, key: str, undefined: dict[str, str]) -> float | None:
    """One figure as a JSON value, recording the reason when it has none."""
    if isinstance(figure, Undefined):
        undefined[key] = figure.reason
        return None
    return float(figure)


def _check_lengths(
    labels: list[CriterionLabels], truth_scores: FloatArray, predicted: dict[str, np.ndarray]
) -> None:
    """Every per-item array has one entry per item, or ValueError naming the array."""
    arrays = {"truth_scores": truth_scores} | {f"scores[{k}]": v for k, v in predicted.items()}
    for c in labels:
        arrays[f"{c.name}.truth"] = c.truth
        arrays |= {f"{c.name}.predictions[{k}]": v for k, v in c.predictions.items()}
    for name, array in arrays.items():
        if np.shape(array)[:1] != truth_scores.shape:
            raise ValueError(
                f"{name} has {plural(len(array), 'item')}, expected {truth_scores.size}"
            )


def _has_truth(labels: list[CriterionLabels]) -> bool:
    return any(bool(np.any(np.asarray(c.truth) != MISSING)) for c in labels)


def _predictor_ids(
    labels: list[CriterionLabels], predicted_scores: dict[str, np.ndarray]
) -> list[str]:
    """The ensemble first, then judges in the order first seen."""
    ids: dict[str, None] = {ENSEMBLE: None}
    for criterion in labels:
        ids.update(dict.fromkeys(criterion.judge_ids))
        ids.update(dict.fromkeys(criterion.predictions))
    ids.update(dict.fromkeys(predicted_scores))
    return list(ids)


def _predictor_scores(
    predicted_scores: dict[str, np.ndarray], predictor: str, n_items: int
) -> FloatArray:
    missing = np.full(n_items, np.nan)
    return np.asarray(predicted_scores.get(predictor, missing), dtype=np.float64)


def _statistics(
    labels: list[CriterionLabels],
    scales: list[Scale],
    predictors: list[str],
    truth_scores: FloatArray,
    predicted_scores: dict[str, np.ndarray],
) -> dict[StatKey, Statistic]:
    """Every resampled figure of every predictor, keyed (predictor, criterion, metric)."""
    stats: dict[StatKey, Statistic] = {}
    for predictor in predictors:
        for index, (criterion, scale) in enumerate(zip(labels, scales, strict=True)):
            own = label_statistics(criterion.truth, criterion.prediction(predictor), scale)
            stats.update({(predictor, index, key): stat for key, stat in own.items()})
        scores = _predictor_scores(predicted_scores, predictor, truth_scores.size)
        for key, stat in score_statistics(scores, truth_scores).items():
            stats[(predictor, SCORE, key)] = stat
    return stats


# The block of each criterion kind: its figures are the ones `compare_labels` computes.
METRICS_MODELS: dict[str, type[BinaryMetrics | OrdinalMetrics | NominalMetrics]] = {
    "binary": BinaryMetrics,
    "ordinal": OrdinalMetrics,
    "nominal": NominalMetrics,
}


def _criterion_metrics(
    criterion: CriterionLabels,
    comparison: LabelComparison,
    replicates: dict[StatKey, FloatArray],
    prefix: tuple[str, int],
) -> CriterionMetrics:
    undefined: dict[str, str] = {}
    figures = figure_values(comparison.figures, undefined)
    per_option = _per_option(comparison, undefined) if criterion.kind == "nominal" else None
    ci95 = _ci_block(list(comparison.figures), figures, replicates, prefix, undefined)
    return METRICS_MODELS[criterion.kind].model_validate(
        {
            "name": criterion.name,
            "kind": criterion.kind,
            "n": comparison.n,
            **figures,
            **({} if per_option is None else {"per_option": per_option}),
            "labels": list(comparison.labels),
            "confusion": comparison.confusion.tolist(),
            "ci95": ci95,
            "undefined": undefined,
        }
    )


def _per_option(comparison: LabelComparison, undefined: dict[str, str]) -> dict[str, OptionFigures]:
    result: dict[str, OptionFigures] = {}
    supports = comparison.confusion.sum(axis=1).tolist()
    for support, (label, figures) in zip(supports, comparison.per_option.items(), strict=True):
        reasons: dict[str, str] = {}
        p, r, f1 = (figure_value(figures[k], k, reasons) for k in ("precision", "recall", "f1"))
        result[label] = OptionFigures(precision=p, recall=r, f1=f1, support=support)
        undefined.update({f"per_option.{label}.{k}": v for k, v in reasons.items()})
    return result


def criterion_truth(
    criterion: CriterionLabels, predictor: str, ca_mode: str = "exclude"
) -> CriterionMetrics:
    """One criterion's (or one set of pooled pairs') figures for one predictor against the
    truth, without intervals (pooled pairs are not independent: see `tags_section`)."""
    comparison = compare_labels(
        criterion.truth, criterion.prediction(predictor), criterion.scale(ca_mode)
    )
    return _criterion_metrics(criterion, comparison, {}, (predictor, 0))


def _score_metrics(
    pred: FloatArray,
    truth: FloatArray,
    replicates: dict[StatKey, FloatArray],
    predictor: str,
) -> ScoreMetrics:
    undefined: dict[str, str] = {}
    n = int(np.count_nonzero(~(np.isnan(pred) | np.isnan(truth))))
    figures = figure_values(score_figures(pred, truth), undefined)
    ci95 = _ci_block(["pearson", "rmse"], figures, replicates, (predictor, SCORE), undefined)
    return ScoreMetrics(
        n=n,
        pearson=figures["pearson"],
        spearman=figures["spearman"],
        kendall=figures["kendall"],
        rmse=figures["rmse"],
        mae=figures["mae"],
        bias=figures["bias"],
        ci95=ci95,
        undefined=undefined,
    )


def _predictor_metrics(
    predictor: str,
    labels: list[CriterionLabels],
    scales: list[Scale],
    replicates: dict[StatKey, FloatArray],
    truth_scores: FloatArray,
    predicted_scores: dict[str, np.ndarray],
) -> PredictorMetrics:
    """criteria, score and overall blocks of one predictor."""
    comparisons = [
        compare_labels(c.truth, c.prediction(predictor), s)
        for c, s in zip(labels, scales, strict=True)
    ]
    scores = _predictor_scores(predicted_scores, predictor, truth_scores.size)
    overall_undefined: dict[str, str] = {}
    overall = figure_values(summarize(comparisons), overall_undefined)
    return PredictorMetrics(
        criteria=[
            _criterion_metrics(c, comp, replicates, (predictor, index))
            for index, (c, comp) in enumerate(zip(labels, comparisons, strict=True))
        ],
        score=_score_metrics(scores, truth_scores, replicates, predictor),
        overall=OverallMetrics(
            micro_accuracy=overall["micro_accuracy"],
            macro_accuracy=overall["macro_accuracy"],
            mean_kappa=overall["mean_kappa"],
            undefined=overall_undefined,
        ),
    )


def ground_truth_section(
    labels: list[CriterionLabels],
    truth_scores: np.ndarray,
    predicted_scores: dict[str, np.ndarray],
    ca_mode: str = "exclude",
    seed: int = 0,
    bootstrap: int = 1000,
    pooled: PooledGroundTruth | None = None,
) -> GroundTruthSection | None:
    """Ensemble and per-judge metrics against ground truth, with the `pooled` figures of item
    criteria (`tags_section`); None when nothing is labelled."""
    check_ca_mode(ca_mode)
    if not _has_truth(labels) and pooled is None:
        return None
    truth = np.asarray(truth_scores, dtype=np.float64)
    _check_lengths(labels, truth, predicted_scores)
    scales = [criterion.scale(ca_mode) for criterion in labels]
    predictors = _predictor_ids(labels, predicted_scores)
    replicates: dict[StatKey, FloatArray] = {}
    if bootstrap > 0:
        stats = _statistics(labels, scales, predictors, truth, predicted_scores)
        replicates = bootstrap_replicates(stats, truth.size, bootstrap, seed)
    blocks = {
        p: _predictor_metrics(p, labels, scales, replicates, truth, predicted_scores)
        for p in predictors
    }
    ensemble = blocks.pop(ENSEMBLE)
    return GroundTruthSection(
        ca_mode=ca_mode,
        criteria=ensemble.criteria,
        score=ensemble.score,
        overall=ensemble.overall,
        judges=blocks,
        pooled=pooled,
    )
