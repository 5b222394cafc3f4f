"""Summary statistics of item scores, with a seeded bootstrap CI for the mean."""

from __future__ import annotations

import numpy as np

from autorubric_cli.core.config import Clip
from autorubric_cli.metrics.clustered import standard_error
from autorubric_cli.metrics.figures import Undefined, value_or_none
from autorubric_cli.metrics.mean_ci import SCORE_PLAN, SCORE_RESAMPLES, bootstrap_mean_ci
from autorubric_cli.report.models import ScoreSummary
from autorubric_cli.report.models_stats import ClusteredInterval

UNIT = (0.0, 1.0)


def score_mean(values: np.ndarray, clip: Clip = "item") -> float | None:
    """The mean of the scores as the report holds it; under `clip: mean` (HealthBench's
    convention) the mean of the unclamped item scores, clamped to [0, 1]. None when empty."""
    if len(values) == 0:
        return None
    mean = float(values.mean())
    return min(max(mean, 0.0), 1.0) if clip == "mean" else mean


def score_ci95(values: np.ndarray, seed: int, clip: Clip = "item") -> list[float] | None:
    """The summary's 95% interval of the mean as the report holds it: [low, high] or null;
    under `clip: mean`, of the clamped mean (each resampled mean clamped)."""
    bounds = UNIT if clip == "mean" else None
    interval = bootstrap_mean_ci(values, seed, SCORE_RESAMPLES, SCORE_PLAN, bounds)
    return None if isinstance(interval, Undefined) else [interval.low, interval.high]


def score_summary(
    values: np.ndarray,
    seed: int,
    clustered: ClusteredInterval | None = None,
    clip: Clip = "item",
) -> ScoreSummary:
    """mean, median, std (sample, ddof=1), min, max, ci95, se (std/sqrt(n)) over defined scores;
    null when empty. `clustered`: the cluster-robust figures, when there is a cluster key.
    Under `clip: mean` the mean and its intervals are clamped; the other figures describe the
    item scores as recorded (unclamped: docs/reference/report-json.md)."""
    n = len(values)
    if n == 0:
        return ScoreSummary(
            n=0, mean=None, median=None, std=None, min=None, max=None, ci95=None, se=None
        )
    if clip == "mean" and clustered is not None and clustered.ci95 is not None:
        clustered = clustered.model_copy(
            update={"ci95": [min(max(end, 0.0), 1.0) for end in clustered.ci95]}
        )
    return ScoreSummary(
        n=n,
        mean=score_mean(values, clip),
        median=float(np.median(values)),
        std=float(values.std(ddof=1)) if n > 1 else None,
        min=float(values.min()),
        max=float(values.max()),
        ci95=score_ci95(values, seed, clip),
        se=value_or_none(standard_error(values)),
        clustered=clustered,
        clip="mean" if clip == "mean" else None,
    )
