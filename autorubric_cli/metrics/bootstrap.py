"""Seeded, vectorized percentile bootstrap over items.

A resample draws n items with replacement; it is held as a row of per-item counts W.
Every supported figure is a function of weighted item sums, so one (sparse) product
W @ columns gives all figures for a block of resamples at once. All statistics passed to
one ``bootstrap_replicates`` call see the same resamples (paired), and the same seed gives
the same resamples. Items a statistic does not compare (missing labels, abstentions
under ``exclude``) have zero columns: they are resampled but not counted, so the
number of compared pairs varies across resamples, as it does across datasets.

Intervals are percentile intervals (2.5th and 97.5th percentiles, numpy's linear
interpolation) over the resamples where the figure is defined; with fewer than half
defined the interval is Undefined.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from scipy import sparse

from autorubric_cli.metrics.classification import KappaWeights, kappa_values
from autorubric_cli.metrics.figures import BoolArray, FloatArray, IntArray, Undefined

BLOCK_CELLS = 1 << 22
"""Resample counts held at once (resamples x items): bounds memory to ~32 MB."""
MIN_DEFINED_SHARE = 0.5
Interval = tuple[float, float]
Key = TypeVar("Key", bound=Hashable)


@dataclass(frozen=True)
class Statistic:
    """A figure as reduce(W @ columns): columns (items, m); reduce maps (r, m) to (r,)."""

    columns: sparse.csr_array
    reduce: Callable[[FloatArray], FloatArray]

    def evaluate(self, weights: FloatArray) -> FloatArray:
        """The figure for each row of resample counts (NaN where undefined)."""
        return self.reduce(np.asarray(self.columns.T @ weights.T).T)


def _divide(numerator: FloatArray, denominator: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, numerator / denominator, np.nan)


def _columns(values: list[FloatArray]) -> sparse.csr_array:
    return sparse.csr_array(np.column_stack(values))


def accuracy_statistic(n_items: int, items: IntArray, correct: BoolArray) -> Statistic:
    """Share correct among the compared ``items``."""
    counted = np.zeros(n_items)
    right = np.zeros(n_items)
    counted[items] = 1.0
    right[items] = np.asarray(correct, dtype=np.float64)
    return Statistic(_columns([counted, right]), lambda s: _divide(s[:, 1], s[:, 0]))


def confusion_columns(
    n_items: int, items: IntArray, truth: IntArray, pred: IntArray, n_classes: int
) -> sparse.csr_array:
    """One-hot (truth, pred) cell per compared item: W @ columns is a confusion matrix."""
    cells = np.asarray(truth) * n_classes + np.asarray(pred)
    shape = (n_items, n_classes * n_classes)
    return sparse.csr_array((np.ones(len(items)), (np.asarray(items), cells)), shape=shape)


def confusion_statistic(
    columns: sparse.csr_array, n_classes: int, figure: Callable[[FloatArray], FloatArray]
) -> Statistic:
    """A figure of the confusion matrices (r, k, k) built from ``confusion_columns``.

    Statistics built on the same ``columns`` object share one block of sums.
    """
    return Statistic(columns, lambda s: figure(s.reshape(-1, n_classes, n_classes)))


def confusion_accuracy(cms: FloatArray) -> FloatArray:
    """Share of each confusion matrix on its diagonal."""
    return _divide(np.trace(cms, axis1=-2, axis2=-1), cms.sum(axis=(-2, -1)))


def confusion_rmse(cms: FloatArray, values: FloatArray) -> FloatArray:
    """RMSE between the class values of each confusion matrix's pairs."""
    squared = (values[:, None] - values[None, :]) ** 2
    return np.sqrt(_divide((cms * squared).sum(axis=(-2, -1)), cms.sum(axis=(-2, -1))))


def kappa_statistic(
    n_items: int,
    items: IntArray,
    truth: IntArray,
    pred: IntArray,
    n_classes: int,
    weights: KappaWeights = "none",
) -> Statistic:
    """Cohen's kappa of the compared ``items`` with classes (truth, pred)."""
    columns = confusion_columns(n_items, items, truth, pred, n_classes)
    return confusion_statistic(columns, n_classes, lambda cms: kappa_values(cms, weights))


def _complete(pred: FloatArray, truth: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """0/1 completeness and the two series with missing values set to 0."""
    pred = np.asarray(pred, dtype=np.float64)
    truth = np.asarray(truth, dtype=np.float64)
    valid = ~(np.isnan(pred) | np.isnan(truth))
    return valid.astype(np.float64), np.where(valid, pred, 0.0), np.where(valid, truth, 0.0)


def score_statistics(pred: FloatArray, truth: FloatArray) -> dict[str, Statistic]:
    """Pearson's r and RMSE of the complete pairs, sharing one block of sums.

    The series are centred first, to keep the sums of squares well scaled.
    """
    valid, x, y = _complete(pred, truth)
    error = (x - y) ** 2
    if valid.any():
        x = (x - x[valid > 0].mean()) * valid
        y = (y - y[valid > 0].mean()) * valid
    columns = _columns([valid, x, y, x * x, y * y, x * y, error])
    return {
        "pearson": Statistic(columns, _pearson_from_sums),
        "rmse": Statistic(columns, lambda s: np.sqrt(_divide(s[:, 6], s[:, 0]))),
    }


def pearson_statistic(pred: FloatArray, truth: FloatArray) -> Statistic:
    """Pearson's r of the complete pairs."""
    return score_statistics(pred, truth)["pearson"]


def rmse_statistic(pred: FloatArray, truth: FloatArray) -> Statistic:
    """Root mean squared error of the complete pairs."""
    return score_statistics(pred, truth)["rmse"]


def _pearson_from_sums(s: FloatArray) -> FloatArray:
    n = s[:, 0]
    mean_x, mean_y = _divide(s[:, 1], n), _divide(s[:, 2], n)
    var_x = _divide(s[:, 3], n) - mean_x**2
    var_y = _divide(s[:, 4], n) - mean_y**2
    cov = _divide(s[:, 5], n) - mean_x * mean_y
    # A resample of one repeated value has variance 0 up to rounding: treat it as 0.
    flat_x = var_x <= 1e-12 * _divide(s[:, 3], n)
    flat_y = var_y <= 1e-12 * _divide(s[:, 4], n)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = cov / np.sqrt(var_x * var_y)
    return np.where((n >= 2) & ~flat_x & ~flat_y, r, np.nan)


def resample_counts(rng: np.random.Generator, n_resamples: int, n_items: int) -> FloatArray:
    """(n_resamples, n_items) counts of each item in resamples drawn with replacement."""
    draws = rng.integers(0, n_items, size=(n_resamples, n_items))
    draws += np.arange(n_resamples)[:, None] * n_items
    counts = np.bincount(draws.ravel(), minlength=n_resamples * n_items)
    del draws  # freed before the float copy: two blocks held at once, not three
    return counts.reshape(n_resamples, n_items).astype(np.float64)


def bootstrap_replicates(
    statistics: Mapping[Key, Statistic], n_items: int, n_resamples: int, seed: int
) -> dict[Key, FloatArray]:
    """Each statistic's value on the same ``n_resamples`` seeded item resamples."""
    result = {key: np.full(n_resamples, np.nan) for key in statistics}
    if not statistics or n_items == 0 or n_resamples == 0:
        return result
    blocks: dict[int, sparse.csr_array] = {}  # shared column blocks are summed once
    offsets: dict[int, int] = {}
    width = 0
    for statistic in statistics.values():
        if id(statistic.columns) not in blocks:
            blocks[id(statistic.columns)] = statistic.columns
            offsets[id(statistic.columns)] = width
            width += statistic.columns.shape[1]
    stacked_t = sparse.hstack(list(blocks.values()), format="csr").T.tocsr()
    rng = np.random.default_rng(seed)
    block = max(1, BLOCK_CELLS // n_items)
    for start in range(0, n_resamples, block):
        stop = min(n_resamples, start + block)
        sums = np.asarray(stacked_t @ resample_counts(rng, stop - start, n_items).T).T
        for key, statistic in statistics.items():
            first = offsets[id(statistic.columns)]
            part = np.ascontiguousarray(sums[:, first : first + statistic.columns.shape[1]])
            result[key][start:stop] = statistic.reduce(part)
    return result


def percentile_interval(replicates: FloatArray, level: float = 0.95) -> Interval | Undefined:
    """The percentile interval of the defined replicates."""
    defined = replicates[np.isfinite(replicates)]
    if defined.size == 0 or defined.size < MIN_DEFINED_SHARE * replicates.size:
        return Undefined("the figure is undefined in most resamples")
    tail = 50.0 * (1.0 - level)
    low, high = np.percentile(defined, [tail, 100.0 - tail])
    return float(low), float(high)
