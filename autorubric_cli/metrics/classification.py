"""Label-agreement metrics computed from a confusion matrix (rows truth, columns prediction).

Positive-class metrics (precision, recall, F1, FPR, FNR) treat ``positive`` against every
other class, so a binary comparison with an abstain class stays one-vs-rest. Kappas and
MCC follow scikit-learn's definitions; where scikit-learn returns 0 or NaN for a zero
denominator, these return ``Undefined``.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from autorubric_cli.metrics.figures import Figure, FloatArray, IntArray, Undefined, ratio

KappaWeights = Literal["none", "linear", "quadratic"]


def confusion_matrix(truth: IntArray, pred: IntArray, n_classes: int) -> IntArray:
    """Counts of (truth class, predicted class) pairs; classes are 0..n_classes-1."""
    truth = np.asarray(truth, dtype=np.int64)
    pred = np.asarray(pred, dtype=np.int64)
    cells = np.bincount(truth * n_classes + pred, minlength=n_classes * n_classes)
    return cells.reshape(n_classes, n_classes).astype(np.int64)


def accuracy(cm: IntArray) -> Figure:
    """Share of pairs on the diagonal."""
    return ratio(float(np.trace(cm)), float(cm.sum()), "no compared items")


def precision(cm: IntArray, positive: int = 1) -> Figure:
    """TP / (TP + FP)."""
    return ratio(
        float(cm[positive, positive]), float(cm[:, positive].sum()), "no predicted positives"
    )


def recall(cm: IntArray, positive: int = 1) -> Figure:
    """TP / (TP + FN)."""
    return ratio(
        float(cm[positive, positive]), float(cm[positive, :].sum()), "truth has no positives"
    )


def f1(cm: IntArray, positive: int = 1) -> Figure:
    """2TP / (2TP + FP + FN): defined unless there is no positive on either side."""
    both = float(cm[positive, :].sum() + cm[:, positive].sum())
    return ratio(2.0 * float(cm[positive, positive]), both, "no positives in truth or prediction")


def false_positive_rate(cm: IntArray, positive: int = 1) -> Figure:
    """FP / (FP + TN): the share of true negatives predicted positive."""
    negatives = np.delete(cm, positive, axis=0)
    return ratio(
        float(negatives[:, positive].sum()), float(negatives.sum()), "truth has no negatives"
    )


def false_negative_rate(cm: IntArray, positive: int = 1) -> Figure:
    """FN / (FN + TP): the share of true positives predicted negative."""
    missed = float(cm[positive, :].sum() - cm[positive, positive])
    return ratio(missed, float(cm[positive, :].sum()), "truth has no positives")


def kappa_weight_matrix(n_classes: int, weights: KappaWeights = "none") -> IntArray:
    """Disagreement weights: 1 off the diagonal, |i - j|, or (i - j)^2."""
    index = np.arange(n_classes)
    distance: IntArray = np.abs(index[:, None] - index[None, :])
    if weights == "linear":
        return distance
    if weights == "quadratic":
        squared: IntArray = distance * distance
        return squared
    return (distance > 0).astype(np.int64)


def kappa_values(cms: FloatArray, weights: KappaWeights = "none") -> FloatArray:
    """Cohen's kappa of a stack of confusion matrices (..., k, k); NaN where undefined."""
    w = kappa_weight_matrix(cms.shape[-1], weights).astype(np.float64)
    total = cms.sum(axis=(-2, -1))
    observed = (cms * w).sum(axis=(-2, -1))
    chance = np.einsum("...i,ij,...j->...", cms.sum(axis=-1), w, cms.sum(axis=-2))
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = 1.0 - total * observed / chance
    return np.where(chance > 0, kappa, np.nan)


def cohen_kappa(cm: IntArray, weights: KappaWeights = "none") -> Figure:
    """Cohen's kappa (weighted when classes are ordered ranks), as scikit-learn computes it."""
    if cm.sum() == 0:
        return Undefined("no compared items")
    chance = int(cm.sum(axis=1) @ kappa_weight_matrix(cm.shape[0], weights) @ cm.sum(axis=0))
    if chance == 0:
        return Undefined("truth and prediction use one and the same class only")
    return float(kappa_values(cm.astype(np.float64), weights))


def matthews_corrcoef(cm: IntArray) -> Figure:
    """Matthews correlation (multi-class form of scikit-learn)."""
    t = [int(v) for v in cm.sum(axis=1)]
    p = [int(v) for v in cm.sum(axis=0)]
    s = sum(t)
    cov_tp = int(np.trace(cm)) * s - sum(a * b for a, b in zip(t, p, strict=True))
    cov_tt = s * s - sum(a * a for a in t)
    cov_pp = s * s - sum(b * b for b in p)
    if s == 0:
        return Undefined("no compared items")
    if cov_tt == 0:
        return Undefined("truth has a single class")
    if cov_pp == 0:
        return Undefined("prediction has a single class")
    return cov_tp / math.sqrt(float(cov_tt) * float(cov_pp))


def per_class_scores(cm: IntArray) -> list[dict[str, Figure]]:
    """Precision, recall and F1 of each class against all others."""
    return [
        {"precision": precision(cm, k), "recall": recall(cm, k), "f1": f1(cm, k)}
        for k in range(cm.shape[0])
    ]
