"""Best judge per definition (direction-aware, ties), rank correlations and rank inversions."""

from __future__ import annotations

import pytest
from scipy import stats

from autorubric_cli.metrics.figures import Figure, Undefined
from autorubric_cli.validate.performance import (
    LOWER_IS_BETTER,
    METRICS,
    RANKED,
    direction,
    goodness,
)
from autorubric_cli.validate.selection import (
    best_by_metric,
    best_judges,
    first_best,
    rank_correlations,
    rank_inversions,
    selection_groups,
)

JUDGES = ["a", "b", "c"]


def figures(**overrides: dict[str, Figure]) -> dict[str, dict[str, Figure]]:
    """Every judge 0.5 on every metric, except the given per-metric values."""
    table: dict[str, dict[str, Figure]] = {j: dict.fromkeys(METRICS, 0.5) for j in JUDGES}
    for metric, values in overrides.items():
        for judge, value in values.items():
            table[judge][metric] = value
    return table


def test_higher_is_better_for_agreement_and_lower_for_divergences() -> None:
    table = figures(
        hit_rate={"a": 0.8, "b": 0.9, "c": 0.7}, kl_human_judge={"a": 0.1, "b": 0.3, "c": 0.2}
    )
    assert best_judges(table, "hit_rate", JUDGES) == ["b"]
    assert best_judges(table, "kl_human_judge", JUDGES) == ["a"]


def test_prevalence_bias_is_best_closest_to_zero() -> None:
    table = figures(prevalence_bias={"a": -0.05, "b": 0.1, "c": -0.2})
    assert best_judges(table, "prevalence_bias", JUDGES) == ["a"]


def test_ties_within_1e_9_are_all_best_and_the_first_is_reported() -> None:
    table = figures(mse={"a": 0.3, "b": 0.2, "c": 0.2 + 5e-10})
    best = best_by_metric(table, JUDGES)
    assert best["mse"] == ["b", "c"]
    assert first_best(best)["mse"] == "b"


def test_undefined_figures_never_win_and_all_undefined_selects_nobody() -> None:
    table = figures(cohen_kappa={"a": Undefined("x"), "b": 0.1, "c": Undefined("x")})
    assert best_judges(table, "cohen_kappa", JUDGES) == ["b"]
    none = figures(scotts_pi={j: Undefined("x") for j in JUDGES})
    best = best_by_metric(none, JUDGES)
    assert best["scotts_pi"] == [] and first_best(best)["scotts_pi"] is None


def test_efficiency_is_descriptive_and_not_ranked() -> None:
    assert "efficiency" not in RANKED and direction("efficiency") == "none"
    assert direction("jsd") == "lower" and direction("prevalence_bias") == "closer to 0"
    assert all(goodness(name)(1.0) == -1.0 for name in LOWER_IS_BETTER)


def test_rank_correlation_is_kendall_tau_b_on_oriented_values() -> None:
    table = figures(
        hit_rate={"a": 0.9, "b": 0.8, "c": 0.7},
        mse={"a": 0.3, "b": 0.1, "c": 0.2},
        jsd={"a": 0.1, "b": 0.2, "c": 0.3},
    )
    correlations = rank_correlations(table, JUDGES)
    # mse oriented (-0.3, -0.1, -0.2) against hit rate (0.9, 0.8, 0.7)
    expected = stats.kendalltau([0.9, 0.8, 0.7], [-0.3, -0.1, -0.2]).statistic
    assert correlations["hit_rate|mse"] == pytest.approx(expected)
    assert correlations["hit_rate|jsd"] == pytest.approx(1.0)  # lower JSD = better, same order
    assert correlations["hit_rate|cohen_kappa"] is None  # a constant side has no tau
    assert len(correlations) == len(RANKED) * (len(RANKED) - 1) // 2


def test_rank_inversions_are_pairs_with_disjoint_best_judges() -> None:
    table = figures(
        hit_rate={"a": 0.9, "b": 0.8, "c": 0.7},
        decision_consistency={"a": 0.7, "b": 0.9, "c": 0.8},
        coverage={"a": 0.9, "b": 0.9, "c": 0.1},
    )
    best = best_by_metric(table, JUDGES)
    inversions = rank_inversions(best)
    pairs = {(i["a"], i["b"]) for i in inversions}
    assert ("hit_rate", "decision_consistency") in pairs
    assert ("hit_rate", "coverage") not in pairs  # a is best under both (coverage ties a, b)
    assert ("coverage", "decision_consistency") not in pairs  # b is best under both
    first = next(i for i in inversions if i["a"] == "hit_rate" and i["b"] == "decision_consistency")
    assert first["a_best"] == ["a"] and first["b_best"] == ["b"]


def test_selection_groups_list_the_definitions_behind_each_selected_judge() -> None:
    best = {"hit_rate": ["a"], "mse": ["b"], "jsd": ["a", "b"], "bce": []}
    assert selection_groups(best) == {"a": ["hit_rate", "jsd"], "b": ["mse"]}


def test_rank_correlation_leaves_out_judges_with_an_undefined_figure() -> None:
    table = figures(
        hit_rate={"a": Undefined("x"), "b": 0.8, "c": 0.7}, mse={"a": 0.9, "b": 0.1, "c": 0.2}
    )
    assert rank_correlations(table, JUDGES)["hit_rate|mse"] == pytest.approx(1.0)
