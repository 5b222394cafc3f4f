"""The body of `cascade calibrate`: calibrate, render, write the HTML page."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from autorubric_cli.cli.finish import wide_console
from autorubric_cli.core.json_model import to_json
from autorubric_cli.grading.threshold_fit import Against
from autorubric_cli.report.calibrate import calibrate_experiments, render_calibration_table
from autorubric_cli.report.html.calibrate_page import render_calibration_html

CALIBRATE_HTML = "calibrate.html"


@dataclass(frozen=True)
class CalibrateRequest:
    """The command's arguments."""

    first: Path
    then: Path
    target: float
    per_criterion: bool
    against: Against
    format: str
    output: Path | None


def run_calibrate(request: CalibrateRequest) -> int:
    calibration = calibrate_experiments(
        request.first,
        request.then,
        request.target,
        per_criterion=request.per_criterion,
        against=request.against,
    )
    if request.format == "json":
        sys.stdout.write(to_json(calibration).decode() + "\n")
    elif request.format == "html":
        path = request.output or request.then / CALIBRATE_HTML
        path.write_text(render_calibration_html(calibration), encoding="utf-8")
        print(path)
    else:
        render_calibration_table(calibration, wide_console())
    return 0
