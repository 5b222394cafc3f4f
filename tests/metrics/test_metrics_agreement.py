"""Inter-rater agreement against statsmodels, krippendorff, scikit-learn and literature."""

from __future__ import annotations

import math
import warnings
from itertools import combinations

import krippendorff
import numpy as np
import pytest
from metrics_cases import assert_figure, assert_undefined, for_each_seed, ratings_case
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats import inter_rater

from autorubric_cli.metrics import agreement as agr

# Fleiss' kappa, Wikipedia worked example: 10 subjects, 14 raters, 5 categories.
WIKIPEDIA_FLEISS = np.array(
    [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
)

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 observers, 12 units,
# values 1..5 (here 0..4), -1 = missing. alpha nominal 0.743, ordinal 0.815.
KRIPPENDORFF_2011 = (
    np.array(
        [
            [1, 2, 3, 3, 2, 1, 4, 1, 2, 0, 0, 0],
            [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, 0, 3],
            [0, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 0],
            [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, 0],
        ]
    ).T
    - 1
)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _expand(counts: np.ndarray) -> np.ndarray:
    """A count table as an (items, raters) ratings matrix."""
    return np.array([np.repeat(np.arange(counts.shape[1]), row) for row in counts])


# ---------------------------------------------------------------- references


def reference_variable_raters(ratings: np.ndarray, q: int) -> tuple[float, float, float]:
    """Percent agreement, Fleiss' kappa and Gwet's AC1 written out item by item."""
    items = [[r for r in row if r >= 0] for row in ratings]
    items = [row for row in items if len(row) >= 2]
    if not items:
        return math.nan, math.nan, math.nan
    p_a = 0.0
    pi = [0.0] * q
    for row in items:
        m = len(row)
        pairs_agreeing = sum(row.count(k) * (row.count(k) - 1) for k in range(q))
        p_a += pairs_agreeing / (m * (m - 1)) / len(items)
        for k in range(q):
            pi[k] += row.count(k) / m / len(items)
    pe_fleiss = sum(p * p for p in pi)
    pe_gwet = sum(p * (1 - p) for p in pi) / (q - 1)
    used = {r for row in items for r in row}
    fleiss = math.nan if len(used) < 2 else (p_a - pe_fleiss) / (1 - pe_fleiss)
    return p_a, fleiss, (p_a - pe_gwet) / (1 - pe_gwet)


def reference_alpha(ratings: np.ndarray, level: str) -> float:
    data = np.where(ratings >= 0, ratings, np.nan).T.astype(float)
    try:
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
    except ValueError:  # no pairable unit, or a single value in the domain
        return math.nan


# ---------------------------------------------------------------- random datasets


def test_fleiss_matches_statsmodels_on_complete_data() -> None:
    def check(seed: int) -> None:
        ratings, q = ratings_case(seed, missing=False)
        table, _ = inter_rater.aggregate_raters(ratings, n_cat=q)
        counts = agr.rating_counts(ratings, q)
        np.testing.assert_array_equal(counts, table)
        assert_figure(agr.fleiss_kappa(counts), inter_rater.fleiss_kappa(table))

    for_each_seed(check)


def test_scotts_pi_is_fleiss_on_complete_items_and_scott_for_two_raters() -> None:
    def check(seed: int) -> None:
        ratings, q = ratings_case(seed, missing=True)
        complete = ratings[(ratings >= 0).all(axis=1)]
        table = inter_rater.aggregate_raters(complete, n_cat=q)[0] if complete.size else None
        expected = math.nan if table is None else inter_rater.fleiss_kappa(table)
        assert_figure(agr.scotts_pi(agr.rating_counts(ratings, q), ratings.shape[1]), expected)
        pair = complete[:, :2]
        if pair.shape[0]:
            p_o = np.mean(pair[:, 0] == pair[:, 1])
            shares = np.bincount(pair.ravel(), minlength=q) / pair.size
            p_e = np.sum(shares**2)
            scott = math.nan if p_e == 1 else (p_o - p_e) / (1 - p_e)
            assert_figure(agr.scotts_pi(agr.rating_counts(pair, q), 2), scott)

    for_each_seed(check)


@pytest.mark.parametrize("missing", [False, True])
def test_variable_rater_coefficients_match_item_by_item_reference(missing: bool) -> None:
    def check(seed: int) -> None:
        ratings, q = ratings_case(seed, missing=missing)
        counts = agr.rating_counts(ratings, q)
        p_a, fleiss, ac1 = reference_variable_raters(ratings, q)
        assert_figure(agr.percent_agreement(counts), p_a)
        assert_figure(agr.fleiss_kappa(counts), fleiss)
        assert_figure(agr.gwet_ac1(counts), ac1)

    for_each_seed(check)


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_alpha_matches_krippendorff_package(level: agr.AlphaLevel) -> None:
    def check(seed: int) -> None:
        ratings, q = ratings_case(seed, missing=True)
        counts = agr.rating_counts(ratings, q)
        assert_figure(agr.krippendorff_alpha(counts, level), reference_alpha(ratings, level))

    for_each_seed(check)


def test_pairwise_kappa_matches_sklearn_on_shared_items() -> None:
    def check(seed: int) -> None:
        ratings, q = ratings_case(seed, missing=True)
        ids = [f"j{i}" for i in range(ratings.shape[1])]
        ours = agr.pairwise_cohen_kappa(ratings, ids, q)
        assert list(ours) == [f"{a}|{b}" for a, b in combinations(ids, 2)]
        for i, j in combinations(range(len(ids)), 2):
            both = (ratings[:, i] >= 0) & (ratings[:, j] >= 0)
            reference = (
                cohen_kappa_score(ratings[both, i], ratings[both, j], labels=list(range(q)))
                if both.any()
                else math.nan
            )
            assert_figure(ours[f"{ids[i]}|{ids[j]}"], reference)

    for_each_seed(check)


def test_random_cases_include_degenerate_ones() -> None:
    """The seeded datasets reach the undefined branches as well as the defined ones."""
    outcomes = set()
    for seed in range(240):
        ratings, q = ratings_case(seed, missing=True)
        outcomes.add(type(agr.fleiss_kappa(agr.rating_counts(ratings, q))).__name__)
    assert outcomes == {"float", "Undefined"}


# ---------------------------------------------------------------- literature


def test_fleiss_wikipedia_worked_example() -> None:
    counts = WIKIPEDIA_FLEISS
    assert agr.percent_agreement(counts) == pytest.approx(0.378, abs=5e-4)
    assert agr.fleiss_kappa(counts) == pytest.approx(0.210, abs=5e-4)
    assert_figure(agr.fleiss_kappa(counts), inter_rater.fleiss_kappa(counts))
    ratings = _expand(counts)
    assert ratings.shape == (10, 14)
    assert_figure(
        agr.scotts_pi(agr.rating_counts(ratings, 5), 14), inter_rater.fleiss_kappa(counts)
    )


def test_krippendorff_2011_worked_example() -> None:
    counts = agr.rating_counts(KRIPPENDORFF_2011, 5)
    assert agr.krippendorff_alpha(counts, "nominal") == pytest.approx(0.743, abs=5e-4)
    assert agr.krippendorff_alpha(counts, "ordinal") == pytest.approx(0.815, abs=5e-4)


def test_krippendorff_2011_example_with_gwet_variable_rater_forms() -> None:
    """Gwet's irrCAC gives p_a 0.8182 here; its kappa and AC1 (0.7612, 0.7754) also count
    unit 12's single rating in pi_k, which we leave out, so ours differ slightly."""
    counts = agr.rating_counts(KRIPPENDORFF_2011, 5)
    assert agr.percent_agreement(counts) == pytest.approx(9 / 11, abs=1e-12)
    p_a, fleiss, ac1 = reference_variable_raters(KRIPPENDORFF_2011, 5)
    assert_figure(agr.fleiss_kappa(counts), fleiss)
    assert_figure(agr.gwet_ac1(counts), ac1)
    assert agr.fleiss_kappa(counts) == pytest.approx(0.7612, abs=2e-3)
    assert agr.gwet_ac1(counts) == pytest.approx(0.7754, abs=2e-3)


def test_gwet_two_rater_binary_closed_form() -> None:
    """Gwet (2008): two raters, two categories, p_e = 2 pi (1 - pi), pi = mean share of +."""
    a = np.array([1] * 118 + [1] * 5 + [0] * 2 + [0] * 0)
    b = np.array([1] * 118 + [0] * 5 + [1] * 2 + [0] * 0)
    ratings = np.column_stack([a, b])
    p_a = np.mean(a == b)
    pi = (a.mean() + b.mean()) / 2
    p_e = 2 * pi * (1 - pi)
    assert_figure(agr.gwet_ac1(agr.rating_counts(ratings, 2)), (p_a - p_e) / (1 - p_e))
    kappa = agr.pairwise_cohen_kappa(ratings, ["a", "b"], 2)["a|b"]
    assert isinstance(kappa, float) and kappa < 0  # the kappa paradox: high agreement, kappa < 0


# ---------------------------------------------------------------- degenerate


def test_degenerate_ratings_are_undefined_with_reasons() -> None:
    one_rater = np.array([[0], [1], [1]])
    counts = agr.rating_counts(one_rater, 2)
    for value in (agr.percent_agreement(counts), agr.fleiss_kappa(counts), agr.gwet_ac1(counts)):
        assert_undefined(value, "at least two ratings")
    assert_undefined(agr.scotts_pi(counts, 1), "two raters")
    assert_undefined(agr.krippendorff_alpha(counts, "nominal"), "at least two ratings")
    all_missing = np.full((4, 3), -1)
    missing_counts = agr.rating_counts(all_missing, 2)
    assert_undefined(agr.fleiss_kappa(missing_counts), "at least two")
    assert_undefined(agr.scotts_pi(missing_counts, 3), "every rater")
    assert_undefined(agr.krippendorff_alpha(missing_counts, "ordinal"), "at least two")
    assert agr.pairwise_cohen_kappa(all_missing, ["a", "b", "c"], 2)["a|c"] is not None
    assert_undefined(agr.pairwise_cohen_kappa(all_missing, ["a", "b", "c"], 2)["a|c"])
    unanimous = np.array([[1, 1, 1], [1, 1, -1]])
    counts = agr.rating_counts(unanimous, 2)
    assert agr.percent_agreement(counts) == 1.0
    assert_undefined(agr.fleiss_kappa(counts), "one category")
    assert_undefined(agr.krippendorff_alpha(counts, "nominal"), "one category")
    assert agr.gwet_ac1(counts) == 1.0  # AC1 stays defined: p_e < 1 with two categories
    single_item = np.array([[0, 1]])
    assert agr.percent_agreement(agr.rating_counts(single_item, 2)) == 0.0
