"""What an experiment is in MLflow's terms: params, metrics and tags (docs/guides/tracing.md).

Pure: the report (as `report --format json` prints it) and the manifest in, plain dicts out.
Metric names use MLflow's allowed characters (letters, digits, `_ - . / space`); anything else
in a criterion or judge name becomes `_`.
"""

from __future__ import annotations

import math
import re
from typing import Any

from autorubric_cli.experiment.manifest import Manifest

EXPERIMENT_ID_TAG = "autorubric.experiment_id"
AGGREGATION_KEYS = (
    "aggregation",
    "ordinal_aggregation",
    "nominal_aggregation",
    "sample_aggregation",
    "cannot_assess",
    "length_penalty",
    "normalize",
    "clip",
)
FORBIDDEN = re.compile(r"[^A-Za-z0-9_\-. /]")
MAX_PARAM = 6000  # MLflow's limit on a param value


def metric_key(*parts: str) -> str:
    return ".".join(FORBIDDEN.sub("_", part) for part in parts)


def params(manifest: Manifest, rubric_name: str | None) -> dict[str, str]:
    config = manifest.config
    judges = [f"{j.get('id') or j['model']}={j['model']}" for j in config.get("judges", [])]
    found: dict[str, Any] = {
        "rubric": rubric_name or "",
        "rubric_sha256": manifest.rubric.sha256,
        "dataset_sha256": manifest.dataset.sha256,
        "judges": ", ".join(judges),
        "seed": manifest.seed,
        "llm_calls": config.get("llm_calls"),
        "items_total": manifest.items_total,
        "autorubric_version": manifest.autorubric_version,
    }
    found.update((key, config.get(key)) for key in AGGREGATION_KEYS)
    return {key: str(value)[:MAX_PARAM] for key, value in found.items()}


def tags(manifest: Manifest) -> dict[str, str]:
    return {
        EXPERIMENT_ID_TAG: manifest.identity,
        "autorubric.experiment": manifest.name,
        "autorubric.status": manifest.status,
        "autorubric.simulated": str(manifest.simulated).lower(),
    }


def metrics(report: dict[str, Any]) -> dict[str, float]:
    """The report's figures: score, criteria, agreement, ground truth, cost and tokens."""
    found: dict[str, float] = {}
    score = report.get("score") or {}
    for key in ("mean", "median", "std", "min", "max", "n"):
        _put(found, score.get(key), "score", key)
    _put(found, score.get("se", standard_error(score)), "score", "se")
    for key, value in (report.get("items") or {}).items():
        _put(found, value, "items", key)
    for criterion in report.get("criteria") or []:
        for key in ("met_rate", "mean_value", "cannot_assess_rate", "agreement"):
            _put(found, criterion.get(key), "criterion", criterion["name"], key)
    _flatten(found, report.get("agreement"), ("agreement",))
    _flatten(found, report.get("ground_truth"), ("ground_truth",))
    _put(found, report.get("cost"), "cost_usd")
    _put(found, report.get("cost_saved"), "cost_saved_usd")
    for key, value in (report.get("usage") or {}).items():
        _put(found, value, "tokens", key)
    for key in ("retries", "error_votes"):
        _put(found, report.get(key), key)
    return found


def standard_error(score: dict[str, Any]) -> float | None:
    """The mean's standard error, std / sqrt(n), when the report gives none of its own."""
    n, std = score.get("n"), score.get("std")
    if not isinstance(n, int) or n < 2 or not isinstance(std, int | float):
        return None
    return float(std) / math.sqrt(n)


def _put(found: dict[str, float], value: Any, *parts: str) -> None:
    """A finite number becomes a metric; None (undefined), text and booleans do not."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return
    if math.isfinite(value):
        found[metric_key(*parts)] = float(value)


def _flatten(found: dict[str, float], node: Any, path: tuple[str, ...]) -> None:
    """Numbers under a section; a list of named entries (criteria) is keyed by their names."""
    if isinstance(node, dict):
        for key, value in node.items():
            _flatten(found, value, (*path, str(key)))
    elif isinstance(node, list):
        for entry in node:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str):
                _flatten(found, entry, (*path, entry["name"]))
    else:
        _put(found, node, *path)
