"""The report's plots as small JSON specs; the page draws them with BokehJS (inlined).

Python computes what is plotted (bins, rates, Wilson intervals, matrices, cell colours) and
BokehJS draws it: serialising Bokeh's Python models costs ~0.1 s per figure, which every
`run` would pay, while a spec costs microseconds. Every spec comes from the report JSON and
the fold's per-item score arrays, so its size does not grow with the number of items (the
score-vs-truth scatter is a seeded sample of at most SCATTER_CAP points).

Spec kinds: ``hist`` (left, right, count, mean, ci), ``hbar`` (labels, values, lo, hi, n),
``heatmap`` (rows, cols, text, colors), ``scatter`` (x, y, diagonal).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.stats import binomtest

from autorubric_cli.core.rubric import Criterion
from autorubric_cli.core.words import plural
from autorubric_cli.report.models import (
    AgreementSection,
    CriterionMetrics,
    CriterionSummary,
    ScoreSummary,
)
from autorubric_cli.report.models_stats import JudgeBias

SCATTER_CAP = 2_000
DIVERGING = ["#b2182b", "#d6604d", "#f4a582", "#fddbc7", "#f7f7f7", "#d1e5f0", "#92c5de"]
DIVERGING += ["#4393c3", "#2166ac"]
SEQUENTIAL = ["#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5"]
SEQUENTIAL += ["#08519c", "#08306b"]
MISSING_COLOR = "#dddddd"
Spec = dict[str, Any]


def wilson(k: int, n: int) -> tuple[float, float]:
    """95% Wilson score interval of the proportion k/n (n > 0)."""
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(ci.low), float(ci.high)


def color(value: float | None, low: float, high: float, palette: list[str]) -> str:
    """The palette entry for value on [low, high]; grey when undefined."""
    if value is None or not np.isfinite(value):
        return MISSING_COLOR
    share = 0.0 if high <= low else (min(max(value, low), high) - low) / (high - low)
    return palette[min(int(share * len(palette)), len(palette) - 1)]


def ink(value: float | None, low: float, high: float, palette: list[str]) -> str:
    """Text colour readable on the cell: white on the palette's darkest third."""
    if palette is SEQUENTIAL:
        dark = value is not None and value > low + (high - low) * 0.6
    else:
        dark = value is not None and abs(value - (low + high) / 2) > (high - low) * 0.33
    return "#ffffff" if dark else "#1d2430"


def score_histogram(scores: np.ndarray, normalized: bool, summary: ScoreSummary) -> Spec | None:
    """Item scores in 20 bins, with the mean and its 95% CI."""
    scores = scores[~np.isnan(scores)]
    if scores.size == 0:
        return None
    low, high = (0.0, 1.0) if normalized else (float(scores.min()), float(scores.max()))
    if high <= low:
        high = low + 1.0
    counts, edges = np.histogram(scores, bins=20, range=(low, high))
    return {
        "kind": "hist",
        "title": f"Score distribution ({plural(scores.size, 'scored item')})",
        "left": edges[:-1].tolist(),
        "right": edges[1:].tolist(),
        "count": counts.astype(int).tolist(),
        "mean": summary.mean,
        "ci": summary.ci95,
        "xlabel": "score (orange: the mean and its 95% CI)",
        "ylabel": "items",
    }


def _hbar(title: str, rows: list[tuple[str, int, int]], value_name: str, fill: str) -> Spec:
    """Shares k/n per label with 95% Wilson intervals; rows are (label, k, n)."""
    intervals = [wilson(k, n) for _, k, n in rows]
    return {
        "kind": "hbar",
        "title": title,
        "labels": [label for label, _, _ in rows],
        "values": [k / n for _, k, n in rows],
        "lo": [i[0] for i in intervals],
        "hi": [i[1] for i in intervals],
        "n": [n for _, _, n in rows],
        "value_name": value_name,
        "color": fill,
    }


def met_rates(criteria: list[CriterionSummary]) -> Spec | None:
    """Binary criteria: MET rate among MET/UNMET outcomes, with its 95% Wilson interval."""
    rows = []
    for c in criteria:
        met, unmet = c.distribution.get("MET", 0), c.distribution.get("UNMET", 0)
        if c.kind == "binary" and met + unmet > 0:
            rows.append((c.name, met, met + unmet))
    if not rows:
        return None
    return _hbar("MET rate per binary criterion (95% Wilson CI)", rows, "MET rate", "#4a78b5")


def option_shares(criterion: Criterion, summary: CriterionSummary) -> Spec | None:
    """A multi-choice criterion: the share of each option among its outcomes (95% Wilson CIs)."""
    dist = summary.distribution
    total = sum(dist.values())
    if total == 0 or criterion.options is None:
        return None
    labels = [o.label for o in criterion.options]
    labels += [label for label in dist if label not in labels]
    rows = [(label, dist.get(label, 0), total) for label in labels]
    title = f"{criterion.name} ({criterion.kind}): option shares, 95% Wilson CI"
    return _hbar(title, rows, "share", "#6a9f58")


def position_chart(judge: str, bias: JudgeBias) -> Spec | None:
    """A judge's chosen shown positions, pooled over its shuffled criteria (95% Wilson CIs),
    each with a tick at the share an unbiased judge would give it: pooled over criteria of
    different sizes, the last positions exist for fewer votes."""
    if bias.position is None:
        return None
    pooled = bias.position.pooled
    rows = [(f"position {k + 1}", count, pooled.votes) for k, count in enumerate(pooled.counts)]
    title = (
        f"{judge}: chosen option by shown position ({plural(pooled.votes, 'vote')}); the tick "
        "on each bar: the share an unbiased judge gives that position (a position only some "
        "criteria have gets fewer votes)"
    )
    return _hbar(title, rows, "share of votes", "#b5744a") | {"expected": pooled.expected}


def _heatmap(
    title: str,
    rows: list[str],
    cols: list[str],
    values: Sequence[Sequence[float | None]],
    bounds: tuple[float, float],
    palette: list[str],
) -> Spec:
    def text(value: float | None) -> str:
        if value is None:
            return "n/a"
        return f"{value:.2f}" if isinstance(value, float) else str(value)

    return {
        "kind": "heatmap",
        "title": title,
        "rows": rows,
        "cols": cols,
        "text": [[text(v) for v in row] for row in values],
        "colors": [[color(v, *bounds, palette) for v in row] for row in values],
        "ink": [[ink(v, *bounds, palette) for v in row] for row in values],
        "values": values,
    }


def agreement_heatmap(agreement: AgreementSection, judge_ids: list[str]) -> Spec | None:
    """Judge × judge Cohen's kappa, averaged over the criteria where it is defined (the items'
    own criteria, pooled, count as one)."""
    if len(judge_ids) < 2:
        return None
    blocks = [*agreement.criteria, *([agreement.pooled] if agreement.pooled else [])]
    matrix: list[list[float | None]] = []
    for a in judge_ids:
        row: list[float | None] = []
        for b in judge_ids:
            values = []
            for c in blocks:
                pairs = c.pairwise_cohen_kappa
                value = pairs.get(f"{a}|{b}", pairs.get(f"{b}|{a}"))
                if value is not None:
                    values.append(value)
            row.append(1.0 if a == b else (float(np.mean(values)) if values else None))
        matrix.append(row)
    pooled = "; the items' own pooled as one" if agreement.pooled else ""
    title = f"Judge–judge Cohen's κ (mean over criteria{pooled})"
    return _heatmap(title, judge_ids, judge_ids, matrix, (-1.0, 1.0), DIVERGING)


def confusion_matrix(block: CriterionMetrics, who: str) -> Spec | None:
    """Rows: the ground-truth label; columns: the prediction's."""
    confusion = block.confusion
    if not confusion or not any(any(row) for row in confusion):
        return None
    labels = [str(label) for label in block.labels]
    high = float(max(max(row) for row in confusion))
    title = f"{block.name}: truth (rows) × {who} (columns), n={block.n}"
    spec = _heatmap(title, labels, labels, confusion, (0.0, high), SEQUENTIAL)
    spec["xlabel"], spec["ylabel"] = who, "ground truth"
    return spec


def score_vs_truth(scores: np.ndarray, truth: np.ndarray, seed: int) -> Spec | None:
    """The ensemble's item score against the score of the item's ground-truth labels."""
    keep = ~(np.isnan(scores) | np.isnan(truth))
    x, y = truth[keep], scores[keep]
    if x.size == 0:
        return None
    title = f"Score vs ground-truth score ({plural(x.size, 'item')})"
    if x.size > SCATTER_CAP:
        pick = np.sort(np.random.default_rng(seed).choice(x.size, SCATTER_CAP, replace=False))
        x, y = x[pick], y[pick]
        title = (
            "Score vs ground-truth score "
            f"(a random sample of {SCATTER_CAP:,} of {int(keep.sum()):,})"
        )
    low = float(min(x.min(), y.min(), 0.0))
    high = float(max(x.max(), y.max(), 1.0))
    return {
        "kind": "scatter",
        "title": title,
        "x": x.tolist(),
        "y": y.tolist(),
        "diagonal": [low, high],
        "xlabel": "ground-truth score",
        "ylabel": "ensemble score",
    }
