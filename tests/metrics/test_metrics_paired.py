"""Paired tests against scipy and statsmodels on seeded random paired data, and hand cases."""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import SquareTable, mcnemar
from statsmodels.stats.multitest import multipletests

from autorubric_cli.metrics.figures import Undefined
from autorubric_cli.metrics.mean_ci import bootstrap_mean_ci
from autorubric_cli.metrics.paired import (
    differences,
    holm,
    mcnemar_exact_p,
    sign_test_p,
    square_table,
    stuart_maxwell_p,
    wilcoxon_p,
)

CASES = 240


def random_scores(
    rng: np.random.Generator, max_n: int = 400, max_grid: int = 12
) -> tuple[np.ndarray, np.ndarray]:
    """Paired scores on a rubric-like grid (ties and zero differences) or continuous."""
    n = int(rng.integers(2, max_n))
    if max_grid <= 3 or rng.random() < 0.5:
        grid = np.linspace(0, 1, int(rng.integers(2, max_grid)))
        base = rng.choice(grid, n)
        moved = rng.random(n) < rng.uniform(0.05, 0.8)
        new = np.where(moved, rng.choice(grid, n), base)
    else:
        base = rng.random(n)
        new = np.clip(base + rng.normal(rng.uniform(-0.1, 0.1), 0.2, n), 0, 1)
    return base, new


def test_wilcoxon_and_sign_test_equal_scipy_on_random_pairs() -> None:
    rng = np.random.default_rng(12)
    checked = 0
    for _ in range(CASES):
        base, new = random_scores(rng)
        diffs = differences(base, new)
        ours = wilcoxon_p(diffs)
        if not np.any(diffs):
            assert ours == Undefined("all differences are zero")
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reference = stats.wilcoxon(new - base).pvalue
        assert ours == pytest.approx(reference, abs=1e-9)
        improved, regressed = int((diffs > 0).sum()), int((diffs < 0).sum())
        sign = stats.binomtest(improved, improved + regressed, 0.5).pvalue
        assert sign_test_p(improved, regressed) == pytest.approx(sign, abs=1e-9)
        checked += 1
    assert checked >= 200


def test_mcnemar_equals_statsmodels_exact() -> None:
    rng = np.random.default_rng(5)
    for _ in range(CASES):
        table = rng.integers(0, rng.integers(1, 60), size=(2, 2))
        b, c = int(table[0, 1]), int(table[1, 0])
        ours = mcnemar_exact_p(c, b)  # UNMET->MET, MET->UNMET in either order
        if b + c == 0:
            assert isinstance(ours, Undefined) and ours.reason == "no discordant pairs"
            continue
        assert ours == pytest.approx(mcnemar(table, exact=True).pvalue, abs=1e-9)


def test_stuart_maxwell_equals_statsmodels_homogeneity() -> None:
    rng = np.random.default_rng(7)
    defined = 0
    for _ in range(CASES):
        k = int(rng.integers(2, 6))
        n = int(rng.integers(5, 300))
        base = rng.integers(0, k, n)
        new = np.where(rng.random(n) < rng.uniform(0.1, 0.9), rng.integers(0, k, n), base)
        table = square_table(base, new, k + 1)  # one category absent on both sides
        ours = stuart_maxwell_p(table)
        seen = (table.sum(0) + table.sum(1)) > 0
        kept = table[np.ix_(seen, seen)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reference = SquareTable(kept, shift_zeros=False).homogeneity().pvalue
        if isinstance(ours, Undefined):
            assert (
                np.trace(kept) == kept.sum()
                or not np.isfinite(reference)
                or (np.linalg.cond(kept) > 1e12 or (np.diag(kept) == kept.sum(0)).any())
            )
            continue
        assert ours == pytest.approx(reference, abs=1e-9)
        defined += 1
    assert defined >= 200


def test_stuart_maxwell_hand_cases() -> None:
    assert stuart_maxwell_p(np.diag([3, 4, 5])) == Undefined("no discordant pairs")
    assert stuart_maxwell_p(np.zeros((3, 3))) == Undefined("no paired items")
    singular = stuart_maxwell_p(np.array([[4, 0, 0], [0, 0, 2], [0, 3, 0]]))
    assert isinstance(singular, Undefined) and "singular" in singular.reason
    table = np.array([[20, 5, 1], [2, 30, 4], [3, 1, 25]])
    expected = SquareTable(table, shift_zeros=False).homogeneity().pvalue
    assert stuart_maxwell_p(table) == pytest.approx(expected, abs=1e-12)


def test_holm_equals_multipletests_and_keeps_undefined_in_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # multipletests runs gc.collect() on every call (~0.15 s here): skip it, the result is the same
    monkeypatch.setattr(gc, "collect", lambda *args: 0)
    rng = np.random.default_rng(9)
    for _ in range(CASES):
        m = int(rng.integers(1, 12))
        p = rng.random(m) ** rng.uniform(0.5, 4)
        p[rng.random(m) < 0.2] = p[0]  # ties
        gaps = rng.random(m) < 0.2
        figures = [Undefined("x") if g else float(v) for v, g in zip(p, gaps, strict=True)]
        ours = holm(figures)
        reference = multipletests(p[~gaps], method="holm")[1] if (~gaps).any() else []
        defined = [v for v, g in zip(ours, gaps, strict=True) if not g]
        assert np.allclose(defined, reference, atol=1e-9, rtol=0)
        assert all(isinstance(v, Undefined) for v, g in zip(ours, gaps, strict=True) if g)


def reference_bootstrap(diffs: np.ndarray, seed: int, resamples: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, diffs.size, size=(resamples, diffs.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def test_bootstrap_is_near_a_reference_bootstrap_and_holds_the_mean() -> None:
    rng = np.random.default_rng(3)
    for case in range(CASES):
        if case % 4 == 0:  # many pairs, few distinct differences: the multinomial path
            base, new = random_scores(rng, max_n=600, max_grid=3)
            base, new = np.concatenate([base, base[:200]]), np.concatenate([new, new[:200]])
        else:
            base, new = random_scores(rng, max_n=120)
        diffs = differences(base, new)
        ours = bootstrap_mean_ci(diffs, seed=case, resamples=10_000)
        assert not isinstance(ours, Undefined)
        low, high = reference_bootstrap(diffs, case, 10_000)
        assert abs(ours[0] - low) <= 0.01 and abs(ours[1] - high) <= 0.01
        assert ours[0] <= diffs.mean() + 1e-12 <= ours[1] + 2e-12
        assert bootstrap_mean_ci(diffs, seed=case, resamples=10_000) == ours


def test_bootstrap_by_index_is_the_reference_bootstrap() -> None:
    diffs = np.random.default_rng(1).normal(0, 1, 500)
    assert bootstrap_mean_ci(diffs, 4, 3000) == pytest.approx(reference_bootstrap(diffs, 4, 3000))


def test_degenerate_cases_are_undefined_with_a_reason() -> None:
    empty = np.array([])
    assert wilcoxon_p(empty) == Undefined("no paired items")
    assert wilcoxon_p(np.zeros(7)) == Undefined("all differences are zero")
    assert wilcoxon_p(differences(np.full(4, 0.3), np.full(4, 0.1) + 0.2)) == Undefined(
        "all differences are zero"
    )
    assert sign_test_p(0, 0) == Undefined("all differences are zero")
    assert mcnemar_exact_p(0, 0) == Undefined("no discordant pairs")
    assert bootstrap_mean_ci(empty, 0) == Undefined("no paired items")
    assert bootstrap_mean_ci(np.array([0.2]), 0) == Undefined("fewer than two paired items")
    assert holm([]) == [] and holm([Undefined("a")]) == [Undefined("a")]


def test_hand_worked_values() -> None:
    assert mcnemar_exact_p(0, 6) == pytest.approx(2 * 0.5**6)
    assert mcnemar_exact_p(3, 3) == 1.0
    assert sign_test_p(10, 0) == pytest.approx(2 * 0.5**10)
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
