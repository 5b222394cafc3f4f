"""What an experiment is in MLflow's terms: params, metrics and tags (docs/guides/tracing.md).

Pure: the report (as `report --format json` prints it) and the manifest in, plain dicts out.
Metrics are the report's headline figures only (about 80 for the demo, against 430 when
every figure was one: the 324 `ground_truth.*` details buried the scores); the whole report is
the `report.json` artifact.
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
    """The run's settings, each a readable value: a setting that is an object becomes one
    param per field (`cannot_assess.strategy`), an absent one `none`, a flag `true`/`false`."""
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
    flat: dict[str, str] = {}
    for key, value in found.items():
        flatten_param(flat, key, value)
    return flat


def flatten_param(flat: dict[str, str], key: str, value: Any) -> None:
    if isinstance(value, dict):
        for field, inner in value.items():
            flatten_param(flat, f"{key}.{field}", inner)
        return
    if value is None:
        text = "none"
    elif isinstance(value, bool):
        text = str(value).lower()
    elif isinstance(value, list):
        text = ", ".join(str(v) for v in value)
    else:
        text = str(value)
    flat[metric_key(key)] = text[:MAX_PARAM]


def tags(manifest: Manifest) -> dict[str, str]:
    return {
        EXPERIMENT_ID_TAG: manifest.identity,
        "autorubric.experiment": manifest.name,
        "autorubric.status": manifest.status,
        "autorubric.simulated": str(manifest.simulated).lower(),
    }


def metrics(report: dict[str, Any]) -> dict[str, float]:
    """The report's headline figures, in the order a reader wants them: the score, items,
    cost and tokens, each criterion's rate, each judge's score, agreement between judges and
    with ground truth. The rest of the report (intervals, confusion matrices, pairwise kappas,
    each judge's per-criterion figures) is the `report.json` artifact."""
    found: dict[str, float] = {}
    score = report.get("score") or {}
    for key in ("mean", "median", "std", "min", "max", "n"):
        _put(found, score.get(key), "score", key)
    _put(found, score.get("se", standard_error(score)), "score", "se")
    for key, value in (report.get("items") or {}).items():
        _put(found, value, "items", key)
    _put(found, report.get("cost"), "cost_usd")
    _put(found, report.get("cost_saved"), "cost_saved_usd")
    for key, value in (report.get("usage") or {}).items():
        _put(found, value, "tokens", key)
    for key in ("retries", "error_votes"):
        _put(found, report.get(key), key)
    for criterion in report.get("criteria") or []:
        for key in ("met_rate", "mean_value", "cannot_assess_rate", "agreement"):
            _put(found, criterion.get(key), "criterion", criterion["name"], key)
    for judge in report.get("judges") or []:
        _put(found, judge.get("mean_score"), "judge", judge["id"], "mean_score")
    agreement = report.get("agreement") or {}
    _put(found, agreement.get("mean_agreement"), "agreement", "mean_agreement")
    for criterion in agreement.get("criteria") or []:
        alpha = criterion.get("krippendorff_alpha")
        _put(found, alpha, "agreement", criterion["name"], "krippendorff_alpha")
    ground_truth_metrics(found, report.get("ground_truth"))
    return found


TRUTH_SCORE = ("pearson", "spearman", "mae", "rmse")
TRUTH_CRITERION = ("accuracy", "cohen_kappa")


def ground_truth_metrics(found: dict[str, float], section: dict[str, Any] | None) -> None:
    """The ensemble's overall and score figures and each criterion's accuracy and kappa, and
    each judge's overall figures."""
    if not section:
        return
    for key, value in (section.get("overall") or {}).items():
        _put(found, value, "ground_truth", "overall", key)
    score = section.get("score") or {}
    for key in TRUTH_SCORE:
        _put(found, score.get(key), "ground_truth", "score", key)
    for criterion in section.get("criteria") or []:
        for key in TRUTH_CRITERION:
            _put(found, criterion.get(key), "ground_truth", "criteria", criterion["name"], key)
    for judge, block in (section.get("judges") or {}).items():
        for key, value in (block.get("overall") or {}).items():
            _put(found, value, "ground_truth", "judges", judge, "overall", key)


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
