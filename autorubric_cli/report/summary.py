"""Summary statistics of item scores, with a seeded, chunked bootstrap CI for the mean."""

from __future__ import annotations

import numpy as np

from autorubric_cli.metrics.clustered import standard_error
from autorubric_cli.metrics.figures import value_or_none
from autorubric_cli.report.models import ScoreSummary
from autorubric_cli.report.models_stats import ClusteredInterval

BOOTSTRAP_RESAMPLES = 1000
CHUNK_CELLS = 4_000_000


def bootstrap_mean_ci(
    values: np.ndarray, seed: int, resamples: int = BOOTSTRAP_RESAMPLES
) -> list[float] | None:
    """Percentile 95% CI of the mean from resampling items; memory bounded by chunking."""
    n = len(values)
    if n < 2:
        return None
    rng = np.random.default_rng(seed)
    per_chunk = max(1, CHUNK_CELLS // n)
    means = np.empty(resamples)
    done = 0
    while done < resamples:
        k = min(per_chunk, resamples - done)
        means[done : done + k] = values[rng.integers(0, n, size=(k, n))].mean(axis=1)
        done += k
    low, high = np.percentile(means, [2.5, 97.5])
    return [float(low), float(high)]


def score_summary(
    values: np.ndarray, seed: int, clustered: ClusteredInterval | None = None
) -> ScoreSummary:
    """mean, median, std (sample, ddof=1), min, max, ci95, se (std/sqrt(n)) over defined scores;
    null when empty. `clustered`: the cluster-robust figures, when there is a cluster key."""
    n = len(values)
    if n == 0:
        return ScoreSummary(
            n=0, mean=None, median=None, std=None, min=None, max=None, ci95=None, se=None
        )
    return ScoreSummary(
        n=n,
        mean=float(values.mean()),
        median=float(np.median(values)),
        std=float(values.std(ddof=1)) if n > 1 else None,
        min=float(values.min()),
        max=float(values.max()),
        ci95=bootstrap_mean_ci(values, seed),
        se=value_or_none(standard_error(values)),
        clustered=clustered,
    )
