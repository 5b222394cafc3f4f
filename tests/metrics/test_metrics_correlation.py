"""Score metrics against scipy and numpy on seeded random series with missing values."""

from __future__ import annotations

import numpy as np
import pytest
from metrics_cases import assert_figure, assert_undefined, for_each_seed
from scipy import stats

from autorubric_cli.metrics import correlation as corr


def score_case(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Judge and truth scores, with NaNs, ties (discrete scores) and constant series."""
    rng = np.random.default_rng(20_000 + seed)
    n = int(rng.choice([1, 2, 3, 8, 40, 300]))
    truth = rng.random(n)
    if seed % 3 == 0:
        truth = np.round(truth * 4) / 4  # ties, as rubric scores have
    judge = truth + rng.normal(0, rng.uniform(0.01, 1.0), n)
    if seed % 11 == 0:
        judge[:] = 0.5
    judge[rng.random(n) < 0.15] = np.nan
    truth[rng.random(n) < 0.15] = np.nan
    return judge, truth


def _reference(
    name: str, judge: np.ndarray, truth: np.ndarray
) -> float:  # scipy / numpy on the complete pairs
    keep = ~(np.isnan(judge) | np.isnan(truth))
    x, y = judge[keep], truth[keep]
    if name in ("pearson", "spearman", "kendall"):
        if x.size < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
            return np.nan
        function = {"pearson": stats.pearsonr, "spearman": stats.spearmanr}.get(
            name, stats.kendalltau
        )
        return float(function(x, y).statistic)
    if x.size == 0:
        return np.nan
    errors = x - y
    return float(
        {
            "rmse": np.sqrt(np.mean(errors**2)),
            "mae": np.mean(np.abs(errors)),
            "bias": np.mean(errors),
        }[name]
    )


@pytest.mark.parametrize("name", ["pearson", "spearman", "kendall", "rmse", "mae", "bias"])
def test_score_figures_match_scipy(name: str) -> None:
    def check(seed: int) -> None:
        judge, truth = score_case(seed)
        assert_figure(corr.score_figures(judge, truth)[name], _reference(name, judge, truth))

    for_each_seed(check)


def test_kendall_is_tau_b_on_ties() -> None:
    x = np.array([1.0, 1.0, 2.0, 3.0, 3.0, 4.0])
    y = np.array([1.0, 2.0, 2.0, 3.0, 4.0, 4.0])
    reference = stats.kendalltau(x, y, variant="b").statistic
    assert reference != stats.kendalltau(x, y, variant="c").statistic
    assert_figure(corr.kendall_tau_b(x, y), reference)


def test_hand_worked_errors_and_bias() -> None:
    judge = np.array([0.5, 1.0, np.nan, 0.0])
    truth = np.array([0.0, 1.0, 1.0, np.nan])
    assert corr.rmse(judge, truth) == pytest.approx(np.sqrt(0.125), abs=1e-12)
    assert corr.mae(judge, truth) == pytest.approx(0.25, abs=1e-12)
    assert corr.bias(judge, truth) == pytest.approx(0.25, abs=1e-12)
    assert corr.pearson(judge, truth) == pytest.approx(1.0, abs=1e-12)


def test_degenerate_series_are_undefined_with_reasons() -> None:
    nan = np.nan
    assert_undefined(corr.pearson(np.array([0.3]), np.array([0.4])), "at least two")
    assert_undefined(corr.spearman(np.array([0.3, 0.3]), np.array([0.1, 0.4])), "constant")
    assert_undefined(corr.kendall_tau_b(np.array([0.1, 0.3]), np.array([1.0, 1.0])), "truth")
    assert_undefined(corr.rmse(np.array([nan, 1.0]), np.array([1.0, nan])), "no items")
    assert_undefined(corr.mae(np.array([]), np.array([])), "no items")
    assert_undefined(corr.bias(np.array([nan]), np.array([nan])), "no items")


def test_shape_mismatch_is_an_error() -> None:
    with pytest.raises(ValueError, match="same shape"):
        corr.pearson(np.zeros(3), np.zeros(4))
