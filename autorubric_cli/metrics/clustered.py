"""Standard errors of a mean, plain and cluster-robust (docs/reference/report-json.md).

Items that share context (questions on one document, turns of one conversation) are not
independent; their mean's standard error is the cluster-robust (sandwich) one of a regression
on a constant, as statsmodels computes it with ``OLS(y, ones).fit(cov_type="cluster")``:
``se² = G/(G−1) · Σ_g (Σ_{i∈g} (y_i − ȳ))² / N²`` (statsmodels' default small-sample
correction; its second factor, ``(N−1)/(N−K)``, is 1 for one regressor). ``ci95`` and
``p_value`` use the normal, as statsmodels does for a cluster-robust fit by default; ``ci95_t``
and ``p_value_t`` use Student's t on G−1 degrees of freedom, as statsmodels does with
``use_t=True`` (the usual correction when clusters are few, docs/guides/statistics.md).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from autorubric_cli.metrics.figures import Figure, FloatArray, IntArray, Undefined, figure

Z95 = 1.959964
"""The 97.5% normal quantile the intervals use (to six decimals, as documented)."""


def standard_error(values: FloatArray) -> Figure:
    """``std(values, ddof=1) / sqrt(n)``; Undefined with fewer than two values."""
    values = np.asarray(values, dtype=np.float64)
    if values.size < 2:
        return Undefined("needs at least two items")
    return figure(values.std(ddof=1) / np.sqrt(values.size))


def cluster_codes(keys: Sequence[Hashable | None]) -> IntArray:
    """One integer per distinct key; an item without a key (None) is a cluster of its own."""
    codes: dict[Hashable, int] = {}
    out = np.empty(len(keys), dtype=np.int64)
    alone = 0
    for i, key in enumerate(keys):
        if key is None:
            out[i] = -1 - alone  # a fresh negative code: never shared
            alone += 1
        else:
            out[i] = codes.setdefault(key, len(codes))
    return out


def count_clusters(groups: IntArray) -> int:
    return int(np.unique(np.asarray(groups)).size)


def cluster_se(values: FloatArray, groups: IntArray) -> Figure:
    """The cluster-robust standard error of the mean of ``values`` (statsmodels' rule)."""
    values = np.asarray(values, dtype=np.float64)
    groups = np.asarray(groups)
    n = values.size
    if n == 0:
        return Undefined("no items")
    _, inverse = np.unique(groups, return_inverse=True)
    g = int(inverse.max()) + 1
    if g < 2:
        return Undefined("needs at least two clusters")
    sums = np.bincount(inverse, weights=values - values.mean(), minlength=g)
    return figure(np.sqrt(g / (g - 1) * np.dot(sums, sums)) / n)


@dataclass(frozen=True)
class ClusteredMean:
    """A mean with its cluster-robust standard error, interval and two-sided p-value (vs 0),
    by the normal and by Student's t on `df` = G−1 degrees of freedom."""

    mean: float
    clusters: int
    se: Figure
    ci95: tuple[float, float] | Undefined
    p_value: Figure
    ci95_t: tuple[float, float] | Undefined
    p_value_t: Figure

    @property
    def df(self) -> int:
        return self.clusters - 1


def clustered_mean(values: FloatArray, groups: IntArray) -> ClusteredMean | Undefined:
    """The clustered figures of ``values``' mean; Undefined when there are no values."""
    values = np.asarray(values, dtype=np.float64)
    if values.size == 0:
        return Undefined("no items")
    mean = float(values.mean())
    se = cluster_se(values, groups)
    clusters = count_clusters(groups)
    if isinstance(se, Undefined):
        return ClusteredMean(mean, clusters, se, se, se, se, se)
    quantile = float(stats.t.ppf(0.975, clusters - 1))
    return ClusteredMean(
        mean,
        clusters,
        se,
        (mean - Z95 * se, mean + Z95 * se),
        normal_p_value(mean, se),
        (mean - quantile * se, mean + quantile * se),
        t_p_value(mean, se, clusters - 1),
    )


def normal_p_value(estimate: float, se: float) -> Figure:
    """Two-sided p-value of ``estimate / se`` against the standard normal."""
    if se == 0:
        return Undefined("the standard error is zero")
    return figure(2.0 * stats.norm.sf(abs(estimate) / se))


def t_p_value(estimate: float, se: float, df: int) -> Figure:
    """Two-sided p-value of ``estimate / se`` against Student's t on ``df`` degrees of freedom."""
    if se == 0:
        return Undefined("the standard error is zero")
    return figure(2.0 * stats.t.sf(abs(estimate) / se, df))
