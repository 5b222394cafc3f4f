"""One criterion's predicted labels against ground truth, by the criterion's kind.

- binary: accuracy, precision, recall, F1, Cohen's kappa, MCC, FPR, FNR (positive = MET).
- ordinal: accuracy, Cohen's kappa, and on the pairs with ranks: adjacent accuracy
  (rank distance <= 1), linear and quadratic weighted kappa on ranks; on option values:
  Spearman, Kendall tau-b, RMSE, MAE.
- nominal: accuracy, Cohen's kappa, per-option precision / recall / F1.

Unweighted Cohen's kappa is given for every kind, so a mean kappa over criteria exists.
Codes and the cannot-assess rule are described in ``codes``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from autorubric_cli.metrics import classification as cls
from autorubric_cli.metrics import correlation as corr
from autorubric_cli.metrics.bootstrap import (
    Statistic,
    confusion_accuracy,
    confusion_columns,
    confusion_rmse,
    confusion_statistic,
)
from autorubric_cli.metrics.classification import kappa_values
from autorubric_cli.metrics.codes import ClassPairs, Scale, compared_pairs, ranked_pairs
from autorubric_cli.metrics.figures import Figure, FloatArray, IntArray, Undefined, ratio

MET = 1


@dataclass
class LabelComparison:
    """Metrics of one criterion for one predictor; ``figures`` keeps metric order."""

    n: int
    labels: tuple[str, ...]
    confusion: IntArray
    figures: dict[str, Figure]
    per_option: dict[str, dict[str, Figure]] = field(default_factory=dict)


def binary_figures(cm: IntArray) -> dict[str, Figure]:
    """Binary metrics, positive class MET."""
    return {
        "accuracy": cls.accuracy(cm),
        "precision": cls.precision(cm, MET),
        "recall": cls.recall(cm, MET),
        "f1": cls.f1(cm, MET),
        "cohen_kappa": cls.cohen_kappa(cm),
        "mcc": cls.matthews_corrcoef(cm),
        "fpr": cls.false_positive_rate(cm, MET),
        "fnr": cls.false_negative_rate(cm, MET),
    }


def adjacent_accuracy(truth_rank: IntArray, pred_rank: IntArray) -> Figure:
    """Share of pairs at most one option apart in rank order."""
    close = np.abs(np.asarray(truth_rank) - np.asarray(pred_rank)) <= 1
    return ratio(float(close.sum()), float(close.size), "no items with options on the scale")


def class_values(classes: IntArray, scale: Scale) -> FloatArray:
    """Option value of each class (NaN for the abstain class)."""
    lookup = np.array([np.nan if v is None else v for v in scale.values], dtype=np.float64)
    return lookup[classes]


def ordinal_figures(cm: IntArray, pairs: ClassPairs, scale: Scale) -> dict[str, Figure]:
    """Ordinal metrics: exact, adjacent, weighted kappas, rank correlations and errors."""
    ranked = ranked_pairs(pairs, scale)
    rank_cm = cls.confusion_matrix(ranked.truth, ranked.pred, scale.n_options)
    truth_value = class_values(pairs.truth, scale)
    pred_value = class_values(pairs.pred, scale)
    return {
        "accuracy": cls.accuracy(cm),
        "cohen_kappa": cls.cohen_kappa(cm),
        "adjacent_accuracy": adjacent_accuracy(ranked.truth, ranked.pred),
        "linear_kappa": cls.cohen_kappa(rank_cm, "linear"),
        "quadratic_kappa": cls.cohen_kappa(rank_cm, "quadratic"),
        "spearman": corr.spearman(pred_value, truth_value),
        "kendall": corr.kendall_tau_b(pred_value, truth_value),
        "rmse": corr.rmse(pred_value, truth_value),
        "mae": corr.mae(pred_value, truth_value),
    }


def nominal_figures(cm: IntArray) -> dict[str, Figure]:
    """Nominal metrics; per-option scores are in ``LabelComparison.per_option``."""
    return {"accuracy": cls.accuracy(cm), "cohen_kappa": cls.cohen_kappa(cm)}


def compare_labels(truth: IntArray, pred: IntArray, scale: Scale) -> LabelComparison:
    """All metrics of the criterion's kind for predicted codes against truth codes."""
    pairs = compared_pairs(truth, pred, scale)
    cm = cls.confusion_matrix(pairs.truth, pairs.pred, scale.n_classes)
    per_option: dict[str, dict[str, Figure]] = {}
    if scale.kind == "binary":
        figures = binary_figures(cm)
    elif scale.kind == "ordinal":
        figures = ordinal_figures(cm, pairs, scale)
    else:
        figures = nominal_figures(cm)
        per_option = dict(zip(scale.labels, cls.per_class_scores(cm), strict=True))
    return LabelComparison(pairs.n, scale.labels, cm, figures, per_option)


def label_statistics(truth: IntArray, pred: IntArray, scale: Scale) -> dict[str, Statistic]:
    """Bootstrap statistics: accuracy and kappa (ordinal: weighted kappas and RMSE too).

    All are figures of one resampled confusion matrix, so they share one block of sums.
    """
    n_items = int(np.asarray(truth).size)
    pairs = compared_pairs(truth, pred, scale)
    k = scale.n_classes
    columns = confusion_columns(n_items, pairs.items, pairs.truth, pairs.pred, k)
    result = {
        "accuracy": confusion_statistic(columns, k, confusion_accuracy),
        "cohen_kappa": confusion_statistic(columns, k, kappa_values),
    }
    if scale.kind == "ordinal":
        result |= _ordinal_statistics(columns, scale)
    return result


def _ordinal_statistics(columns: sparse.csr_array, scale: Scale) -> dict[str, Statistic]:
    """Weighted kappas and RMSE from the confusion rows and columns of scale options."""
    ranked_classes = [c for c in range(scale.n_classes) if scale.ranks[c] is not None]
    order = np.array(sorted(ranked_classes, key=lambda c: scale.ranks[c] or 0))
    values = class_values(order, scale)
    k = scale.n_classes

    def ranked(cms: FloatArray) -> FloatArray:
        return cms[:, order][:, :, order]

    def linear(cms: FloatArray) -> FloatArray:
        return kappa_values(ranked(cms), "linear")

    def quadratic(cms: FloatArray) -> FloatArray:
        return kappa_values(ranked(cms), "quadratic")

    def rmse(cms: FloatArray) -> FloatArray:
        return confusion_rmse(ranked(cms), values)

    return {
        "linear_kappa": confusion_statistic(columns, k, linear),
        "quadratic_kappa": confusion_statistic(columns, k, quadratic),
        "rmse": confusion_statistic(columns, k, rmse),
    }


def summarize(comparisons: list[LabelComparison]) -> dict[str, Figure]:
    """Pooled (micro) and averaged (macro) accuracy, and mean Cohen's kappa, over criteria."""
    correct = sum(int(np.trace(c.confusion)) for c in comparisons)
    total = sum(c.n for c in comparisons)
    return {
        "micro_accuracy": ratio(float(correct), float(total), "no compared items"),
        "macro_accuracy": _mean_defined([c.figures["accuracy"] for c in comparisons]),
        "mean_kappa": _mean_defined([c.figures["cohen_kappa"] for c in comparisons]),
    }


def _mean_defined(values: list[Figure]) -> Figure:
    """Mean of the defined figures."""
    defined = [v for v in values if not isinstance(v, Undefined)]
    if not defined:
        return Undefined("undefined for every criterion")
    return float(np.mean(defined))
