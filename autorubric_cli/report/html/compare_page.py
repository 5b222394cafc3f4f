"""`compare BASE NEW --format html`: the docs/guides/compare.md comparison object as one
self-contained page."""

from __future__ import annotations

from autorubric_cli import __version__
from autorubric_cli.report.compare_words import compare_lines
from autorubric_cli.report.html.page import asset, bokeh_script, environment
from autorubric_cli.report.html.plots import Spec
from autorubric_cli.report.models_compare import CompareResult
from autorubric_cli.report.render_compare import item_criteria_line

# Colours that mean what they say: better is green, worse is red, no change is grey.
CHANGE_COLORS = {"improved": "#1e7d32", "regressed": "#b3261e", "unchanged": "#8a929e"}


TIE = 5e-4  # a difference that prints as ±0.000 is no change


def change(diff: float | None, weight: float | None = None) -> str:
    """improved | regressed | unchanged, for the score: a penalty criterion (negative weight)
    whose MET rate or value goes up has made the score worse."""
    if diff is None or abs(diff) < TIE:
        return "unchanged"
    better = diff > 0 if (weight is None or weight >= 0) else diff < 0
    return "improved" if better else "regressed"


def criteria_diffs(compare: CompareResult) -> Spec | None:
    """new − base per criterion with a defined difference (MET rate or mean option value)."""
    rows = [c for c in compare.criteria if c.diff is not None]
    if not rows:
        return None
    return {
        "kind": "hbar",
        "title": "new − base per criterion (green: better for the score, red: worse)",
        "labels": [c.name for c in rows],
        "values": [c.diff for c in rows],
        "lo": [c.diff for c in rows],
        "hi": [c.diff for c in rows],
        "n": [c.n for c in rows],
        "value_name": "difference",
        "colors": [CHANGE_COLORS[change(c.diff, c.weight)] for c in rows],
        "whiskers": False,
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
        "colors": [CHANGE_COLORS[k] for k in labels],
        "whiskers": False,
    }


def render_compare_html(compare: CompareResult) -> str:
    """The page for one docs/guides/compare.md comparison."""
    figures = {"items": item_changes(compare), "criteria": criteria_diffs(compare)}
    plots = {name: spec for name, spec in figures.items() if spec is not None}
    return (
        environment()
        .get_template("compare.html.j2")
        .render(
            c=compare,
            plots=plots,
            change=change,
            bokeh_js=bokeh_script(),
            css=asset("report.css"),
            plots_js=asset("plots.js"),
            version=__version__,
            power_lines=compare_lines(compare),
            item_criteria_line=item_criteria_line(compare),
        )
    )
