"""`autorubric export mlflow DIR`: an experiment in another tool (docs/guides/tracing.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from autorubric_cli.cli.guard import guarded
from autorubric_cli.cli.help_style import PlainHelpCommand, PlainHelpGroup

export_app = typer.Typer(
    cls=PlainHelpGroup, no_args_is_help=True, help="Send an experiment to another tool."
)


@export_app.command("mlflow", cls=PlainHelpCommand)
def mlflow(
    directory: Annotated[Path, typer.Argument(metavar="DIR", help="Experiment directory.")],
    tracking_uri: Annotated[
        str | None,
        typer.Option("--tracking-uri", help="MLflow tracking URI (default: MLflow's own)."),
    ] = None,
    experiment: Annotated[
        str | None,
        typer.Option("--experiment", help="MLflow experiment name (default: MLflow's own)."),
    ] = None,
) -> None:
    """Log a finished or interrupted experiment as one MLflow run; again: the same run."""
    from autorubric_cli.cli.export_body import run_mlflow_export

    guarded(lambda: run_mlflow_export(directory, tracking_uri, experiment))
