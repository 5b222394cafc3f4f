"""`autorubric plan DIR --detect D`: paired items a comparison needs (no judge calls)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from autorubric_cli.cli.guard import guarded
from autorubric_cli.cli.options import ClusterOpt


class PlanFormat(StrEnum):
    table = "table"
    json = "json"


def plan(
    directory: Annotated[Path, typer.Argument(help="A finished run (the pilot).")],
    detect: Annotated[
        float, typer.Option("--detect", metavar="D", help="Change of the mean score to detect.")
    ],
    power: Annotated[float, typer.Option("--power", help="Power of the comparison.")] = 0.8,
    alpha: Annotated[float, typer.Option("--alpha", help="Two-sided significance level.")] = 0.05,
    cluster: ClusterOpt = None,
    correlation: Annotated[
        float | None,
        typer.Option(
            "--correlation",
            metavar="R",
            help="Correlation of item scores between the two runs (default 0.5).",
        ),
    ] = None,
    from_compare: Annotated[
        Path | None,
        typer.Option(
            "--from-compare",
            metavar="FILE",
            help="Take sigma_d from a compare --format json file's paired differences.",
        ),
    ] = None,
    format: Annotated[
        PlanFormat, typer.Option("--format", "-f", help="Output format.")
    ] = PlanFormat.table,
) -> None:
    """How many paired items a comparison with this run needs to detect a change of D."""

    from autorubric_cli.cli.plan_body import run_plan

    def body() -> int:
        options = (detect, power, alpha, cluster, correlation, from_compare)
        return run_plan(directory, options, format.value)

    guarded(body)
