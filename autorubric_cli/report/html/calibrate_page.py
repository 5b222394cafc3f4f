"""The HTML page of `cascade calibrate --format html`: the thresholds table and a plot of
the cascade's cost against its agreement with the `then` judges (BokehJS, as the report)."""

from __future__ import annotations

from autorubric_cli import __version__
from autorubric_cli.report.calibrate import (
    FIT_HEADER,
    HEADER,
    Calibration,
    calibration_rows,
    fit_rows,
)
from autorubric_cli.report.calibrate import recommendation_line as recommendation
from autorubric_cli.report.html.plots import Spec
from autorubric_cli.report.html.templating import asset, bokeh_script, environment


def cost_vs_agreement(calibration: Calibration) -> Spec | None:
    """One point per threshold: x the cost (its share of the all-`then` cost when priced, else
    the escalation rate), y the agreement with the `then` judges; joined in threshold order."""
    entries = [e for e in calibration.thresholds if e.agreement_with_then is not None]
    priced = all(e.cost_ratio is not None for e in entries)
    x = [(e.cost_ratio if priced else e.escalation_rate) or 0.0 for e in entries]
    if not entries:
        return None
    return {
        "kind": "scatter",
        "title": "Agreement with the then judges against cost, one point per threshold",
        "x": x,
        "y": [e.agreement_with_then for e in entries],
        "connect": True,
        "xlabel": "cost / all-then cost" if priced else "escalation rate (no judge cost to plot)",
        "ylabel": "agreement with then",
    }


def render_calibration_html(calibration: Calibration) -> str:
    spec = cost_vs_agreement(calibration)
    return (
        environment()
        .get_template("calibrate.html.j2")
        .render(
            c=calibration,
            header=HEADER,
            rows=calibration_rows(calibration),
            fit_header=FIT_HEADER,
            fit_rows=fit_rows(calibration.per_criterion or []),
            recommendation=recommendation(calibration),
            plots={} if spec is None else {"cost": spec},
            bokeh_js=bokeh_script(),
            css=asset("report.css"),
            plots_js=asset("plots.js"),
            version=__version__,
        )
    )
