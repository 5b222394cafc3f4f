"""What `run` and `resume` export, from their flags and the environment, checked before the run:
traces with `--otel` or `AUTORUBRIC_OTEL=1`, an MLflow run with `--mlflow`."""

from __future__ import annotations

import contextlib
import os
from contextlib import AbstractContextManager

from autorubric_cli.export.extras import require_extra

OTEL_ENV = "AUTORUBRIC_OTEL"


def otel_wanted(flag: bool) -> bool:
    return flag or os.environ.get(OTEL_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def run_exports(otel: bool, mlflow: bool) -> AbstractContextManager[object]:
    """The tracing of the session (or nothing); an InputError now when an extra is missing."""
    if mlflow:
        require_extra("mlflow", "--mlflow")
    if not otel_wanted(otel):
        return contextlib.nullcontext()
    require_extra("otel", "--otel" if otel else f"{OTEL_ENV}=1")
    from autorubric_cli.export.otel import otel_tracing  # opentelemetry: an optional extra

    return otel_tracing()
