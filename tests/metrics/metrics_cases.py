"""Seeded random datasets and comparison helpers shared by the metrics tests."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from autorubric_cli.metrics.figures import Undefined

TOL = 1e-9
N_CASES = 240


@dataclass
class LabelCase:
    """Paired class labels with varying size, class count, imbalance and agreement."""

    truth: np.ndarray
    pred: np.ndarray
    n_classes: int


def skewed_probs(rng: np.random.Generator, k: int) -> np.ndarray:
    """Class probabilities from balanced to heavily imbalanced."""
    return rng.dirichlet(np.full(k, rng.choice([0.2, 1.0, 5.0])))


def label_case(seed: int, max_classes: int = 5) -> LabelCase:
    """Truth and a noisy copy of it; sizes 1..400, some single-class and tiny cases."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, max_classes + 1))
    n = int(rng.choice([1, 2, 3, 5, 10, 30, 100, 400]))
    truth = rng.choice(k, size=n, p=skewed_probs(rng, k))
    noise = rng.choice(k, size=n, p=skewed_probs(rng, k))
    pred = np.where(rng.random(n) < rng.uniform(0.0, 0.95), truth, noise)
    if seed % 17 == 0:
        pred = np.full(n, truth[0])
    return LabelCase(truth.astype(np.int64), pred.astype(np.int64), k)


def ratings_case(seed: int, missing: bool) -> tuple[np.ndarray, int]:
    """An (items, raters) matrix of categories; -1 marks missing ratings when ``missing``."""
    rng = np.random.default_rng(10_000 + seed)
    q = int(rng.integers(2, 6))
    raters = int(rng.integers(2, 7))
    n = int(rng.choice([1, 2, 4, 10, 40, 150]))
    truth = rng.choice(q, size=n, p=skewed_probs(rng, q))
    noise = rng.choice(q, size=(n, raters), p=skewed_probs(rng, q))
    ratings = np.where(rng.random((n, raters)) < rng.uniform(0, 0.95), truth[:, None], noise)
    if seed % 13 == 0:
        ratings[:] = ratings[0, 0]
    if missing:
        ratings[rng.random((n, raters)) < rng.uniform(0, 0.6)] = -1
    return ratings.astype(np.int64), q


def assert_figure(ours: object, reference: float, tol: float = TOL) -> None:
    """Ours is Undefined exactly where the reference is NaN, else equal within tol."""
    if math.isnan(reference):
        assert isinstance(ours, Undefined), f"expected Undefined, got {ours!r}"
        assert ours.reason
    else:
        assert isinstance(ours, float), f"expected {reference}, got {ours!r}"
        assert abs(ours - reference) <= tol, (ours, reference)


def assert_undefined(ours: object, fragment: str = "") -> None:
    assert isinstance(ours, Undefined), ours
    assert fragment in ours.reason, ours.reason


def for_each_seed(check: Callable[[int], None], seeds: Iterable[int] = range(N_CASES)) -> None:
    """Run ``check`` on every seed, naming the seed when it fails."""
    for seed in seeds:
        try:
            check(seed)
        except AssertionError as error:
            raise AssertionError(f"seed {seed}: {error}") from error
