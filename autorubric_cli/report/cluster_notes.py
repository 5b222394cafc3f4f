"""Warnings about a cluster key, shared by `report`, `run`, `compare` and `plan`
(docs/guides/statistics.md, "When the clusters are few or the key is missing").

- A key that no item has, or only some: an item without it is a cluster of its own, so a
  misspelt key silently gives the independent interval. The warning names the key, how many
  items have it and, when none has it, the closest metadata key the items do have.
- Fewer than `MIN_CLUSTERS` clusters: the cluster-robust standard error rests on that many
  independent groups, and the normal interval is then too narrow (Cameron and Miller, "A
  Practitioner's Guide to Cluster-Robust Inference", 2015); the warning gives the figures with
  Student's t on G−1 degrees of freedom, the usual small-cluster correction.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

from autorubric_cli.core.words import plural

MIN_CLUSTERS = 30
"""Below this many clusters every clustered figure carries a warning (a common rule of thumb:
the normal approximation of the cluster-robust interval needs a few dozen clusters)."""


def coverage_warning(key: str, values: Sequence[str | None], seen: Iterable[str]) -> str | None:
    """When no item or only some items have `key` (`values`: each item's cluster, None when
    it has none); `seen`: metadata keys of the items without it."""
    have = sum(value is not None for value in values)
    if not values or have == len(values):
        return None
    if have == 0:
        close = difflib.get_close_matches(key, sorted(seen), n=1)
        hint = f"; did you mean {close[0]}?" if close else ""
        return (
            f"no item has {key}: every item is a cluster of its own, so the clustered figures "
            f"are those of independent items{hint}"
        )
    return (
        f"only {have} of {plural(len(values), 'item')} have {key}: the other "
        f"{len(values) - have} are each a cluster of their own"
    )


def few_clusters_warning(key: str, clusters: int, consequence: str) -> str | None:
    """When the clustered figures rest on fewer than MIN_CLUSTERS clusters, and what follows."""
    if clusters >= MIN_CLUSTERS or clusters < 2:
        return None
    return (
        f"the clustered figures rest on only {plural(clusters, 'cluster')} of {key} (fewer "
        f"than {MIN_CLUSTERS}): {consequence}"
    )


def with_t(clusters: int, figures: str) -> str:
    """The consequence for an interval: too narrow, and `figures` by Student's t."""
    degrees = plural(clusters - 1, "degree")
    return f"the normal interval is too narrow; with Student's t on {degrees} of freedom, {figures}"
