"""Cluster keys (docs/reference/rubric-file.md, `report.cluster`): items that share the value of
`metadata.KEY` form one cluster for standard errors; an item without it is its own cluster."""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import field_validator

from autorubric_cli.core.config import Strict

PREFIX = "metadata."
KEYS_KEPT = 200  # metadata keys kept for a "did you mean" when items lack the cluster key


def cluster_path(key: str) -> tuple[str, ...]:
    """`metadata.topic` → ("topic",); dotted paths reach into nested objects."""
    if not key.startswith(PREFIX) or not all(key[len(PREFIX) :].split(".")):
        raise ValueError(
            f"must be metadata.KEY (a dotted path into an item's metadata), not {key!r}"
        )
    return tuple(key[len(PREFIX) :].split("."))


def cluster_value(metadata: dict[str, Any], path: tuple[str, ...]) -> str | None:
    """The item's cluster: the value at `path` (as JSON text unless a string), else None."""
    value: Any = metadata
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    if value is None:
        return None
    return value if isinstance(value, str) else orjson.dumps(value).decode()


def nearby_keys(metadata: dict[str, Any], path: tuple[str, ...]) -> list[str]:
    """The `metadata.…` keys where `path` was looked for and not found (for a "did you mean"):
    those of the deepest object the path reaches."""
    node: Any = metadata
    walked: list[str] = []
    for part in path[:-1]:
        if not isinstance(node, dict) or not isinstance(node.get(part), dict):
            break
        node = node[part]
        walked.append(part)
    if not isinstance(node, dict):
        return []
    return [PREFIX + ".".join([*walked, str(key)]) for key in node]


class ReportSection(Strict):
    """How results are summarised: `cluster` names the metadata key of clustered items."""

    cluster: str | None = None

    @field_validator("cluster")
    @classmethod
    def _metadata_key(cls, v: str | None) -> str | None:
        if v is not None:
            cluster_path(v)
        return v
