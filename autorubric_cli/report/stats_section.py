"""The report's standard errors: `score.se`, `score.clustered` and `criteria[].clustered`
(docs/reference/report-json.md)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from autorubric_cli.core.clusters import cluster_path
from autorubric_cli.errors import InputError
from autorubric_cli.metrics.clustered import cluster_codes, clustered_mean
from autorubric_cli.metrics.figures import FloatArray, Undefined, value_or_none
from autorubric_cli.report.cluster_notes import coverage_warning, few_clusters_warning, with_t
from autorubric_cli.report.fold_extras import FoldExtras
from autorubric_cli.report.formats import interval
from autorubric_cli.report.models_stats import ClusteredInterval


def cluster_key(flag: str | None, rubric_key: str | None) -> str | None:
    """The `--cluster` flag, else the rubric's `report.cluster`; the flag's syntax checked."""
    if flag is None:
        return rubric_key
    try:
        cluster_path(flag)
    except ValueError as exc:
        raise InputError(str(exc), key="--cluster") from None
    return flag


def clustered_interval(
    values: FloatArray, clusters: Sequence[str | None], key: str
) -> ClusteredInterval | None:
    """The clustered figures of the mean of the defined (non-NaN) values; None when none are."""
    keep = np.flatnonzero(~np.isnan(values))
    if keep.size == 0:
        return None
    groups = cluster_codes([clusters[int(i)] for i in keep])
    result = clustered_mean(values[keep], groups)
    if isinstance(result, Undefined):
        return None
    return ClusteredInterval(
        key=key,
        clusters=result.clusters,
        se=value_or_none(result.se),
        ci95=interval_or_none(result.ci95),
        ci95_t=interval_or_none(result.ci95_t),
    )


def interval_or_none(ci: tuple[float, float] | Undefined) -> list[float] | None:
    return None if isinstance(ci, Undefined) else list(ci)


def criteria_clustered(extras: FoldExtras, key: str | None) -> list[ClusteredInterval | None]:
    """Each criterion's met rate / mean value, over the items with a value, clustered."""
    if key is None:
        return [None] * len(extras.criteria)
    return [
        clustered_interval(np.frombuffer(extras.values[c.name]), extras.clusters, key)
        for c in extras.criteria
    ]


def cluster_warnings(
    key: str | None, extras: FoldExtras, clustered: ClusteredInterval | None
) -> list[str]:
    """The report's warnings about its cluster key: items without it, too few clusters."""
    if key is None:
        return []
    found = [coverage_warning(key, extras.clusters, extras.cluster_keys)]
    if clustered is not None:
        figures = f"the score's 95% CI is {interval(clustered.ci95_t)}"
        found.append(
            few_clusters_warning(key, clustered.clusters, with_t(clustered.clusters, figures))
        )
    return [warning for warning in found if warning is not None]
