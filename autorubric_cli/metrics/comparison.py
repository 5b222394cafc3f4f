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

from autorubric_cli.metrics import classification as cls
from autorubric_cli.metrics import correlation as corr
from autorubric_cli.metrics.bootstrap import (
    Statistic,
    accuracy_statistic,
    kappa_statistic,
    rmse_statistic,
)
from autorubric_cli.metrics.codes import (
    DROPPED,
    ClassPairs,
    Scale,
    compared_pairs,
    ranked_pairs,
    to_classes,
)
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
    """Bootstrap statistics for the criterion: accuracy and kappas (and RMSE if ordinal)."""
    n_items = int(np.asarray(truth).size)
    pairs = compared_pairs(truth, pred, scale)
    result = {
        "accuracy": accuracy_statistic(n_items, pairs.items, pairs.truth == pairs.pred),
        "cohen_kappa": kappa_statistic(
            n_items, pairs.items, pairs.truth, pairs.pred, scale.n_classes
        ),
    }
    if scale.kind == "ordinal":
        ranked = ranked_pairs(pairs, scale)
        for weights in ("linear", "quadratic"):
            result[f"{weights}_kappa"] = kappa_statistic(
                n_items, ranked.items, ranked.truth, ranked.pred, scale.n_options, weights
            )
        result["rmse"] = rmse_statistic(_item_values(pred, scale), _item_values(truth, scale))
    return result


def _item_values(codes: IntArray, scale: Scale) -> FloatArray:
    """Option value per item; NaN where the code is dropped or in the abstain class."""
    classes = to_classes(codes, scale)
    values = np.full(classes.shape, np.nan)
    kept = classes != DROPPED
    values[kept] = class_values(classes[kept], scale)
    return values


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
