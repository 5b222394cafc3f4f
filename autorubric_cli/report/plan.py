"""`autorubric plan DIR --detect D`: how many paired items a comparison with a pilot run needs
(docs/reference/cli.md, docs/guides/statistics.md).

n = ((z_{1−α/2} + z_{power})·σ_d / D)², rounded up, with both tails of the two-sided test
counted as statsmodels' ``NormalIndPower(ratio=0)`` does. σ_d is the pilot's score standard
deviation times sqrt(2·(1−ρ)) (ρ = 0.5 unless given), or the observed paired differences of a
`compare` JSON. With clusters the unrounded count is multiplied by the design effect.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import orjson

from autorubric_cli.core.clusters import cluster_path
from autorubric_cli.core.json_model import Block
from autorubric_cli.core.rubric import Rubric
from autorubric_cli.core.words import plural
from autorubric_cli.errors import InputError
from autorubric_cli.experiment.manifest import ITEMS
from autorubric_cli.experiment.opened import open_experiment
from autorubric_cli.experiment.store import ReadIssues
from autorubric_cli.metrics.clustered import cluster_codes
from autorubric_cli.metrics.figures import Undefined
from autorubric_cli.metrics.power import (
    design_effect,
    one_way_icc,
    paired_items_needed,
    sigma_from_correlation,
)
from autorubric_cli.report.cluster_notes import coverage_warning, few_clusters_warning
from autorubric_cli.report.parallel import ExtrasSettings, fold_experiment
from autorubric_cli.report.stats_section import cluster_key

DEFAULT_CORRELATION = 0.5
SMALL_PILOT = 30
"""A pilot with fewer scored items gets a caution: its standard deviation (and ICC) are rough."""
FEW_ITEMS = 20
"""Below this many paired items the normal approximation behind the count is optimistic."""
MANY_ITEMS = 100_000
"""Above this many paired items the difference to detect is likely below what is practical."""


@dataclass(frozen=True)
class PlanOptions:
    detect: float
    power: float = 0.8
    alpha: float = 0.05
    cluster: str | None = None
    correlation: float | None = None
    from_compare: Path | None = None


class PlanCluster(Block):
    key: str
    clusters: int
    icc: float | None


class PlanResult(Block):
    detect: float
    alpha: float
    power: float
    sigma_d: float
    n_items: int
    design_effect: float | None
    n_items_clustered: int | None
    pilot_items: int
    sigma_from: str  # "correlation 0.5" or the compare file
    cluster: PlanCluster | None
    correlation: float | None = None  # the assumed ρ; null when σ_d was observed
    pilot_std: float | None = None  # the pilot's score standard deviation (ddof 1)
    warnings: list[str] = []


def check_plan_options(options: PlanOptions) -> None:
    if not (options.detect > 0 and math.isfinite(options.detect)):
        raise InputError("must be a positive number", key="--detect")
    if not 0.0 < options.alpha < 1.0:
        raise InputError("must be in (0, 1)", key="--alpha")
    if not options.alpha < options.power < 1.0:
        raise InputError("must be above --alpha and below 1", key="--power")
    if options.correlation is not None:
        if options.from_compare is not None:
            raise InputError("give --correlation or --from-compare, not both", key="--correlation")
        if not -1.0 <= options.correlation < 1.0:
            raise InputError("must be in [-1, 1)", key="--correlation")


def check_detect(detect: float, rubric: Rubric) -> None:
    """A normalised mean score lies in [0, 1], so a change of more than 1 cannot happen: an
    input error. Raw scores (`normalize: false`) have no such bound here: an item's own
    criteria (and its length penalty) widen their range item by item."""
    if rubric.grader.normalize and detect > 1.0:
        raise InputError(
            f"{detect:g} is outside (0, 1], the range of this rubric's normalised score",
            key="--detect",
        )


def compare_sigma(path: Path) -> float:
    """σ_d observed in a `compare --format json` file: `score.se_diff`·sqrt(`score.n`)."""
    try:
        score = orjson.loads(path.read_bytes())["score"]
        se, n = float(score["se_diff"]), int(score["n"])
    except OSError as exc:
        raise InputError(f"cannot read it: {exc.strerror}", path=str(path)) from None
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        message = "not a compare JSON with score.se_diff and score.n (compare --format json)"
        raise InputError(message, path=str(path), key="score.se_diff") from None
    return se * math.sqrt(n)


@dataclass(frozen=True)
class Pilot:
    """The pilot's scored items: their scores and clusters (None without a key)."""

    key: str | None
    scores: np.ndarray
    clusters: list[str | None]
    warnings: list[str]


def read_pilot(directory: Path, options: PlanOptions) -> Pilot:
    experiment = open_experiment(directory)
    check_detect(options.detect, experiment.rubric)
    key = cluster_key(options.cluster, experiment.rubric.report.cluster)
    settings = ExtrasSettings(None if key is None else cluster_path(key), False)
    judge_ids = [j.judge_id for j in experiment.rubric.grader.judges]
    fold = fold_experiment(
        directory / ITEMS, experiment.rules, judge_ids, None, ReadIssues(), extras=settings
    )
    scores = np.frombuffer(fold.item_scores)
    scored = np.flatnonzero(~np.isnan(scores))
    if scored.size < 2:
        raise InputError("the pilot needs at least two scored items", path=str(directory))
    clusters = [fold.extras.clusters[int(i)] for i in scored]
    warning = None if key is None else coverage_warning(key, clusters, fold.extras.cluster_keys)
    return Pilot(key, scores[scored], clusters, [] if warning is None else [warning])


def clustered_plan(
    key: str, scores: np.ndarray, clusters: list[str | None]
) -> tuple[PlanCluster, float | None, list[str]]:
    """The clusters' ICC and design effect, and the warnings they call for."""
    groups = cluster_codes(clusters)
    count = int(np.unique(groups).size)
    icc = one_way_icc(scores, groups)
    icc_value = None if isinstance(icc, Undefined) else icc
    effect = None
    if icc_value is not None or count == scores.size:
        effect = design_effect(int(scores.size), count, icc_value or 0.0)
    rough = "the ICC and the design effect are rough estimates"
    warnings = [w for w in [few_clusters_warning(key, count, rough)] if w is not None]
    return PlanCluster(key=key, clusters=count, icc=icc_value), effect, warnings


def plan_comparison(directory: Path, options: PlanOptions) -> PlanResult:
    check_plan_options(options)
    pilot = read_pilot(directory, options)
    scores, warnings = pilot.scores, pilot.warnings
    std = float(scores.std(ddof=1))
    correlation = DEFAULT_CORRELATION if options.correlation is None else options.correlation
    if options.from_compare is not None:
        sigma, source = compare_sigma(options.from_compare), str(options.from_compare)
    else:
        sigma, source = sigma_from_correlation(std, correlation), f"correlation {correlation}"
    needed = paired_items_needed(options.detect, sigma, options.alpha, options.power)
    if isinstance(needed, Undefined):
        raise InputError(needed.reason, path=str(directory), key="--detect")
    cluster, effect = None, None
    if pilot.key is not None:
        cluster, effect, more = clustered_plan(pilot.key, scores, pilot.clusters)
        warnings = [*warnings, *more]
    n_items = math.ceil(needed)
    clustered = None if effect is None else math.ceil(needed * effect)
    return PlanResult(
        detect=options.detect,
        alpha=options.alpha,
        power=options.power,
        sigma_d=sigma,
        n_items=n_items,
        design_effect=effect,
        n_items_clustered=clustered,
        pilot_items=int(scores.size),
        sigma_from=source,
        cluster=cluster,
        correlation=None if options.from_compare is not None else correlation,
        pilot_std=std,
        warnings=[*warnings, *count_warnings(int(scores.size), max(n_items, clustered or 0))],
    )


def count_warnings(pilot: int, needed: int) -> list[str]:
    """A tiny pilot, and counts at either end of what the formula is good for."""
    found = []
    if pilot < SMALL_PILOT:
        found.append(
            f"the pilot has only {plural(pilot, 'scored item')} (fewer than {SMALL_PILOT}): its "
            "standard deviation is a rough estimate, and so is this count"
        )
    if needed < FEW_ITEMS:
        found.append(
            f"{plural(needed, 'paired item')}: below {FEW_ITEMS} the normal approximation behind "
            "this count is optimistic (a t-test needs a few more)"
        )
    if needed > MANY_ITEMS:
        found.append(
            f"{plural(needed, 'paired item')}: more than {MANY_ITEMS:,}; a change this small is "
            "likely below what any eval set can show (is --detect on the score's scale?)"
        )
    return found
