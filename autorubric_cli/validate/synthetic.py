"""A synthetic rating process after Guerdan et al. §6, for `autorubric simulate` and tests.

Per item i, over the admissible response sets Q (non-empty option subsets up to
``max_set_size``; 1 = a fully specified task where every rater finds one option reasonable):

1. theta_i ~ Dirichlet(concentration) over Q: the raters' response-set distribution.
2. Rater error: a rater reports set s for true set s' with probability E[s, s'] = 1 - epsilon
   on the diagonal; the error mass epsilon goes to the other sets in proportion to
   exp(eta * 1[option 0 in s]) (eta > 0 pulls errors towards sets with the first option).
3. Forced-choice selection: a rater with set s picks option k in s with probability
   proportional to exp(-gamma * rank of k in s) (gamma > 0 favours low-index options,
   gamma < 0 high-index ones, gamma = 0 uniform). O_i = F E theta_i.
4. Judges are perturbed copies: theta_j = projection onto the simplex of theta_i + N(0, s_j^2),
   with s_j drawn once per judge from ``judge_noise``; judges have no rater error and their
   own selection strength ``judge_gamma``.

The multi-label vector is Omega = Lambda theta (Lambda[k, s] = 1[k in s]).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from autorubric_cli.metrics.figures import FloatArray, IntArray
from autorubric_cli.validate.distributions import RaterDistributions


@dataclass(frozen=True)
class SimulationConfig:
    n_items: int = 200
    n_options: int = 3
    max_set_size: int | None = None
    raters: int = 3
    error_rate: float = 0.0
    skew: float = 0.0
    human_gamma: float = 0.0
    judge_gamma: float = 0.0
    n_judges: int = 4
    judge_noise: tuple[float, float] = (0.02, 0.3)
    samples: int = 5
    concentration: float = 1.0
    seed: int = 0

    def set_size(self) -> int:
        return self.n_options if self.max_set_size is None else self.max_set_size


@dataclass(frozen=True)
class Population:
    """One rater population (the humans, or one judge): exact distributions per item."""

    theta: FloatArray
    reported: FloatArray
    selection: FloatArray
    membership: FloatArray

    @property
    def forced(self) -> FloatArray:
        """O = F theta_reported."""
        return self.reported @ self.selection.T

    @property
    def multilabel(self) -> FloatArray:
        """Omega = Lambda theta (error free)."""
        return self.theta @ self.membership.T

    def distributions(self) -> RaterDistributions:
        n = self.theta.shape[0]
        return RaterDistributions(self.forced, self.multilabel, np.ones(n, dtype=np.int64))


@dataclass(frozen=True)
class World:
    sets: list[tuple[int, ...]]
    human: Population
    judges: list[Population]
    judge_noise: list[float]


def response_sets(n_options: int, max_size: int) -> list[tuple[int, ...]]:
    """Non-empty subsets up to ``max_size``: singletons first, then pairs, ..."""
    sizes = range(1, min(max_size, n_options) + 1)
    return [s for size in sizes for s in combinations(range(n_options), size)]


def membership_matrix(sets: list[tuple[int, ...]], n_options: int) -> FloatArray:
    """Lambda[k, s] = 1[k in s]."""
    lam = np.zeros((n_options, len(sets)))
    for column, members in enumerate(sets):
        lam[list(members), column] = 1.0
    return lam


def selection_matrix(sets: list[tuple[int, ...]], n_options: int, gamma: float) -> FloatArray:
    """F[k, s] = P(choose k | set s), proportional to exp(-gamma * rank of k in s)."""
    f = np.zeros((n_options, len(sets)))
    for column, members in enumerate(sets):
        weights = np.exp(-gamma * np.arange(len(members)))
        f[list(members), column] = weights / weights.sum()
    return f


def error_matrix(sets: list[tuple[int, ...]], error_rate: float, skew: float) -> FloatArray:
    """E[s, s'] = P(report s | true s'); columns sum to one."""
    m = len(sets)
    if m == 1:
        return np.ones((1, 1))
    weights = np.exp(skew * np.array([0 in s for s in sets], dtype=float))
    e = np.zeros((m, m))
    for true in range(m):
        others = weights.copy()
        others[true] = 0.0
        e[:, true] = error_rate * others / others.sum()
        e[true, true] = 1.0 - error_rate
    return e


def project_simplex(v: FloatArray) -> FloatArray:
    """Euclidean projection of each row onto the probability simplex."""
    u = -np.sort(-v, axis=1)
    cumulative = np.cumsum(u, axis=1) - 1.0
    index = np.arange(1, v.shape[1] + 1)
    rho = np.count_nonzero(u - cumulative / index > 0, axis=1)
    shift = cumulative[np.arange(v.shape[0]), rho - 1] / rho
    return np.maximum(v - shift[:, None], 0.0)


def simulate_world(config: SimulationConfig, rng: np.random.Generator) -> World:
    """The human population and ``n_judges`` judge populations."""
    sets = response_sets(config.n_options, config.set_size())
    lam = membership_matrix(sets, config.n_options)
    alpha = np.full(len(sets), config.concentration)
    theta = rng.dirichlet(alpha, size=config.n_items)
    errors = error_matrix(sets, config.error_rate, config.skew)
    human = Population(
        theta, theta @ errors.T, selection_matrix(sets, config.n_options, config.human_gamma), lam
    )
    judge_selection = selection_matrix(sets, config.n_options, config.judge_gamma)
    low, high = config.judge_noise
    noise = [float(rng.uniform(low, high)) for _ in range(config.n_judges)]
    judges = []
    for sigma in noise:
        perturbed = project_simplex(theta + rng.normal(0.0, sigma, theta.shape))
        judges.append(Population(perturbed, perturbed, judge_selection, lam))
    return World(sets, human, judges, noise)


def draw_sets(reported: FloatArray, draws: int, rng: np.random.Generator) -> IntArray:
    """(items, draws) response-set indices drawn from each item's reported distribution."""
    cumulative = np.cumsum(reported, axis=1)
    cumulative[:, -1] = 1.0
    u = rng.random((reported.shape[0], draws))
    return np.array(
        [np.searchsorted(c, row, side="right") for c, row in zip(cumulative, u, strict=True)],
        dtype=np.int64,
    ).reshape(reported.shape[0], draws)


def draw_choices(sets: IntArray, selection: FloatArray, rng: np.random.Generator) -> IntArray:
    """The forced choice of each drawn set, from F[:, s]."""
    cumulative = np.cumsum(selection[:, sets], axis=0)
    cumulative[-1] = 1.0
    u = rng.random(sets.shape)
    return np.asarray((u[None] >= cumulative).sum(axis=0), dtype=np.int64)


def draw_ratings(
    population: Population, draws: int, rng: np.random.Generator
) -> tuple[IntArray, IntArray]:
    """(set index, forced choice) per item and draw: what raters or judge samples answer."""
    sets = draw_sets(population.reported, draws, rng)
    return sets, draw_choices(sets, population.selection, rng)
