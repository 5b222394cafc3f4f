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
from autorubric_cli.report.parallel import ExtrasSettings, fold_experiment
from autorubric_cli.report.stats_section import cluster_key

DEFAULT_CORRELATION = 0.5


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


def plan_comparison(directory: Path, options: PlanOptions) -> PlanResult:
    check_plan_options(options)
    experiment = open_experiment(directory)
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
    correlation = DEFAULT_CORRELATION if options.correlation is None else options.correlation
    if options.from_compare is not None:
        sigma, source = compare_sigma(options.from_compare), str(options.from_compare)
    else:
        sigma = sigma_from_correlation(float(scores[scored].std(ddof=1)), correlation)
        source = f"correlation {correlation}"
    needed = paired_items_needed(options.detect, sigma, options.alpha, options.power)
    if isinstance(needed, Undefined):
        raise InputError(needed.reason, path=str(directory), key="--detect")
    cluster = None
    effect = None
    if key is not None:
        groups = cluster_codes([fold.extras.clusters[int(i)] for i in scored])
        clusters = int(np.unique(groups).size)
        icc = one_way_icc(scores[scored], groups)
        icc_value = None if isinstance(icc, Undefined) else icc
        if icc_value is not None or clusters == scored.size:
            effect = design_effect(int(scored.size), clusters, icc_value or 0.0)
        cluster = PlanCluster(key=key, clusters=clusters, icc=icc_value)
    return PlanResult(
        detect=options.detect,
        alpha=options.alpha,
        power=options.power,
        sigma_d=sigma,
        n_items=math.ceil(needed),
        design_effect=effect,
        n_items_clustered=None if effect is None else math.ceil(needed * effect),
        pilot_items=int(scored.size),
        sigma_from=source,
        cluster=cluster,
    )


def render_plan_text(result: PlanResult) -> str:
    """The table format: a few plain lines."""
    lines = [
        f"To detect a change of {result.detect:g} in the mean score (two-sided, paired, "
        f"alpha {result.alpha:g}, power {result.power:g}):",
        f"  {plural(result.n_items, 'paired item')}, items independent",
    ]
    if result.cluster is not None:
        c = result.cluster
        icc = "n/a" if c.icc is None else f"{c.icc:.3f}"
        if result.n_items_clustered is not None and result.design_effect is not None:
            lines.append(
                f"  {plural(result.n_items_clustered, 'paired item')} with clusters like the "
                "pilot's "
                f"({c.key}: {plural(c.clusters, 'cluster')}, ICC {icc}, design effect "
                f"{result.design_effect:.3f})"
            )
        else:
            lines.append(
                f"  clustered: undefined ({c.key}: {plural(c.clusters, 'cluster')}, ICC {icc})"
            )
    lines.append(
        f"sigma_d {result.sigma_d:.4f} (from {result.sigma_from}); pilot: "
        f"{plural(result.pilot_items, 'scored item')}"
    )
    return "\n".join(lines) + "\n"
