"""Judge bias measured from the stored votes (docs/reference/report-json.md, `judge_bias`).

Options are shown in a uniform random order drawn independently of the content, so an unbiased
judge's chosen *shown positions* are uniform: a chi-square goodness-of-fit test of the counts
by position (scipy's ``chisquare``) detects a preference for a position. Length bias is
Spearman's ρ (scipy's ``spearmanr``) between scores and word counts; self-preference is a
difference in differences with a stratified paired bootstrap interval.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from autorubric_cli.metrics.correlation import complete_pairs
from autorubric_cli.metrics.figures import BoolArray, Figure, FloatArray, IntArray, Undefined
from autorubric_cli.metrics.figures import figure as as_figure

FLAG_P = 0.001
"""A judge's position bias is flagged when the pooled p-value is below this."""
SELF_RESAMPLES = 2000
BLOCK_CELLS = 1 << 22


@dataclass(frozen=True)
class PositionTest:
    """Votes by shown position of the chosen option, against the uniform."""

    votes: int
    counts: list[int]
    first_rate: float
    first_expected: float
    chi2: float
    dof: int
    p_value: Figure
    expected: list[float]  # an unbiased judge's share of the votes at each shown position


def position_test(counts: IntArray) -> PositionTest:
    """One criterion's test: ``counts[k]`` votes chose the option shown at position k."""
    counts = np.asarray(counts, dtype=np.int64)
    votes = int(counts.sum())
    result = stats.chisquare(counts)
    return PositionTest(
        votes=votes,
        counts=[int(c) for c in counts],
        first_rate=float(counts[0] / votes),
        first_expected=1.0 / counts.size,
        chi2=float(result.statistic),
        dof=counts.size - 1,
        p_value=as_figure(result.pvalue),
        expected=[1.0 / counts.size] * counts.size,
    )


def pooled_position_test(tests: Sequence[PositionTest]) -> PositionTest:
    """Criteria pooled: counts added by position, statistics and degrees of freedom summed,
    the expected first-position rate the mean of 1/K over every vote. An unbiased judge's share
    of position k is the votes of the criteria with more than k options, each divided by its
    K, over all votes: positions only some criteria have get fewer votes, and not from bias."""
    votes = sum(t.votes for t in tests)
    width = max(len(t.counts) for t in tests)
    counts = np.zeros(width, dtype=np.int64)
    expected = np.zeros(width)
    for t in tests:
        counts[: len(t.counts)] += t.counts
        expected[: len(t.counts)] += t.votes / len(t.counts)
    chi2 = sum(t.chi2 for t in tests)
    dof = sum(t.dof for t in tests)
    return PositionTest(
        votes=votes,
        counts=[int(c) for c in counts],
        first_rate=float(counts[0] / votes),
        first_expected=sum(t.votes * t.first_expected for t in tests) / votes,
        chi2=chi2,
        dof=dof,
        p_value=as_figure(stats.chi2.sf(chi2, dof)),
        expected=(expected / votes).tolist(),
    )


def position_tests(
    counts_by_criterion: Mapping[str, IntArray],
) -> tuple[dict[str, PositionTest], PositionTest] | None:
    """Each criterion with votes, and the pooled test; None when no criterion has a vote."""
    tests = {
        name: position_test(counts)
        for name, counts in counts_by_criterion.items()
        if int(np.sum(counts)) > 0
    }
    if not tests:
        return None
    return tests, pooled_position_test(list(tests.values()))


def consistent_pairs(choices: Sequence[tuple[Sequence[int], int]]) -> tuple[int, int]:
    """Among one judge's samples of one criterion on one item, each a (shown order, chosen
    option) pair: the pairs shown in different orders, and how many of them chose alike."""
    pairs = same = 0
    for i, (order_i, choice_i) in enumerate(choices):
        for order_j, choice_j in choices[i + 1 :]:
            if list(order_i) != list(order_j):
                pairs += 1
                same += choice_i == choice_j
    return pairs, same


@dataclass(frozen=True)
class Correlation:
    rho: Figure
    p_value: Figure
    n: int


def spearman_test(x: FloatArray, y: FloatArray) -> Correlation:
    """Spearman's ρ and its two-sided p-value over the pairs where neither is NaN."""
    a, b = complete_pairs(x, y)
    reason = None
    if a.size < 3:
        reason = Undefined("needs at least three items")
    elif np.all(a == a[0]) or np.all(b == b[0]):
        reason = Undefined("constant " + ("scores" if np.all(a == a[0]) else "word counts"))
    if reason is not None:
        return Correlation(reason, reason, int(a.size))
    result = stats.spearmanr(a, b)
    return Correlation(as_figure(result.statistic), as_figure(result.pvalue), int(a.size))


@dataclass(frozen=True)
class SelfPreference:
    estimate: float
    ci95: tuple[float, float] | Undefined
    n_own: int
    n_other: int


def self_preference(
    own: FloatArray, others: FloatArray, mask: BoolArray, seed: int
) -> SelfPreference | Undefined:
    """mean(own − others) on the items ``mask`` marks minus the same on the rest; NaN pairs
    are left out. The interval resamples items within each group (seeded percentile)."""
    diffs = np.asarray(own, dtype=np.float64) - np.asarray(others, dtype=np.float64)
    mask = np.asarray(mask, dtype=bool)
    keep = ~np.isnan(diffs)
    mine, rest = diffs[keep & mask], diffs[keep & ~mask]
    if mine.size == 0 or rest.size == 0:
        return Undefined("needs scored items both written and not written by the judge's model")
    estimate = float(mine.mean() - rest.mean())
    ci95: tuple[float, float] | Undefined = Undefined("needs two items in each group")
    if mine.size >= 2 and rest.size >= 2:
        rng = np.random.default_rng(seed)
        replicates = resampled_means(rng, mine) - resampled_means(rng, rest)
        low, high = np.percentile(replicates, [2.5, 97.5])
        ci95 = (float(low), float(high))
    return SelfPreference(estimate, ci95, int(mine.size), int(rest.size))


def resampled_means(rng: np.random.Generator, values: FloatArray) -> FloatArray:
    """Means of SELF_RESAMPLES resamples with replacement, a block at a time (bounded memory)."""
    means = np.empty(SELF_RESAMPLES)
    block = max(1, BLOCK_CELLS // values.size)
    for start in range(0, SELF_RESAMPLES, block):
        stop = min(SELF_RESAMPLES, start + block)
        draws = rng.integers(0, values.size, size=(stop - start, values.size))
        means[start:stop] = values[draws].mean(axis=1)
    return means
