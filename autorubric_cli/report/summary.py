"""Summary statistics of item scores, with a seeded bootstrap CI for the mean."""

from __future__ import annotations

import numpy as np

from autorubric_cli.metrics.clustered import standard_error
from autorubric_cli.metrics.figures import Undefined, value_or_none
from autorubric_cli.metrics.mean_ci import SCORE_PLAN, SCORE_RESAMPLES, bootstrap_mean_ci
from autorubric_cli.report.models import ScoreSummary
from autorubric_cli.report.models_stats import ClusteredInterval


def score_ci95(values: np.ndarray, seed: int) -> list[float] | None:
    """The summary's 95% interval of the mean as the report holds it: [low, high] or null."""
    interval = bootstrap_mean_ci(values, seed, SCORE_RESAMPLES, SCORE_PLAN)
    return None if isinstance(interval, Undefined) else [interval.low, interval.high]


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
        ci95=score_ci95(values, seed),
        se=value_or_none(standard_error(values)),
        clustered=clustered,
    )
