"""`autorubric cascade calibrate`: choose a cascade's threshold from two finished runs."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from autorubric_cli.cli.guard import guarded
from autorubric_cli.cli.help_style import PlainHelpCommand, PlainHelpGroup


class CalibrateAgainst(StrEnum):
    then = "then"
    labels = "labels"


class CalibrateFormat(StrEnum):
    table = "table"
    json = "json"
    html = "html"


cascade_app = typer.Typer(
    cls=PlainHelpGroup,
    no_args_is_help=True,
    help="Judge cascades: cheap judges first, strong ones where they disagree.",
)


@cascade_app.command("calibrate", cls=PlainHelpCommand)
def calibrate(
    first: Annotated[Path, typer.Argument(help="A finished run of the cascade's first judges.")],
    then: Annotated[Path, typer.Argument(help="A finished run of its then judges, same items.")],
    target_agreement: Annotated[
        float,
        typer.Option(
            "--target-agreement",
            help="Agreement to reach, in [0, 1]: with the then judges, or with the labels "
            "(--against labels).",
        ),
    ] = 0.95,
    per_criterion: Annotated[
        bool,
        typer.Option(
            "--per-criterion",
            help="Fit one threshold per criterion (greedily, by cost saved per point of "
            "agreement lost) instead of one for all.",
        ),
    ] = False,
    against: Annotated[
        CalibrateAgainst,
        typer.Option(
            "--against",
            help="What the target is agreement with: the then judges' outcomes, or the ground "
            "truth and human labels.",
        ),
    ] = CalibrateAgainst.then,
    format: Annotated[
        CalibrateFormat, typer.Option("--format", "-f", help="Output format.")
    ] = CalibrateFormat.table,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="--format html: the file (THEN/calibrate.html)."),
    ] = None,
) -> None:
    """Replay the cascade at every threshold (no judge call): escalation rate, agreement, cost;
    recommend the cheapest threshold (or, with --per-criterion, set of thresholds) that reaches
    the target agreement."""
    from autorubric_cli.cli.cascade_body import CalibrateRequest, run_calibrate

    request = CalibrateRequest(
        first, then, target_agreement, per_criterion, against.value, format.value, output
    )
    guarded(lambda: run_calibrate(request))
