"""Power and sample size of a paired comparison of mean scores (docs/guides/statistics.md).

Two-sided tests at level ``alpha``, normal approximation, as statsmodels' ``NormalIndPower``
with ``ratio=0`` (one sample of paired differences). Clusters enter through the design
effect ``1 + (m̄ − 1)·ICC`` with the one-way ANOVA estimate of the intraclass correlation.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, stats

from autorubric_cli.metrics.figures import Figure, FloatArray, IntArray, Undefined, figure

MDE_POWER = 0.8
"""The power at which `mde80` is the smallest detectable difference."""


def z_sum(alpha: float, power: float) -> float:
    """``z_{1−α/2} + z_{power}``."""
    return float(stats.norm.ppf(1.0 - alpha / 2.0) + stats.norm.ppf(power))


def minimum_detectable(se: Figure, alpha: float, power: float = MDE_POWER) -> Figure:
    """The smallest true difference detected with ``power`` at ``alpha``: ``(z + z)·se``."""
    if isinstance(se, Undefined):
        return se
    return figure(z_sum(alpha, power) * se)


def sigma_from_correlation(std: float, correlation: float) -> float:
    """The standard deviation of paired differences of two runs that share ``std`` and
    correlate at ``correlation``: ``std·sqrt(2·(1−ρ))``."""
    return std * math.sqrt(2.0 * (1.0 - correlation))


def paired_items_needed(detect: float, sigma_d: float, alpha: float, power: float) -> Figure:
    """The unrounded number of paired items, ``((z_{1−α/2} + z_{power})·σ_d / D)²`` solved
    with both tails of the two-sided test counted, as statsmodels' ``NormalIndPower`` does
    (the far tail lowers it by a fraction of an item when the sample is small)."""
    if detect <= 0 or not math.isfinite(detect):
        return Undefined("the difference to detect must be positive")
    if sigma_d <= 0:
        return Undefined("the paired differences do not vary")
    if not alpha < power < 1.0:
        return Undefined("the power must be above alpha and below 1")
    effect, z = detect / sigma_d, float(stats.norm.ppf(1.0 - alpha / 2.0))
    one_tail = (z_sum(alpha, power) / effect) ** 2

    def shortfall(n: float) -> float:
        shift = effect * math.sqrt(n)
        return float(stats.norm.cdf(shift - z) + stats.norm.cdf(-shift - z)) - power

    if shortfall(one_tail) <= 0:
        return figure(one_tail)
    return figure(optimize.brentq(shortfall, 1e-12 * one_tail, one_tail, xtol=1e-12, rtol=1e-14))


def one_way_icc(values: FloatArray, groups: IntArray) -> Figure:
    """The one-way ANOVA intraclass correlation ``(MSB − MSW)/(MSB + (m0 − 1)·MSW)``, with
    ``m0 = (N − Σ n_c²/N)/(G − 1)`` (unbalanced clusters)."""
    values = np.asarray(values, dtype=np.float64)
    _, inverse = np.unique(np.asarray(groups), return_inverse=True)
    n = values.size
    g = int(inverse.max()) + 1 if n else 0
    if g < 2 or n <= g:
        return Undefined("needs at least two clusters and a cluster of two or more items")
    sizes = np.bincount(inverse, minlength=g).astype(np.float64)
    means = np.bincount(inverse, weights=values, minlength=g) / sizes
    msb = float(np.sum(sizes * (means - values.mean()) ** 2) / (g - 1))
    msw = float(np.sum((values - means[inverse]) ** 2) / (n - g))
    m0 = (n - float(np.sum(sizes**2)) / n) / (g - 1)
    denominator = msb + (m0 - 1.0) * msw
    if denominator == 0:
        return Undefined("the scores do not vary")
    return figure((msb - msw) / denominator)


def design_effect(items: int, clusters: int, icc: float) -> float:
    """``1 + (m̄ − 1)·ICC`` with ``m̄ = items / clusters``; a negative ICC counts as 0, so
    clustering never promises fewer items than independent ones would need."""
    return 1.0 + (items / clusters - 1.0) * max(icc, 0.0)
