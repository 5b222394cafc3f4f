"""`autorubric compare BASE NEW`: the paired comparison and its gate (docs/guides/compare.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from autorubric_cli.cli.guard import guarded
from autorubric_cli.cli.options import (
    Alpha,
    ClusterOpt,
    CompareFormat,
    FailOnRegression,
    Junit,
    MaxDrop,
)


def compare(
    base: Annotated[Path, typer.Argument(help="BASE experiment directory (e.g. main).")],
    new: Annotated[Path, typer.Argument(help="NEW experiment directory (the change).")],
    format: Annotated[
        CompareFormat, typer.Option("--format", "-f", help="Output format.")
    ] = CompareFormat.table,
    max_drop: MaxDrop = None,
    fail_on_regression: FailOnRegression = False,
    alpha: Alpha = 0.05,
    junit: Junit = None,
    ca_mode: Annotated[
        str,
        typer.Option(
            "--ca-mode",
            metavar="MODE",
            help="How CANNOT_ASSESS/NA count in the comparison. "
            "One of: exclude, as_unmet, as_category.",
        ),
    ] = "exclude",
    top: Annotated[int, typer.Option("--top", min=0, help="Items that moved most to list.")] = 10,
    seed: Annotated[
        int | None, typer.Option("--seed", min=0, help="Bootstrap seed (default: BASE's seed).")
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="--format html: write here (default NEW/compare.html)."
        ),
    ] = None,
    cluster: ClusterOpt = None,
) -> None:
    """Paired comparison of two experiments on the same items (no judge calls), with a gate."""

    from autorubric_cli.cli.compare_body import run_compare
    from autorubric_cli.report.compare_options import CompareOptions

    def body() -> int:
        options = CompareOptions(max_drop, fail_on_regression, alpha, ca_mode, top, seed, cluster)
        return run_compare(base, new, options, format.value, junit, output)

    guarded(body)
