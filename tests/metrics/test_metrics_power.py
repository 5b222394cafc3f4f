"""Minimum detectable difference, paired sample size and the design effect against
statsmodels' NormalIndPower and a one-way ANOVA worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.power import NormalIndPower

from autorubric_cli.metrics.figures import Undefined
from autorubric_cli.metrics.power import (
    design_effect,
    minimum_detectable,
    one_way_icc,
    paired_items_needed,
    sigma_from_correlation,
)


@pytest.mark.parametrize("seed", range(20))
def test_items_needed_equals_normal_ind_power(seed: int) -> None:
    rng = np.random.default_rng(seed)
    detect = float(rng.uniform(0.005, 0.3))
    sigma = float(rng.uniform(0.05, 0.6))
    alpha = float(rng.choice([0.01, 0.05, 0.1]))
    power = float(rng.choice([0.7, 0.8, 0.9]))
    n = paired_items_needed(detect, sigma, alpha, power)
    assert isinstance(n, float)
    expected = NormalIndPower().solve_power(
        effect_size=detect / sigma, alpha=alpha, power=power, ratio=0
    )
    assert n == pytest.approx(expected, rel=1e-6)
    assert math.ceil(n) == math.ceil(expected)


def test_minimum_detectable_is_the_inverse_of_the_sample_size() -> None:
    se = 0.02
    mde = minimum_detectable(se, 0.05)
    z = stats.norm.ppf(0.975) + stats.norm.ppf(0.8)
    assert mde == pytest.approx(z * se)
    # at n = (sigma/se)^2 items, the detectable difference needs exactly that many items
    sigma = 0.3
    n = (sigma / se) ** 2
    assert paired_items_needed(float(mde), sigma, 0.05, 0.8) == pytest.approx(n, rel=1e-5)
    power = NormalIndPower().power(effect_size=float(mde) / sigma, nobs1=n, alpha=0.05, ratio=0)
    assert power == pytest.approx(0.8, abs=1e-4)
    assert isinstance(minimum_detectable(Undefined("x"), 0.05), Undefined)


def test_sigma_from_correlation() -> None:
    assert sigma_from_correlation(0.2, 0.5) == pytest.approx(0.2)
    assert sigma_from_correlation(0.2, 0.0) == pytest.approx(0.2 * math.sqrt(2))
    assert isinstance(paired_items_needed(0.0, 0.2, 0.05, 0.8), Undefined)
    assert isinstance(paired_items_needed(0.1, 0.0, 0.05, 0.8), Undefined)


def anova_icc_by_hand(clusters: list[list[float]]) -> float:
    """The textbook one-way ANOVA ICC, written out cluster by cluster."""
    everything = [v for c in clusters for v in c]
    n, g = len(everything), len(clusters)
    grand = sum(everything) / n
    ssb = sum(len(c) * (sum(c) / len(c) - grand) ** 2 for c in clusters)
    ssw = sum((v - sum(c) / len(c)) ** 2 for c in clusters for v in c)
    msb, msw = ssb / (g - 1), ssw / (n - g)
    m0 = (n - sum(len(c) ** 2 for c in clusters) / n) / (g - 1)
    return (msb - msw) / (msb + (m0 - 1) * msw)


def as_arrays(clusters: list[list[float]]) -> tuple[np.ndarray, np.ndarray]:
    values = np.array([v for c in clusters for v in c])
    groups = np.array([k for k, c in enumerate(clusters) for _ in c])
    return values, groups


def test_icc_balanced_by_hand() -> None:
    clusters = [[1.0, 0.9, 0.8], [0.2, 0.1, 0.3], [0.5, 0.6, 0.4]]
    values, groups = as_arrays(clusters)
    icc = one_way_icc(values, groups)
    # balanced: m0 = m = 3; MSB = 3·Σ(mean_c − 0.533…)², MSW = 0.01
    means = [0.9, 0.2, 0.5]
    msb = 3 * sum((m - sum(means) / 3) ** 2 for m in means) / 2
    msw = 0.06 / 6
    assert icc == pytest.approx((msb - msw) / (msb + 2 * msw))
    assert icc == pytest.approx(anova_icc_by_hand(clusters))


def test_icc_unbalanced_by_hand() -> None:
    clusters = [[1.0, 0.5], [0.0, 0.25, 0.5, 0.0], [1.0], [0.75, 1.0, 0.5]]
    values, groups = as_arrays(clusters)
    assert one_way_icc(values, groups) == pytest.approx(anova_icc_by_hand(clusters))


@pytest.mark.parametrize("seed", range(6))
def test_icc_random_unbalanced(seed: int) -> None:
    rng = np.random.default_rng(seed)
    clusters = [list(rng.random(int(rng.integers(1, 8))) + shift) for shift in rng.random(9) * 0.5]
    values, groups = as_arrays(clusters)
    assert one_way_icc(values, groups) == pytest.approx(anova_icc_by_hand(clusters))


def test_design_effect() -> None:
    assert design_effect(100, 20, 0.1) == pytest.approx(1 + 4 * 0.1)
    assert design_effect(100, 20, -0.05) == 1.0
    assert isinstance(one_way_icc(np.array([1.0, 2.0]), np.array([0, 1])), Undefined)
