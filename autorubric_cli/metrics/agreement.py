"""Agreement between raters (judges) on one criterion, with missing ratings.

``ratings`` is an (items, raters) int array of categories 0..q-1; a negative entry is a
missing rating (an errored vote or an abstention). ``counts`` is the (items, q) table of
how many raters chose each category (``rating_counts``), as in Fleiss (1971).

Variable raters per item: percent agreement, Fleiss' kappa and Gwet's AC1 use only the
items with at least two ratings, and within them Gwet's generalisation (Handbook of
Inter-Rater Reliability, 2014): observed agreement p_a is the mean over items of
sum_k n_ik (n_ik - 1) / (m_i (m_i - 1)), and category prevalence pi_k is the mean over
items of n_ik / m_i. Fleiss: p_e = sum_k pi_k^2. AC1: p_e = sum_k pi_k (1 - pi_k) / (q - 1),
with q the number of categories on the scale (observed or not). On complete data these
are exactly Fleiss' kappa and Gwet's AC1. (Gwet's irrCAC also counts items with a single
rating in pi_k; here they are left out, like Krippendorff's unpairable values.)

Scott's pi is Fleiss' kappa on the items every rater rated: for two raters that is
Scott's (1955) pi, for more it is its multi-rater generalisation.

Krippendorff's alpha is the ``krippendorff`` package's, with missing ratings as NaN.
"""

from __future__ import annotations

from itertools import combinations
from typing import Literal

import krippendorff
import numpy as np

from autorubric_cli.metrics.classification import cohen_kappa, confusion_matrix
from autorubric_cli.metrics.figures import Figure, FloatArray, IntArray, Undefined, figure

NO_PAIRS = "no item has at least two ratings"
ONE_CATEGORY = "all ratings fall in one category"
AlphaLevel = Literal["nominal", "ordinal"]


def rating_counts(ratings: IntArray, n_categories: int) -> IntArray:
    """Per item, how many raters chose each category; negative ratings are missing. One pass per
    category: no index arrays the size of the ratings (the pooled pairs of item criteria are
    millions of rows)."""
    ratings = np.asarray(ratings)
    table: IntArray = np.empty((ratings.shape[0], n_categories), dtype=np.int64)
    for category in range(n_categories):
        np.sum(ratings == category, axis=1, out=table[:, category])
    return table


def pairable(counts: IntArray) -> IntArray:
    """The rows of a count table with at least two ratings."""
    rows: IntArray = counts[counts.sum(axis=1) >= 2]
    return rows


def _item_agreement(counts: IntArray) -> FloatArray:
    """Per item, the share of rater pairs that agree (rows need two or more ratings)."""
    m = counts.sum(axis=1)
    shares: FloatArray = (counts * (counts - 1)).sum(axis=1) / (m * (m - 1))
    return shares


def _prevalence(counts: IntArray) -> FloatArray:
    """pi_k: the mean over items of the share of the item's ratings in category k."""
    prevalence: FloatArray = np.mean(counts / counts.sum(axis=1, keepdims=True), axis=0)
    return prevalence


def percent_agreement(counts: IntArray) -> Figure:
    """Mean over items with two or more ratings of the share of agreeing rater pairs."""
    rows = pairable(counts)
    if rows.shape[0] == 0:
        return Undefined(NO_PAIRS)
    return figure(np.mean(_item_agreement(rows)))


def fleiss_kappa(counts: IntArray) -> Figure:
    """Fleiss' kappa over items with two or more ratings (Gwet's variable-rater form)."""
    rows = pairable(counts)
    if rows.shape[0] == 0:
        return Undefined(NO_PAIRS)
    if np.count_nonzero(rows.sum(axis=0)) < 2:
        return Undefined(ONE_CATEGORY)
    p_a = np.mean(_item_agreement(rows))
    p_e = np.sum(_prevalence(rows) ** 2)
    return figure((p_a - p_e) / (1.0 - p_e))


def gwet_ac1(counts: IntArray) -> Figure:
    """Gwet's AC1 over items with two or more ratings; q is the table's column count."""
    q = counts.shape[1]
    if q < 2:
        return Undefined("needs at least two categories")
    rows = pairable(counts)
    if rows.shape[0] == 0:
        return Undefined(NO_PAIRS)
    pi = _prevalence(rows)
    p_a = np.mean(_item_agreement(rows))
    p_e = np.sum(pi * (1.0 - pi)) / (q - 1)
    return figure((p_a - p_e) / (1.0 - p_e))


def scotts_pi(counts: IntArray, n_raters: int) -> Figure:
    """Scott's pi on the items every rater rated (multi-rater: Fleiss' kappa on them): the rows
    of the count table that hold `n_raters` ratings."""
    if n_raters < 2:
        return Undefined("needs at least two raters")
    complete = counts[counts.sum(axis=1) == n_raters]
    if complete.shape[0] == 0:
        return Undefined("no item rated by every rater")
    return fleiss_kappa(complete)


def krippendorff_alpha(counts: IntArray, level: AlphaLevel) -> Figure:
    """Krippendorff's alpha at the nominal or ordinal level (categories in rank order), from the
    count table (the package's `value_counts`: what it builds from the ratings itself)."""
    rows = pairable(counts)
    if rows.shape[0] == 0:
        return Undefined(NO_PAIRS)
    if np.count_nonzero(rows.sum(axis=0)) < 2:
        return Undefined(ONE_CATEGORY)
    value = krippendorff.alpha(
        value_counts=counts,
        value_domain=np.arange(counts.shape[1]),
        level_of_measurement=level,
    )
    return figure(value)


def pairwise_cohen_kappa(
    ratings: IntArray, rater_ids: list[str], n_categories: int
) -> dict[str, Figure]:
    """Cohen's kappa of each rater pair "a|b" (a before b in ``rater_ids``), on shared items."""
    ratings = np.asarray(ratings, dtype=np.int64)
    result: dict[str, Figure] = {}
    for i, j in combinations(range(len(rater_ids)), 2):
        both = (ratings[:, i] >= 0) & (ratings[:, j] >= 0)
        cm = confusion_matrix(ratings[both, i], ratings[both, j], n_categories)
        result[f"{rater_ids[i]}|{rater_ids[j]}"] = cohen_kappa(cm)
    return result
