"""`autorubric plan`: plan, render, exit 0."""

from __future__ import annotations

import sys
from pathlib import Path

from autorubric_cli.core.json_model import to_json
from autorubric_cli.report.plan import PlanOptions, plan_comparison
from autorubric_cli.report.plan_text import render_plan_text


def run_plan(
    directory: Path,
    options: tuple[float, float, float, str | None, float | None, Path | None],
    fmt: str,
) -> int:
    result = plan_comparison(directory, PlanOptions(*options))
    if fmt == "json":
        sys.stdout.write(to_json(result).decode() + "\n")
    else:
        sys.stdout.write(render_plan_text(result))
    return 0
