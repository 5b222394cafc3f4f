"""Every measure on small hand-worked cases; KL, CE and JSD against scipy; kappas against the
metrics layer and the reference implementations."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from scipy import stats
from scipy.spatial import distance
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from autorubric_cli.metrics.agreement import (
    fleiss_kappa,
    krippendorff_alpha,
    rating_counts,
    scotts_pi,
)
from autorubric_cli.metrics.classification import cohen_kappa, confusion_matrix
from autorubric_cli.metrics.figures import Undefined
from autorubric_cli.validate import measures as m
from autorubric_cli.validate.distributions import hard_labels, hard_response_sets

# Three items, three options. Human forced-choice distributions and a judge's.
HUMAN = np.array([[2 / 3, 1 / 3, 0.0], [0.0, 1.0, 0.0], [1 / 3, 1 / 3, 1 / 3]])
JUDGE = np.array([[0.6, 0.4, 0.0], [0.2, 0.8, 0.0], [0.0, 0.0, 1.0]])
H_HARD = np.array([0, 1, 0])  # item 3 is a three-way tie: the lowest index wins
J_HARD = np.array([0, 1, 2])


def test_hard_labels_take_the_mode_and_break_ties_to_the_lowest_index() -> None:
    assert hard_labels(HUMAN).tolist() == H_HARD.tolist()
    assert hard_labels(JUDGE).tolist() == J_HARD.tolist()
    assert hard_labels(np.array([[0.0, 0.5, 0.5]])).tolist() == [1]


def test_hit_rate_by_hand() -> None:
    assert m.hit_rate(H_HARD, J_HARD) == pytest.approx(2 / 3)


def test_cohen_kappa_by_hand_and_against_sklearn() -> None:
    # po = 2/3; pe = (2/3)(1/3) + (1/3)(1/3) + 0 = 1/3; kappa = (1/3) / (2/3).
    value = m.pair_cohen_kappa(H_HARD, J_HARD, 3)
    assert value == pytest.approx(0.5)
    assert value == pytest.approx(cohen_kappa_score(H_HARD, J_HARD))
    assert value == cohen_kappa(confusion_matrix(H_HARD, J_HARD, 3))


def test_fleiss_kappa_and_scotts_pi_by_hand_and_against_statsmodels() -> None:
    # P = 2/3; category shares over the 6 ratings 1/2, 1/3, 1/6: Pe = 7/18; kappa = 5/11.
    pairs = np.column_stack([H_HARD, J_HARD])
    value = m.pair_fleiss_kappa(H_HARD, J_HARD, 3)
    assert value == pytest.approx(5 / 11)
    assert value == pytest.approx(sm_fleiss(aggregate_raters(pairs, n_cat=3)[0]))
    assert value == fleiss_kappa(rating_counts(pairs, 3))
    assert m.pair_scotts_pi(H_HARD, J_HARD, 3) == pytest.approx(5 / 11)
    assert m.pair_scotts_pi(H_HARD, J_HARD, 3) == scotts_pi(rating_counts(pairs, 3), 2)


def test_krippendorff_alpha_by_hand_and_against_the_package() -> None:
    # Coincidences: o00 = 2, o11 = 2, o02 = o20 = 1; n = (3, 2, 1); alpha = 1 - 5*2/22.
    value = m.pair_krippendorff_alpha(H_HARD, J_HARD, 3)
    assert value == pytest.approx(6 / 11)
    reference = krippendorff.alpha(
        reliability_data=np.vstack([H_HARD, J_HARD]).astype(float),
        level_of_measurement="nominal",
    )
    assert value == pytest.approx(reference)
    counts = rating_counts(np.column_stack([H_HARD, J_HARD]), 3)
    assert value == krippendorff_alpha(counts, "nominal")


def test_agreement_is_undefined_not_zero_when_everything_is_one_category() -> None:
    same = np.array([1, 1, 1])
    for figure in (
        m.pair_cohen_kappa(same, same, 3),
        m.pair_fleiss_kappa(same, same, 3),
        m.pair_krippendorff_alpha(same, same, 3),
        m.pair_scotts_pi(same, same, 3),
    ):
        assert isinstance(figure, Undefined)


def _clip(x: np.ndarray) -> np.ndarray:
    return np.clip(x, 1e-10, None)


def test_kl_by_hand() -> None:
    item1 = (2 / 3) * math.log((2 / 3) / 0.6) + (1 / 3) * math.log((1 / 3) / 0.4)
    item2 = 1e-10 * math.log(1e-10 / 0.2) + math.log(1 / 0.8)
    item3 = 2 * (1 / 3) * math.log((1 / 3) / 1e-10) + (1 / 3) * math.log((1 / 3) / 1.0)
    assert m.kl_divergence(HUMAN, JUDGE) == pytest.approx((item1 + item2 + item3) / 3, rel=1e-9)


@pytest.mark.parametrize(("p", "q"), [(HUMAN, JUDGE), (JUDGE, HUMAN)])
def test_kl_matches_scipy_entropy_on_clipped_distributions(p: np.ndarray, q: np.ndarray) -> None:
    expected = np.mean([stats.entropy(_clip(a), _clip(b)) for a, b in zip(p, q, strict=True)])
    assert m.kl_divergence(p, q) == pytest.approx(expected, rel=1e-8)


@pytest.mark.parametrize(("p", "q"), [(HUMAN, JUDGE), (JUDGE, HUMAN)])
def test_cross_entropy_is_entropy_plus_kl_as_scipy_computes_them(
    p: np.ndarray, q: np.ndarray
) -> None:
    expected = np.mean(
        [stats.entropy(a) + stats.entropy(a, _clip(b)) for a, b in zip(p, q, strict=True)]
    )
    assert m.cross_entropy(p, q) == pytest.approx(expected, rel=1e-8)


def test_cross_entropy_by_hand() -> None:
    item1 = -((2 / 3) * math.log(0.6) + (1 / 3) * math.log(0.4))
    item2 = -math.log(0.8)
    item3 = -(2 * (1 / 3) * math.log(1e-10) + (1 / 3) * math.log(1.0))
    assert m.cross_entropy(HUMAN, JUDGE) == pytest.approx((item1 + item2 + item3) / 3)


def test_jensen_shannon_matches_scipy_with_zeros_replaced() -> None:
    expected = np.mean(
        [
            distance.jensenshannon(np.where(a == 0, 1e-10, a), np.where(b == 0, 1e-10, b))
            for a, b in zip(HUMAN, JUDGE, strict=True)
        ]
    )
    assert m.jensen_shannon(HUMAN, JUDGE) == pytest.approx(expected, rel=1e-12)
    assert m.jensen_shannon(HUMAN, JUDGE) == pytest.approx(m.jensen_shannon(JUDGE, HUMAN))
    assert m.jensen_shannon(HUMAN, HUMAN) == pytest.approx(0.0, abs=1e-6)


def test_jensen_shannon_by_hand_for_disjoint_distributions_is_sqrt_ln2() -> None:
    p, q = np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]])
    assert m.jensen_shannon(p, q) == pytest.approx(math.sqrt(math.log(2)), rel=1e-6)


# Multi-label vectors for the response-set measures (tau = 0.5).
H_OMEGA = np.array([[1.0, 0.5, 0.0], [0.2, 0.9, 0.6], [0.4, 0.4, 0.1]])
J_OMEGA = np.array([[0.8, 0.0, 0.6], [0.0, 1.0, 0.0], [0.5, 0.3, 0.0]])


def test_hard_response_sets_threshold_at_tau_inclusive() -> None:
    sets = hard_response_sets(H_OMEGA, 0.5)
    assert sets.tolist() == [[True, True, False], [False, True, True], [False, False, False]]


def test_coverage_precision_recall_and_efficiency_by_hand() -> None:
    human, judge = hard_response_sets(H_OMEGA, 0.5), hard_response_sets(J_OMEGA, 0.5)
    # judge sets: {0, 2}, {1}, {0}; human sets: {0, 1}, {1, 2}, {}.
    assert m.coverage(np.array([0, 2, 0]), human) == pytest.approx(2 / 3)
    assert m.coverage(np.array([1, 0, 1]), human) == pytest.approx(1 / 3)
    assert m.set_precision(judge, human) == pytest.approx((1 / 2 + 1 + 0) / 3)
    assert m.set_recall(judge, human) == pytest.approx((1 / 2 + 1 / 2) / 2)
    assert m.efficiency(judge) == pytest.approx((2 + 1 + 1) / 3)


def test_set_precision_is_undefined_when_every_judge_set_is_empty() -> None:
    empty = np.zeros((2, 3), dtype=bool)
    assert isinstance(m.set_precision(empty, empty), Undefined)
    assert isinstance(m.set_recall(empty, empty), Undefined)


def test_mse_sums_over_options_then_averages_over_items() -> None:
    per_item = [0.04 + 0.25 + 0.36, 0.04 + 0.01 + 0.36, 0.01 + 0.01 + 0.01]
    assert m.mean_squared_error(H_OMEGA, J_OMEGA) == pytest.approx(np.mean(per_item))


def test_binary_cross_entropy_by_hand_with_clipping() -> None:
    p, q = np.array([[1.0, 0.5]]), np.array([[0.8, 0.0]])
    expected = -(math.log(0.8) + 0.5 * math.log(1e-10) + 0.5 * math.log(1.0))
    assert m.binary_cross_entropy(p, q) == pytest.approx(expected)


def test_decisions_sum_the_positive_options_and_compare_with_tau_inclusive() -> None:
    y = np.array([[0.3, 0.2, 0.5], [0.1, 0.3, 0.6], [0.6, 0.0, 0.4]])
    assert m.decisions(y, [0, 1], 0.5).tolist() == [True, False, True]
    assert m.decisions(y, [2], 0.5).tolist() == [True, True, False]


def test_decision_consistency_and_prevalence_bias_by_hand() -> None:
    judge = np.array([True, True, False, True])
    human = np.array([True, False, False, False])
    assert m.decision_consistency(judge, human) == pytest.approx(0.5)
    assert m.prevalence_bias(judge, human) == pytest.approx(0.75 - 0.25)
    assert m.prevalence_bias(human, judge) == pytest.approx(-0.5)


def test_every_measure_is_undefined_on_zero_items() -> None:
    none_f = np.zeros((0, 3))
    none_i = np.zeros(0, dtype=np.int64)
    none_b = np.zeros((0, 3), dtype=bool)
    figures = [
        m.hit_rate(none_i, none_i),
        m.kl_divergence(none_f, none_f),
        m.cross_entropy(none_f, none_f),
        m.jensen_shannon(none_f, none_f),
        m.coverage(none_i, none_b),
        m.set_precision(none_b, none_b),
        m.efficiency(none_b),
        m.binary_cross_entropy(none_f, none_f),
        m.mean_squared_error(none_f, none_f),
        m.decision_consistency(np.zeros(0, bool), np.zeros(0, bool)),
        m.prevalence_bias(np.zeros(0, bool), np.zeros(0, bool)),
    ]
    assert all(isinstance(f, Undefined) for f in figures)
