"""The report's plots as Bokeh figures (rendered by BokehJS, embedded inline in the page).

Every plot is built from the report JSON and the fold's per-item score arrays, never from
the whole items file, so a plot's size does not grow with the number of items (the scatter
of score against ground truth is a seeded sample of at most SCATTER_CAP points).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from bokeh.models import ColumnDataSource, HoverTool, LinearColorMapper
from bokeh.models.annotations import ColorBar, Title, Whisker
from bokeh.palettes import Blues256, RdBu11
from bokeh.plotting import figure
from scipy.stats import binomtest

from autorubric_cli.core.rubric import Criterion

SCATTER_CAP = 2_000
WIDTH = 520
CA_LABEL = "CANNOT_ASSESS"
TOOLS = "save,reset"


def wilson(k: int, n: int) -> tuple[float, float]:
    """95% Wilson score interval of the proportion k/n (n > 0)."""
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return float(ci.low), float(ci.high)


def _figure(title: str, height: int, **kwargs: Any) -> Any:
    heading = Title(text=title, text_font_size="13px")
    plot = figure(title=heading, width=WIDTH, height=height, tools=TOOLS, **kwargs)
    plot.toolbar.logo = None
    return plot


def score_histogram(scores: np.ndarray, normalized: bool, summary: dict[str, Any]) -> Any | None:
    """Item scores in 20 bins, with the mean and its 95% CI."""
    scores = scores[~np.isnan(scores)]
    if scores.size == 0:
        return None
    low, high = (0.0, 1.0) if normalized else (float(scores.min()), float(scores.max()))
    if high <= low:
        high = low + 1.0
    counts, edges = np.histogram(scores, bins=20, range=(low, high))
    plot = _figure(f"Score distribution ({scores.size:,} scored items)", 300)
    source = ColumnDataSource({"left": edges[:-1], "right": edges[1:], "count": counts.astype(int)})
    plot.quad(source=source, left="left", right="right", top="count", bottom=0, color="#4a78b5")
    plot.add_tools(HoverTool(tooltips=[("score", "@left{0.00}–@right{0.00}"), ("items", "@count")]))
    if summary.get("ci95") is not None:
        lo, hi = summary["ci95"]
        plot.harea(
            x1=[lo, lo], x2=[hi, hi], y=[0, int(counts.max())], fill_alpha=0.2, color="orange"
        )
    if summary.get("mean") is not None:
        plot.line(x=[summary["mean"]] * 2, y=[0, int(counts.max())], color="orange", line_width=2)
    plot.xaxis.axis_label = "score (orange: mean and its 95% CI)"
    plot.yaxis.axis_label = "items"
    return plot


def met_rates(criteria: list[dict[str, Any]]) -> Any | None:
    """Binary criteria: MET rate with its 95% Wilson interval."""
    rows = []
    for c in criteria:
        dist = c["distribution"]
        met, unmet = dist.get("MET", 0), dist.get("UNMET", 0)
        if c["kind"] == "binary" and met + unmet > 0:
            lo, hi = wilson(met, met + unmet)
            rows.append((c["name"], met / (met + unmet), lo, hi, met + unmet))
    if not rows:
        return None
    names = [r[0] for r in rows][::-1]
    source = ColumnDataSource(
        {
            "name": [r[0] for r in rows],
            "rate": [r[1] for r in rows],
            "lo": [r[2] for r in rows],
            "hi": [r[3] for r in rows],
            "n": [r[4] for r in rows],
        }
    )
    plot = _figure(
        "MET rate per binary criterion (95% Wilson CI)",
        60 + 32 * len(rows),
        y_range=names,
        x_range=(0, 1),
    )
    plot.hbar(source=source, y="name", right="rate", height=0.6, color="#4a78b5")
    plot.add_layout(Whisker(source=source, base="name", lower="lo", upper="hi", dimension="width"))
    plot.add_tools(
        HoverTool(
            tooltips=[
                ("criterion", "@name"),
                ("MET rate", "@rate{0.000}"),
                ("95% CI", "@lo{0.000}–@hi{0.000}"),
                ("n", "@n"),
            ]
        )
    )
    return plot


def option_shares(criterion: Criterion, summary: dict[str, Any]) -> Any | None:
    """A multi-choice criterion: the share of each option (95% Wilson CIs)."""
    dist = summary["distribution"]
    total = sum(dist.values())
    if total == 0 or criterion.options is None:
        return None
    labels = [o.label for o in criterion.options]
    labels += [label for label in dist if label not in labels]
    counts = [dist.get(label, 0) for label in labels]
    intervals = [wilson(k, total) for k in counts]
    source = ColumnDataSource(
        {
            "label": labels,
            "share": [k / total for k in counts],
            "lo": [i[0] for i in intervals],
            "hi": [i[1] for i in intervals],
            "count": counts,
        }
    )
    title = f"{criterion.name} ({criterion.kind}): option shares, 95% Wilson CI"
    plot = _figure(title, 60 + 30 * len(labels), y_range=labels[::-1], x_range=(0, 1))
    plot.hbar(source=source, y="label", right="share", height=0.6, color="#6a9f58")
    plot.add_layout(Whisker(source=source, base="label", lower="lo", upper="hi", dimension="width"))
    plot.add_tools(
        HoverTool(tooltips=[("option", "@label"), ("share", "@share{0.000}"), ("items", "@count")])
    )
    return plot


def _heatmap(
    title: str,
    rows: list[str],
    cols: list[str],
    values: list[list[float | None]],
    mapper: LinearColorMapper,
    value_name: str,
) -> Any:
    xs, ys, vs, text = [], [], [], []
    for row, row_values in zip(rows, values, strict=True):
        for col, value in zip(cols, row_values, strict=True):
            xs.append(col)
            ys.append(row)
            vs.append(np.nan if value is None else value)
            text.append(
                "n/a"
                if value is None
                else (f"{value:.2f}" if isinstance(value, float) else str(value))
            )
    source = ColumnDataSource({"x": xs, "y": ys, "v": vs, "t": text})
    size = max(len(rows), len(cols))
    plot = _figure(title, 90 + 44 * len(rows), x_range=cols, y_range=rows[::-1])
    plot.width = min(WIDTH, 160 + 60 * size)
    plot.rect(
        source=source,
        x="x",
        y="y",
        width=1,
        height=1,
        fill_color={"field": "v", "transform": mapper},
        line_color="white",
    )
    plot.text(
        source=source,
        x="x",
        y="y",
        text="t",
        text_align="center",
        text_baseline="middle",
        text_font_size="11px",
    )
    plot.add_layout(ColorBar(color_mapper=mapper, width=8), "right")
    plot.add_tools(HoverTool(tooltips=[("", "@y / @x"), (value_name, "@t")]))
    plot.xaxis.major_label_orientation = 0.6
    return plot


def agreement_heatmap(agreement: dict[str, Any], judge_ids: list[str]) -> Any | None:
    """Judge × judge Cohen's kappa, averaged over the criteria where it is defined."""
    if len(judge_ids) < 2:
        return None
    matrix: list[list[float | None]] = []
    for a in judge_ids:
        row: list[float | None] = []
        for b in judge_ids:
            if a == b:
                row.append(1.0)
                continue
            values = []
            for c in agreement["criteria"]:
                pairs = c["pairwise_cohen_kappa"]
                value = pairs.get(f"{a}|{b}", pairs.get(f"{b}|{a}"))
                if value is not None:
                    values.append(value)
            row.append(float(np.mean(values)) if values else None)
        matrix.append(row)
    mapper = LinearColorMapper(palette=RdBu11[::-1], low=-1, high=1, nan_color="#dddddd")
    title = "Judge–judge agreement: Cohen's κ, mean over criteria"
    return _heatmap(title, judge_ids, judge_ids, matrix, mapper, "κ")


def confusion_matrix(block: dict[str, Any], who: str) -> Any | None:
    """Rows: ground truth; columns: the prediction."""
    confusion = block.get("confusion")
    if not confusion or not any(any(row) for row in confusion):
        return None
    labels = [str(label) for label in block["labels"]]
    high = max(max(row) for row in confusion) or 1
    mapper = LinearColorMapper(palette=Blues256[::-1], low=0, high=high)
    title = f"{block['name']}: truth (rows) × {who} (columns), n={block['n']}"
    return _heatmap(title, labels, [f"{label} " for label in labels], confusion, mapper, "items")


def score_vs_truth(scores: np.ndarray, truth: np.ndarray, seed: int) -> Any | None:
    """The ensemble's item score against the score of the ground-truth labels."""
    keep = ~(np.isnan(scores) | np.isnan(truth))
    x, y = truth[keep], scores[keep]
    if x.size == 0:
        return None
    title = f"Score vs ground-truth score ({x.size:,} items)"
    if x.size > SCATTER_CAP:
        pick = np.random.default_rng(seed).choice(x.size, SCATTER_CAP, replace=False)
        x, y = x[pick], y[pick]
        title = (
            "Score vs ground-truth score "
            f"(a random sample of {SCATTER_CAP:,} of {int(keep.sum()):,})"
        )
    plot = _figure(title, 360)
    plot.scatter(x=x, y=y, size=6, alpha=0.5, color="#4a78b5")
    low = float(min(x.min(), y.min(), 0.0))
    high = float(max(x.max(), y.max(), 1.0))
    plot.line(x=[low, high], y=[low, high], color="gray", line_dash="dashed")
    plot.xaxis.axis_label = "ground-truth score"
    plot.yaxis.axis_label = "ensemble score"
    return plot
