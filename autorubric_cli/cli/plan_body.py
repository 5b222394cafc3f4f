"""`autorubric plan`: plan, render, exit 0."""

from __future__ import annotations

import sys
from pathlib import Path

from autorubric_cli import report
from autorubric_cli.core.json_model import to_json


def run_plan(
    directory: Path,
    options: tuple[float, float, float, str | None, float | None, Path | None],
    fmt: str,
) -> int:
    result = report.plan_comparison(directory, report.PlanOptions(*options))
    if fmt == "json":
        sys.stdout.write(to_json(result).decode() + "\n")
    else:
        sys.stdout.write(report.render_plan_text(result))
    return 0
