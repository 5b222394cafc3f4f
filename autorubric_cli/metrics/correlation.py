"""Agreement of two numeric series (judge vs truth): correlations, errors and bias.

Each function takes ``(pred, truth)`` float arrays of equal shape, NaN marking a missing
value, and drops every pair where either side is NaN. Correlations are scipy's
(Pearson, Spearman, Kendall tau-b); they are Undefined with fewer than two pairs or a
constant side.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from autorubric_cli.metrics.figures import Figure, FloatArray, Undefined, figure


def complete_pairs(pred: FloatArray, truth: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The pairs where neither side is NaN."""
    pred = np.asarray(pred, dtype=np.float64)
    truth = np.asarray(truth, dtype=np.float64)
    if pred.shape != truth.shape:
        raise ValueError("pred and truth must have the same shape")
    keep = ~(np.isnan(pred) | np.isnan(truth))
    return pred[keep], truth[keep]


def correlation_undefined(pred: FloatArray, truth: FloatArray) -> Undefined | None:
    """Why a correlation of these complete pairs has no value, or None."""
    if pred.size < 2:
        return Undefined("needs at least two items")
    if np.all(pred == pred[0]):
        return Undefined("prediction is constant")
    if np.all(truth == truth[0]):
        return Undefined("truth is constant")
    return None


def pearson(pred: FloatArray, truth: FloatArray) -> Figure:
    """Pearson's r."""
    x, y = complete_pairs(pred, truth)
    return correlation_undefined(x, y) or figure(stats.pearsonr(x, y).statistic)


def spearman(pred: FloatArray, truth: FloatArray) -> Figure:
    """Spearman's rho (Pearson's r of average ranks)."""
    x, y = complete_pairs(pred, truth)
    return correlation_undefined(x, y) or figure(stats.spearmanr(x, y).statistic)


def kendall_tau_b(pred: FloatArray, truth: FloatArray) -> Figure:
    """Kendall's tau-b (tie-corrected)."""
    x, y = complete_pairs(pred, truth)
    return correlation_undefined(x, y) or figure(stats.kendalltau(x, y, variant="b").statistic)


def rmse(pred: FloatArray, truth: FloatArray) -> Figure:
    """Root mean squared error."""
    x, y = complete_pairs(pred, truth)
    if x.size == 0:
        return Undefined("no items with both values")
    return figure(np.sqrt(np.mean((x - y) ** 2)))


def mae(pred: FloatArray, truth: FloatArray) -> Figure:
    """Mean absolute error."""
    x, y = complete_pairs(pred, truth)
    if x.size == 0:
        return Undefined("no items with both values")
    return figure(np.mean(np.abs(x - y)))


def bias(pred: FloatArray, truth: FloatArray) -> Figure:
    """Mean of pred - truth: positive when the judge scores higher than the truth."""
    x, y = complete_pairs(pred, truth)
    if x.size == 0:
        return Undefined("no items with both values")
    return figure(np.mean(x - y))


def score_figures(pred: FloatArray, truth: FloatArray) -> dict[str, Figure]:
    """Every score metric of predicted item scores against truth scores."""
    return {
        "pearson": pearson(pred, truth),
        "spearman": spearman(pred, truth),
        "kendall": kendall_tau_b(pred, truth),
        "rmse": rmse(pred, truth),
        "mae": mae(pred, truth),
        "bias": bias(pred, truth),
    }
