"""Seeded percentile bootstrap interval of a mean, resampling items: one pure function.

Two plans use it: the paired comparison's interval of the mean difference (10,000
resamples, drawn as multinomial counts when the values are few) and the score summary's
``ci95`` (1,000 resamples, always drawn by index). Each plan fixes its block size and its
percentile cut so a report made twice, or by an earlier version, holds the same bits.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from autorubric_cli.metrics.figures import FloatArray, Undefined

NO_PAIRS = "no paired items"


class MeanInterval(NamedTuple):
    """A percentile interval of the mean: low and high ends."""

    low: float
    high: float


@dataclass(frozen=True)
class BootstrapPlan:
    """How the resamples are drawn and cut.

    ``tail``: percent cut from each end (the paired plan keeps ``50 * (1 - 0.95)`` as computed
    in floating point, 2.5 + 2e-15, which its intervals were always cut at). ``block_cells``:
    resample cells held at once (memory bound). ``by_counts``: draw multinomial counts of the
    distinct values when they are few (exact in distribution, a different random stream).
    """

    tail: float
    block_cells: int
    by_counts: bool


PAIRED_PLAN = BootstrapPlan(tail=50.0 * (1.0 - 0.95), block_cells=1 << 22, by_counts=True)
"""The paired comparison's plan: ~32 MB of cells at once whatever n."""
SCORE_PLAN = BootstrapPlan(tail=2.5, block_cells=4_000_000, by_counts=False)
"""The score summary's plan: resample items by index."""
BOOTSTRAP_RESAMPLES = 10_000
SCORE_RESAMPLES = 1000


def bootstrap_mean_ci(
    values: FloatArray,
    seed: int,
    resamples: int = BOOTSTRAP_RESAMPLES,
    plan: BootstrapPlan = PAIRED_PLAN,
    bounds: tuple[float, float] | None = None,
) -> MeanInterval | Undefined:
    """Seeded percentile interval of the mean of ``values``, resampling them; with ``bounds``,
    of the mean clamped to them (each resampled mean is clamped before the percentiles, as
    HealthBench's clipped mean is: docs/reference/rubric-file.md, ``grader.clip: mean``).

    Resampling n values with replacement gives each distinct value a multinomial count, so
    when the values take few distinct values (always, for rubric scores without a length
    penalty) and the plan allows it, the counts are drawn directly: exact in distribution
    and O(distinct) per resample instead of O(n). Otherwise values are drawn by index, in
    the given order.
    """
    values = np.asarray(values, dtype=np.float64)
    n = values.size
    if n < 2:
        return Undefined(NO_PAIRS if n == 0 else "fewer than two paired items")
    rng = np.random.default_rng(seed)
    few = _few_distinct(values) if plan.by_counts else None
    if few is not None:
        means = _means_by_counts(rng, *few, resamples, plan.block_cells)
    else:
        means = _means_by_index(rng, values, resamples, plan.block_cells)
    if bounds is not None:
        np.clip(means, *bounds, out=means)
    low, high = np.percentile(means, [plan.tail, 100.0 - plan.tail])
    return MeanInterval(float(low), float(high))


def _few_distinct(values: FloatArray) -> tuple[FloatArray, np.ndarray] | None:
    """(distinct values, their counts) when there are few of them (at most one per 32 values):
    the case where drawing counts is cheaper than drawing values. Sorting is paid only by a plan
    that draws counts."""
    distinct, counts = np.unique(values, return_counts=True)
    return (distinct, counts) if distinct.size * 32 <= values.size else None


def _means_by_counts(
    rng: np.random.Generator,
    distinct: FloatArray,
    counts: np.ndarray,
    resamples: int,
    block_cells: int,
) -> FloatArray:
    n = int(counts.sum())
    means = np.empty(resamples)
    block = max(1, block_cells // distinct.size)
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        draws = rng.multinomial(n, counts / n, size=stop - start)
        means[start:stop] = draws @ distinct / n
    return means


def _means_by_index(
    rng: np.random.Generator, values: FloatArray, resamples: int, block_cells: int
) -> FloatArray:
    n = values.size
    means = np.empty(resamples)
    block = max(1, block_cells // n)
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        means[start:stop] = values[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    return means
