"""Plain and cluster-robust standard errors against statsmodels' OLS on a constant."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats

from autorubric_cli.metrics.clustered import (
    Z95,
    ClusteredMean,
    cluster_codes,
    cluster_se,
    clustered_mean,
    standard_error,
)
from autorubric_cli.metrics.figures import Undefined


def reference(values: np.ndarray, groups: np.ndarray):  # type: ignore[no-untyped-def]
    fit = sm.OLS(values, np.ones(len(values))).fit(cov_type="cluster", cov_kwds={"groups": groups})
    return fit


@pytest.mark.parametrize("seed", range(12))
def test_cluster_se_equals_statsmodels_on_random_clusters(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    groups = rng.integers(0, int(rng.integers(2, max(3, n // 2))), size=n)
    values = rng.random(n) + 0.5 * rng.random(groups.max() + 1)[groups]
    if np.unique(groups).size < 2:
        groups[0], groups[1] = 0, 1
    fit = reference(values, groups)
    assert cluster_se(values, groups) == pytest.approx(fit.bse[0], rel=1e-10)
    result = clustered_mean(values, groups)
    assert isinstance(result, ClusteredMean)
    assert result.clusters == np.unique(groups).size
    low, high = fit.conf_int(alpha=0.05)[0]
    assert result.ci95 == pytest.approx((low, high), rel=1e-6)
    assert result.p_value == pytest.approx(fit.pvalues[0], rel=1e-8)


def test_cluster_se_by_hand_on_two_clusters() -> None:
    values = np.array([1.0, 0.0, 1.0, 1.0])
    groups = np.array([0, 0, 1, 1])
    mean = values.mean()
    sums = np.array([1.0 + 0.0 - 2 * mean, 2.0 - 2 * mean])
    by_hand = np.sqrt(2 / 1 * (sums**2).sum()) / 4
    assert cluster_se(values, groups) == pytest.approx(by_hand)
    assert cluster_se(values, groups) == pytest.approx(reference(values, groups).bse[0])


def test_singleton_clusters_are_the_plain_se_times_the_correction() -> None:
    rng = np.random.default_rng(3)
    values = rng.random(40)
    groups = np.arange(40)
    # every item its own cluster: the sandwich with G/(G-1) equals std(ddof=1)/sqrt(n)·...
    n = values.size
    plain = values.std(ddof=1) / np.sqrt(n)
    assert cluster_se(values, groups) == pytest.approx(plain)  # G/(G-1)·Σe²/N² = s²/N
    assert standard_error(values) == pytest.approx(stats.sem(values))


def test_items_without_a_key_are_their_own_clusters() -> None:
    codes = cluster_codes(["a", None, "a", None, "b"])
    assert codes[0] == codes[2]
    assert len(set(codes.tolist())) == 4


def test_undefined_cases() -> None:
    assert isinstance(cluster_se(np.array([1.0, 2.0]), np.array([0, 0])), Undefined)
    assert isinstance(clustered_mean(np.array([]), np.array([], dtype=np.int64)), Undefined)
    assert isinstance(standard_error(np.array([1.0])), Undefined)
    one_cluster = clustered_mean(np.array([1.0, 2.0]), np.array([0, 0]))
    assert isinstance(one_cluster, ClusteredMean)
    assert isinstance(one_cluster.ci95, Undefined)
    assert abs(Z95 - stats.norm.ppf(0.975)) < 1e-6


@pytest.mark.parametrize("seed", range(8))
def test_the_t_figures_equal_statsmodels_use_t_on_few_clusters(seed: int) -> None:
    """Student's t on G−1 degrees of freedom: statsmodels' `use_t=True` for a cluster fit."""
    rng = np.random.default_rng(100 + seed)
    clusters = int(rng.integers(2, 15))
    groups = np.repeat(np.arange(clusters), rng.integers(1, 6, size=clusters))
    values = rng.random(groups.size) + rng.random(clusters)[groups]
    fit = sm.OLS(values, np.ones(values.size)).fit(
        cov_type="cluster", cov_kwds={"groups": groups}, use_t=True
    )
    result = clustered_mean(values, groups)
    assert isinstance(result, ClusteredMean)
    assert result.df == clusters - 1 == fit.df_resid_inference
    assert result.ci95_t == pytest.approx(tuple(fit.conf_int(alpha=0.05)[0]), rel=1e-9)
    assert result.p_value_t == pytest.approx(fit.pvalues[0], rel=1e-8)
    assert result.ci95_t[1] - result.ci95_t[0] > result.ci95[1] - result.ci95[0]  # type: ignore[index]
