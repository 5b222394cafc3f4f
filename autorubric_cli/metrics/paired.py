"""Paired tests between two runs of the same items (docs/guides/compare.md): pure functions,
numpy in.

Each test returns a ``Figure``: a float, or ``Undefined(reason)`` where the test has no value
on the data (no pairs, no discordant pairs, all differences zero, a singular covariance), never
a 0 that would read as "no difference". The formulas follow the references the tests check
against: ``scipy.stats.wilcoxon`` (its defaults), ``scipy.stats.binomtest``, statsmodels'
``mcnemar(exact=True)``, ``SquareTable(t, shift_zeros=False).homogeneity()`` and
``multipletests(method="holm")``; statsmodels is used only by the tests.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats

from autorubric_cli.metrics.figures import Figure, FloatArray, IntArray, Undefined, figure
from autorubric_cli.metrics.mean_ci import NO_PAIRS

TOLERANCE = 1e-9
"""Differences within this of 0 count as 0 (docs/guides/rubrics.md: values within 1e-9 are
equal)."""
ALL_ZERO = "all differences are zero"
NO_DISCORDANT = "no discordant pairs"


def differences(base: FloatArray, new: FloatArray) -> FloatArray:
    """new - base per pair, with differences within TOLERANCE of 0 set to exactly 0."""
    diff = np.asarray(new, dtype=np.float64) - np.asarray(base, dtype=np.float64)
    diff[np.abs(diff) <= TOLERANCE] = 0.0
    return diff


def wilcoxon_p(diffs: FloatArray) -> Figure:
    """Two-sided Wilcoxon signed-rank p-value of paired differences (scipy defaults)."""
    diffs = np.asarray(diffs, dtype=np.float64)
    if diffs.size == 0:
        return Undefined(NO_PAIRS)
    if not np.any(diffs):
        return Undefined(ALL_ZERO)
    return figure(stats.wilcoxon(diffs).pvalue, "the Wilcoxon test is undefined")


def sign_test_p(improved: int, regressed: int) -> Figure:
    """Exact two-sided sign test: improved vs regressed items, ties (unchanged) left out."""
    n = improved + regressed
    if n == 0:
        return Undefined(ALL_ZERO)
    return figure(stats.binomtest(improved, n, 0.5).pvalue)


def mcnemar_exact_p(changed_to_met: int, changed_to_unmet: int) -> Figure:
    """Exact McNemar p-value from the two discordant counts, as statsmodels computes it."""
    n = changed_to_met + changed_to_unmet
    if n == 0:
        return Undefined(NO_DISCORDANT)
    p = 2.0 * stats.binom.cdf(min(changed_to_met, changed_to_unmet), n, 0.5)
    return figure(min(p, 1.0))


def square_table(base: IntArray, new: IntArray, n_classes: int) -> IntArray:
    """Counts of (base class, new class) pairs: rows base, columns new."""
    cells = np.asarray(base, dtype=np.int64) * n_classes + np.asarray(new, dtype=np.int64)
    counts = np.bincount(cells, minlength=n_classes * n_classes)
    return counts.reshape(n_classes, n_classes)


def stuart_maxwell_p(table: IntArray) -> Figure:
    """Stuart–Maxwell test of marginal homogeneity of a square table.

    Categories absent on both sides are dropped first; then the statistic is statsmodels'
    ``SquareTable(table, shift_zeros=False).homogeneity()``. No discordant pairs, or a
    singular covariance (a category seen only in agreeing pairs), is Undefined.
    """
    table = np.asarray(table, dtype=np.float64)
    seen = (table.sum(axis=0) + table.sum(axis=1)) > 0
    table = table[np.ix_(seen, seen)]
    n_obs = table.sum()
    if n_obs == 0:
        return Undefined(NO_PAIRS)
    if n_obs == np.trace(table):
        return Undefined(NO_DISCORDANT)
    share = table / n_obs
    row, col = share.sum(axis=1)[:-1], share.sum(axis=0)[:-1]
    inner = share[:-1, :-1]
    d = col - row
    covariance = -(inner + inner.T)
    np.fill_diagonal(covariance, row + col - 2.0 * np.diag(inner))
    if np.linalg.matrix_rank(covariance) < covariance.shape[0]:
        return Undefined("the Stuart-Maxwell covariance matrix is singular")
    statistic = n_obs * float(d @ np.linalg.solve(covariance, d))
    return figure(stats.chi2.sf(statistic, d.size))


def holm(p_values: Sequence[Figure]) -> list[Figure]:
    """Holm step-down adjusted p-values over the defined ones; Undefined stay Undefined."""
    defined = [i for i, p in enumerate(p_values) if not isinstance(p, Undefined)]
    adjusted: list[Figure] = list(p_values)
    if not defined:
        return adjusted
    raw = np.array([p_values[i] for i in defined], dtype=np.float64)
    order = np.argsort(raw, kind="stable")
    m = raw.size
    steps = np.minimum(1.0, (m - np.arange(m)) * raw[order])
    steps = np.maximum.accumulate(steps)
    for rank, position in enumerate(order):
        adjusted[defined[position]] = float(steps[rank])
    return adjusted
