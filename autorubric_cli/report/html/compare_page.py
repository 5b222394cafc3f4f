"""`compare BASE NEW --format html`: the SPEC §12 comparison object as one self-contained page."""

from __future__ import annotations

from autorubric_cli import __version__
from autorubric_cli.report.html.page import asset, bokeh_script, environment
from autorubric_cli.report.html.plots import Spec
from autorubric_cli.report.models_compare import CompareResult


def criteria_diffs(compare: CompareResult) -> Spec | None:
    """new − base per criterion with a defined difference (MET rate or mean option value)."""
    rows = [c for c in compare.criteria if c.diff is not None]
    if not rows:
        return None
    return {
        "kind": "hbar",
        "title": "new − base per criterion",
        "labels": [c.name for c in rows],
        "values": [c.diff for c in rows],
        "lo": [c.diff for c in rows],
        "hi": [c.diff for c in rows],
        "n": [c.n for c in rows],
        "value_name": "difference",
        "color": "#4a78b5",
        "x_range": [-1, 1],
    }


def item_changes(compare: CompareResult) -> Spec | None:
    score = compare.score
    labels = ["improved", "regressed", "unchanged"]
    counts = [score.improved, score.regressed, score.unchanged]
    total = sum(counts)
    if total == 0:
        return None
    return {
        "kind": "hbar",
        "title": f"Paired items: improved, regressed, unchanged (n={total:,})",
        "labels": labels,
        "values": [k / total for k in counts],
        "lo": [k / total for k in counts],
        "hi": [k / total for k in counts],
        "n": counts,
        "value_name": "share",
        "color": "#6a9f58",
    }


def render_compare_html(compare: CompareResult) -> str:
    """The page for one SPEC §12 comparison."""
    figures = {"items": item_changes(compare), "criteria": criteria_diffs(compare)}
    plots = {name: spec for name, spec in figures.items() if spec is not None}
    return (
        environment()
        .get_template("compare.html.j2")
        .render(
            c=compare,
            plots=plots,
            bokeh_js=bokeh_script(),
            css=asset("report.css"),
            plots_js=asset("plots.js"),
            version=__version__,
        )
    )
