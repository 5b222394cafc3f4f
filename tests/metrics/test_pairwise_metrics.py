"""Pairwise figures against independent computations: Bradley–Terry against a maximum-likelihood
fit made here with scipy.optimize, the length-controlled rate against statsmodels' GLM
(Binomial, freq_weights), win rates and bootstrap intervals by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
import statsmodels.api as sm
from scipy.optimize import minimize

from autorubric_cli.metrics.figures import Undefined
from autorubric_cli.metrics.pairwise import (
    bradley_terry,
    elo,
    first_position_p_value,
    item_wins,
    leaderboard,
    length_controlled,
    win_rate,
)


def random_comparisons(seed: int, systems: int, items: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 0.7, systems)
    first, second, outcomes, item = [], [], [], []
    for k in range(items):
        for i in range(systems):
            for j in range(i + 1, systems):
                p = 1 / (1 + math.exp(strength[j] - strength[i]))
                draw = rng.random()
                first.append(i)
                second.append(j)
                outcomes.append(0.5 if draw < 0.2 else float(draw < 0.2 + 0.8 * p))
                item.append(k)
    return tuple(np.array(a) for a in (first, second, outcomes, item))


def scipy_strengths(
    first: np.ndarray, second: np.ndarray, outcomes: np.ndarray, n: int
) -> np.ndarray:
    """The maximum-likelihood β (mean 0): each comparison a win of `outcome` and a loss of
    `1 - outcome` (a tie half a win each way), β_0 fixed at 0 while fitting."""

    def negative(free: np.ndarray) -> float:
        beta = np.concatenate([[0.0], free])
        diff = beta[first] - beta[second]
        return float(
            np.sum(outcomes * np.logaddexp(0, -diff) + (1 - outcomes) * np.logaddexp(0, diff))
        )

    fit = minimize(negative, np.zeros(n - 1), method="BFGS", options={"gtol": 1e-10})
    beta = np.concatenate([[0.0], fit.x])
    return beta - beta.mean()


@pytest.mark.parametrize("seed,systems", [(1, 3), (2, 4), (3, 6)])
def test_bradley_terry_is_the_maximum_likelihood_fit(seed: int, systems: int) -> None:
    first, second, outcomes, item = random_comparisons(seed, systems, 40)
    wins = item_wins(systems, first, second, outcomes, item).sum(axis=0).reshape(systems, systems)
    beta = bradley_terry(wins)
    assert not isinstance(beta, Undefined)
    assert np.allclose(beta, scipy_strengths(first, second, outcomes, systems), atol=1e-6)
    ratings = elo(beta)
    assert np.allclose(ratings, 1000 + 400 * math.log10(math.e) * (beta - beta.mean()))
    assert math.isclose(ratings.mean(), 1000.0)


def test_a_system_that_wins_everything_has_no_finite_rating() -> None:
    first, second = np.array([0, 0, 1]), np.array([1, 2, 2])
    outcomes = np.array([1.0, 1.0, 0.5])
    wins = item_wins(3, first, second, outcomes, np.arange(3)).sum(axis=0).reshape(3, 3)
    assert isinstance(bradley_terry(wins), Undefined)
    found = leaderboard(3, (first, second, outcomes, np.arange(3)), seed=0, resamples=50)
    assert isinstance(found.elo, Undefined)


def test_leaderboard_intervals_are_the_percentiles_of_refits_on_resampled_items() -> None:
    first, second, outcomes, item = random_comparisons(5, 3, 30)
    resamples = 40
    found = leaderboard(3, (first, second, outcomes, item), seed=11, resamples=resamples)
    rng = np.random.default_rng(11)
    draws = rng.integers(0, 30, size=(resamples, 30))
    refits = []
    for row in draws:
        counts = np.bincount(row, minlength=30)[item]
        keep = counts > 0
        # a comparison drawn k times counts k times
        rep = np.repeat(np.arange(len(item))[keep], counts[keep])
        refits.append(
            1000
            + 400 * math.log10(math.e) * scipy_strengths(first[rep], second[rep], outcomes[rep], 3)
        )
    low, high = np.percentile(np.array(refits), [2.5, 97.5], axis=0)
    assert found.unfitted_resamples == 0
    for system in range(3):
        assert found.ci95[system] == pytest.approx((low[system], high[system]), abs=1e-4)


def glm_rate(outcomes: np.ndarray, diffs: np.ndarray) -> float:
    """statsmodels: win 1, loss 0, a tie as two rows of weight 1/2 each (freq_weights)."""
    sd = np.std(diffs, ddof=1)
    x = np.tanh(diffs / sd)
    ties = outcomes == 0.5
    xs = np.concatenate([x[~ties], x[ties], x[ties]])
    ys = np.concatenate([outcomes[~ties], np.ones(ties.sum()), np.zeros(ties.sum())])
    weights = np.concatenate([np.ones((~ties).sum()), np.full(2 * ties.sum(), 0.5)])
    fit = sm.GLM(ys, sm.add_constant(xs), family=sm.families.Binomial(), freq_weights=weights).fit()
    return float(1 / (1 + math.exp(-fit.params[0])))


@pytest.mark.parametrize("seed", range(5))
def test_length_controlled_rate_is_statsmodels_glm(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 60 + 20 * seed
    diffs = rng.normal(0, 80, n).round()
    p = 1 / (1 + np.exp(-(0.4 + 1.2 * np.tanh(diffs / np.std(diffs, ddof=1)))))
    draw = rng.random(n)
    outcomes = np.where(draw < 0.15, 0.5, np.where(draw < 0.15 + 0.85 * p, 1.0, 0.0))
    found = length_controlled(outcomes, diffs)
    assert isinstance(found, float)
    assert found == pytest.approx(glm_rate(outcomes, diffs), abs=1e-8)


def test_length_controlled_rate_says_why_instead_of_nan() -> None:
    cases = {
        "won every": (np.ones(6), np.arange(6.0)),
        "lost every": (np.zeros(6), np.arange(6.0)),
        "sd 0": (np.array([1.0, 0.0, 0.5]), np.full(3, 12.0)),
        "fewer than two": (np.array([1.0]), np.array([3.0])),
        "separated": (np.array([0.0, 0.0, 1.0, 1.0]), np.array([-20.0, -10.0, 10.0, 20.0])),
    }
    for expected, (outcomes, diffs) in cases.items():
        found = length_controlled(outcomes, diffs)
        assert isinstance(found, Undefined), expected
        assert expected in found.reason
    # ties overlap wins and losses: no separation, a finite fit
    assert isinstance(
        length_controlled(np.array([0.0, 0.5, 1.0, 0.5]), np.array([-2.0, 1, 3, -1])), float
    )


def test_win_rate_counts_ties_half_and_its_interval_resamples_items_in_order() -> None:
    outcomes = np.array([1, 0.5, 0, 1, 1, 0.5, 0, 1, 1, 0.5] * 3, dtype=float)
    found = win_rate(outcomes, seed=42)
    assert (found.wins, found.ties, found.losses) == (15, 9, 6)
    assert found.win_rate == pytest.approx((15 + 9 / 2) / 30)
    rng = np.random.default_rng(42)
    means = outcomes[rng.integers(0, 30, size=(1000, 30))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    assert found.ci95 == pytest.approx((low, high))
    assert isinstance(win_rate(np.array([]), 0).win_rate, Undefined)


def test_first_position_p_value_is_the_exact_binomial_test() -> None:
    # 9 of 10 first: P(X >= 9) + P(X <= 1) under 1/2 = 22/1024
    assert first_position_p_value(9, 10) == pytest.approx(22 / 1024)
    assert isinstance(first_position_p_value(0, 0), Undefined)
