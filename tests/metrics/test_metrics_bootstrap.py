"""The item bootstrap: exact replicates, determinism, coverage of the estimate, vectorisation."""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections import Counter
from typing import Any

import numpy as np
import pytest
from metrics_cases import assert_figure, assert_undefined, for_each_seed, label_case
from scipy import stats
from sklearn.metrics import accuracy_score, cohen_kappa_score

from autorubric_cli.metrics import bootstrap as bs
from autorubric_cli.metrics import classification as cls
from autorubric_cli.metrics import correlation as corr


def _scores(seed: int, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.random(n)
    judge = truth + rng.normal(0, 0.2, n)
    judge[rng.random(n) < 0.1] = np.nan
    return judge, truth


def _label_statistics(seed: int) -> tuple[dict[str, bs.Statistic], np.ndarray, np.ndarray]:
    case = label_case(seed)
    n, k = case.truth.size, case.n_classes
    items = np.arange(n)
    statistics = {
        "accuracy": bs.accuracy_statistic(n, items, case.truth == case.pred),
        "kappa": bs.kappa_statistic(n, items, case.truth, case.pred, k),
        "linear": bs.kappa_statistic(n, items, case.truth, case.pred, k, "linear"),
    }
    return statistics, case.truth, case.pred


def test_full_sample_weights_give_the_point_estimates() -> None:
    def check(seed: int) -> None:
        statistics, truth, pred = _label_statistics(seed)
        ones = np.ones((1, truth.size))
        k = statistics["kappa"].columns.shape[1]
        cm = cls.confusion_matrix(truth, pred, int(math.isqrt(k)))
        for name, point in (
            ("accuracy", cls.accuracy(cm)),
            ("kappa", cls.cohen_kappa(cm)),
            ("linear", cls.cohen_kappa(cm, "linear")),
        ):
            value = statistics[name].evaluate(ones)[0]
            assert_figure(point, value, tol=1e-12)
        judge, truth_scores = _scores(seed, n=int(np.random.default_rng(seed).integers(1, 60)))
        for statistic, point in (
            (bs.pearson_statistic(judge, truth_scores), corr.pearson(judge, truth_scores)),
            (bs.rmse_statistic(judge, truth_scores), corr.rmse(judge, truth_scores)),
        ):
            value = statistic.evaluate(np.ones((1, judge.size)))[0]
            assert_figure(point, value, tol=1e-9)

    for_each_seed(check)


def test_replicates_equal_the_metric_on_the_resampled_items() -> None:
    """Each replicate is the metric of the drawn resample (items repeated by their counts)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")

        def check(seed: int) -> None:
            statistics, truth, pred = _label_statistics(seed)
            judge, truth_scores = _scores(seed, n=truth.size)
            counts = bs.resample_counts(np.random.default_rng(seed), 3, truth.size)
            for row in counts:
                picked = np.repeat(np.arange(truth.size), row.astype(int))
                t, p = truth[picked], pred[picked]
                weights = row[None, :]
                assert_figure(
                    float(statistics["accuracy"].evaluate(weights)[0]), accuracy_score(t, p)
                )
                k = math.isqrt(statistics["kappa"].columns.shape[1])
                reference = cohen_kappa_score(t, p, labels=list(range(k)))
                assert_figure(cls.cohen_kappa(cls.confusion_matrix(t, p, k)), reference)
                replicate = float(statistics["kappa"].evaluate(weights)[0])
                assert math.isnan(replicate) == math.isnan(reference)
                if not math.isnan(reference):
                    assert abs(replicate - reference) <= 1e-9
                x, y = judge[picked], truth_scores[picked]
                keep = ~np.isnan(x)
                r = bs.pearson_statistic(judge, truth_scores).evaluate(weights)[0]
                if keep.sum() >= 3 and np.ptp(x[keep]) > 0:
                    assert abs(r - stats.pearsonr(x[keep], y[keep]).statistic) <= 1e-9
                rmse = bs.rmse_statistic(judge, truth_scores).evaluate(weights)[0]
                if keep.any():
                    assert abs(rmse - np.sqrt(np.mean((x[keep] - y[keep]) ** 2))) <= 1e-12

        for_each_seed(check, range(80))


def test_resample_counts_draw_n_items_per_resample() -> None:
    counts = bs.resample_counts(np.random.default_rng(0), 50, 37)
    assert counts.shape == (50, 37)
    np.testing.assert_array_equal(counts.sum(axis=1), np.full(50, 37.0))
    assert (counts >= 0).all() and (counts == np.round(counts)).all()


def _all_statistics(n: int = 401) -> dict[str, bs.Statistic]:
    judge, truth = _scores(1, n)
    rng = np.random.default_rng(2)
    t = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.8, t, 1 - t)
    items = np.arange(n)
    return {
        "accuracy": bs.accuracy_statistic(n, items, t == p),
        "kappa": bs.kappa_statistic(n, items, t, p, 2),
        "pearson": bs.pearson_statistic(judge, truth),
        "rmse": bs.rmse_statistic(judge, truth),
    }


def test_same_seed_same_replicates_other_seed_others() -> None:
    statistics = _all_statistics()
    first = bs.bootstrap_replicates(statistics, 401, 200, seed=7)
    again = bs.bootstrap_replicates(statistics, 401, 200, seed=7)
    other = bs.bootstrap_replicates(statistics, 401, 200, seed=8)
    for name in statistics:
        np.testing.assert_array_equal(first[name], again[name])
        assert not np.array_equal(first[name], other[name])


def test_blocks_do_not_change_the_replicates(monkeypatch: pytest.MonkeyPatch) -> None:
    """Resamples are generated block by block; the result is the same block size or not."""
    statistics = _all_statistics()
    whole = bs.bootstrap_replicates(statistics, 401, 64, seed=3)
    monkeypatch.setattr(bs, "BLOCK_CELLS", 401 * 5)  # 13 blocks of at most 5 resamples
    single = bs.bootstrap_replicates(statistics, 401, 64, seed=3)
    for name in statistics:
        np.testing.assert_array_equal(whole[name], single[name])


def test_intervals_contain_the_point_estimate_on_reasonable_data() -> None:
    statistics = _all_statistics()
    replicates = bs.bootstrap_replicates(statistics, 401, 1000, seed=0)
    for name, statistic in statistics.items():
        point = statistic.evaluate(np.ones((1, 401)))[0]
        interval = bs.percentile_interval(replicates[name])
        assert not isinstance(interval, bs.Undefined)
        low, high = interval
        assert low < point < high, (name, low, point, high)
        assert high - low < 0.25


def test_interval_is_the_percentile_interval() -> None:
    replicates = np.arange(1001, dtype=float)
    assert bs.percentile_interval(replicates) == pytest.approx((25.0, 975.0), abs=1e-9)
    with_nan = np.concatenate([replicates, np.full(10, np.nan)])
    assert bs.percentile_interval(with_nan) == pytest.approx((25.0, 975.0), abs=1e-9)
    low, high = bs.percentile_interval(np.array([0.0, 1.0, 2.0, 3.0, 4.0]))  # type: ignore[misc]
    assert (low, high) == pytest.approx((0.1, 3.9), abs=1e-12)  # linear interpolation


def test_interval_undefined_when_most_resamples_are() -> None:
    replicates = np.array([0.1, np.nan, np.nan, 0.2, np.nan])
    assert_undefined(bs.percentile_interval(replicates), "most resamples")
    assert_undefined(bs.percentile_interval(np.full(5, np.nan)))


def test_constant_resamples_give_nan_not_a_correlation() -> None:
    judge = np.array([0.2, 0.2, 0.2, 0.9])
    truth = np.array([0.1, 0.5, 0.3, 0.8])
    weights = np.array([[2.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0]])
    values = bs.pearson_statistic(judge, truth).evaluate(weights)
    assert math.isnan(values[0])
    assert abs(values[1] - stats.pearsonr(judge, truth).statistic) <= 1e-9


def test_thousand_resamples_of_ten_thousand_items_are_drawn_in_a_few_blocks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The speed (under 2 s, printed by bench/metrics_bootstrap.py) rests on vectorisation:
    resamples are drawn and reduced a block at a time, never one Python pass per resample."""
    n, resamples = 10_000, 1000
    statistics = _all_statistics(n)
    drawn: list[int] = []
    reduced: Counter[str] = Counter()
    draw = bs.resample_counts

    def counting_draw(rng: np.random.Generator, count: int, items: int) -> Any:
        drawn.append(count)
        return draw(rng, count, items)

    monkeypatch.setattr(bs, "resample_counts", counting_draw)
    statistics = {
        name: dataclasses.replace(s, reduce=counted(s.reduce, name, reduced))
        for name, s in statistics.items()
    }
    replicates = bs.bootstrap_replicates(statistics, n, resamples, seed=0)
    per_block = bs.BLOCK_CELLS // n
    assert drawn == [per_block, per_block, resamples - 2 * per_block]  # 419, 419, 162
    assert reduced == {name: len(drawn) for name in statistics}
    assert all(np.isfinite(replicates[name]).all() for name in statistics)


def counted(reduce: Any, name: str, calls: Counter[str]) -> Any:
    def wrapper(part: Any) -> Any:
        calls[name] += 1
        return reduce(part)

    return wrapper
