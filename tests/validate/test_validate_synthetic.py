"""The synthetic rating process (Guerdan et al. §6) and the paper's findings as properties."""

from __future__ import annotations

import numpy as np
import pytest

from autorubric_cli.validate.performance import Downstream, judge_performance
from autorubric_cli.validate.selection import best_by_metric, first_best
from autorubric_cli.validate.synthetic import (
    SimulationConfig,
    draw_ratings,
    error_matrix,
    project_simplex,
    response_sets,
    selection_matrix,
    simulate_world,
)

DRAWS = 40


def test_response_sets_list_singletons_first_up_to_the_size_limit() -> None:
    assert response_sets(3, 1) == [(0,), (1,), (2,)]
    assert response_sets(3, 3)[3:] == [(0, 1), (0, 2), (1, 2), (0, 1, 2)]


def test_error_matrix_is_column_stochastic_and_skew_pulls_towards_option_zero() -> None:
    sets = response_sets(3, 3)
    e = error_matrix(sets, 0.3, 0.0)
    assert e.sum(axis=0) == pytest.approx(np.ones(len(sets)))
    assert np.diag(e) == pytest.approx(np.full(len(sets), 0.7))
    skewed = error_matrix(sets, 0.3, 2.0)
    with_zero = [i for i, s in enumerate(sets) if 0 in s]
    without = [i for i, s in enumerate(sets) if 0 not in s]
    true = sets.index((1,))  # errors from {1} land more on sets that contain option 0
    assert skewed[with_zero, true].sum() > e[with_zero, true].sum()
    assert skewed[without, true].sum() < e[without, true].sum()


def test_selection_matrix_picks_inside_the_set_with_gamma_favouring_low_indices() -> None:
    sets = response_sets(3, 3)
    f = selection_matrix(sets, 3, 0.0)
    assert f.sum(axis=0) == pytest.approx(np.ones(len(sets)))
    for column, members in enumerate(sets):
        outside = [k for k in range(3) if k not in members]
        assert f[outside, column] == pytest.approx(np.zeros(len(outside)))
    pair = sets.index((0, 2))
    assert f[[0, 2], pair] == pytest.approx([0.5, 0.5])
    strong = selection_matrix(sets, 3, 2.0)
    assert strong[0, pair] == pytest.approx(1 / (1 + np.exp(-2.0)))


def test_project_simplex_projects_onto_the_probability_simplex() -> None:
    v = np.array([[0.5, 0.8, -0.1], [1 / 3, 1 / 3, 1 / 3], [2.0, 0.0, 0.0]])
    p = project_simplex(v)
    assert p[0] == pytest.approx([0.35, 0.65, 0.0])
    assert p[1] == pytest.approx([1 / 3] * 3)
    assert p[2] == pytest.approx([1.0, 0.0, 0.0])
    assert (p >= 0).all() and p.sum(axis=1) == pytest.approx(np.ones(3))


def test_a_fully_specified_error_free_task_has_forced_choice_equal_to_multilabel() -> None:
    config = SimulationConfig(n_items=20, max_set_size=1, human_gamma=1.5)
    world = simulate_world(config, np.random.default_rng(0))
    assert world.human.forced == pytest.approx(world.human.multilabel)
    assert world.human.forced.sum(axis=1) == pytest.approx(np.ones(20))


def test_drawn_choices_lie_in_their_sets_and_follow_the_forced_choice_distribution() -> None:
    config = SimulationConfig(n_items=3, human_gamma=1.0, error_rate=0.2, skew=1.0)
    world = simulate_world(config, np.random.default_rng(1))
    sets, choices = draw_ratings(world.human, 4000, np.random.default_rng(2))
    for i in range(3):
        assert all(c in world.sets[s] for s, c in zip(sets[i], choices[i], strict=True))
        shares = np.bincount(choices[i], minlength=3) / 4000
        assert shares == pytest.approx(world.human.forced[i], abs=0.03)


def selections(config: SimulationConfig, seed: int) -> dict[str, str | None]:
    """The judge each definition selects on one draw of the population-level process."""
    world = simulate_world(config, np.random.default_rng(seed))
    human = world.human.distributions()
    figures = {
        f"j{n}": judge_performance(human, j.distributions(), Downstream((0,), 0.5), 3)
        for n, j in enumerate(world.judges)
    }
    return first_best(best_by_metric(figures, list(figures)))


def agreement_share(config: SimulationConfig, a: str, b: str) -> float:
    picks = [selections(config, seed) for seed in range(DRAWS)]
    return float(np.mean([p[a] == p[b] for p in picks]))


FULLY_SPECIFIED = SimulationConfig(n_items=100, n_judges=5, max_set_size=1)


@pytest.mark.parametrize(
    ("forced_choice", "response_set"),
    [("jsd", "mse"), ("kl_human_judge", "bce"), ("hit_rate", "coverage")],
)
def test_fully_specified_without_selection_effects_fc_and_rs_agree_in_most_draws(
    forced_choice: str, response_set: str
) -> None:
    assert agreement_share(FULLY_SPECIFIED, forced_choice, response_set) >= 0.6


def test_asymmetric_selection_effects_split_hit_rate_from_decision_consistency() -> None:
    baseline = SimulationConfig(n_items=100, n_judges=5)
    asymmetric = SimulationConfig(n_items=100, n_judges=5, human_gamma=2.0, judge_gamma=-2.0)
    diverge_base = 1 - agreement_share(baseline, "hit_rate", "decision_consistency")
    diverge_asym = 1 - agreement_share(asymmetric, "hit_rate", "decision_consistency")
    assert diverge_asym >= 0.5
    assert diverge_asym >= diverge_base + 0.25
