"""What a comparison could detect (docs/reference/report-json.md): `se_diff`, `mde80`, the
clustered paired test and whether the observed difference is below what it detects; in words
in `compare_words`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from autorubric_cli.core.clusters import cluster_path
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.metrics.clustered import (
    ClusteredMean,
    cluster_codes,
    clustered_mean,
    standard_error,
)
from autorubric_cli.metrics.figures import FloatArray, value_or_none
from autorubric_cli.metrics.power import minimum_detectable
from autorubric_cli.report.cluster_notes import coverage_warning, few_clusters_warning, with_t
from autorubric_cli.report.formats import interval, p_value
from autorubric_cli.report.models_compare import ClusteredComparison, ScoreComparison
from autorubric_cli.report.stats_section import cluster_key, interval_or_none


def compare_cluster(
    flag: str | None, base: Path, new: Path
) -> tuple[str | None, tuple[str, ...] | None]:
    """The cluster key (`--cluster`, else NEW's rubric, else BASE's) and its metadata path."""
    rubric_key = (
        open_experiment(new).rubric.report.cluster or open_experiment(base).rubric.report.cluster
    )
    key = cluster_key(flag, rubric_key)
    return key, None if key is None else cluster_path(key)


def pair_clusters(
    base: Sequence[str | None],
    new: Sequence[str | None],
    base_rows: np.ndarray,
    new_rows: np.ndarray,
) -> list[str | None]:
    """Each pair's cluster: BASE's value, else NEW's."""
    return [
        base[int(b)] if base[int(b)] is not None else new[int(n)]
        for b, n in zip(base_rows, new_rows, strict=True)
    ]


def with_power(
    score: ScoreComparison,
    diffs: FloatArray,
    alpha: float,
    key: str | None,
    clusters: Sequence[str | None],
) -> ScoreComparison:
    """The score block with `se_diff`, `mde80`, `clustered` and `below_mde80` filled in."""
    se = standard_error(diffs)
    mde = minimum_detectable(se, alpha)
    clustered = None
    if key is not None and diffs.size:
        result = clustered_mean(diffs, cluster_codes(list(clusters)))
        if isinstance(result, ClusteredMean):
            clustered = clustered_block(result, key, alpha)
    shown = clustered.mde80 if clustered is not None else value_or_none(mde)
    below = None if shown is None or score.diff is None else abs(score.diff) < shown
    return score.model_copy(
        update={
            "se_diff": value_or_none(se),
            "mde80": value_or_none(mde),
            "clustered": clustered,
            "below_mde80": below,
            "alpha": alpha,
        }
    )


def clustered_block(result: ClusteredMean, key: str, alpha: float) -> ClusteredComparison:
    return ClusteredComparison(
        key=key,
        clusters=result.clusters,
        se=value_or_none(result.se),
        ci95=interval_or_none(result.ci95),
        p_value=value_or_none(result.p_value),
        mde80=value_or_none(minimum_detectable(result.se, alpha)),
        ci95_t=interval_or_none(result.ci95_t),
        p_value_t=value_or_none(result.p_value_t),
    )


def compare_cluster_warnings(
    key: str | None,
    clusters: Sequence[str | None],
    seen: set[str],
    clustered: ClusteredComparison | None,
) -> list[str]:
    """Pairs without the cluster key, and too few clusters (with the t figures)."""
    if key is None:
        return []
    found = [coverage_warning(key, clusters, seen)]
    if clustered is not None:
        figures = (
            f"the difference's 95% CI is {interval(clustered.ci95_t, signed=True)} and p = "
            f"{p_value(clustered.p_value_t)}"
        )
        consequence = with_t(clustered.clusters, figures)
        found.append(few_clusters_warning(key, clustered.clusters, consequence))
    return [warning for warning in found if warning is not None]
