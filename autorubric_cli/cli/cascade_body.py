"""The body of `cascade calibrate`: calibrate, render, write the HTML page."""

from __future__ import annotations

import sys
from pathlib import Path

from autorubric_cli.cli.finish import wide_console
from autorubric_cli.core.json_model import to_json
from autorubric_cli.report.calibrate import calibrate_experiments, render_calibration_table
from autorubric_cli.report.html.calibrate_page import render_calibration_html

CALIBRATE_HTML = "calibrate.html"


def run_calibrate(first: Path, then: Path, target: float, fmt: str, output: Path | None) -> int:
    calibration = calibrate_experiments(first, then, target)
    if fmt == "json":
        sys.stdout.write(to_json(calibration).decode() + "\n")
    elif fmt == "html":
        path = output or then / CALIBRATE_HTML
        path.write_text(render_calibration_html(calibration), encoding="utf-8")
        print(path)
    else:
        render_calibration_table(calibration, wide_console())
    return 0
