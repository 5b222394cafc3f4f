"""Position, order-consistency, length and self-preference figures against scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from autorubric_cli.metrics.figures import Undefined
from autorubric_cli.metrics.judge_bias import (
    SelfPreference,
    consistent_pairs,
    position_test,
    position_tests,
    self_preference,
    spearman_test,
)


@pytest.mark.parametrize("seed", range(8))
def test_position_tests_equal_scipy_chisquare(seed: int) -> None:
    rng = np.random.default_rng(seed)
    counts = {f"c{k}": rng.integers(0, 60, size=k) for k in (2, 3, 5)}
    found = position_tests(counts)
    assert found is not None
    tests, pooled = found
    for name, c in counts.items():
        reference = stats.chisquare(c)
        assert tests[name].chi2 == pytest.approx(reference.statistic)
        assert tests[name].p_value == pytest.approx(reference.pvalue)
        assert tests[name].dof == c.size - 1
        assert tests[name].first_rate == pytest.approx(c[0] / c.sum())
    total = sum(stats.chisquare(c).statistic for c in counts.values())
    dof = sum(c.size - 1 for c in counts.values())
    assert pooled.p_value == pytest.approx(stats.chi2.sf(total, dof))
    votes = sum(int(c.sum()) for c in counts.values())
    assert pooled.votes == votes
    expected = sum(c.sum() / c.size for c in counts.values()) / votes  # mean of 1/K per vote
    assert pooled.first_expected == pytest.approx(expected)
    assert pooled.first_rate == pytest.approx(sum(c[0] for c in counts.values()) / votes)
    assert pooled.counts[:2] == [sum(int(c[k]) for c in counts.values()) for k in range(2)]


def test_position_hand_case() -> None:
    test = position_test(np.array([30, 10, 20]))
    # expected 20 each: (100 + 100 + 0) / 20 = 10 on 2 degrees of freedom
    assert test.chi2 == pytest.approx(10.0)
    assert test.p_value == pytest.approx(np.exp(-5.0))
    assert test.first_expected == pytest.approx(1 / 3)
    assert position_tests({"x": np.zeros(3, dtype=np.int64)}) is None


def test_consistent_pairs() -> None:
    choices = [((0, 1, 2), 1), ((2, 1, 0), 1), ((0, 1, 2), 2), ((1, 0, 2), 0)]
    # pairs with different orders: (0,1) same, (0,3) differ, (1,2) differ, (1,3) differ,
    # (2,3) differ; (0,2) share an order and do not count
    assert consistent_pairs(choices) == (5, 1)
    assert consistent_pairs([((0, 1), 0)]) == (0, 0)


@pytest.mark.parametrize("seed", range(5))
def test_spearman_equals_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.random(50)
    y = np.round(x * 3 + rng.random(50), 1)
    x[[3, 7]] = np.nan
    result = spearman_test(x, y)
    keep = ~np.isnan(x)
    reference = stats.spearmanr(x[keep], y[keep])
    assert result.rho == pytest.approx(reference.statistic)
    assert result.p_value == pytest.approx(reference.pvalue)
    assert result.n == 48
    assert isinstance(spearman_test(np.ones(5), np.arange(5.0)).rho, Undefined)


def test_self_preference_difference_in_differences() -> None:
    own = np.array([0.9, 0.8, 1.0, 0.5, 0.4, 0.6, np.nan])
    others = np.array([0.5, 0.6, 0.7, 0.5, 0.5, 0.5, 0.1])
    mask = np.array([True, True, True, False, False, False, True])
    result = self_preference(own, others, mask, seed=1)
    assert isinstance(result, SelfPreference)
    by_hand = np.mean([0.4, 0.2, 0.3]) - np.mean([0.0, -0.1, 0.1])
    assert result.estimate == pytest.approx(by_hand)
    assert (result.n_own, result.n_other) == (3, 3)
    assert not isinstance(result.ci95, Undefined)
    low, high = result.ci95
    assert low <= result.estimate <= high
    again = self_preference(own, others, mask, seed=1)
    assert isinstance(again, SelfPreference) and again.ci95 == result.ci95
    assert isinstance(self_preference(own, others, np.zeros(7, dtype=bool), 1), Undefined)


def test_self_preference_interval_covers_a_known_shift() -> None:
    rng = np.random.default_rng(4)
    n = 400
    others = rng.random(n)
    mask = rng.random(n) < 0.5
    own = others + 0.1 * mask + rng.normal(0, 0.05, n)
    result = self_preference(own, others, mask, seed=2)
    assert isinstance(result, SelfPreference) and not isinstance(result.ci95, Undefined)
    assert result.ci95[0] < 0.1 < result.ci95[1]
    assert result.ci95[1] - result.ci95[0] < 0.05
