"""`autorubric export mlflow` and `run/resume --mlflow`: log an experiment as an MLflow run."""

from __future__ import annotations

import sys
from pathlib import Path

from autorubric_cli.errors import EXIT_OK
from autorubric_cli.export.extras import require_extra
from autorubric_cli.judges.litellm_env import offline_litellm_environment


def run_mlflow_export(
    directory: Path, tracking_uri: str | None = None, experiment_name: str | None = None
) -> int:
    """Export, then say which run (on stderr: stdout keeps the report)."""
    offline_litellm_environment()  # MLflow imports litellm (to price traces): never its fetch
    require_extra("mlflow", "export mlflow")
    from autorubric_cli.export.mlflow_run import export_mlflow  # mlflow: an optional extra

    done = export_mlflow(directory, tracking_uri, experiment_name)
    verb = "created" if done.created else "updated"
    print(
        f"autorubric: mlflow run {done.run_id} {verb} "
        f"(experiment {done.experiment_id}, {done.tracking_uri})",
        file=sys.stderr,
    )
    return EXIT_OK
