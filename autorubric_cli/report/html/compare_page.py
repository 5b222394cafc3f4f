"""`compare BASE NEW --format html`: the SPEC §12 comparison object as one self-contained page."""

from __future__ import annotations

from typing import Any

from autorubric_cli import __version__
from autorubric_cli.report.html.page import asset, bokeh_script, environment
from autorubric_cli.report.html.plots import Spec

# Colours that mean what they say: better is green, worse is red, no change is grey.
CHANGE_COLORS = {"improved": "#1e7d32", "regressed": "#b3261e", "unchanged": "#8a929e"}


def change_color(diff: float) -> str:
    key = "improved" if diff > 0 else "regressed" if diff < 0 else "unchanged"
    return CHANGE_COLORS[key]


def criteria_diffs(compare: dict[str, Any]) -> Spec | None:
    """new − base per criterion with a defined difference (MET rate or mean option value)."""
    rows = [c for c in compare["criteria"] if c.get("diff") is not None]
    if not rows:
        return None
    return {
        "kind": "hbar",
        "title": "new − base per criterion",
        "labels": [c["name"] for c in rows],
        "values": [c["diff"] for c in rows],
        "lo": [c["diff"] for c in rows],
        "hi": [c["diff"] for c in rows],
        "n": [c.get("n") for c in rows],
        "value_name": "difference",
        "colors": [change_color(c["diff"]) for c in rows],
        "whiskers": False,
        "x_range": [-1, 1],
    }


def item_changes(compare: dict[str, Any]) -> Spec | None:
    score = compare["score"]
    labels = ["improved", "regressed", "unchanged"]
    counts = [int(score.get(k) or 0) for k in labels]
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
        "colors": [CHANGE_COLORS[k] for k in labels],
        "whiskers": False,
    }


def render_compare_html(compare: dict[str, Any]) -> str:
    """The page for one SPEC §12 comparison object (as `compare --format json` prints it)."""
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
